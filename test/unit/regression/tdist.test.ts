import {
  logGamma,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
  studentTTwoSidedP,
} from '../../../lib/core/regression/tdist';
import { tTestFromStats } from '../../../lib/core/regression/stats';
// Values from scipy (test/oracle/regression/tdist_reference.py), an independent implementation.
import scipy from './fixtures/tdist-scipy.json';

/** |actual − expected| within `rel` of expected (and an absolute floor for values near 0). */
function expectClose(actual: number, expected: number, rel = 1e-10, abs = 1e-300): void {
  const tol = Math.max(Math.abs(expected) * rel, abs);
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`expected ${expected}, got ${actual} (|Δ| = ${Math.abs(actual - expected)} > ${tol})`);
  }
}

describe('logGamma', () => {
  it('matches factorials and Γ(½) = √π', () => {
    // Γ(n) = (n−1)!
    expectClose(logGamma(1), 0, 0, 1e-14);
    expectClose(logGamma(5), Math.log(24), 1e-13);
    expectClose(logGamma(21), Math.log(2432902008176640000), 1e-13);
    expectClose(logGamma(0.5), 0.5 * Math.log(Math.PI), 1e-13);
    expectClose(logGamma(0.1), Math.log(9.513507698668732), 1e-12); // Γ(0.1), A&S table 6.1 / reflection
  });

  it('rejects x ≤ 0', () => {
    expect(() => logGamma(0)).toThrow(/x > 0/);
  });
});

describe('regularizedIncompleteBeta', () => {
  it.each(scipy.beta)('I_$x($a, $b) equals scipy.special.betainc', ({ a, b, x, value }) => {
    expectClose(regularizedIncompleteBeta(x, a, b), value, 1e-11);
  });

  it('has the closed forms I_x(1,1) = x and I_x(a,1) = x^a', () => {
    expectClose(regularizedIncompleteBeta(0.37, 1, 1), 0.37, 1e-13);
    expectClose(regularizedIncompleteBeta(0.8, 3, 1), 0.8 ** 3, 1e-13);
  });

  it('rejects x outside [0, 1] and non-positive shapes', () => {
    expect(() => regularizedIncompleteBeta(1.2, 1, 1)).toThrow(/0 ≤ x ≤ 1/);
    expect(() => regularizedIncompleteBeta(0.5, 0, 1)).toThrow(/a, b > 0/);
  });
});

describe("Student's t distribution", () => {
  it.each(scipy.cdf)(
    'cdf($t; df=$df) and the two-sided p equal scipy.stats.t',
    ({ t, df, cdf, twoSidedP }) => {
      expectClose(studentTCdf(t, df), cdf, 1e-10);
      expectClose(studentTTwoSidedP(t, df), twoSidedP, 1e-10);
    },
  );

  it.each(scipy.quantile)('quantile($p; df=$df) equals scipy.stats.t.ppf', ({ p, df, t }) => {
    expectClose(studentTQuantile(p, df), t, 1e-9);
  });

  it('reproduces printed critical values (two-sided 5 % and 1 %)', () => {
    // Student's t table (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2): t_{0.975,10} = 2.228, t_{0.995,20} = 2.845,
    // t_{0.975,1} = 12.706, t_{0.95,5} = 2.015
    expect(studentTQuantile(0.975, 10).toFixed(3)).toBe('2.228');
    expect(studentTQuantile(0.995, 20).toFixed(3)).toBe('2.845');
    expect(studentTQuantile(0.975, 1).toFixed(3)).toBe('12.706');
    expect(studentTQuantile(0.95, 5).toFixed(3)).toBe('2.015');
  });

  it('is symmetric and gives the extreme tails without cancellation', () => {
    expectClose(studentTCdf(-1.3, 7) + studentTCdf(1.3, 7), 1, 1e-14);
    // a tail far below double epsilon is still resolved (scipy: t.sf(40, 98)*2 for the 98-df row above)
    const p = studentTTwoSidedP(40, 98);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-50);
    expect(studentTTwoSidedP(Infinity, 3)).toBe(0);
    expect(studentTTwoSidedP(NaN, 3)).toBeNaN();
  });
});

describe('tTestFromStats', () => {
  it.each(scipy.ttest)(
    'equals scipy.stats.ttest_ind_from_stats (means $mean1, $mean2; n $n1, $n2)',
    ({ mean1, std1, n1, mean2, std2, n2, t, p }) => {
      const r = tTestFromStats(mean1, std1, n1, mean2, std2, n2);
      expectClose(r.t, t, 1e-11);
      expectClose(r.pValue, p, 1e-9);
    },
  );
});
