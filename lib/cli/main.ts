import { Command, CommanderError, Help } from 'commander';
import { InputError } from '../core/common/errors';
import { awsProblem } from './aws-problem';

/** Exit codes: 0 success, 2 invalid input or a machine the command cannot work on (AWS credentials, Maven), 1 internal
 * error (3: `compare --fail-on` threshold broken). */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_INPUT = 2;

/** A command's module: it registers the command (its options, arguments and action) on the program. */
type CommandModule = { register(program: Command): void };

/**
 * Every command, in help order, by name: its module is loaded only when that command runs, so `--help` and
 * `validate` do not load the AWS SDK, DuckDB or the CDK. Add new commands here.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- require(): loaded when called, from the bundle and
   from the sources (tsx, ts-jest) alike */
const COMMANDS: Record<string, () => CommandModule> = {
  validate: () => require('./commands/validate') as CommandModule,
  plan: () => require('./commands/plan') as CommandModule,
  schema: () => require('./commands/schema') as CommandModule,
  demo: () => require('./commands/demo') as CommandModule,
  cost: () => require('./commands/cost') as CommandModule,
  aggregate: () => require('./commands/aggregate') as CommandModule,
  query: () => require('./commands/query') as CommandModule,
  run: () => require('./commands/run') as CommandModule,
  regressions: () => require('./commands/regressions') as CommandModule,
  history: () => require('./commands/history') as CommandModule,
  compare: () => require('./commands/compare') as CommandModule,
  start: () => require('./commands/start') as CommandModule,
  resume: () => require('./commands/resume') as CommandModule,
  status: () => require('./commands/status') as CommandModule,
  results: () => require('./commands/results') as CommandModule,
  doctor: () => require('./commands/doctor') as CommandModule,
  'idle-cost': () => require('./commands/idle-cost') as CommandModule,
  prices: () => require('./commands/prices') as CommandModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** What the program's help lists for a command, so help needs no command's code (the bundle's commands.json). */
export interface CommandInfo {
  name: string;
  term: string;
  description: string;
}

function newProgram(): Command {
  return new Command('fleetbench')
    .description('Benchmark NoSQL databases with YCSB fleets: validate, plan, run and analyse.')
    .exitOverride()
    .showHelpAfterError();
}

/** The program with every command registered (loads every command's code). */
export async function buildProgram(): Promise<Command> {
  const program = newProgram();
  for (const load of Object.values(COMMANDS)) load().register(program);
  return program;
}

/** Each command's help line, from the commands themselves (bin/build-cli.js writes it next to the bundle). */
export async function commandManifest(): Promise<CommandInfo[]> {
  const program = await buildProgram();
  const help = program.createHelp();
  return program.commands.map((c) => ({
    name: c.name(),
    term: help.subcommandTerm(c),
    description: help.subcommandDescription(c),
  }));
}

/**
 * The program for `argv`: the named command's module only; for anything else (help, an unknown command) the
 * commands as `commands` lists them, or every command's module when there is no list (running from sources).
 */
async function programFor(argv: string[], commands?: CommandInfo[]): Promise<Command> {
  const name = argv[0] === 'help' ? argv[1] : argv[0];
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load) {
    const program = newProgram();
    load().register(program);
    return program;
  }
  if (!commands) return buildProgram();
  const program = newProgram();
  const terms = new Map(commands.map((c) => [c.name, c.term]));
  for (const c of commands) program.command(c.name).description(c.description);
  const help = new Help();
  return program.configureHelp({ subcommandTerm: (c) => terms.get(c.name()) ?? help.subcommandTerm(c) });
}

export async function main(argv: string[], options: { commands?: CommandInfo[] } = {}): Promise<void> {
  try {
    const program = await programFor(argv, options.commands);
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
  // the machine cannot build the loader (no Maven or JDK, no access to Maven Central): what Maven said, not a stack
  // (by name: lib/build/maven.ts is loaded only by the commands that build)
  if (e?.name === 'LoaderBuildError') {
    process.stderr.write(`cannot build the loader (YCSB, its bindings, DynamoDB Local): ${e.message}\n`);
    return EXIT_INPUT;
  }
  process.stderr.write(`internal error: ${e?.stack ?? String(err)}\n`);
  return EXIT_INTERNAL;
}
