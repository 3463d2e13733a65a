/**
 * The capacity emulator with a time scale (issue #28): split for heat after SPLIT_FOR_HEAT_SECONDS ÷ timeScale,
 * each split doubling the throughput of a hot key range (the AWS Database Blog's Part 2: one partition-key value,
 * "an exact doubling after about 10 minutes" on-demand, 15 provisioned, then doubling again), and the on-demand
 * 30-minute peak window ÷ timeScale. Reference times are the rules' own constants (docs/dynamodb-model.md), each
 * doubling expected within 20 % of its scaled time; rates from the per-partition limit (3,000 RU/s × capacityScale).
 */
import {
  ON_DEMAND_PEAK_WINDOW_SECONDS,
  PARTITION_READ_UNITS_PER_SEC,
  SPLIT_FOR_HEAT_SECONDS,
  TableCapacity,
  heatMidpoint,
  type TableModel,
} from '../../../lib/core/dynamodb-model';

const SCALE = 0.01;
const TIME_SCALE = 60;

/** Admitted requests per second (1 unit each) for `seconds`, `rate` requests/s over `keys` chosen round robin. */
function admittedPerSecond(
  cap: TableCapacity,
  keys: (i: number) => Parameters<TableCapacity['request']>[0],
  o: {
    rate: number;
    seconds: number;
  },
): number[] {
  const perSecond = new Array<number>(o.seconds).fill(0);
  for (let i = 0; i < o.rate * o.seconds; i++) {
    const t = (i * 1000) / o.rate;
    if (!cap.request(keys(i), 'read', 1, t)) perSecond[Math.floor(t / 1000)]!++;
  }
  return perSecond;
}

/**
 * The first second from `after` on whose count, and the next second's, are both at least 1.5 × the mean of the
 * 3 seconds before `after` (a step that stays), or -1.
 */
function stepAfter(series: number[], after: number): number {
  const before = series.slice(after - 3, after).reduce((x, y) => x + y, 0) / 3;
  for (let s = after; s + 1 < series.length; s++)
    if (series[s]! >= 1.5 * before && series[s + 1]! >= 1.5 * before) return s;
  return -1;
}

const provisioned: TableModel = {
  billing: { mode: 'provisioned', rcu: 100_000, wcu: 1_000 }, // the table far above one partition's 3,000
  recordCount: 1_000,
  itemBytes: 1_000,
  storedItemBytes: 1_100,
  capacityScale: SCALE,
};

describe('emulator time scale: split for heat', () => {
  it('one partition-key value: throughput doubles every SPLIT_FOR_HEAT_SECONDS / timeScale (provisioned: 15 s)', () => {
    const cap = new TableCapacity(provisioned, 0, { timeScale: TIME_SCALE });
    const sortKeys = Array.from({ length: 1000 }, (_, k) => `user${String(k).padStart(3, '0')}`);
    // every request to the one partition-key value "pk0"; the items spread over its sort keys
    const series = admittedPerSecond(
      cap,
      (i) => ({ hashKey: 'pk0', sortKey: sortKeys[(i * 7919) % 1000]! }),
      {
        rate: 600,
        seconds: 52,
      },
    );
    const delay = SPLIT_FOR_HEAT_SECONDS.provisioned / TIME_SCALE; // 15 s
    const partition = PARTITION_READ_UNITS_PER_SEC * SCALE; // 30 units/s
    const level = (from: number, to: number) =>
      series.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
    expect(level(3, 13) / partition).toBeCloseTo(1, 1); // one partition
    const first = stepAfter(series, 5);
    const second = stepAfter(series, first + 4);
    const third = stepAfter(series, second + 4);
    for (const [k, t] of [first, second, third].entries()) {
      expect(Math.abs(t - (k + 1) * delay) / ((k + 1) * delay)).toBeLessThan(0.2);
    }
    expect(level(first + 2, second - 1) / (2 * partition)).toBeGreaterThan(0.8);
    expect(level(first + 2, second - 1) / (2 * partition)).toBeLessThan(1.2);
    expect(level(second + 2, third - 1) / (4 * partition)).toBeGreaterThan(0.8);
    expect(level(second + 2, third - 1) / (4 * partition)).toBeLessThan(1.2);
    expect(cap.counters.splits).toBeGreaterThanOrEqual(7); // 1 → 2 → 4 → 8 partitions for the hot range
    expect(cap.counters.partitions).toBe(cap.partitionCount + cap.counters.splits);
    expect(cap.counters.consumedUnits.read).toBe(series.reduce((a, b) => a + b, 0));
  });

  it('without a time scale nothing splits: the hottest item is isolated at once (the steady-state behaviour)', () => {
    const cap = new TableCapacity(provisioned, 0);
    const series = admittedPerSecond(cap, (i) => ({ hashKey: 'pk0', sortKey: `user${(i * 7919) % 1000}` }), {
      rate: 600,
      seconds: 20,
    });
    expect(cap.counters.splits).toBe(0);
    expect(cap.counters.isolatedItems).toBeGreaterThan(0);
    expect(stepAfter(series, 5)).toBe(-1); // no staircase
  });

  it('on-demand: the 30-minute peak window runs timeScale × faster (the ceiling is raised after 30 s)', () => {
    const onDemand: TableModel = {
      billing: { mode: 'on-demand' },
      warmThroughput: { readUnitsPerSecond: 30_000 },
      recordCount: 1_000,
      itemBytes: 1_000,
      storedItemBytes: 1_100,
      capacityScale: SCALE,
    };
    const cap = new TableCapacity(onDemand, 0, { timeScale: TIME_SCALE });
    // many items of their own partition-key value: the table ceiling, not a partition, is the limit
    const series = admittedPerSecond(cap, (i) => `user${(i * 7919) % 1000}`, { rate: 800, seconds: 45 });
    const window = ON_DEMAND_PEAK_WINDOW_SECONDS / TIME_SCALE; // 30 s
    const level = (from: number, to: number) =>
      series.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
    // warm 30,000 × 0.01 = 300 units/s; after the window the peak (300) doubles to 600, capped at 40,000 × 0.01
    expect(level(window - 12, window - 1) / 300).toBeCloseTo(1, 1);
    expect(level(window + 3, 45) / 400).toBeCloseTo(1, 1);
    const rise = series.findIndex((n, s) => s > 15 && n > 350);
    expect(Math.abs(rise - window) / window).toBeLessThan(0.2);
  });

  it('a bad time scale is refused by name', () => {
    expect(() => new TableCapacity(provisioned, 0, { timeScale: 0 })).toThrow('emulator timeScale');
  });
});

describe('heatMidpoint: the split point divides recent traffic in half', () => {
  it.each([
    [[1, 1, 1, 1], 2],
    [[10, 1, 1, 1, 1], 1],
    [[1, 1, 1, 1, 10], 4],
    [[5], 0],
    [[], 0],
  ])('%j → %i', (heats, cut) => {
    expect(heatMidpoint(heats)).toBe(cut);
  });
});
