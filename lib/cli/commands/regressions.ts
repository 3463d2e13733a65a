/**
 * `fleetbench regressions (--dir <results> | --local [--results <dir>]) [--spec <name>] [--metric <id,...>]
 * [--all] [--json]`: change points over the history of every spec × target × cell × metric in a directory
 * of `cells` rows (JSON lines). With a results root (`<dir>/tables/cells/...`), run start times come from
 * `<dir>/tables/runs/...` when present; otherwise every `*.jsonl` below `--dir` is read as cells rows.
 * `--local` reads the local results directory `fleetbench run --local` writes. Incomplete cells are left
 * out (a missing run for that cell), as the pipeline's DetectRegressions step does. A spec's newest A/A
 * calibration (`<dir>/noise/spec_name=<spec>/*.json`, written by an A/A run's DetectRegressions step)
 * sets each calibrated series' minMagnitude unless `--min-magnitude` is given, and the report lists
 * those noise bands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { fromJsonLines, type LocatedRow } from '../../core/results/rows';
import { DEFAULT_RESULTS_DIR } from './query';
import {
  AnalyzeOptions,
  Change,
  NewestVerdict,
  NoiseCalibration,
  SeriesAnalysis,
  SeriesKey,
  analyzeAll,
  buildSeries,
  calibratedMinMagnitude,
  isSeriesRow,
  NEWEST_MIN_HISTORY,
  readLatestNoise,
  resolveOptions,
} from '../../core/regression';
import { FsStore } from '../../local/fs-store';

interface RegressionsOptions {
  dir?: string;
  local?: boolean;
  results?: string;
  spec?: string;
  metric?: string;
  window?: string;
  maxP?: string;
  minMagnitude?: string;
  minSegment?: string;
  all?: boolean;
  json?: boolean;
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Reads JSON lines; every bad line is reported as file:line. */
export function readJsonLines(files: readonly string[]): LocatedRow[] {
  return fromJsonLines(files.map((file) => ({ text: fs.readFileSync(file, 'utf8'), source: file })));
}

export function loadTables(dir: string): { cells: LocatedRow[]; runStarts: Map<string, number> } {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new InputError([{ path: dir, message: 'expected a directory of cells rows (JSON lines)' }]);
  }
  const cellsDir = path.join(dir, 'tables', 'cells');
  const runsDir = path.join(dir, 'tables', 'runs');
  const isRoot = fs.existsSync(cellsDir);
  const cells = readJsonLines(jsonlFiles(isRoot ? cellsDir : dir)).filter((c) => isSeriesRow(c.row));
  const runStarts = new Map<string, number>();
  if (isRoot && fs.existsSync(runsDir)) {
    for (const { row } of readJsonLines(jsonlFiles(runsDir))) {
      if (typeof row.run_id === 'string' && typeof row.started_at_ms === 'number') {
        runStarts.set(row.run_id, row.started_at_ms);
      }
    }
  }
  if (cells.length === 0) {
    throw new InputError([
      { path: dir, message: 'no cells rows found (*.jsonl files, one JSON object per line)' },
    ]);
  }
  return { cells, runStarts };
}

/** The directory to read: `--dir`, or with `--local` the local results directory. */
export function historyDir(o: { dir?: string; local?: boolean; results?: string }): string {
  if (o.local && o.dir !== undefined) {
    throw new InputError([
      { path: '--dir', message: 'give either --dir <path> or --local [--results <dir>], not both' },
    ]);
  }
  if (o.local) {
    const dir = o.results ?? DEFAULT_RESULTS_DIR;
    if (!fs.existsSync(path.join(dir, 'tables', 'cells'))) {
      throw new InputError([
        {
          path: '--results',
          message: `no local results in ${dir} (expected ${path.join(dir, 'tables', 'cells')}; run \`fleetbench run <spec> --local\` first)`,
        },
      ]);
    }
    return dir;
  }
  if (o.dir === undefined) {
    throw new InputError([
      { path: '--dir', message: 'expected --dir <results root or directory of cells rows>, or --local' },
    ]);
  }
  return o.dir;
}

function num(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n))
    throw new InputError([{ path: flag, message: `expected a number, got "${v}"` }]);
  return n;
}

const FLAGS: Record<string, string> = {
  window: '--window',
  maxPValue: '--max-p',
  minMagnitude: '--min-magnitude',
  minSegment: '--min-segment',
};

function flagOptions(o: RegressionsOptions): ReturnType<typeof resolveOptions> {
  try {
    return resolveOptions({
      window: num('--window', o.window),
      maxPValue: num('--max-p', o.maxP),
      minMagnitude: num('--min-magnitude', o.minMagnitude),
      minSegment: num('--min-segment', o.minSegment),
    });
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(e.issues.map((i) => ({ path: FLAGS[i.path] ?? i.path, message: i.message })));
  }
}

/** A series analysed with an A/A calibration's threshold, and the noise measured for it. */
export interface NoiseBand {
  key: SeriesKey;
  /** the A/A run measured */
  runId: string;
  n: number;
  mean: number;
  std: number;
  cv: number;
  /** the threshold the series was analysed with (factor × cv) */
  minMagnitude: number;
}

export interface RegressionsDocument {
  options: ReturnType<typeof resolveOptions>;
  series: number;
  changes: Change[];
  suspects: (NewestVerdict & { key: SeriesKey })[];
  /** series too short to judge their newest run (fewer earlier runs than the guard needs): not a clean result */
  tooShort: { key: SeriesKey; earlierRuns: number }[];
  /** calibrated series (A/A runs), with the threshold used */
  noise: NoiseBand[];
}

export function regressionsDocument(
  analyses: readonly SeriesAnalysis[],
  all: boolean,
  options: AnalyzeOptions,
  calibrations: readonly NoiseCalibration[] = [],
): RegressionsDocument {
  const noise: NoiseBand[] = [];
  for (const a of analyses.filter((x) => x.calibrated)) {
    const c = calibrations.find((x) => x.specName === a.key.spec);
    const s = c?.series.find(
      (x) => x.target === a.key.target && x.cell === a.key.cell && x.metric === a.key.metric,
    );
    if (!c || !s || s.cv === null) continue;
    noise.push({
      key: a.key,
      runId: c.runId,
      n: s.n,
      mean: s.mean,
      std: s.std,
      cv: s.cv,
      minMagnitude: a.minMagnitude,
    });
  }
  return {
    options: resolveOptions(options.detect),
    series: analyses.length,
    changes: analyses.flatMap((a) => a.changes).filter((c) => all || c.confirmed),
    suspects: analyses.filter((a) => a.newest.status === 'suspect').map((a) => ({ key: a.key, ...a.newest })),
    tooShort: analyses
      .filter((a) => a.newest.status === 'insufficient-history')
      .map((a) => ({ key: a.key, earlierRuns: a.newest.n })),
    noise,
  };
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3));
const pct = (x: number) =>
  Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%` : `${x > 0 ? '+' : '-'}∞`;
const id = (k: SeriesKey) => `${k.spec}/${k.target}/${k.cell} ${k.metric}`;

function text(doc: RegressionsDocument): string {
  const lines: string[] = [];
  if (doc.noise.length) {
    lines.push('Noise bands (A/A runs; each series is analysed with min magnitude = factor × CV):');
    for (const n of doc.noise) {
      lines.push(
        `  ${id(n.key)}: ${fmt(n.mean)} ± ${fmt(n.std)} (CV ${(n.cv * 100).toFixed(2)}%, ${n.n} repeats in run ` +
          `${n.runId}) -> min magnitude ${(n.minMagnitude * 100).toFixed(2)}%`,
      );
    }
  }
  for (const c of doc.changes) {
    lines.push(
      `${id(c.key)}: ${fmt(c.meanBefore)} --> ${fmt(c.meanAfter)} (${pct(c.forwardChange)}) ${c.kind} ` +
        `from run ${c.runId}${c.confirmed ? '' : ' (unconfirmed)'}, p=${c.pValue.toExponential(1)}`,
    );
  }
  for (const s of doc.suspects) {
    lines.push(
      `${id(s.key)}: newest run ${s.runId} is suspect: ${fmt(s.value!)} vs ${fmt(s.mean!)} ` +
        `(${pct(s.relChange!)}), outside [${fmt(s.lower!)}, ${fmt(s.upper!)}]${s.regression ? ' — worse' : ' — better'}`,
    );
  }
  const regressions = doc.changes.filter((c) => c.kind === 'regression').length;
  lines.push(
    regressions || doc.suspects.length
      ? `${regressions} regression(s), ${doc.changes.length - regressions} improvement(s), ${doc.suspects.length} suspect newest run(s) in ${doc.series} series`
      : `No regressions found in ${doc.series} series`,
  );
  // a short history is not a clean one: say how many series could not be judged
  if (doc.tooShort.length) {
    const most = Math.max(...doc.tooShort.map((s) => s.earlierRuns));
    lines.push(
      `${doc.tooShort.length} of them too short to judge the newest run (at most ${most} earlier run(s); ` +
        `the newest-run check needs ${NEWEST_MIN_HISTORY}): no verdict for those yet`,
    );
  }
  return lines.join('\n') + '\n';
}

export function register(program: Command): void {
  program
    .command('regressions')
    .description('List change points (regressions and improvements) over the history of each metric')
    .option('--dir <path>', 'results root or directory of cells rows (JSON lines)')
    .option('--local', 'read the local results directory (what `fleetbench run --local` writes)')
    .option('--results <dir>', `local results directory for --local (default ${DEFAULT_RESULTS_DIR})`)
    .option('--spec <name>', 'only this spec')
    .option('--metric <ids>', 'comma-separated metric ids (default: all)')
    .option('--window <n>', 'points per window (default 50)')
    .option('--max-p <p>', 'largest accepted p-value (default 0.001)')
    .option(
      '--min-magnitude <f>',
      "smallest relative change, 0.05 = 5% (default: the spec's A/A calibration per series, else 0.05)",
    )
    .option('--min-segment <n>', 'fewest runs in a regime (default 3)')
    .option('--all', 'include change points not yet confirmed')
    .option('--json', 'print JSON')
    .action(async (o: RegressionsOptions) => {
      const detect = flagOptions(o);
      const dir = historyDir(o);
      const { cells, runStarts } = loadTables(dir);
      const series = buildSeries(
        cells.map((c) => c.row),
        {
          spec: o.spec,
          runStarts,
          where: (i) => cells[i].where,
          ...(o.metric ? { metrics: o.metric.split(',').map((s) => s.trim()) } : {}),
        },
      );
      if (o.spec !== undefined && series.length === 0) {
        throw new InputError([{ path: '--spec', message: `no cells rows for spec "${o.spec}" in ${dir}` }]);
      }
      // each spec's newest A/A calibration, unless --min-magnitude fixes the threshold
      const calibrations: NoiseCalibration[] = [];
      if (o.minMagnitude === undefined && fs.existsSync(path.join(dir, 'noise'))) {
        const store = new FsStore(dir);
        for (const spec of new Set(series.map((s) => s.key.spec))) {
          const c = await readLatestNoise(store, spec);
          if (c) calibrations.push(c);
        }
      }
      const bySpec = new Map(calibrations.map((c) => [c.specName, calibratedMinMagnitude(c)]));
      const options: AnalyzeOptions = { detect, minMagnitudeFor: (key) => bySpec.get(key.spec)?.(key) };
      const doc = regressionsDocument(analyzeAll(series, options), Boolean(o.all), options, calibrations);
      if (o.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
      else process.stdout.write(text(doc));
    });
}
