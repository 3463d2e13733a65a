import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { EXECUTION_NAME, cellKey, readPlan, type CellResult } from '../../core/pipeline';
import { headlineOf } from '../../core/contract/headline';
import { FRONTIER_HEADERS, SUMMARY_HEADERS, frontierRows, summaryRows } from '../../core/results/run-summary';
import { cellsNotSkipped, frontierKey } from '../../core/pipeline/probe';
import { readOptional } from '../../core/pipeline/keys';
import { FsStore } from '../../local/fs-store';
import { runLocal, type LocalRunResult } from '../../local/runner';
import { loadSpecFile, printWarnings } from '../spec-file';
import { table } from '../table';
import { DEFAULT_RESULTS_DIR } from './query';

export function register(program: Command): void {
  program
    .command('run')
    .description(
      'run a spec end to end; --local runs the state machine here against DynamoDB Local with real YCSB',
    )
    .argument('<spec>', 'run spec JSON file')
    .option('--local', 'run on this machine (no AWS account needed)')
    .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
    .option('--name <name>', 'execution name (the run id is derived from it)')
    .action(async (file: string, opts: { local?: boolean; results: string; name?: string }) => {
      if (!opts.local)
        throw new InputError([
          {
            path: '--local',
            message:
              'only local runs start from here; on AWS start the deployed state machine (see README "Deploy")',
          },
        ]);
      // an execution name, as `start` takes it (Step Functions' rule; the run id derives from it)
      if (opts.name !== undefined && !EXECUTION_NAME.test(opts.name))
        throw new InputError([
          { path: '--name', message: `expected 1-80 letters, digits, "-" or "_", found "${opts.name}"` },
        ]);
      const { spec, warnings } = loadSpecFile(file);
      printWarnings(warnings);
      // runLocal refuses, before anything starts or is written, what the local mode cannot run, what the Plan step
      // would refuse, a --results that is not a directory and a run id that is already taken
      const result = await runLocalWithSignals({
        spec,
        resultsDir: opts.results,
        ...(opts.name ? { runName: opts.name } : {}),
      });
      process.exitCode = result.status === 'SUCCEEDED' ? 0 : 1;
    });
}

/** Runs locally with Ctrl-C wired to an orderly abort (teardown), and prints the summary. */
export async function runLocalWithSignals(o: Parameters<typeof runLocal>[0]): Promise<LocalRunResult> {
  const controller = new AbortController();
  let signals = 0;
  const onSig = (sig: NodeJS.Signals) => {
    if (++signals > 1) {
      // the second: at once, without teardown (DynamoDB Local's exit hook kills it; a local agent whose output pipe
      // closes ends at its next line, and its own exit hook kills its JVMs)
      process.stderr.write('stopping at once, without teardown\n');
      process.exit(sig === 'SIGINT' ? 130 : 143);
    }
    process.stderr.write('\nstopping: tearing down (Ctrl-C again to force)\n');
    controller.abort();
  };
  process.on('SIGINT', onSig);
  process.on('SIGTERM', onSig);
  const started = Date.now();
  try {
    const result = await runLocal({ ...o, signal: controller.signal });
    process.stdout.write(await summary(result));
    process.stdout.write(`\n${result.status} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (result.error)
      process.stdout.write(` — ${result.error}${result.failedState ? ` (state ${result.failedState})` : ''}`);
    process.stdout.write('\n');
    // what the failure policy did (lib/core/pipeline/cell-failure.ts): retries, cells recorded incomplete
    for (const line of result.cellFailures ?? []) process.stdout.write(`cell failure: ${line}\n`);
    if (result.reportFile)
      process.stdout.write(`report: ${path.relative(process.cwd(), result.reportFile)}\n`);
    process.stdout.write(
      `results: ${path.relative(process.cwd(), result.resultsDir) || '.'} (fleetbench query --results ${path.relative(process.cwd(), result.resultsDir) || '.'} "SELECT * FROM cells")\n`,
    );
    return result;
  } finally {
    process.off('SIGINT', onSig);
    process.off('SIGTERM', onSig);
  }
}

async function summary(result: LocalRunResult): Promise<string> {
  const store = new FsStore(result.resultsDir);
  let plan;
  try {
    plan = await readPlan(store, result.runId);
  } catch {
    return '';
  }
  const rows: string[][] = [];
  // probes an SLO search skipped ran nothing: not listed
  for (const cell of await cellsNotSkipped(store, result.runId, plan.cells)) {
    let r: CellResult | undefined;
    try {
      r = JSON.parse(
        readFileSync(
          path.join(result.resultsDir, ...cellKey(result.runId, cell.id, 'result.json').split('/')),
          'utf8',
        ),
      ) as CellResult;
    } catch {
      r = undefined;
    }
    if (!r) {
      rows.push([
        cell.id,
        cell.target,
        cell.distributionLabel,
        String(cell.readProportion),
        cell.targetOpsPerSec.toLocaleString('en-US'),
        'not run',
        ...Array<string>(SUMMARY_HEADERS.length - 6).fill(''),
      ]);
      continue;
    }
    rows.push(summaryRows([headlineOf(r.row)])[0]!);
  }
  const frontier: Record<string, unknown>[] = [];
  for (const s of plan.searches ?? []) {
    const row = await readOptional(store, frontierKey(result.runId, s.id));
    if (row) frontier.push(row as Record<string, unknown>);
  }
  return (
    '\n' +
    table([...SUMMARY_HEADERS], rows) +
    (frontier.length ? '\nSLO searches\n' + table([...FRONTIER_HEADERS], frontierRows(frontier)) : '')
  );
}
