/**
 * E-Divisive means (Matteson & James 2014) as Apache Otava 0.8 implements it for Hunter's algorithm
 * (`otava/change_point_divisive/{calculator,detector}.py`): repeatedly pick, over the segments between the
 * change points found so far, the split with the largest divergence q̂, and keep it while a significance
 * tester accepts it.
 *
 * The candidate search is Otava's (commit a59a3cf, 2025-11, "search over where the second segment
 * ends"): within a segment [s, e), q̂ is maximised over both the split τ and the end κ of the second
 * part, s < τ < κ ≤ e, with X = x[s, τ) (n points) and Y = x[τ, κ) (m points):
 *
 *   Q(τ, κ) = 2/(n+m)·Σ_{X×Y} |x−y| − 2m/((n+m)(n−1))·Σ_{X, i<j} |x_i−x_j| − 2n/((n+m)(m−1))·Σ_{Y, i<j} |y_i−y_j|
 *
 * (a term is 0 when its side is too short). The candidate is τ of the first maximum in (τ, κ) order.
 * Hunter and MongoDB's signal-processing-algorithms fix κ = e, so a single outlier x_t can win as two
 * splits (t and t+1) where Otava's search finds Y = [x_t] alone. The sums are formed in the same order as
 * Otava's numpy code (`_get_Q_vals`: column sums V, row prefix sums H, their cumulative sums), so equal
 * and near-equal q̂ values resolve to the same split.
 */

/** A proposed change point: the first index of the new regime and its q̂. */
export interface Candidate {
  index: number;
  qhat: number;
}

export interface SignificanceTester {
  /**
   * Whether `candidate` is significant given the series and the current segment endpoints
   * ([0, change points..., n], sorted); may record its p-value.
   */
  isSignificant(candidate: Candidate, series: Float64Array, endpoints: readonly number[]): boolean;
}

/**
 * The pairwise distances of one series (a sliding window or the whole series) and the best split of any
 * segment of it. Like Otava's `PairDistanceCalculator`, the column sums V(t) = Σ_{i<t} |x_i − x_t| are
 * taken once over the whole series and a segment starting at s subtracts Σ_{i<s} |x_i − x_t|.
 */
export class SplitSearch {
  private vFull?: Float64Array;

  constructor(readonly series: ArrayLike<number>) {}

  /** Best split of series[from, to) (needs to − from ≥ 2). */
  best(from: number, to: number): Candidate {
    return this.scan(from, to);
  }

  /**
   * Q(τ, κ) of series[from, to) as a row-major (L−1)×(L−1) matrix, L = to − from: row i is τ = from+1+i,
   * column j is κ = from+2+j; entries with κ ≤ τ are 0 (Otava's layout).
   */
  matrix(from: number, to: number): Float64Array {
    const dim = to - from - 1;
    const out = new Float64Array(Math.max(dim, 0) ** 2);
    this.scan(from, to, out);
    return out;
  }

  private columnSums(): Float64Array {
    if (this.vFull) return this.vFull;
    const x = this.series;
    const v = new Float64Array(x.length);
    for (let t = 1; t < x.length; t++) {
      let s = 0;
      for (let i = 0; i < t; i++) s += Math.abs(x[i] - x[t]);
      v[t] = s;
    }
    return (this.vFull = v);
  }

  private scan(from: number, to: number, out?: Float64Array): Candidate {
    if (!(from >= 0 && to <= this.series.length && to - from >= 2)) {
      throw new RangeError(`split search: expected a segment of ≥ 2 points, got [${from}, ${to})`);
    }
    const x = this.series;
    const dim = to - from - 1;
    const vFull = this.columnSums();
    // cumV[a] = Σ_{b ≤ a} V_local(from+1+b), V_local(t) = Σ_{from ≤ i < t} |x_i − x_t| (as V(t) − prefix)
    const cumV = new Float64Array(dim);
    for (let a = 0; a < dim; a++) {
      const t = from + 1 + a;
      let prefix = 0;
      for (let i = 0; i < from; i++) prefix += Math.abs(x[i] - x[t]);
      const local = vFull[t] - prefix;
      cumV[a] = a === 0 ? local : cumV[a - 1] + local;
    }
    // row[a] = H(from+a, κ) = Σ_{from+a < c < κ} |x_{from+a} − x_c|, grown column by column
    const row = new Float64Array(dim);
    const below = new Float64Array(dim);
    let bestI = 0;
    let bestQ = -Infinity;
    for (let j = 0; j < dim; j++) {
      const kappa = j + 2; // κ − from
      const xk = x[from + j + 1];
      for (let a = 0; a <= j; a++) row[a] += Math.abs(x[from + a] - xk);
      // below[i] = Σ_{a = j, j−1, …, i+1} row[a] (Otava's flipud-cumsum-flipud order)
      let acc = 0;
      for (let a = j; a >= 1; a--) {
        acc = a === j ? row[a] : acc + row[a];
        below[a - 1] = acc;
      }
      let cumH = 0;
      const aCoef = 2 / kappa;
      for (let i = 0; i <= j; i++) {
        cumH = i === 0 ? row[0] : cumH + row[i];
        const tau = i + 1; // τ − from
        const aTerm = aCoef * (cumH - (i >= 1 ? cumV[i - 1] : 0));
        const bTerm = i >= 1 ? ((2 * (kappa - tau)) / (kappa * (tau - 1))) * cumV[i - 1] : 0;
        const cTerm = j > i ? ((2 * tau) / (kappa * (kappa - tau - 1))) * below[i] : 0;
        const q = aTerm - bTerm - cTerm;
        if (out) out[i * dim + j] = q;
        // first maximum in row-major (τ, then κ) order, as numpy's argmax
        if (q > bestQ || (q === bestQ && i < bestI)) {
          bestQ = q;
          bestI = i;
        }
      }
    }
    return { index: from + bestI + 1, qhat: bestQ };
  }
}

/** The first index of the maximum q̂ over series[from, to) (Otava's candidate), as an absolute index. */
export function bestSplit(series: ArrayLike<number>, from: number, to: number): Candidate {
  return new SplitSearch(series).best(from, to);
}

/**
 * Runs E-Divisive over the whole of `series` and returns the accepted change points, sorted. Segments of
 * one point have no split. A best q̂ of 0 (every segment constant) ends the search: for the t-test this
 * is what Otava does (the test is undecidable there), and it keeps a permutation test from splitting
 * constant segments.
 */
export function eDivisive(series: Float64Array, tester: SignificanceTester): number[] {
  const search = new SplitSearch(series);
  const points: number[] = [];
  const memo = new Map<string, Candidate>();
  for (;;) {
    const ends = [0, ...points, series.length];
    let best: Candidate | undefined;
    for (let s = 0; s + 1 < ends.length; s++) {
      if (ends[s + 1] - ends[s] < 2) continue;
      const key = `${ends[s]}:${ends[s + 1]}`;
      let c = memo.get(key);
      if (!c) {
        c = search.best(ends[s], ends[s + 1]);
        memo.set(key, c);
      }
      if (!best || c.qhat > best.qhat) best = c;
    }
    if (!best || !(best.qhat > 0)) return points;
    if (!tester.isSignificant(best, series, ends)) return points;
    points.push(best.index);
    points.sort((a, b) => a - b);
  }
}

/** The endpoints around `index`: the last one below it and the first one above it. */
export function enclosing(index: number, endpoints: readonly number[]): [number, number] | undefined {
  let start: number | undefined;
  let end: number | undefined;
  for (const e of endpoints) {
    if (e < index) start = e;
    else if (e > index && end === undefined) end = e;
  }
  return start === undefined || end === undefined ? undefined : [start, end];
}
