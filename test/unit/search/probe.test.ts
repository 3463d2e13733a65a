import {
  nextProbe,
  rampRates,
  startIndex,
  worstCaseProbes,
  type ProbeOutcome,
  type SearchBounds,
} from '../../../lib/core/search/probe';

/** Runs a search against an oracle; returns the rates probed and the last step. */
function run(b: SearchBounds, passes: (rate: number, k: number) => boolean, predicted?: number | null) {
  const outcomes: ProbeOutcome[] = [];
  for (let guard = 0; guard < 200; guard++) {
    const s = nextProbe(b, outcomes, predicted);
    if ('done' in s) return { rates: outcomes.map((o) => o.rateOpsPerSec), done: s.done };
    outcomes.push({ rateOpsPerSec: s.rate, pass: passes(s.rate, outcomes.length) });
  }
  throw new Error('search did not end');
}

/** The most probes any sequence of outcomes makes the search take: every branch walked, nothing memoised. */
function bruteWorst(b: SearchBounds, outcomes: ProbeOutcome[], predicted?: number): number {
  const s = nextProbe(b, outcomes, predicted);
  if ('done' in s) return 0;
  return (
    1 +
    Math.max(
      bruteWorst(b, [...outcomes, { rateOpsPerSec: s.rate, pass: true }], predicted),
      bruteWorst(b, [...outcomes, { rateOpsPerSec: s.rate, pass: false }], predicted),
    )
  );
}

const B: SearchBounds = { startOpsPerSec: 100, maxOpsPerSec: 1600, resolutionOpsPerSec: 50, rampFactor: 2 };

describe('rampRates', () => {
  it('multiplies from the start and caps at the upper bound', () => {
    expect(rampRates(B)).toEqual([100, 200, 400, 800, 1600]);
    expect(rampRates({ ...B, maxOpsPerSec: 1000 })).toEqual([100, 200, 400, 800, 1000]);
    expect(rampRates({ ...B, rampFactor: 1.5, maxOpsPerSec: 500 })).toEqual([100, 150, 225, 337, 500]);
  });
  it('never repeats a rate when the factor is close to 1 at a small start', () => {
    const r = rampRates({ startOpsPerSec: 1, maxOpsPerSec: 10, resolutionOpsPerSec: 1, rampFactor: 1.1 });
    expect(new Set(r).size).toBe(r.length);
    expect(r[r.length - 1]).toBe(10);
  });
});

describe('nextProbe', () => {
  it('ramps up, then bisects between the last pass and the first fail (worked by hand)', () => {
    // limit 1000: 100..800 pass, 1600 fails; [800,1600] → 1200 F, 1000 P, 1100 F, 1050 F; 1050 − 1000 ≤ 50
    const r = run(B, (rate) => rate <= 1000);
    expect(r.rates).toEqual([100, 200, 400, 800, 1600, 1200, 1000, 1100, 1050]);
    expect(r.done).toEqual({ foundOpsPerSec: 1000, failedOpsPerSec: 1050, reason: 'converged' });
  });
  it('answers "none" when the start fails, and the bound when the bound passes', () => {
    expect(run(B, () => false)).toEqual({
      rates: [100],
      done: { foundOpsPerSec: null, failedOpsPerSec: 100, reason: 'start-fails' },
    });
    const all = run(B, () => true);
    expect(all.rates).toEqual([100, 200, 400, 800, 1600]);
    expect(all.done).toEqual({ foundOpsPerSec: 1600, failedOpsPerSec: null, reason: 'upper-bound-passes' });
  });
  it('starts at the ramp rate at or below a predicted limit and steps down when it fails', () => {
    expect(startIndex(B, 1000)).toBe(3); // 800
    expect(startIndex(B, 99)).toBe(0);
    expect(startIndex(B, 5000)).toBe(4);
    expect(startIndex(B, null)).toBe(0);
    // prediction 1000 but the true limit is 300: 800 F, 400 F, 200 P, then [200,400] → 300 P, 350 F; 350 − 300 ≤ 50
    const r = run(B, (rate) => rate <= 300, 1000);
    expect(r.rates).toEqual([800, 400, 200, 300, 350]);
    expect(r.done.foundOpsPerSec).toBe(300);
  });
  it('finds a monotone limit within the resolution, inside the bounds and the worst case, from any start', () => {
    const bounds: SearchBounds[] = [
      B,
      { startOpsPerSec: 50, maxOpsPerSec: 20_000, resolutionOpsPerSec: 100, rampFactor: 2 },
      { startOpsPerSec: 1000, maxOpsPerSec: 9000, resolutionOpsPerSec: 250, rampFactor: 3 },
      { startOpsPerSec: 7, maxOpsPerSec: 100, resolutionOpsPerSec: 1, rampFactor: 1.5 },
    ];
    for (const b of bounds) {
      const worst = worstCaseProbes(b);
      const step = Math.max(1, Math.floor((b.maxOpsPerSec - b.startOpsPerSec) / 41));
      for (let limit = b.startOpsPerSec - 1; limit <= b.maxOpsPerSec + 1; limit += step) {
        for (const predicted of [undefined, limit, b.maxOpsPerSec, b.startOpsPerSec * 3]) {
          const r = run(b, (rate) => rate <= limit, predicted);
          expect(r.rates.length).toBeLessThanOrEqual(worst);
          for (const x of r.rates) {
            expect(x).toBeGreaterThanOrEqual(b.startOpsPerSec);
            expect(x).toBeLessThanOrEqual(b.maxOpsPerSec);
          }
          if (limit < b.startOpsPerSec) expect(r.done.foundOpsPerSec).toBeNull();
          else if (limit >= b.maxOpsPerSec) expect(r.done.foundOpsPerSec).toBe(b.maxOpsPerSec);
          else {
            expect(r.done.foundOpsPerSec).toBeLessThanOrEqual(limit);
            expect(limit - r.done.foundOpsPerSec!).toBeLessThan(b.resolutionOpsPerSec);
          }
        }
      }
    }
  });
  it('answers with a rate that passed even when the outcomes are noisy (not monotone)', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 300; i++) {
      const passed = new Set<number>();
      const r = run(B, (rate) => {
        const p = rand() < 0.5;
        if (p) passed.add(rate);
        return p;
      });
      expect(r.rates.length).toBeLessThanOrEqual(worstCaseProbes(B));
      if (r.done.foundOpsPerSec !== null) expect(passed.has(r.done.foundOpsPerSec)).toBe(true);
    }
  });
});

describe('worstCaseProbes', () => {
  it('equals the longest branch of every pass/fail sequence, walked without shortcuts', () => {
    const cases: SearchBounds[] = [
      B,
      { startOpsPerSec: 10, maxOpsPerSec: 1000, resolutionOpsPerSec: 7, rampFactor: 2 },
      { startOpsPerSec: 100, maxOpsPerSec: 1000, resolutionOpsPerSec: 10, rampFactor: 1.7 },
      { startOpsPerSec: 3, maxOpsPerSec: 50, resolutionOpsPerSec: 1, rampFactor: 4 },
    ];
    for (const b of cases) {
      const perStart = rampRates(b).map((r) => bruteWorst(b, [], r));
      rampRates(b).forEach((_, k) => expect(worstCaseProbes(b, k)).toBe(perStart[k]));
      expect(worstCaseProbes(b)).toBe(Math.max(...perStart));
    }
  });
  it('counts the hand-worked worst case: the whole ramp, then [800, 1600] bisected to 50', () => {
    // 5 ramp probes (100..1600, 1600 fails), then widths 800 → 400 → 200 → 100 → 50: 4 bisections
    expect(worstCaseProbes(B, 0)).toBe(9);
  });
});
