/**
 * The capacity model applied to real requests, one at a time (the local capacity proxy's engine).
 * Same rules as ./model.ts, as token buckets in real time:
 * - every item: 3,000 read / 1,000 write units per second, averaged over a few seconds, no burst
 *   beyond that (bp-partition-key-design.html; an item lives on one partition and no split divides it);
 * - every partition (key → partition by the same random hash as the simulation): the same rates
 *   with up to 300 s of unused capacity as burst, counting the items not yet isolated; when a
 *   partition throttles, its hottest item is isolated on its own partition (adaptive capacity's
 *   isolation / split for heat, here without its minutes of delay, so a local cell sees the steady
 *   state the plan predicts);
 * - the table: provisioned RCU/WCU with up to 300 s of unused capacity as burst, or the on-demand
 *   ceiling (2 × previous peak, raised at most every 30 minutes).
 * A new TableCapacity is an idle table: partitions and table have their burst saved.
 * Every limit × capacityScale. Pure: the caller passes the time.
 */
import {
  BURST_SECONDS,
  OnDemandCeiling,
  ON_DEMAND_NEW_TABLE_READ_UNITS,
  ON_DEMAND_NEW_TABLE_WRITE_UNITS,
  PARTITION_READ_UNITS_PER_SEC,
  PARTITION_WRITE_UNITS_PER_SEC,
} from './rules';
import { initialPartitions, partitionHash, steadyTableLimit, type TableModel } from './model';

/** A token bucket: `rate` units per second, at most `cap` saved; admits while it is above zero. */
class Bucket {
  private tokens: number;
  private last: number;
  constructor(
    public rate: number,
    public cap: number,
    nowMs: number,
    start = Math.min(cap, rate),
  ) {
    this.tokens = start;
    this.last = nowMs;
  }
  refill(nowMs: number): void {
    const dt = Math.max(0, nowMs - this.last) / 1000;
    this.last = nowMs;
    this.tokens = Math.min(this.cap, this.tokens + this.rate * dt);
  }
  /** DynamoDB charges after the fact: a request is admitted while the bucket is positive. */
  canTake(): boolean {
    return this.tokens > 0;
  }
  take(units: number): void {
    this.tokens -= units;
  }
}

type Dir = 'read' | 'write';

interface Item {
  read: Bucket;
  write: Bucket;
  partition: number;
  /** recent units per second */
  rate: number;
  at: number;
  isolated: boolean;
}

interface Pair {
  read: Bucket;
  write: Bucket;
}

export interface Throttle {
  /** DynamoDB's error code: ProvisionedThroughputExceededException (provisioned) or ThrottlingException (on-demand) */
  code: 'ProvisionedThroughputExceededException' | 'ThrottlingException';
  message: string;
  /** the ThrottlingReasons reason, e.g. TableWriteKeyRangeThroughputExceeded */
  reason: string;
  /** what limited: item, partition or table */
  limit: 'item' | 'partition' | 'table';
}

/** DynamoDB's own messages (Programming.Errors.html; as its endpoints send them). */
export const THROTTLE_MESSAGES = {
  ProvisionedThroughputExceededException:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  ThrottlingException:
    'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html',
} as const;

export interface EmulatorCounters {
  admitted: number;
  throttled: { item: number; partition: number; table: number };
  isolatedItems: number;
}

/** One table's capacity state. */
export class TableCapacity {
  private readonly scale: number;
  private readonly partitions: Pair[];
  private readonly items = new Map<string, Item>();
  /** the not-yet-isolated items of each partition */
  private readonly members: Item[][];
  private readonly table: Pair;
  private readonly ceiling: { read: OnDemandCeiling; write: OnDemandCeiling } | null;
  private lastSecond: number;
  private consumed = { read: 0, write: 0 };
  readonly counters: EmulatorCounters = {
    admitted: 0,
    throttled: { item: 0, partition: 0, table: 0 },
    isolatedItems: 0,
  };
  readonly partitionCount: number;

  constructor(
    readonly model: TableModel,
    nowMs: number,
  ) {
    this.scale = model.capacityScale ?? 1;
    this.partitionCount = initialPartitions(model);
    const s = this.scale;
    this.partitions = Array.from({ length: this.partitionCount }, () =>
      this.burstPair(PARTITION_READ_UNITS_PER_SEC * s, PARTITION_WRITE_UNITS_PER_SEC * s, nowMs),
    );
    this.members = Array.from({ length: this.partitionCount }, () => []);
    const steady = steadyTableLimit(model);
    if (model.billing.mode === 'provisioned') {
      // the table's burst bucket: up to 300 s of unused capacity, full at the start (an idle table)
      this.table = this.burstPair(steady.readUnitsPerSec, steady.writeUnitsPerSec, nowMs);
      this.ceiling = null;
    } else {
      const warm = model.warmThroughput ?? {};
      this.ceiling = {
        read: new OnDemandCeiling(
          (warm.readUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_READ_UNITS) * s,
          steady.readUnitsPerSec,
        ),
        write: new OnDemandCeiling(
          (warm.writeUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_WRITE_UNITS) * s,
          steady.writeUnitsPerSec,
        ),
      };
      // on-demand: no burst bucket; the ceiling moves with the previous peak
      const r = this.ceiling.read.ceiling;
      const w = this.ceiling.write.ceiling;
      this.table = { read: new Bucket(r, r, nowMs), write: new Bucket(w, w, nowMs) };
    }
    this.lastSecond = nowMs;
  }

  /**
   * A partition's buckets: the per-partition limit as the rate and up to 300 s of its unused
   * capacity saved for bursts ("Whenever you're not fully using a partition's throughput, DynamoDB
   * reserves a portion of that unused capacity for later bursts", burst-adaptive-capacity.html),
   * full at the start (an idle table). Burst never lifts an item above its own limit (itemPair).
   */
  private burstPair(read: number, write: number, nowMs: number): Pair {
    return {
      read: new Bucket(read, read * BURST_SECONDS, nowMs, read * BURST_SECONDS),
      write: new Bucket(write, write * BURST_SECONDS, nowMs, write * BURST_SECONDS),
    };
  }

  /**
   * An item's buckets: its per-second limit with at most ITEM_WINDOW_SECONDS of it saved. DynamoDB does
   * not document the window its per-partition limits are measured over; a few seconds keeps an item
   * below its limit from being throttled by sub-second bunching (which the steady-state model ignores)
   * while an item above it is held to the limit after those seconds (one second's worth at the start).
   */
  private itemPair(read: number, write: number, nowMs: number): Pair {
    return {
      read: new Bucket(read, read * ITEM_WINDOW_SECONDS, nowMs, read),
      write: new Bucket(write, write * ITEM_WINDOW_SECONDS, nowMs, write),
    };
  }

  private item(key: string, nowMs: number): Item {
    let it = this.items.get(key);
    if (!it) {
      const s = this.scale;
      it = {
        ...this.itemPair(PARTITION_READ_UNITS_PER_SEC * s, PARTITION_WRITE_UNITS_PER_SEC * s, nowMs),
        partition: partitionHash(key) % this.partitionCount,
        rate: 0,
        at: nowMs,
        isolated: false,
      };
      this.items.set(key, it);
      this.members[it.partition]!.push(it);
    }
    return it;
  }

  /** The on-demand ceiling moves once per second with what was consumed. */
  private tick(nowMs: number): void {
    if (!this.ceiling) return;
    while (nowMs - this.lastSecond >= 1000) {
      this.ceiling.read.step(this.consumed.read, 1);
      this.ceiling.write.step(this.consumed.write, 1);
      this.consumed = { read: 0, write: 0 };
      this.lastSecond += 1000;
      this.table.read.rate = this.table.read.cap = this.ceiling.read.ceiling;
      this.table.write.rate = this.table.write.cap = this.ceiling.write.ceiling;
    }
  }

  /** Isolates the hottest not-yet-isolated item of a partition (recent units/s, 2-s decay). */
  private isolateHottest(partition: number, nowMs: number): void {
    const members = this.members[partition]!;
    let best = -1;
    let bestRate = -1;
    members.forEach((it, i) => {
      const r = decayed(it.rate, it.at, nowMs);
      if (r > bestRate) {
        bestRate = r;
        best = i;
      }
    });
    if (best < 0) return;
    members[best]!.isolated = true;
    members.splice(best, 1);
    this.counters.isolatedItems++;
  }

  /**
   * One request on `key` that consumes `units` read or write units: null when admitted (and
   * charged), else the throttle DynamoDB would answer.
   */
  request(key: string, dir: Dir, units: number, nowMs: number): Throttle | null {
    this.tick(nowMs);
    const it = this.item(key, nowMs);
    const pIndex = it.partition;
    const part = this.partitions[pIndex]!;
    for (const b of [it[dir], part[dir], this.table[dir]]) b.refill(nowMs);
    it.rate = decayed(it.rate, it.at, nowMs) + units / DECAY_SECONDS;
    it.at = nowMs;
    let limit: Throttle['limit'] | null = null;
    if (!it[dir].canTake()) limit = 'item';
    else if (!it.isolated && !part[dir].canTake()) {
      limit = 'partition';
      this.isolateHottest(pIndex, nowMs);
    } else if (!this.table[dir].canTake()) limit = 'table';
    if (limit) {
      this.counters.throttled[limit]++;
      return this.throttle(dir, limit);
    }
    it[dir].take(units);
    if (!it.isolated) part[dir].take(units);
    this.table[dir].take(units);
    this.consumed[dir] += units;
    this.counters.admitted++;
    return null;
  }

  private throttle(dir: Dir, limit: Throttle['limit']): Throttle {
    const code =
      this.model.billing.mode === 'provisioned'
        ? 'ProvisionedThroughputExceededException'
        : 'ThrottlingException';
    // ThrottlingReasons (throttling-diagnosing-workflow.html): <Table><Read|Write><LimitType>
    const type =
      limit === 'table'
        ? this.model.billing.mode === 'provisioned'
          ? 'ProvisionedThroughputExceeded'
          : 'MaxOnDemandThroughputExceeded'
        : 'KeyRangeThroughputExceeded';
    return {
      code,
      message: THROTTLE_MESSAGES[code],
      reason: `Table${dir === 'read' ? 'Read' : 'Write'}${type}`,
      limit,
    };
  }
}

/** Seconds of an item's limit its bucket can save (see itemPair). */
export const ITEM_WINDOW_SECONDS = 5;

/** Time constant of an item's recent rate (seconds). */
const DECAY_SECONDS = 2;

function decayed(rate: number, atMs: number, nowMs: number): number {
  return rate * Math.exp(-Math.max(0, nowMs - atMs) / 1000 / DECAY_SECONDS);
}
