/**
 * E-Divisive means (Matteson & James 2014) as implemented by MongoDB's signal-processing-algorithms 1.3.2
 * (`EDivisive` with the C calculator) and used by Hunter: repeatedly pick, over the segments between the
 * change points found so far, the split τ that maximises the divergence statistic q̂, and keep it while a
 * significance tester accepts it.
 *
 * q̂ over a segment s[0..L), split at τ (m = τ points before, k = L − τ after), D[i][j] = |s_i − s_j|:
 *   q(τ) = m·k/(m+k) · ( 2/(m·k)·Σ_{i<τ≤j} D − Σ_{i<j<τ} D / C(m,2) − Σ_{τ≤i<j} D / C(k,2) )
 * with each term 0 when its side is too short; the sums are updated incrementally as τ grows.
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

/** q̂(τ) for τ = 0..L−1 over series[from, to) (q̂(0) is 0: nothing on the left). */
export function qhatValues(series: ArrayLike<number>, from = 0, to = series.length): Float64Array {
  const len = to - from;
  const out = new Float64Array(len);
  let cross = 0; // Σ |x_i − y_j|, i < τ ≤ j
  let xs = 0; // Σ |x_i − x_j|, i < j < τ
  let ys = 0; // Σ |y_i − y_j|, τ ≤ i < j
  // the same summation order as the reference C code, so ties resolve identically
  for (let r = 0; r < len; r++) {
    let rowSum = 0;
    const v = series[from + r];
    for (let c = r; c < len; c++) rowSum += Math.abs(v - series[from + c]);
    ys += rowSum;
  }
  for (let tau = 0; tau < len; tau++) {
    out[tau] = q(cross, xs, ys, tau, len - tau);
    const v = series[from + tau];
    let col = 0;
    for (let i = 0; i < tau; i++) col += Math.abs(series[from + i] - v);
    let row = 0;
    for (let j = tau; j < len; j++) row += Math.abs(v - series[from + j]);
    cross = cross - col + row;
    xs += col;
    ys -= row;
  }
  return out;
}

function q(cross: number, xs: number, ys: number, m: number, k: number): number {
  const crossReg = m < 1 || k < 1 ? 0 : cross * (2.0 / (m * k));
  const xReg = m < 2 ? 0 : xs * (2.0 / (m * (m - 1)));
  const yReg = k < 2 ? 0 : ys * (2.0 / (k * (k - 1)));
  return ((m * k) / (m + k)) * (crossReg - xReg - yReg);
}

/** The first index of the maximum q̂ over series[from, to), as an absolute index. */
export function bestSplit(series: ArrayLike<number>, from: number, to: number): Candidate {
  const values = qhatValues(series, from, to);
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return { index: from + best, qhat: values.length ? values[best] : 0 };
}

/**
 * Runs E-Divisive over the whole of `series` and returns the accepted change points, sorted.
 *
 * One deliberate difference from the reference: a best candidate at the very start of its segment (τ = 0,
 * which only wins when no split anywhere has a positive q̂) ends the search. The reference would hand it
 * to the tester, which for an existing change point's index re-tests the two neighbouring segments and can
 * accept the same index again, forever.
 */
export function eDivisive(series: Float64Array, tester: SignificanceTester): number[] {
  const points: number[] = [];
  const memo = new Map<string, Candidate>();
  const endpoints = () => [0, ...points, series.length];
  for (;;) {
    const ends = endpoints();
    let best: Candidate | undefined;
    let bestStart = 0;
    for (let s = 0; s + 1 < ends.length; s++) {
      const key = `${ends[s]}:${ends[s + 1]}`;
      let c = memo.get(key);
      if (!c) {
        c = bestSplit(series, ends[s], ends[s + 1]);
        memo.set(key, c);
      }
      if (!best || c.qhat > best.qhat) {
        best = c;
        bestStart = ends[s];
      }
    }
    if (!best || best.index === bestStart) return points;
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
