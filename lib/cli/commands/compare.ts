/**
 * `fleetbench compare <run> <baseline> [--results <dir> | --stack <name>] [--json] [--fail-on <thresholds>]`:
 * per matching cell, the change of good throughput, intended P50/P99/P99.9 and monthly cost with a 95 %
 * interval (a seeded block bootstrap over the cells' interval histograms) and a verdict. With `--fail-on`
 * the exit code is 3 when a threshold is broken, and 4 when nothing was compared (no cell of both runs with an
 * interval on a gated metric), so a CI job can gate on it.
 */
import type { Command } from 'commander';
import { S3Store } from '../../aws/s3-store';
import { AthenaResults } from '../../aws/athena-results';
import { InputError } from '../../core/common/errors';
import { contextKey, type RunContext } from '../../core/pipeline/context';
import {
  cellFlags,
  COMPARE_METRICS,
  compareRuns,
  failures,
  parseFailOn,
  type FailOn,
  pctText,
  type Comparison,
  type RunSide,
} from '../../core/report/compare';
import { sideFromQuery, sideFromStore } from '../../core/report/compare-data';
import { NotFoundError, type ObjectStore } from '../../core/common/store';
import { fmtNum } from '../../core/report/svg';
import { FsStore } from '../../local/fs-store';
import { clientConfig, stackOutputs } from '../aws-stack';
import { table } from '../table';
import { DEFAULT_RESULTS_DIR } from './query';

/** The exit code of a comparison that breaks a `--fail-on` threshold. */
export const EXIT_THRESHOLD = 3;

/**
 * The exit code of a `--fail-on` comparison that compared nothing: a gate that checked no cell must not pass a
 * build (two runs sharing no cell, every shared cell incomplete or without an interval on the gated metrics).
 */
export const EXIT_NOTHING_COMPARED = 4;

/**
 * Why a `--fail-on` gate checked nothing, or null when it checked a cell: a cell counts when it is in both runs,
 * complete, and has an interval on at least one gated metric (a cell without one gets no `worse` verdict).
 */
export function nothingCompared(c: Comparison, thresholds: readonly FailOn[]): string | null {
  const metrics = [...new Set(thresholds.map((t) => t.metric))];
  const interval = (cell: Comparison['cells'][number]) =>
    cell.metrics.some((m) => metrics.includes(m.metric) && m.ci !== null);
  if (c.cells.some((cell) => !cell.incomplete && interval(cell))) return null;
  const incomplete = c.cells.filter((cell) => cell.incomplete).length;
  return (
    `no cell compared on ${metrics.join(', ')}: ${c.cells.length} cell(s) in both runs ` +
    `(${incomplete} incomplete, ${c.cells.length - incomplete} without an interval), ` +
    `${c.onlyInRun.length} only in ${c.runId}, ${c.onlyInBaseline.length} only in ${c.baselineId}`
  );
}

/** `--fail-on`'s thresholds; an empty one is refused (a gate with no threshold would pass every build). */
function thresholdsOf(failOn: string | undefined): FailOn[] {
  if (failOn === undefined) return [];
  if (!failOn.trim())
    throw new InputError([
      { path: '--fail-on', message: 'empty: expected at least one threshold, e.g. "p99:+10%"' },
    ]);
  return parseFailOn(failOn);
}

interface CompareOptions {
  results?: string;
  stack?: string;
  region?: string;
  json?: boolean;
  failOn?: string;
  resamples: string;
  seed: string;
}

const RUN_ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

function checkRunId(id: string, what: string): void {
  if (!RUN_ID.test(id))
    throw new InputError([
      { path: what, message: `expected a run id (lower-case letters, digits and "-"), found "${id}"` },
    ]);
}

function integer(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isInteger(n))
    throw new InputError([{ path: what, message: `expected an integer, found "${text}"` }]);
  return n;
}

export function register(program: Command): void {
  program
    .command('compare')
    .description('compare a run with a baseline run: per cell, changes with 95 % intervals and a verdict')
    .argument('<run>', 'the run id')
    .argument('<baseline>', "the baseline's run id")
    .option('--results <dir>', `local results directory (default ${DEFAULT_RESULTS_DIR})`)
    .option('--stack <name>', 'the deployed stack: its Athena tables and results bucket')
    .option('--region <region>', 'AWS region for --stack (default: from AWS_REGION or the profile)')
    .option('--json', 'print JSON (a verdict per metric and cell)')
    .option(
      '--fail-on <thresholds>',
      'e.g. "p99:+10%,throughput:-5%": exit 3 when a cell is significantly worse by more',
    )
    .option('--resamples <n>', 'bootstrap replicates', '1000')
    .option('--seed <n>', 'bootstrap seed (the same seed gives the same intervals)', '31')
    .action(async (runId: string, baselineId: string, o: CompareOptions) => {
      checkRunId(runId, 'run');
      checkRunId(baselineId, 'baseline');
      if (o.results && o.stack)
        throw new InputError([{ path: '--results', message: 'give --results or --stack, not both' }]);
      const thresholds = thresholdsOf(o.failOn);
      const [run, baseline] = o.stack
        ? await fromStack(o, runId, baselineId)
        : await fromDir(o, runId, baselineId);
      const c = compareRuns(run, baseline, {
        resamples: integer(o.resamples, '--resamples'),
        seed: integer(o.seed, '--seed'),
      });
      const broken = failures(c, thresholds);
      const nothing = thresholds.length ? nothingCompared(c, thresholds) : null;
      process.stdout.write(
        o.json
          ? JSON.stringify(
              { ...c, failures: broken, ...(nothing ? { nothingCompared: nothing } : {}) },
              null,
              2,
            ) + '\n'
          : comparisonText(c, broken),
      );
      if (nothing) process.stderr.write(`--fail-on: ${nothing}\n`);
      if (broken.length) process.exitCode = EXIT_THRESHOLD;
      else if (nothing) process.exitCode = EXIT_NOTHING_COMPARED;
    });
}

async function fromDir(o: CompareOptions, runId: string, baselineId: string): Promise<[RunSide, RunSide]> {
  const store = new FsStore(o.results ?? DEFAULT_RESULTS_DIR);
  return [await sideFromStore(store, runId), await sideFromStore(store, baselineId)];
}

async function specNameOf(store: ObjectStore, runId: string, what: string): Promise<string> {
  let context: unknown;
  try {
    context = await store.getJson(contextKey(runId));
  } catch (err) {
    if (err instanceof NotFoundError)
      throw new InputError([{ path: what, message: `no run ${runId} in ${store.uriOf(contextKey(runId))}` }]);
    throw err;
  }
  // only the spec name is needed: the partition of the run's rows
  const name = (context as Partial<RunContext> | null)?.specName;
  if (typeof name !== 'string')
    throw new InputError([{ path: what, message: `${store.uriOf(contextKey(runId))} has no specName` }]);
  return name;
}

async function fromStack(o: CompareOptions, runId: string, baselineId: string): Promise<[RunSide, RunSide]> {
  const aws = { stack: o.stack!, ...(o.region ? { region: o.region } : {}) };
  const outputs = await stackOutputs(aws);
  const config = clientConfig(aws);
  const store = new S3Store(`s3://${outputs.get('ResultsBucket')}`, { clientConfig: config });
  const athena = new AthenaResults(
    { workGroup: outputs.get('AthenaWorkGroup'), database: outputs.get('GlueDatabase') },
    config,
  );
  const side = async (id: string, what: string) =>
    sideFromQuery(athena, store, { runId: id, specName: await specNameOf(store, id, what) });
  return [await side(runId, 'run'), await side(baselineId, 'baseline')];
}

const value = (v: number | null, unit: string): string =>
  v === null ? '–' : unit === 'USD' ? `$${v.toFixed(2)}` : fmtNum(v);

/** The comparison as text: one table row per cell and metric. */
export function comparisonText(c: Comparison, broken: readonly string[] = []): string {
  const head =
    `run ${c.runId} vs baseline ${c.baselineId}: ${c.method.kind} over the status intervals, ` +
    `${c.method.resamples} resamples, seed ${c.method.seed}, 95 % intervals\n\n`;
  const rows = c.cells.flatMap((cell) =>
    cell.metrics.map((m) => {
      const def = COMPARE_METRICS.find((d) => d.id === m.metric)!;
      return [
        cell.cellId,
        `${def.label} (${def.unit})`,
        value(m.baseline, m.unit),
        value(m.run, m.unit),
        m.change === null ? '–' : pctText(m.change),
        m.ci ? `${pctText(m.ci[0])} … ${pctText(m.ci[1])}` : '–',
        m.verdict,
      ];
    }),
  );
  const lines = [
    head + table(['cell', 'metric', 'baseline', 'run', 'change', '95 % interval', 'verdict'], rows),
  ];
  if (c.onlyInRun.length) lines.push(`only in ${c.runId}: ${c.onlyInRun.join(', ')}\n`);
  if (c.onlyInBaseline.length) lines.push(`only in ${c.baselineId}: ${c.onlyInBaseline.join(', ')}\n`);
  lines.push(...cellFlags(c).map((f) => `${f}\n`));
  for (const b of broken) lines.push(`FAIL ${b}\n`);
  return lines.join('');
}
