/**
 * `fleetbench start <spec> [--stack <name>] [--region <r>] [--name <n>] [--no-follow]`: checks the
 * spec here with the Plan step's own code (nothing is started when it would be refused), starts the
 * deployed state machine with the input the console takes (`{"spec": ...}`), then follows the
 * execution state by state until it ends: exit 0 SUCCEEDED, 1 FAILED / TIMED_OUT / ABORTED.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { S3Store } from '../../aws/s3-store';
import { withResolvedBindings } from '../../local/binding-artifacts';
import type { Command } from 'commander';
import { SfnExecutions } from '../../aws/sfn-executions';
import { InputError } from '../../core/common/errors';
import {
  EXECUTION_NAME,
  MAX_INPUT_BYTES,
  ProgressPrinter,
  TERMINAL_STATUSES,
  defaultExecutionName,
  nextPollMs,
  startInput,
  type ExecutionInfo,
} from '../../core/pipeline';
import { parseSpecText } from '../../core/spec';
import { addAwsOptions, clientConfig, stackOutputs, type AwsOptions } from '../aws-stack';
import { checkAsPlanWould } from '../plan-check';
import { loadSpecFile, printWarnings } from '../spec-file';
import { kindOf } from '../../core/targets/registry';
import { choosePriceBook } from '../price-book';

/**
 * Every custom binding's jars under s3://<results bucket>/bindings/<sha-256 of the jar>/<name>: Maven
 * coordinates resolved and file:// jars placed in withResolvedBindings' one walk (lib/local/binding-artifacts.ts);
 * s3:// jars kept as given. The keys depend on the jars' bytes only, so the spec can be checked with the URIs the
 * upload will give before anything is uploaded (`upload: false`), and the upload then gives the same spec.
 */
async function placeBindings(
  raw: unknown,
  bucket: string,
  o: AwsOptions & { upload: boolean },
): Promise<unknown> {
  const store = new S3Store(`s3://${bucket}`, { clientConfig: clientConfig(o) });
  return withResolvedBindings(raw, async (file) => {
    const key = `bindings/${createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16)}/${path.basename(file)}`;
    if (o.upload) await store.putFile(key, file);
    return store.uriOf(key);
  });
}

interface StartOptions extends AwsOptions {
  name?: string;
  follow: boolean;
}

export function register(program: Command): void {
  addAwsOptions(
    program
      .command('start')
      .description('start a run on the deployed stack and follow it state by state until it ends')
      .argument('<spec>', 'run spec JSON file')
      .option('--name <name>', 'execution name; the run id derives from it (default: <spec name>-<UTC time>)')
      .option('--no-follow', 'print the execution ARN and run id, and return'),
  ).action(async (file: string, o: StartOptions) => {
    const { spec, warnings } = loadSpecFile(file);
    printWarnings(warnings);
    const name = o.name ?? defaultExecutionName(spec.name, Date.now());
    if (!EXECUTION_NAME.test(name))
      throw new InputError([
        { path: '--name', message: `expected 1-80 letters, digits, "-" or "_", found "${name}"` },
      ]);
    const outputs = await stackOutputs(o);
    // a user's binding: its Maven coordinates resolved and its local jars uploaded where the loaders read them
    const parsed = parseSpecText(readFileSync(file, 'utf8'), file);
    const userBinding = spec.targets.some((t) => kindOf(t).userBinding?.(t) !== undefined);
    // the jars' URIs as the upload will give them; uploaded only once Plan's checks have passed
    const raw = userBinding
      ? await placeBindings(parsed, outputs.get('ResultsBucket'), { ...o, upload: false })
      : parsed;
    const input = startInput(raw);
    if (Buffer.byteLength(input) > MAX_INPUT_BYTES)
      throw new InputError([
        {
          path: file,
          message: `the execution input would be ${Buffer.byteLength(input)} bytes; Step Functions takes at most ${MAX_INPUT_BYTES}`,
        },
      ]);
    // the Plan step's checks, with the stack's region (a spec naming another one is refused here) and the
    // price book Plan will choose: the newest for the region among the bucket's refreshed books and the built-in
    // (its stale/region warnings are Plan's to record with the run, as for every plan warning)
    const bucket = outputs.find('ResultsBucket');
    const prices = await choosePriceBook(outputs.region ?? spec.region, {
      ...(bucket ? { store: new S3Store(`s3://${bucket}`, { clientConfig: clientConfig(o) }) } : {}),
    });
    const runId = await checkAsPlanWould(raw, name, outputs.region, { priceBooks: prices.refreshed });
    if (userBinding) await placeBindings(parsed, outputs.get('ResultsBucket'), { ...o, upload: true });

    const machine = outputs.get('StateMachineArn');
    const executions = new SfnExecutions(clientConfig(o));
    const arn = await executions.start(machine, name, input);
    const out = (s: string) => process.stdout.write(s + '\n');
    out(`started ${arn}`);
    out(`run id ${runId}`);
    if (!o.follow) {
      out(
        `follow it with: fleetbench status ${runId}${o.stack !== 'Fleetbench' ? ` --stack ${o.stack}` : ''}`,
      );
      return;
    }
    const onSig = () => {
      process.stderr.write(`\nstopped following; the run goes on: fleetbench status ${arn}\n`);
      process.exit(130);
    };
    process.once('SIGINT', onSig);
    let info: ExecutionInfo;
    try {
      info = await follow(executions, arn, out);
    } finally {
      process.off('SIGINT', onSig);
    }
    if (info.status === 'SUCCEEDED') {
      out(
        `run ${runId} SUCCEEDED; results: fleetbench results ${runId}${o.stack !== 'Fleetbench' ? ` --stack ${o.stack}` : ''}`,
      );
      return;
    }
    process.stderr.write(
      `run ${runId} ${info.status}${info.error ? `: ${info.error}` : ''}${info.cause ? `: ${info.cause}` : ''}\n`,
    );
    process.exitCode = 1;
  });
}

/** Prints new history events as they come, polling adaptively, until the execution ends. */
export async function follow(
  executions: SfnExecutions,
  executionArn: string,
  out: (line: string) => void,
  poll: { minMs?: number; maxMs?: number } = {},
): Promise<ExecutionInfo> {
  const min = poll.minMs ?? 1000;
  const max = poll.maxMs ?? 30_000;
  const printer = new ProgressPrinter();
  let lastId = 0;
  let wait = min;
  for (;;) {
    const events = await executions.eventsSince(executionArn, lastId);
    for (const line of printer.lines(events)) out(line);
    if (events.length) lastId = events[events.length - 1]!.id;
    const ended = events.some((e) => /^Execution(Succeeded|Failed|Aborted|TimedOut)$/.test(e.type));
    if (ended || events.length === 0) {
      const info = await executions.describe(executionArn);
      if (!info) throw new Error(`execution ${executionArn} disappeared`);
      if (TERMINAL_STATUSES.has(info.status)) {
        if (!ended) {
          const rest = await executions.eventsSince(executionArn, lastId);
          for (const line of printer.lines(rest)) out(line);
        }
        return info;
      }
    }
    wait = nextPollMs(wait, events.length > 0, min, max);
    await new Promise((r) => setTimeout(r, wait));
  }
}
