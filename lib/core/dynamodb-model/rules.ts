/**
 * DynamoDB's documented capacity rules, each with its source. Pure functions: no SDK, no I/O.
 * Item size and units per operation are lib/core/cost/capacity.ts (the cost model's, reused).
 */

/**
 * Per-partition throughput: "every partition in the table can sustain 3,000 read units per second
 * and 1,000 write units per second" (read and write limits stated separately).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html
 * A single item lives on one partition, so these are also one item's limits, which no split removes.
 */
export const PARTITION_READ_UNITS_PER_SEC = 3_000;
export const PARTITION_WRITE_UNITS_PER_SEC = 1_000;

/**
 * A partition holds at most about 10 GB; DynamoDB splits a partition that grows past it.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html
 */
export const PARTITION_MAX_BYTES = 10 * 1024 ** 3;

/**
 * Burst capacity: "DynamoDB currently retains up to five minutes (300 seconds) of unused read and
 * write capacity" (best effort; it does not relieve a hot partition).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html
 */
export const BURST_SECONDS = 300;

/**
 * On-demand: "New on-demand tables will be able to sustain up to 4,000 writes per second and 12,000
 * reads per second"; traffic up to double the previous peak is served instantly, and throttling
 * can occur when traffic exceeds twice the previous peak within 30 minutes.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html
 */
export const ON_DEMAND_NEW_TABLE_READ_UNITS = 12_000;
export const ON_DEMAND_NEW_TABLE_WRITE_UNITS = 4_000;
export const ON_DEMAND_PEAK_WINDOW_SECONDS = 30 * 60;

/**
 * Default per-table throughput quota (on-demand tables are capped by it): 40,000 read request
 * units and 40,000 write request units per table.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
 */
export const DEFAULT_TABLE_QUOTA_UNITS = 40_000;

/**
 * Split for heat: a partition that receives sustained traffic near its limit is split in two;
 * the AWS Database Blog's measurements saw the first doubling after about 10 minutes (on-demand)
 * and 15 minutes (provisioned at 500,000 RCU).
 * https://aws.amazon.com/blogs/database/part-2-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/
 * Adaptive capacity also "isolates frequently accessed items" onto their own partitions:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html
 */
export const SPLIT_FOR_HEAT_SECONDS = { 'on-demand': 600, provisioned: 900 } as const;

/** The AWS Database Blog post of seed 003 (its measurements are the source of the rules below). */
export const SPLIT_FOR_HEAT_POST =
  'https://aws.amazon.com/blogs/database/part-2-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/';

/**
 * Eventually consistent reads are served by all three replicas of a partition: the leader serves
 * 3,000 reads/s (hence 3,000 strongly consistent read units), an eventually consistent read may go to
 * any of the three nodes, so one partition served 9,000 eventually consistent reads/s = 4,500 read
 * units (the post measured exactly that on one hot partition), and a table whose read limit is
 * 80,000 units ran at 120,000 units of eventually consistent reads. So every read limit (item,
 * partition, table) is × 1.5 in read units for eventually consistent reads (SPLIT_FOR_HEAT_POST).
 * The post advises designing for 6,000 (a replica may be down); the model predicts what was measured.
 */
export const EVENTUALLY_CONSISTENT_READ_FACTOR = 1.5;

/**
 * A new on-demand table has four partitions ("all four partitions present in a newly created on-demand
 * table", SPLIT_FOR_HEAT_POST), which is its documented 12,000 reads / 4,000 writes per second
 * (4 × 3,000 RCU or 4 × 1,000 WCU).
 */
export const ON_DEMAND_NEW_TABLE_PARTITIONS = 4;

/**
 * Split for heat splits a partition "receiving sustained high read or write throughput"
 * (SPLIT_FOR_HEAT_POST), not only one at its limit: with 200 partition-key values on a table of 500,000
 * RCU the post saw the whole table double at once after 15 minutes (225,000 → 470,000 read units), which
 * needs the partitions below the hottest to split too (those at their limit alone would give ×4/3). The
 * model's reading: a partition consuming at least half its limit for the sustained period splits. This
 * fraction is inferred from that measurement, not documented by AWS.
 */
export const SPLIT_HEAT_FRACTION = 0.5;

/**
 * Read units of one Query: "the total size of all the items returned" rounded up to the next 4 KB (not
 * per item), eventually consistent at half; a Query returning nothing still consumes the minimum
 * (1 unit, or 0.5 eventually consistent).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
 */
export function queryReadUnits(input: { itemBytes: number; limit: number; consistent: boolean }): number {
  const blocks = Math.max(1, Math.ceil((input.itemBytes * input.limit) / 4096));
  return input.consistent ? blocks : blocks / 2;
}

export type BillingMode = 'provisioned' | 'on-demand';

/**
 * Partition count of a table: enough partitions for its size (10 GB each) and for its throughput
 * (3,000 RCU / 1,000 WCU each): max(ceil(GB / 10), ceil(RCU / 3,000 + WCU / 1,000)). The formula
 * was in the Developer Guide's "Partitions and data distribution" page until 2020 (the page now
 * only says that DynamoDB allocates partitions for size and throughput):
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html
 * Warm throughput (or a new on-demand table's 12,000 / 4,000) sizes it the same way:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html
 */
export function partitionCount(input: {
  storedBytes: number;
  readUnitsPerSec: number;
  writeUnitsPerSec: number;
}): number {
  const bySize = Math.ceil(input.storedBytes / PARTITION_MAX_BYTES);
  const byThroughput = Math.ceil(
    input.readUnitsPerSec / PARTITION_READ_UNITS_PER_SEC +
      input.writeUnitsPerSec / PARTITION_WRITE_UNITS_PER_SEC,
  );
  return Math.max(1, bySize, byThroughput);
}

/**
 * A provisioned table's burst bucket: unused capacity accrues up to 300 seconds' worth and is spent
 * when demand exceeds the provisioned rate. Re:Post's example: 150 RCU → 45,000 burst units.
 * https://repost.aws/knowledge-center/dynamodb-spiky-workloads-short-intervals
 */
export class BurstBucket {
  private tokens: number;
  readonly max: number;
  constructor(
    readonly ratePerSec: number,
    startFull = true,
  ) {
    this.max = ratePerSec * BURST_SECONDS;
    this.tokens = startFull ? this.max : 0;
  }
  get available(): number {
    return this.tokens;
  }
  /** One step of `dt` seconds with `demand` units/s asked; returns units/s admitted. */
  step(demandPerSec: number, dt: number): number {
    if (demandPerSec <= this.ratePerSec) {
      this.tokens = Math.min(this.max, this.tokens + (this.ratePerSec - demandPerSec) * dt);
      return demandPerSec;
    }
    const extra = Math.min((demandPerSec - this.ratePerSec) * dt, this.tokens);
    this.tokens -= extra;
    return this.ratePerSec + extra / dt;
  }
}

/**
 * An on-demand table's ceiling: instantly up to 2 × the previous peak; the peak is the highest
 * consumed rate, and it may be raised at most once per 30 minutes (so the ceiling at most doubles
 * every 30 minutes). Starts from the new-table throughput (12,000 reads / 4,000 writes: a previous
 * peak of half that) or from warm throughput; capped by the table's max (MaxRead/WriteRequestUnits
 * or the 40,000 default quota).
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html
 */
export class OnDemandCeiling {
  private peak: number;
  private highest = 0;
  private sinceRaise = 0;
  constructor(
    initialUnitsPerSec: number,
    readonly capUnitsPerSec: number,
  ) {
    this.peak = initialUnitsPerSec / 2;
  }
  get ceiling(): number {
    return Math.min(this.capUnitsPerSec, 2 * this.peak);
  }
  /** Records `consumedPerSec` over `dt` seconds. */
  step(consumedPerSec: number, dt: number): void {
    this.highest = Math.max(this.highest, consumedPerSec);
    this.sinceRaise += dt;
    if (this.sinceRaise >= ON_DEMAND_PEAK_WINDOW_SECONDS && this.highest > this.peak) {
      this.peak = this.highest;
      this.sinceRaise = 0;
    }
  }
}

/**
 * Requests admitted out of `demand` against a limit, when every throttled attempt is retried up
 * to `maxRetries` times: with a per-attempt throttle probability q, an operation makes
 * 1 + q + … + q^m attempts and succeeds with probability 1 − q^(m+1); the limit admits `limit`
 * attempts per second, so 1 − q^(m+1) = limit / demand. Returns q (0 when demand ≤ limit).
 */
export function throttleProbability(demandPerSec: number, limitPerSec: number, maxRetries: number): number {
  if (demandPerSec <= limitPerSec || demandPerSec <= 0) return 0;
  if (limitPerSec <= 0) return 1;
  return Math.pow(1 - limitPerSec / demandPerSec, 1 / (maxRetries + 1));
}
