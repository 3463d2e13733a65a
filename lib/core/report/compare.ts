/**
 * Run against baseline (issue #31): per matching cell, the relative change of good throughput, intended
 * P50/P99/P99.9 and monthly cost, each with a 95 % confidence interval and a verdict.
 *
 * The interval is a seeded moving-block bootstrap over the cells' measured-window buckets (one bucket per
 * status interval; lib/core/results/buckets.ts): each replicate draws blocks of consecutive buckets (circular,
 * length ⌈n^(1/3)⌉, so the autocorrelation within a block is kept) from each run independently, merges the
 * drawn buckets' histograms and recomputes the statistic; the interval is the 2.5 and 97.5 percentiles of the
 * replicates' change. Percentiles are taken from merged histograms, never averaged. docs/report.md says why.
 *
 * Verdict: the interval excludes 0 → `better` or `worse` by the metric's direction; otherwise (or with fewer
 * than MIN_BUCKETS buckets on a side) `no significant difference`. A cell incomplete on either side (a loader's
 * or process's outputs missing: its figures count only what arrived) gets `no verdict` and is left out of
 * `--fail-on`; a suspect cell (a loader above 70 % CPU or behind its schedule) keeps its verdict and is flagged.
 */
import { isProbeCellId } from '../search/probe';
import { Histogram, type SparseHistogram } from '../hdr/histogram';
import { Prng } from '../common/prng';
import type { CellHeadline } from '../contract/headline';
import type { CellBuckets } from '../results/buckets';
import { InputError } from '../common/errors';

export type Verdict = 'better' | 'worse' | 'no significant difference' | 'no verdict';
export type CompareMetric = 'throughput' | 'p50' | 'p99' | 'p999' | 'cost';

export const COMPARE_METRICS: readonly {
  id: CompareMetric;
  label: string;
  unit: string;
  /** +1: higher is better; −1: lower is better */
  direction: 1 | -1;
}[] = [
  { id: 'throughput', label: 'good ops/s', unit: 'ops/s', direction: 1 },
  { id: 'p50', label: 'intended P50', unit: 'µs', direction: -1 },
  { id: 'p99', label: 'intended P99', unit: 'µs', direction: -1 },
  { id: 'p999', label: 'intended P99.9', unit: 'µs', direction: -1 },
  { id: 'cost', label: 'monthly cost', unit: 'USD', direction: -1 },
];

/** Buckets per side below which no interval is given (a bootstrap of 1–3 intervals says nothing). */
export const MIN_BUCKETS = 4;

export interface CompareOptions {
  /** bootstrap replicates (default 1000) */
  resamples?: number;
  /** the PRNG seed: the same inputs and seed give the same intervals (default 31) */
  seed?: number;
  /**
   * Stop bootstrapping after this long (ms): the cells after it get no interval and say why. The Report
   * step's Lambda has minutes, not the hour a large comparison may need; the CLI has no budget.
   */
  budgetMs?: number;
}

/** One side's cell: its headline (cells row) and its window buckets (null: none written). */
export interface SideCell {
  headline: CellHeadline;
  buckets: CellBuckets | null;
}

export interface RunSide {
  runId: string;
  cells: SideCell[];
}

export interface MetricComparison {
  metric: CompareMetric;
  unit: string;
  run: number | null;
  baseline: number | null;
  /** run ÷ baseline − 1 (null: a side has no value) */
  change: number | null;
  /** 95 % interval of the change (null: too few buckets, or no value) */
  ci: [number, number] | null;
  verdict: Verdict;
  /** why there is no interval, or how it was obtained when not by the bootstrap */
  note?: string;
}

export interface CellComparison {
  cellId: string;
  target: string;
  metrics: MetricComparison[];
  /** incomplete on a side (`run: <reason>`, `baseline: <reason>`): no verdict, left out of --fail-on */
  incomplete?: string;
  /** suspect on a side (the cells row's suspect_reason, per side): the verdicts stand, flagged */
  suspect?: string;
}

export interface Comparison {
  runId: string;
  baselineId: string;
  method: { kind: 'moving-block bootstrap'; resamples: number; seed: number; confidence: 0.95 };
  cells: CellComparison[];
  /** cells present in one run only */
  onlyInRun: string[];
  onlyInBaseline: string[];
}

/** The statistics of a set of buckets: good ops/s and intended P50/P99/P99.9 of their merged histogram. */
interface Stats {
  throughput: number | null;
  p50: number | null;
  p99: number | null;
  p999: number | null;
}

/**
 * The layout the bootstrap merges at: 2 significant digits (values within 1 %). The stored buckets are exact
 * (3 digits, as YCSB records); the intervals need no finer steps, and a tenth of the bins makes the
 * replicates' merges about ten times cheaper (`npm run bench:compare`).
 */
const BOOT_LAYOUT = { lowestDiscernibleValue: 1, significantDigits: 2 };

/** A run of consecutive buckets merged: its good operations, the seconds they cover, their histogram. */
interface Merged {
  good: number;
  seconds: number;
  h: SparseHistogram | null;
}

/** The bootstrap's view of one run: each bucket coarsened, and each circular block of L buckets merged. */
interface Prepared {
  n: number;
  L: number;
  buckets: Merged[];
  blocks: Merged[];
}

function coarsen(s: SparseHistogram | null, exact: Map<string, Histogram>, into: Histogram): void {
  if (!s) return;
  const key = `${s.lowest}/${s.digits}`;
  let layout = exact.get(key);
  if (!layout)
    exact.set(
      key,
      (layout = new Histogram({ lowestDiscernibleValue: s.lowest, significantDigits: s.digits })),
    );
  for (let k = 0; k < s.i.length; k++) into.recordValue(layout.valueFromIndex(s.i[k]!), s.c[k]!);
}

function merge(parts: readonly Merged[], scratch: Histogram): Merged {
  scratch.reset();
  let good = 0;
  let seconds = 0;
  for (const p of parts) {
    good += p.good;
    seconds += p.seconds;
    if (p.h) scratch.addSparseCopy(p.h);
  }
  return { good, seconds, h: scratch.totalCount > 0 ? scratch.toSparse() : null };
}

function prepare(c: CellBuckets): Prepared {
  const exact = new Map<string, Histogram>();
  const scratch = new Histogram(BOOT_LAYOUT);
  const buckets = c.buckets.map((b) => {
    scratch.reset();
    coarsen(b.intended, exact, scratch);
    return { good: b.good, seconds: b.seconds, h: scratch.totalCount > 0 ? scratch.toSparse() : null };
  });
  const n = buckets.length;
  const L = Math.max(1, Math.ceil(Math.cbrt(n)));
  const blocks = buckets.map((_, start) =>
    merge(
      Array.from({ length: Math.min(L, n) }, (_, j) => buckets[(start + j) % n]!),
      scratch,
    ),
  );
  return { n, L, buckets, blocks };
}

function statsOf(parts: readonly Merged[], scratch: Histogram): Stats {
  scratch.reset();
  let good = 0;
  let seconds = 0;
  for (const p of parts) {
    good += p.good;
    seconds += p.seconds;
    if (p.h) scratch.addSparseCopy(p.h);
  }
  const [p50, p99, p999] =
    scratch.totalCount > 0 ? scratch.valuesAtPercentiles([50, 99, 99.9]) : [null, null, null];
  return { throughput: seconds > 0 ? good / seconds : null, p50, p99, p999 };
}

/**
 * One replicate of a run: circular moving blocks, ⌈n/L⌉ blocks of L consecutive buckets from uniformly drawn
 * starts, the last one cut so that the replicate has n buckets.
 */
function replicate(p: Prepared, rng: Prng): Merged[] {
  const parts: Merged[] = [];
  let taken = 0;
  while (taken < p.n) {
    const start = rng.below(p.n);
    if (taken + p.L <= p.n) {
      parts.push(p.blocks[start]!);
      taken += p.L;
    } else {
      for (let j = 0; taken < p.n; j++, taken++) parts.push(p.buckets[(start + j) % p.n]!);
    }
  }
  return parts;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

type LatencyOrRate = Exclude<CompareMetric, 'cost'>;
const SAMPLED: readonly LatencyOrRate[] = ['throughput', 'p50', 'p99', 'p999'];

/** The bootstrap intervals of the sampled metrics' change, or null with fewer than MIN_BUCKETS per side. */
function bootstrap(
  run: CellBuckets,
  base: CellBuckets,
  resamples: number,
  rng: Prng,
): Record<LatencyOrRate, [number, number] | null> | null {
  if (run.buckets.length < MIN_BUCKETS || base.buckets.length < MIN_BUCKETS) return null;
  const pr = prepare(run);
  const pb = prepare(base);
  const scratch = new Histogram(BOOT_LAYOUT);
  const changes: Record<LatencyOrRate, number[]> = { throughput: [], p50: [], p99: [], p999: [] };
  for (let r = 0; r < resamples; r++) {
    const a = statsOf(replicate(pr, rng), scratch);
    const b = statsOf(replicate(pb, rng), scratch);
    for (const m of SAMPLED) {
      const x = a[m];
      const y = b[m];
      if (x !== null && y !== null && y > 0) changes[m].push(x / y - 1);
    }
  }
  const ci = {} as Record<LatencyOrRate, [number, number] | null>;
  for (const m of SAMPLED) {
    const sorted = changes[m].sort((x, y) => x - y);
    ci[m] = sorted.length >= resamples * 0.9 ? [quantile(sorted, 0.025), quantile(sorted, 0.975)] : null;
  }
  return ci;
}

function verdictOf(ci: [number, number] | null, direction: 1 | -1): Verdict {
  if (!ci) return 'no significant difference';
  if (ci[0] > 0) return direction > 0 ? 'better' : 'worse';
  if (ci[1] < 0) return direction > 0 ? 'worse' : 'better';
  return 'no significant difference';
}

const change = (run: number | null, base: number | null): number | null =>
  run === null || base === null || base === 0 ? null : run / base - 1;

/**
 * Cost is the cost model's figure at the measured rate, not a sample: equal costs do not differ; costs
 * proportional to the good rate (equal cost per million operations) take the rate's interval; any other change
 * is the model's (exact: its interval is the point).
 */
function costComparison(run: CellHeadline, base: CellHeadline, rate: MetricComparison): MetricComparison {
  const r = run.monthlyCostUsd;
  const b = base.monthlyCostUsd;
  const c = change(r, b);
  const out = { metric: 'cost' as const, unit: 'USD', run: r, baseline: b, change: c };
  if (c === null)
    return { ...out, ci: null, verdict: 'no significant difference', note: 'no cost on a side' };
  if (Math.abs(c) < 1e-12) return { ...out, ci: [0, 0], verdict: 'no significant difference' };
  const perMillionR = run.costPerMillionOpsUsd;
  const perMillionB = base.costPerMillionOpsUsd;
  if (perMillionR !== null && perMillionB !== null && Math.abs(perMillionR / perMillionB - 1) < 1e-9) {
    return {
      ...out,
      ci: rate.ci,
      verdict: verdictOf(rate.ci, -1),
      note: "proportional to the good rate: the rate's interval",
    };
  }
  return { ...out, ci: [c, c], verdict: verdictOf([c, c], -1), note: 'the cost model at the measured rates' };
}

function headlineValue(h: CellHeadline, m: LatencyOrRate): number | null {
  return m === 'throughput'
    ? h.goodOpsPerSec
    : m === 'p50'
      ? h.intendedP50Us
      : m === 'p99'
        ? h.intendedP99Us
        : h.intendedP999Us;
}

/** `run: <reason>; baseline: <reason>` for the sides where `reason` is set, or undefined. */
function perSide(run: string | null, base: string | null): string | undefined {
  const parts = [...(run ? [`run: ${run}`] : []), ...(base ? [`baseline: ${base}`] : [])];
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * A cell incomplete on a side: its figures and their change, but no interval and no verdict (a missing loader's
 * share is missing from its throughput: no regression to judge).
 */
function incompleteCell(run: SideCell, base: SideCell, incomplete: string): CellComparison {
  const note = 'incomplete on a side: no verdict (left out of --fail-on)';
  const metrics: MetricComparison[] = COMPARE_METRICS.map((d) => {
    const rv = d.id === 'cost' ? run.headline.monthlyCostUsd : headlineValue(run.headline, d.id);
    const bv = d.id === 'cost' ? base.headline.monthlyCostUsd : headlineValue(base.headline, d.id);
    return {
      metric: d.id,
      unit: d.unit,
      run: rv,
      baseline: bv,
      change: change(rv, bv),
      ci: null,
      verdict: 'no verdict',
      note,
    };
  });
  return { cellId: run.headline.cellId, target: run.headline.target, metrics, incomplete };
}

function compareCell(
  run: SideCell,
  base: SideCell,
  boot: { resamples: number; rng: Prng; overBudget: boolean },
): CellComparison {
  const suspect = perSide(run.headline.suspectReason, base.headline.suspectReason);
  const incomplete = perSide(run.headline.incompleteReason, base.headline.incompleteReason);
  if (incomplete) return { ...incompleteCell(run, base, incomplete), ...(suspect ? { suspect } : {}) };
  const both = run.buckets && base.buckets && !boot.overBudget;
  const ci = both ? bootstrap(run.buckets!, base.buckets!, boot.resamples, boot.rng) : null;
  const why = boot.overBudget
    ? 'not bootstrapped: over the time budget (fleetbench compare gives every interval)'
    : !run.buckets || !base.buckets
      ? 'no window buckets on a side'
      : `fewer than ${MIN_BUCKETS} intervals on a side`;
  const metrics: MetricComparison[] = COMPARE_METRICS.filter((d) => d.id !== 'cost').map((d) => {
    const m = d.id as LatencyOrRate;
    // the cells row's figure (the report's headline)
    const rv = headlineValue(run.headline, m);
    const bv = headlineValue(base.headline, m);
    const interval = ci?.[m] ?? null;
    return {
      metric: m,
      unit: d.unit,
      run: rv,
      baseline: bv,
      change: change(rv, bv),
      ci: interval,
      verdict: verdictOf(interval, d.direction),
      ...(interval ? {} : { note: ci ? 'no value on a side' : why }),
    };
  });
  metrics.push(costComparison(run.headline, base.headline, metrics[0]!));
  return {
    cellId: run.headline.cellId,
    target: run.headline.target,
    metrics,
    ...(suspect ? { suspect } : {}),
  };
}

export function compareRuns(run: RunSide, baseline: RunSide, options: CompareOptions = {}): Comparison {
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 31;
  if (!Number.isInteger(resamples) || resamples < 100 || resamples > 100_000)
    throw new InputError([
      { path: 'resamples', message: `expected an integer 100..100000, got ${resamples}` },
    ]);
  const rng = new Prng(seed);
  const base = new Map(baseline.cells.map((c) => [pairKey(c.headline), c]));
  const cells: CellComparison[] = [];
  const t0 = Date.now();
  for (const c of run.cells) {
    const b = base.get(pairKey(c.headline));
    // checked after each compared cell: the first always gets its interval (a millisecond's tick before it must not
    // decide), the cells after the budget has passed get none
    const overBudget =
      options.budgetMs !== undefined && cells.length > 0 && Date.now() - t0 > options.budgetMs;
    if (b) cells.push(compareCell(c, b, { resamples, rng, overBudget }));
  }
  const ids = new Set(run.cells.map((c) => pairKey(c.headline)));
  return {
    runId: run.runId,
    baselineId: baseline.runId,
    method: { kind: 'moving-block bootstrap', resamples, seed, confidence: 0.95 },
    cells,
    onlyInRun: run.cells.filter((c) => !base.has(pairKey(c.headline))).map((c) => c.headline.cellId),
    onlyInBaseline: baseline.cells.filter((c) => !ids.has(pairKey(c.headline))).map((c) => c.headline.cellId),
  };
}

/**
 * What pairs a cell with the baseline's: its id; for an SLO search's probe (whose rate is decided at run time) its
 * search and rate, so probes are compared only at the same rate, whichever probe number ran it.
 */
function pairKey(h: { cellId: string; targetOpsPerSec: number }): string {
  return isProbeCellId(h.cellId) ? `${h.cellId.replace(/\.probe\d+$/, '')}@${h.targetOpsPerSec}` : h.cellId;
}

/** A `--fail-on` threshold: fail when the metric changed for the worse, significantly, by more than `limit`. */
export interface FailOn {
  metric: CompareMetric;
  /** the relative change allowed in the bad direction, signed as written (+0.1 for p99, −0.05 for throughput) */
  limit: number;
  text: string;
}

/** Parses `p99:+10%,throughput:-5%`: metric, then the signed change in the metric's bad direction. */
export function parseFailOn(text: string): FailOn[] {
  return text.split(',').map((part) => {
    const m = /^\s*([a-z0-9]+)\s*:\s*([+-])(\d+(?:\.\d+)?)%\s*$/.exec(part);
    const def = m ? COMPARE_METRICS.find((d) => d.id === m[1]) : undefined;
    if (!m || !def)
      throw new InputError([
        {
          path: '--fail-on',
          message:
            `"${part}": expected <metric>:<sign><percent>%, e.g. "p99:+10%" or "throughput:-5%", ` +
            `metric one of ${COMPARE_METRICS.map((d) => d.id).join(', ')}`,
        },
      ]);
    const sign = m[2] === '+' ? 1 : -1;
    if (sign !== -def.direction)
      throw new InputError([
        {
          path: '--fail-on',
          message: `"${part}": ${def.id} gets worse when it ${def.direction > 0 ? 'falls: use "-"' : 'rises: use "+"'}`,
        },
      ]);
    return { metric: def.id, limit: (sign * Number(m[3])) / 100, text: part.trim() };
  });
}

/** The thresholds a comparison breaks: a `worse` verdict with a change beyond the limit (incomplete cells: none). */
export function failures(c: Comparison, thresholds: readonly FailOn[]): string[] {
  const out: string[] = [];
  for (const cell of c.cells)
    for (const t of thresholds) {
      if (cell.incomplete) continue;
      const m = cell.metrics.find((x) => x.metric === t.metric);
      if (!m || m.verdict !== 'worse' || m.change === null) continue;
      if (t.limit > 0 ? m.change > t.limit : m.change < t.limit)
        out.push(`${cell.cellId}: ${t.metric} ${pctText(m.change)} breaks ${t.text}`);
    }
  return out;
}

/** One line per incomplete or suspect cell of a comparison (the text and the report say the same). */
export function cellFlags(c: Comparison): string[] {
  return c.cells.flatMap((cell) => [
    ...(cell.incomplete
      ? [`incomplete: ${cell.cellId} (${cell.incomplete}): no verdict, left out of --fail-on`]
      : []),
    ...(cell.suspect ? [`suspect: ${cell.cellId} (${cell.suspect}): verdicts kept, check the loaders`] : []),
  ]);
}

export function pctText(x: number): string {
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}
