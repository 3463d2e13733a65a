/**
 * Student's t distribution, computed here (no statistics library): the CDF through the regularized
 * incomplete beta function I_x(a, b), evaluated by its continued fraction (modified Lentz), and
 * ln Γ by the Lanczos approximation (g = 7, 9 coefficients).
 *
 *   P(T ≤ t) for t > 0 = 1 − ½·I_{ν/(ν+t²)}(ν/2, ½)
 *   two-sided p-value   = I_{ν/(ν+t²)}(ν/2, ½)       (computed directly: no 1 − x cancellation)
 *
 * Checked against scipy.stats values and printed tables in test/unit/regression/tdist.test.ts.
 */

const LANCZOS_G = 7;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`logGamma: expected x > 0, got ${x}`);
  if (x < 0.5) {
    // reflection: Γ(x)Γ(1−x) = π / sin(πx)
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  }
  const z = x - 1;
  let a = LANCZOS[0];
  const t = z + LANCZOS_G + 0.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const EPS = 1e-15;
const TINY = 1e-300;
const MAX_ITER = 10_000;

/** Continued fraction for I_x(a, b) (Numerical Recipes' betacf form), converges for x < (a+1)/(a+b+2). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) return h;
  }
  throw new Error(`incomplete beta: continued fraction did not converge (a=${a}, b=${b}, x=${x})`);
}

/** The regularized incomplete beta function I_x(a, b), a > 0, b > 0, 0 ≤ x ≤ 1. */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0) || !(b > 0)) throw new RangeError(`incomplete beta: expected a, b > 0, got a=${a}, b=${b}`);
  if (Number.isNaN(x) || x < 0 || x > 1)
    throw new RangeError(`incomplete beta: expected 0 ≤ x ≤ 1, got ${x}`);
  if (x === 0) return 0;
  if (x === 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
  const front = Math.exp(lnFront);
  // Use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges faster.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

function checkDf(df: number): void {
  if (!(df > 0)) throw new RangeError(`t distribution: expected degrees of freedom > 0, got ${df}`);
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) return NaN;
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** P(T > t), computed without cancellation for large t. */
export function studentTSf(t: number, df: number): number {
  return studentTCdf(-t, df);
}

/** Two-sided p-value P(|T| ≥ |t|). NaN for NaN t; 0 for infinite t. */
export function studentTTwoSidedP(t: number, df: number): number {
  checkDf(df);
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t with P(T ≤ t) = p (the quantile function), by bracketing and bisection on the CDF. */
export function studentTQuantile(p: number, df: number): number {
  checkDf(df);
  if (!(p > 0 && p < 1)) throw new RangeError(`t quantile: expected 0 < p < 1, got ${p}`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return Infinity;
  }
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (mid === lo || mid === hi) break;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
