import { Command, CommanderError } from 'commander';
import { InputError } from '../core/errors';
import { awsProblem } from './aws-problem';
import * as validate from './commands/validate';
import * as plan from './commands/plan';
import * as schema from './commands/schema';
import * as demo from './commands/demo';
import * as cost from './commands/cost';
import * as aggregate from './commands/aggregate';
import * as query from './commands/query';
import * as run from './commands/run';
import * as regressions from './commands/regressions';
import * as history from './commands/history';
import * as start from './commands/start';
import * as status from './commands/status';
import * as results from './commands/results';
import * as idleCost from './commands/idle-cost';
import * as doctor from './commands/doctor';

/** Exit codes: 0 success, 2 invalid input, 1 internal error. */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_INPUT = 2;

export function buildProgram(): Command {
  const program = new Command('fleetbench')
    .description('Benchmark NoSQL databases with YCSB fleets: validate, plan, run and analyse.')
    .exitOverride()
    .showHelpAfterError();
  // Each command module registers itself; add new commands to this list.
  for (const mod of [validate, plan, schema, demo, cost, aggregate, query, run, regressions, history])
    mod.register(program);
  for (const mod of [start, status, results, doctor, idleCost]) mod.register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    process.exitCode = exitCodeFor(err);
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // help and version are successes; bad flags are input errors (commander already printed them)
    return err.exitCode === 0 ? EXIT_OK : EXIT_INPUT;
  }
  if (err instanceof InputError) {
    process.stderr.write(err.message + '\n');
    return EXIT_INPUT;
  }
  const aws = awsProblem(err); // missing region, credentials or permissions: one line, as `doctor` says it
  if (aws) {
    process.stderr.write(aws + '\n');
    return EXIT_INPUT;
  }
  const e = err as Error;
  process.stderr.write(`internal error: ${e?.stack ?? String(err)}\n`);
  return EXIT_INTERNAL;
}
