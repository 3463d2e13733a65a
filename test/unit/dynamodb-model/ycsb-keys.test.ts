/**
 * The key chooser against YCSB 0.17.0's own generators (site.ycsb:core:0.17.0, run by the Java oracle
 * in test/oracle: KeyChooser.java), and against YCSB's published constants.
 */
import { runOracleMain } from '../../oracle/oracle';
import {
  fnvhash64,
  keyPopularity,
  keySampler,
  seededRandom,
  ycsbKeyName,
  zeta,
  SCRAMBLED_ZETAN,
  type KeyDistribution,
} from '../../../lib/core/dynamodb-model';

interface Drawn {
  samples: number;
  top: [number, number][];
}

function ycsbDraws(args: string[]): Drawn {
  return JSON.parse(runOracleMain('dev.fleetbench.oracle.KeyChooser', args)) as Drawn;
}

/** |observed − expected| within 5 binomial standard deviations (plus one count). */
function expectCountNear(count: number, p: number, n: number): void {
  const sd = Math.sqrt(n * p * (1 - p));
  expect(Math.abs(count - n * p)).toBeLessThanOrEqual(5 * sd + 1);
}

describe('YCSB constants', () => {
  it('fnvhash64 and buildKeyName give YCSB keys (keynums 0..4)', () => {
    expect([0, 1, 2, 3, 4].map((k) => ycsbKeyName(k))).toEqual([
      'user6284781860667377211',
      'user8517097267634966620',
      'user1820151046732198393',
      'user4052466453699787802',
      'user3232700585171816769',
    ]);
    expect(fnvhash64(0)).toBe(6284781860667377211n);
  });
  it("ζ(10^10, 0.99) equals ScrambledZipfianGenerator's precomputed ZETAN", () => {
    expect(Math.abs(zeta(10_000_000_000, 0.99) - SCRAMBLED_ZETAN) / SCRAMBLED_ZETAN).toBeLessThan(1e-9);
  });
});

describe("the model's key popularity vs YCSB's own generator", () => {
  const N = 2_000_000;
  const cases: [string, KeyDistribution, number, string[]][] = [
    ['zipfian over 10^9 records (seed 001)', { type: 'zipfian' }, 1_000_000_000, ['zipfian', '1000000000']],
    ['zipfian over 10,000 records (the local demo)', { type: 'zipfian' }, 10_000, ['zipfian', '10000']],
    [
      'hotspot(0.013, 0.95) over 10,000 records',
      { type: 'hotspot', dataFraction: 0.013, opFraction: 0.95 },
      10_000,
      ['hotspot', '10000'],
    ],
  ];
  it.each(cases)('%s: the top keys and their frequencies', (_name, dist, records, args) => {
    const extra = dist.type === 'hotspot' ? [String(dist.dataFraction), String(dist.opFraction)] : [];
    const drawn = ycsbDraws([...args, String(N), '20', ...extra]);
    expect(drawn.samples).toBe(N);
    const pop = keyPopularity(dist, records);
    const p = new Map(pop.hot.map((h) => [h.keynum, h.p]));
    if (dist.type === 'zipfian') {
      // the ten most drawn keys are the model's ten hottest, in the same order
      expect(drawn.top.slice(0, 10).map(([k]) => k)).toEqual(pop.hot.slice(0, 10).map((h) => h.keynum));
    }
    for (const [keynum, count] of drawn.top) {
      expect(p.has(keynum)).toBe(true);
      expectCountNear(count, p.get(keynum)!, N);
    }
  });
  it("the model's sampler draws what its popularity says (and YCSB's top key)", () => {
    const draw = keySampler({ type: 'zipfian' }, 1_000_000_000, seededRandom(7));
    const pop = keyPopularity({ type: 'zipfian' }, 1_000_000_000);
    let hits = 0;
    const n = 200_000;
    for (let i = 0; i < n; i++) if (draw() === pop.hot[0]!.keynum) hits++;
    expectCountNear(hits, pop.hot[0]!.p, n);
    // rank 0 is 1/ZETAN ≈ 3.778 % of operations, whatever the record count
    expect(pop.hot[0]!.p).toBeCloseTo(1 / SCRAMBLED_ZETAN, 6);
  });
});
