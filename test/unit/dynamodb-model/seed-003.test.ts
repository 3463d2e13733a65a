/**
 * Seed 003 (AWS Database Blog, "Scaling DynamoDB: How partitions, hot keys, and split for heat impact
 * performance (Part 2: Querying)",
 * https://aws.amazon.com/blogs/database/part-2-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/):
 * the plan's timeline of examples/seed-003-split-for-heat.json against the post's published figures.
 *
 * The PUBLISHED figures are typed from the post's text (seeds/003), never from the model's output. Each is
 * compared within 15 %. The figures the model misses are `it.failing`: they document the miss (and fail,
 * asking to be turned into plain tests, the day the model meets them); docs/dynamodb-model.md explains each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpecText, validateSpec } from '../../../lib/core/spec';
import { planRun, cellProcesses, type CellPlan } from '../../../lib/core/plan';
import { collectionPartition, type TimelinePoint } from '../../../lib/core/dynamodb-model';
import { partitionKeyValueName } from '../../../lib/core/targets/dynamodb/key-design';

const file = join(__dirname, '..', '..', '..', 'examples', 'seed-003-split-for-heat.json');
const text = readFileSync(file, 'utf8');
const { spec } = validateSpec(parseSpecText(text, file));
const plan = planRun(spec);
const cell = (target: string): CellPlan => plan.cells.find((c) => c.target === target)!;
const timeline = (target: string): TimelinePoint[] => cell(target).prediction!.timeline;

/** Read units per second, as the post states them (an eventually consistent query of one small item is 0.5 unit). */
const PUBLISHED = {
  // "the query is consuming 4,500 read units, which is 9,000 of our EC queries per second"
  onePkStart: 4_500,
  // "after 10 minutes we get a jump in throughput ... The throughput exactly doubled"
  onePkFirstDoublingSeconds: 10 * 60,
  // "that large peak to 220,000 read units (440,000 queries per second)"
  onePkBurstPeak: 220_000,
  // "during the last 30 minutes of the test, the throughput eventually became limited at 120,000 RCUs"
  onePkFinal: 120_000,
  // "Right away, we achieve a higher throughput at around 15,000 read units per second (30,000 queries)"
  manyPkStart: 15_000,
  // "It's the same pattern as with one partition key" (the first doubling after 10 minutes, as test 1)
  manyPkFirstDoublingSeconds: 10 * 60,
  // "the peak came after 45 minutes instead of an hour"
  manyPkPeakSeconds: 45 * 60,
  // "The final graph looks very much like the first": the same 120,000-unit table limit
  manyPkFinal: 120_000,
  // "initially, the table achieved about 225,000 read units or 450,000 queries per second"
  provisionedStart: 225_000,
  // "split for heat has doubled our throughput after 15 minutes, and 470,000 RCUs consumed"
  provisionedFirstDoublingSeconds: 15 * 60,
  provisionedAfterFirstDoubling: 470_000,
  // "a steady 1,440,000 queries per second" after 90 minutes = 720,000 read units
  provisionedFinal: 1_440_000 / 2,
};

const within15 = (predicted: number, published: number) =>
  expect(Math.abs(predicted / published - 1)).toBeLessThanOrEqual(0.15);

const start = (t: TimelinePoint[]) => t[0]!.consumedReadUnits;
/** The first minute whose consumption rose (by > 20 %) over the start: the first split's effect. */
const firstStep = (t: TimelinePoint[]) => t.find((p) => p.consumedReadUnits > 1.2 * start(t))!;
const peak = (t: TimelinePoint[]) => t.reduce((a, p) => (p.consumedReadUnits > a.consumedReadUnits ? p : a));
/** The level the last 30 minutes hold ("flat at"): their median minute. */
const final = (t: TimelinePoint[]) => {
  const last = t
    .filter((p) => p.tSeconds >= t.at(-1)!.tSeconds - 29 * 60)
    .map((p) => p.consumedReadUnits)
    .sort((a, b) => a - b);
  return last[Math.floor(last.length / 2)]!;
};

afterAll(() => {
  // predicted next to published, for the docs and the reviewer
  const f = (x: number) => Math.round(x).toLocaleString('en-US');
  const one = timeline('od-one-pk');
  const many = timeline('od-200-pk');
  const prov = timeline('prov-500k');
  const rows = [
    ['test 1 start (units/s)', start(one), PUBLISHED.onePkStart],
    ['test 1 first doubling (s)', firstStep(one).tSeconds, PUBLISHED.onePkFirstDoublingSeconds],
    ['test 1 burst peak (units/s)', peak(one).consumedReadUnits, PUBLISHED.onePkBurstPeak],
    ['test 1 last 30 min (units/s)', final(one), PUBLISHED.onePkFinal],
    ['test 2 start (units/s)', start(many), PUBLISHED.manyPkStart],
    ['test 2 first doubling (s)', firstStep(many).tSeconds, PUBLISHED.manyPkFirstDoublingSeconds],
    ['test 2 peak at (s)', peak(many).tSeconds, PUBLISHED.manyPkPeakSeconds],
    ['test 2 last 30 min (units/s)', final(many), PUBLISHED.manyPkFinal],
    ['test 3 start (units/s)', start(prov), PUBLISHED.provisionedStart],
    ['test 3 first doubling (s)', firstStep(prov).tSeconds, PUBLISHED.provisionedFirstDoublingSeconds],
    ['test 3 after it (units/s)', firstStep(prov).consumedReadUnits, PUBLISHED.provisionedAfterFirstDoubling],
    ['test 3 last 30 min (units/s)', final(prov), PUBLISHED.provisionedFinal],
  ] as const;
  console.log(
    rows
      .map(
        ([k, p, q]) =>
          `${k.padEnd(30)} predicted ${f(p).padStart(9)}  published ${f(q).padStart(9)}  ${((p / q - 1) * 100).toFixed(1)} %`,
      )
      .join('\n'),
  );
});

describe('seed 003 test 1: on-demand, one partition-key value', () => {
  const t = timeline('od-one-pk');
  it('starts at 4,500 read units: one partition, eventually consistent reads served by its three replicas', () => {
    within15(start(t), PUBLISHED.onePkStart);
  });
  it('doubles first after about 10 minutes (split for heat by sort-key range), to twice the start', () => {
    within15(firstStep(t).tSeconds, PUBLISHED.onePkFirstDoublingSeconds);
    within15(firstStep(t).consumedReadUnits, 2 * PUBLISHED.onePkStart);
  });
  // one item collection split by heat halves: every partition carries the same heat, so all split together and the
  // partitions' capacity runs 4,500 × 2^k (144,000 at 51 min, 288,000 at 61 min, served while the burst lasts);
  // the post's 220,000 lies between two steps (docs/dynamodb-model.md, "Why the misses")
  it.failing('peaks with burst capacity at 220,000 read units', () => {
    within15(peak(t).consumedReadUnits, PUBLISHED.onePkBurstPeak);
  });
  it('the peak is above the table limit and comes after about an hour', () => {
    expect(peak(t).consumedReadUnits).toBeGreaterThan(PUBLISHED.onePkFinal);
    within15(peak(t).tSeconds, 60 * 60);
  });
  it('holds at the table-level limit, 80,000 units × 1.5 = 120,000 read units, over the last 30 minutes', () => {
    within15(final(t), PUBLISHED.onePkFinal);
  });
});

describe('seed 003 test 2: on-demand, 200 partition-key values', () => {
  const t = timeline('od-200-pk');
  // the example's client (the binding's 3 retries) gives up on the hottest partition's throttled queries and keeps
  // all four partitions near their limit (17,605 of 18,000 units); the post's figure is that of a client held at
  // its hottest partition (below: "the post's figures fit a client held at its hottest partition")
  it.failing('starts at about 15,000 read units (the four partitions of a new on-demand table)', () => {
    within15(start(t), PUBLISHED.manyPkStart);
  });
  it('starts below four partitions at their limit (4 × 4,500) and above three', () => {
    expect(start(t)).toBeLessThan(4 * 4_500);
    expect(start(t)).toBeGreaterThan(3 * 4_500);
  });
  it('doubles first after about 10 minutes, the same staircase, and peaks after about 45 minutes', () => {
    within15(firstStep(t).tSeconds, PUBLISHED.manyPkFirstDoublingSeconds);
    within15(peak(t).tSeconds, PUBLISHED.manyPkPeakSeconds);
  });
  it('holds at the same 120,000-unit table limit at the end', () => {
    within15(final(t), PUBLISHED.manyPkFinal);
  });
});

describe('seed 003 test 3: provisioned 500,000 RCU, 200 partition-key values', () => {
  const t = timeline('prov-500k');
  it('starts at about 225,000 read units, held by its hottest partitions, not by the table', () => {
    within15(start(t), PUBLISHED.provisionedStart);
    expect(start(t)).toBeLessThan(500_000);
  });
  it('splits first after about 15 minutes (provisioned tables split later than on-demand ones)', () => {
    within15(firstStep(t).tSeconds, PUBLISHED.provisionedFirstDoublingSeconds);
  });
  // after the first splits the hottest partition holds 2.5 of the 200 values (half of the 5 the hash put on the
  // hottest of 168): a bound of 360,000 units, which the binding's client passes by 7.5 % (387,165); the post's
  // 225,000 → 470,000 is the doubling of a hottest partition with 4 values (below)
  it.failing('reaches 470,000 read units after that first doubling', () => {
    within15(firstStep(t).consumedReadUnits, PUBLISHED.provisionedAfterFirstDoubling);
  });
  it('ends at the table-level read limit: 500,000 RCU × 1.5 for eventually consistent queries', () => {
    within15(final(t), PUBLISHED.provisionedFinal);
  });
});

describe('the plan of an unpaced query cell', () => {
  it('has a timeline point per minute of the 90-minute cell', () => {
    for (const c of plan.cells) {
      const tl = c.prediction!.timeline;
      expect(tl).toHaveLength(90);
      expect(tl.map((p) => p.tSeconds)).toEqual(Array.from({ length: 90 }, (_, i) => i * 60));
      expect(tl.every((p) => p.consumedWriteUnits === 0 && p.partitions >= 4)).toBe(true);
    }
  });
  it('runs YCSB without a target, its queries in the mix, and publishes no attainment', () => {
    const c = cell('od-one-pk');
    expect(c.id).toBe('od-one-pk.uniform.r0.tmax');
    expect(c.unpaced).toBe(true);
    const props = cellProcesses(c)[0]!.properties;
    expect(props.target).toBeUndefined();
    expect(props.queryproportion).toBe('1');
    expect(props.readproportion).toBe('0');
    expect(JSON.parse(JSON.stringify(c.prediction)).attainment).toBeNull();
    // 80 loaders × 5 processes × 10 threads at 2 ms: Little's Law read backwards
    expect(c.targetOpsPerSec).toBe(2_000_000);
  });
  it("has loaders whose CPU can drive that rate: the curve is the table's, not the loaders'", () => {
    // the price book's measured CPU per query on c5.2xlarge: at 20 loaders the example would need 231 % of their
    // vCPUs (at most ~866,000 queries/s, below test 3's 1,440,000), and the plan would warn
    for (const t of spec.targets) {
      const s = plan.sizing[t.id]!;
      expect(s.cpu).not.toBeNull();
      expect(s.cpu!.cpusNeeded / (s.loaders * s.cpu!.vcpus)).toBeLessThanOrEqual(0.7);
    }
    expect(plan.warnings.filter((w) => w.includes('too few for the CPU'))).toEqual([]);
  });
});

/**
 * Why the misses (docs/dynamodb-model.md): the post's figures are those of a client held at its hottest partition,
 * whose rate is that partition's limit over its share of the queries. The post's client retried its throttled
 * queries (it does not say how); here the AWS SDK for Java's DynamoDB default: 10 retries, throttles backed off by
 * equal jitter from 500 ms, capped at 20 s (PredefinedRetryPolicies.DYNAMODB_DEFAULT,
 * https://github.com/aws/aws-sdk-java/blob/master/aws-java-sdk-core/src/main/java/com/amazonaws/retry/PredefinedRetryPolicies.java).
 * Reference values: the post's own arithmetic (4,500 units per partition, 200 values, "exactly doubled").
 */
describe("the post's figures fit a client held at its hottest partition", () => {
  const sdk = JSON.parse(text) as { workload: { extraProperties?: Record<string, string> } };
  sdk.workload.extraProperties = {
    ...sdk.workload.extraProperties,
    'dynamodb.maxRetries': '10',
    'dynamodb.retryBaseDelayMs': '500',
    'dynamodb.retryMaxDelayMs': '20000',
  };
  const held = planRun(validateSpec(parseSpecText(JSON.stringify(sdk), file)).spec);
  const heldTimeline = (target: string) => held.cells.find((c) => c.target === target)!.prediction!.timeline;
  /** values (of 200) on the hottest of n partitions: each value's collection placed by the hash of its name */
  const hottestValues = (n: number) => {
    const count = new Array<number>(n).fill(0);
    for (let j = 0; j < 200; j++) count[collectionPartition(partitionKeyValueName(j), n)]! += 1;
    return Math.max(...count);
  };
  const near = (x: number, expected: number) => expect(Math.abs(x / expected - 1)).toBeLessThan(0.01);

  it('test 2 starts at the hottest of the four partitions at its limit, 4,500 × 200 / 65, within 15 % of 15,000', () => {
    const t = heldTimeline('od-200-pk');
    expect(hottestValues(4)).toBe(65);
    near(start(t), (4_500 * 200) / 65);
    within15(start(t), PUBLISHED.manyPkStart);
  });
  it('each split doubles the rate exactly, as the post saw ("The throughput exactly doubled")', () => {
    for (const target of ['od-one-pk', 'od-200-pk', 'prov-500k']) {
      const t = heldTimeline(target);
      near(firstStep(t).consumedReadUnits, 2 * start(t));
    }
  });
  it("test 3's start and first doubling are set by the 5 values the hash puts on the hottest of 168 partitions", () => {
    const t = heldTimeline('prov-500k');
    expect(t[0]!.partitions).toBe(168);
    expect(hottestValues(168)).toBe(5);
    near(start(t), (4_500 * 200) / 5);
    near(firstStep(t).consumedReadUnits, (4_500 * 200) / 2.5);
    // the post's 225,000 is 4,500 × 200 / 4 exactly, and its 470,000 within 5 % of twice that
    expect((4_500 * 200) / 4).toBe(PUBLISHED.provisionedStart);
    expect(
      Math.abs(PUBLISHED.provisionedAfterFirstDoubling / (2 * PUBLISHED.provisionedStart) - 1),
    ).toBeLessThan(0.05);
  });
});
