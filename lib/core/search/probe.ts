/**
 * The SLO search's probe sequence (docs/slo-search.md): which rate the next probe of a search runs, from the
 * verdicts of the probes before it, and the most probes a search can take (what Plan bounds cost, duration and
 * the Step Functions history budget by).
 *
 * The rates lie on a ramp from the start: start, start·g, start·g², … (g the ramp factor), the last one capped at
 * the upper bound. The first probe is the ramp rate the search starts from (the start, or, for a DynamoDB target,
 * the highest ramp rate at or below the capacity model's predicted limit); while probes pass the search climbs the
 * ramp, while they fail it steps down it, and once a passing rate lies below a failing one it bisects between the
 * two (the midpoint, rounded down to whole ops/s) until they are at most the resolution apart. The answer is the
 * highest passing rate; none when the lowest rate (the start) fails; the upper bound when it passes.
 *
 * The same exponential-then-bisection scheme as PerfKitBenchmarker's YCSB dynamic load
 * (https://github.com/GoogleCloudPlatform/PerfKitBenchmarker/blob/master/perfkitbenchmarker/linux_packages/ycsb.py)
 * and NoSQLBench's findmax, with the bracket edges on one ramp so that the worst case does not depend on where the
 * prediction starts the search.
 */

/** The search's rates, as the spec gives them (ops/s for the whole fleet). */
export interface SearchBounds {
  startOpsPerSec: number;
  maxOpsPerSec: number;
  resolutionOpsPerSec: number;
  rampFactor: number;
}

/** A finished probe: the rate it ran and whether it met the SLO and the conditions. */
export interface ProbeOutcome {
  rateOpsPerSec: number;
  pass: boolean;
}

export type ProbeStep =
  | { rate: number }
  | {
      done: {
        /** the highest passing rate; null when the start already fails */
        foundOpsPerSec: number | null;
        /** the first failing rate above it; null when none failed (the upper bound passed) */
        failedOpsPerSec: number | null;
        /** why the search stopped */
        reason: 'converged' | 'upper-bound-passes' | 'start-fails';
      };
    };

/** The ramp's rates: start·g^k, whole ops/s, increasing, the last one the upper bound. */
export function rampRates(b: SearchBounds): number[] {
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const r = Math.min(Math.floor(b.startOpsPerSec * b.rampFactor ** k), b.maxOpsPerSec);
    if (out.length === 0 || r > out[out.length - 1]!) out.push(r);
    if (r >= b.maxOpsPerSec) return out;
  }
}

/** The ramp index the search starts from: the highest ramp rate at or below `predicted` (0 without one). */
export function startIndex(b: SearchBounds, predictedOpsPerSec: number | null | undefined): number {
  if (predictedOpsPerSec === null || predictedOpsPerSec === undefined || !Number.isFinite(predictedOpsPerSec))
    return 0;
  const ramp = rampRates(b);
  let k = 0;
  while (k + 1 < ramp.length && ramp[k + 1]! <= predictedOpsPerSec) k++;
  return k;
}

/** The bracket the outcomes leave: the highest passing rate and the lowest failing one. */
function bracket(outcomes: readonly ProbeOutcome[]): { lo: number | null; hi: number | null } {
  let lo: number | null = null;
  let hi: number | null = null;
  for (const o of outcomes) {
    if (o.pass) lo = lo === null ? o.rateOpsPerSec : Math.max(lo, o.rateOpsPerSec);
    else hi = hi === null ? o.rateOpsPerSec : Math.min(hi, o.rateOpsPerSec);
  }
  return { lo, hi };
}

/** The next step from a bracket (pure; the ramp passed in so a caller computing many steps builds it once). */
function stepFrom(
  b: SearchBounds,
  ramp: readonly number[],
  first: number,
  lo: number | null,
  hi: number | null,
): ProbeStep {
  if (lo === null && hi === null) return { rate: ramp[first]! };
  if (hi === null) {
    const next = ramp.find((r) => r > lo!);
    return next === undefined
      ? { done: { foundOpsPerSec: lo, failedOpsPerSec: null, reason: 'upper-bound-passes' } }
      : { rate: next };
  }
  if (lo === null) {
    const below = ramp.filter((r) => r < hi);
    return below.length === 0
      ? { done: { foundOpsPerSec: null, failedOpsPerSec: hi, reason: 'start-fails' } }
      : { rate: below[below.length - 1]! };
  }
  if (hi - lo <= b.resolutionOpsPerSec)
    return { done: { foundOpsPerSec: lo, failedOpsPerSec: hi, reason: 'converged' } };
  return { rate: Math.floor((lo + hi) / 2) };
}

/**
 * The next probe of a search from the outcomes of its probes so far (in the order they ran): a rate to run, or
 * the answer. `predictedOpsPerSec` (the capacity model's limit, DynamoDB) picks the first probe (startIndex).
 */
export function nextProbe(
  b: SearchBounds,
  outcomes: readonly ProbeOutcome[],
  predictedOpsPerSec?: number | null,
): ProbeStep {
  const { lo, hi } = bracket(outcomes);
  return stepFrom(b, rampRates(b), startIndex(b, predictedOpsPerSec), lo, hi);
}

/** Probes bisection takes at most to narrow a bracket `width` wide to the resolution. */
function bisectionProbes(width: number, resolution: number, memo: Map<number, number>): number {
  if (width <= resolution) return 0;
  const known = memo.get(width);
  if (known !== undefined) return known;
  // mid = floor((lo + hi) / 2): the lower half is floor(width / 2) wide at most, the upper ceil(width / 2)
  const n = 1 + bisectionProbes(Math.ceil(width / 2), resolution, memo);
  memo.set(width, n);
  return n;
}

/**
 * The most probes a search can take from the given start (every pass/fail outcome walked: the ramp states, then
 * the bisection by width), or over every start the prediction may pick when `first` is omitted.
 */
export function worstCaseProbes(b: SearchBounds, first?: number): number {
  const ramp = rampRates(b);
  const memo = new Map<number, number>();
  const walk = (lo: number | null, hi: number | null): number => {
    if (lo !== null && hi !== null) return bisectionProbes(hi - lo, b.resolutionOpsPerSec, memo);
    const s = stepFrom(b, ramp, first ?? 0, lo, hi);
    if ('done' in s) return 0;
    return 1 + Math.max(walk(s.rate, hi), walk(lo, s.rate));
  };
  if (first !== undefined) return walk(null, null);
  let most = 0;
  for (let k = 0; k < ramp.length; k++) most = Math.max(most, worstCaseProbes(b, k));
  return most;
}

/**
 * Whether a cell id is a probe's (`<target>.<distribution>.r<read>.probe<k>`, lib/core/spec/workload.ts rateSteps):
 * its rate is decided at run time, so the same id is not the same cell from one run to the next.
 */
export function isProbeCellId(cellId: string): boolean {
  return PROBE_CELL_ID.test(cellId);
}

/** A probe's cell id suffix (also the named queries' SQL pattern, lib/core/pipeline/named-queries.ts). */
export const PROBE_CELL_ID = /\.probe\d+$/;
