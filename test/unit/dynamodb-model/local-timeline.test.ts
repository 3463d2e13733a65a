/**
 * Issue #28's local half: the plan's timeline on the local clock (localPrediction.localTimeline), the emulator's
 * eventually consistent read limits (as the model's), and its per-second capacity series.
 * Reference figures, derived here from their sources rather than from the code:
 * - a partition serves 3,000 read units/s (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html);
 *   eventually consistent reads 1.5 × that (seed 003: one partition served 4,500 read units = 9,000 queries/s);
 *   an eventually consistent read of an item up to 4 KB costs 0.5 units (read-write-operations.html);
 * - split for heat after about 15 minutes on a provisioned table (seed 003, the AWS Database Blog's Part 2).
 * examples/local-split-for-heat.json scales limits × 0.01 and durations ÷ 60: 3,000 × 0.01 × 1.5 = 45 units/s =
 * 90 queries/s on the one hot partition, doubling at 15 s, 30 s, 45 s.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { planIndex, planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { TableCapacity, type TableModel } from '../../../lib/core/dynamodb-model';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../../examples/local-split-for-heat.json'), 'utf8')),
).spec;

describe('localTimeline: the model on the local clock', () => {
  const plan = planRun(spec, { runId: 'r' });
  const cell = plan.cells[0]!;

  it('one point per local second, 90 → 180 → 360 → 720 queries/s, a doubling every 15 s', () => {
    const tl = cell.localPrediction!.localTimeline!;
    expect(tl.map((p) => p.tSeconds)).toEqual(Array.from({ length: 55 }, (_, i) => i));
    const at = (t: number) => tl[t]!.goodOpsPerSec;
    expect([at(0), at(14), at(15), at(29), at(30), at(44), at(45), at(54)]).toEqual([
      90, 90, 180, 180, 360, 360, 720, 720,
    ]);
    // 0.5 read units per eventually consistent query of one small item
    expect(tl[20]!.consumedReadUnits).toBe(90);
    // one split, then two, then four: 1 + 2 + 4 partitions more than at creation
    expect(tl[54]!.partitions - tl[0]!.partitions).toBe(7);
  });

  it('the AWS prediction keeps its per-minute timeline; the run index lists neither timeline', () => {
    expect(cell.prediction!.localTimeline).toBeUndefined();
    expect(cell.prediction!.timeline.map((p) => p.tSeconds)).toEqual([0]); // a 55 s cell: one minute
    const summary = planIndex(plan).cells[0]!;
    expect(summary.localPrediction).toBeDefined();
    expect('localTimeline' in summary.localPrediction!).toBe(false);
    expect('timeline' in summary.localPrediction!).toBe(false);
  });

  it('without local.timeScale there is no local timeline', () => {
    const noScale = validateSpec({ ...spec, local: { capacityScale: 0.01 } }).spec;
    const c = planRun(noScale, { runId: 'r' }).cells[0]!;
    expect(c.localPrediction).toBeDefined();
    expect(c.localPrediction!.localTimeline).toBeUndefined();
  });
});

describe('emulator: eventually consistent limits and the per-second series', () => {
  const table: TableModel = {
    billing: { mode: 'provisioned', rcu: 40_000, wcu: 1_000 },
    recordCount: 1_000,
    itemBytes: 100,
    storedItemBytes: 200,
    capacityScale: 0.01,
    eventuallyConsistentReads: true,
    partitionKeyValues: 1,
  };

  /** `rate` requests/s of 0.5 units on one partition-key value's items, for `seconds`. */
  function drive(cap: TableCapacity, rate: number, seconds: number): number[] {
    const admitted = new Array<number>(seconds).fill(0);
    for (let i = 0; i < rate * seconds; i++) {
      const t = (i * 1000) / rate;
      if (!cap.request({ hashKey: 'pk0', sortKey: `user${(i * 7919) % 1000}` }, 'read', 0.5, t))
        admitted[Math.floor(t / 1000)]!++;
    }
    return admitted;
  }

  it('a partition admits 45 eventually consistent read units/s at capacityScale 0.01 (90 queries/s)', () => {
    const cap = new TableCapacity(table, 0, { timeScale: 60 });
    const admitted = drive(cap, 400, 12);
    // after its saved burst (300 s ÷ 60 of 45 units) is spent, before the split at 15 s
    const steady = admitted.slice(4, 12).reduce((a, b) => a + b, 0) / 8;
    expect(steady).toBeGreaterThan(85);
    expect(steady).toBeLessThan(95);
  });

  it('counts every second: consumed units, admitted and throttled requests, partitions and splits', () => {
    const cap = new TableCapacity(table, 1_000, { timeScale: 60 });
    // the clock starts at 1 s: the series counts from the state's start
    for (let i = 0; i < 400 * 20; i++) {
      const t = 1_000 + (i * 1000) / 400;
      cap.request({ hashKey: 'pk0', sortKey: `user${(i * 7919) % 1000}` }, 'read', 0.5, t);
    }
    const s = cap.series();
    expect(cap.startedAtMs).toBe(1_000);
    expect(s.map((x) => x.second)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const sum = (f: (x: (typeof s)[number]) => number) => s.reduce((a, x) => a + f(x), 0);
    expect(sum((x) => x.consumedReadUnits)).toBeCloseTo(cap.counters.consumedUnits.read, 6);
    expect(sum((x) => x.admitted)).toBe(cap.counters.admitted);
    expect(sum((x) => x.throttled.partition)).toBe(cap.counters.throttled.partition);
    expect(sum((x) => x.admitted + x.throttled.item + x.throttled.partition + x.throttled.table)).toBe(8000);
    // one split at about 15 s (15 min ÷ 60): the partitions and splits of each second
    expect(s[10]!.splits).toBe(0);
    expect(s[19]!.splits).toBe(1);
    expect(s[19]!.partitions).toBe(s[0]!.partitions + 1);
    // padding: asking up to a later time fills the idle seconds
    expect(cap.series(1_000 + 22_500).length).toBe(23);
  });
});
