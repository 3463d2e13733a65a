/**
 * Significance testers for E-Divisive candidates.
 *
 * - `TTestTester` (Hunter): Student's t-test between the candidate's two sides within its segment.
 * - `PermutationTester` (MongoDB signal-processing-algorithms `QHatPermutationsSignificanceTester`,
 *   Otava's `PermutationsSignificanceTester`): shuffle each current segment P times; p = #(best permuted
 *   q̂ ≥ candidate q̂) / (P + 1), the best permuted q̂ found by the same split search as the candidate.
 *   Our shuffles come from a seeded generator, so the same input and seed give the same answer.
 */
import { Candidate, SignificanceTester, SplitSearch, enclosing } from './edivisive';
import { Prng, shuffleInPlace } from '../common/prng';
import { compareSplit } from './stats';

export class TTestTester implements SignificanceTester {
  constructor(readonly maxPValue: number) {}

  isSignificant(candidate: Candidate, series: Float64Array, endpoints: readonly number[]): boolean {
    const around = enclosing(candidate.index, endpoints);
    if (!around) return false;
    return compareSplit(series, around[0], candidate.index, around[1]).pValue <= this.maxPValue;
  }
}

export class PermutationTester implements SignificanceTester {
  /** p-value of each accepted or rejected candidate, by index, from its latest test */
  readonly pValues = new Map<number, number>();
  private readonly rng: Prng;

  constructor(
    readonly alpha: number,
    readonly permutations: number,
    seed: number,
  ) {
    this.rng = new Prng(seed);
  }

  isSignificant(candidate: Candidate, series: Float64Array, endpoints: readonly number[]): boolean {
    let higher = 0;
    for (let p = 0; p < this.permutations; p++) {
      const shuffled = series.slice();
      for (let s = 0; s + 1 < endpoints.length; s++) {
        shuffleInPlace(shuffled.subarray(endpoints[s], endpoints[s + 1]), this.rng);
      }
      const search = new SplitSearch(shuffled);
      let best = -Infinity;
      for (let s = 0; s + 1 < endpoints.length; s++) {
        if (endpoints[s + 1] - endpoints[s] < 2) continue;
        best = Math.max(best, search.best(endpoints[s], endpoints[s + 1]).qhat);
      }
      if (best >= candidate.qhat) higher++;
    }
    const pValue = higher / (this.permutations + 1);
    this.pValues.set(candidate.index, pValue);
    return pValue <= this.alpha;
  }
}
