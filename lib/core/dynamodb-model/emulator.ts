/**
 * The capacity model applied to real requests, one at a time (the local capacity proxy's engine).
 * Same rules as ./model.ts, as token buckets in real time:
 * - every item: 3,000 read / 1,000 write units per second, averaged over a few seconds, no burst
 *   beyond that (bp-partition-key-design.html; an item lives on one partition and no split divides it);
 * - every partition (an item's partition-key value → partition by the same random hash as the simulation; a
 *   composite-key table's items of one partition-key value start on one partition, ordered by sort key): the same
 *   rates with up to 300 s of unused capacity as burst;
 * - adaptive capacity, two ways:
 *   - without a time scale (the default): when a partition throttles, its hottest item is isolated on its own
 *     partition at once (isolation / split for heat without its minutes of delay, so a local cell sees the
 *     steady state the plan predicts);
 *   - with `timeScale` (local runs that show the curve over time, issue #28): a partition that keeps being asked
 *     at least SPLIT_HEAT_FRACTION (half) of its limit, the simulation's rule (./rules.ts, ./simulate.ts),
 *     for SPLIT_FOR_HEAT_SECONDS (10 min on-demand, 15 min provisioned) ÷ timeScale splits in two at the key
 *     that divides its recent traffic in half ("The split for heat logic chooses the sort key split point
 *     based on recent traffic patterns, aiming to spread the heat evenly across the two new partitions", the
 *     AWS Database Blog's "Scaling DynamoDB … Part 2: Querying",
 *     https://aws.amazon.com/blogs/database/part-2-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/),
 *     each half with a partition's full rate: the throughput of a hot key range doubles, then doubles again;
 * - the table: provisioned RCU/WCU with up to 300 s of unused capacity as burst, or the on-demand
 *   ceiling (2 × previous peak, raised at most every 30 minutes).
 * A time scale runs every duration of these rules (split delay, burst seconds, the on-demand peak window)
 * timeScale × faster; rates stay units per second (× capacityScale).
 * A new TableCapacity is an idle table: partitions and table have their burst saved.
 * Every limit × capacityScale. Pure: the caller passes the time.
 */
import {
  BURST_SECONDS,
  OnDemandCeiling,
  PARTITION_READ_UNITS_PER_SEC,
  PARTITION_WRITE_UNITS_PER_SEC,
  SPLIT_FOR_HEAT_SECONDS,
  SPLIT_HEAT_FRACTION,
} from './rules';
import {
  initialPartitions,
  onDemandCeilings,
  limitScale,
  partitionHash,
  steadyTableLimit,
  type LimitScale,
  type TableModel,
} from './model';

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

interface Pair {
  read: Bucket;
  write: Bucket;
}

/** A partition: its buckets, its not-yet-isolated items, and since when it is hot (time-scale mode). */
interface Part extends Pair {
  members: Item[];
  hotSinceMs: number | null;
  lastHotMs: number;
  /** recent units per second asked of the partition (admitted or not), per direction (2-s decay), and when */
  demand: { read: number; write: number; at: number };
}

/** The partitions of one initial partition, in key order: parts[i] holds keys below bounds[i] (and ≥ bounds[i-1]). */
interface Group {
  bounds: OrderKey[];
  parts: Part[];
}

/** Where an item sorts on the table: the hash of its partition-key value, then its sort key. */
type OrderKey = readonly [number, string];

interface Item {
  read: Bucket;
  write: Bucket;
  group: number;
  part: Part;
  order: OrderKey;
  /** recent units per second */
  rate: number;
  at: number;
  isolated: boolean;
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
  /** splits for heat (time-scale mode) */
  splits: number;
  /** partitions now (initial partitions + splits) */
  partitions: number;
  /** units consumed since the start */
  consumedUnits: { read: number; write: number };
}

/**
 * One second of a table's capacity state, counted from the state's start (the cell's start: `arm`): what the
 * admitted requests consumed in it, the requests admitted and throttled (by what limited), and the partitions
 * and splits for heat at its end. What the local run stores per cell (lib/core/results/capacity.ts).
 */
export interface CapacitySecond {
  /** seconds since the table's capacity state began */
  second: number;
  consumedReadUnits: number;
  consumedWriteUnits: number;
  admitted: number;
  throttled: { item: number; partition: number; table: number };
  partitions: number;
  splits: number;
}

export interface EmulatorOptions {
  /**
   * Every duration of the rules ÷ this (split for heat's delay, burst seconds, the on-demand 30-minute peak
   * window); also switches adaptive capacity from instant isolation to delayed splits (see the file's comment).
   * Absent: real durations and instant isolation.
   */
  timeScale?: number;
}

/** One request's item: its partition-key value (placement) and, on a composite-key table, its sort key. */
export interface ItemKey {
  hashKey: string;
  sortKey?: string;
}

/** One table's capacity state. */
export class TableCapacity {
  /** every limit's factor: capacityScale, reads also × the eventually consistent factor (model.ts limitScale) */
  private readonly limits: LimitScale;
  private readonly timeScale: number;
  private readonly startMs: number;
  private readonly seconds: CapacitySecond[] = [];
  private readonly splitting: boolean;
  private readonly groups: Group[];
  private readonly items = new Map<string, Item>();
  private readonly table: Pair;
  private readonly ceiling: { read: OnDemandCeiling; write: OnDemandCeiling } | null;
  private lastSecond: number;
  private consumed = { read: 0, write: 0 };
  readonly counters: EmulatorCounters;
  readonly partitionCount: number;

  constructor(
    readonly model: TableModel,
    nowMs: number,
    options: EmulatorOptions = {},
  ) {
    this.limits = limitScale(model);
    this.startMs = nowMs;
    this.timeScale = options.timeScale ?? 1;
    if (!(this.timeScale > 0))
      throw new Error(`emulator timeScale: expected a positive number, got ${this.timeScale}`);
    this.splitting = options.timeScale !== undefined;
    this.partitionCount = initialPartitions(model);
    this.groups = Array.from({ length: this.partitionCount }, () => ({
      bounds: [],
      parts: [this.newPart(nowMs)],
    }));
    this.counters = {
      admitted: 0,
      throttled: { item: 0, partition: 0, table: 0 },
      isolatedItems: 0,
      splits: 0,
      partitions: this.partitionCount,
      consumedUnits: { read: 0, write: 0 },
    };
    const steady = steadyTableLimit(model);
    if (model.billing.mode === 'provisioned') {
      // the table's burst bucket: up to 300 s of unused capacity, full at the start (an idle table)
      this.table = this.burstPair(steady.readUnitsPerSec, steady.writeUnitsPerSec, nowMs, true);
      this.ceiling = null;
    } else {
      this.ceiling = onDemandCeilings(model);
      // on-demand: no burst bucket; the ceiling moves with the previous peak
      const r = this.ceiling.read.ceiling;
      const w = this.ceiling.write.ceiling;
      this.table = { read: new Bucket(r, r, nowMs), write: new Bucket(w, w, nowMs) };
    }
    this.lastSecond = nowMs;
  }

  /** A partition at the scaled per-partition rates: an idle table's with its burst saved, a split's without. */
  private newPart(nowMs: number, burstSaved = true): Part {
    const l = this.limits;
    return {
      ...this.burstPair(
        PARTITION_READ_UNITS_PER_SEC * l.read,
        PARTITION_WRITE_UNITS_PER_SEC * l.write,
        nowMs,
        burstSaved,
      ),
      members: [],
      hotSinceMs: null,
      lastHotMs: -Infinity,
      demand: { read: 0, write: 0, at: nowMs },
    };
  }

  /**
   * Buckets with `read`/`write` units per second as the rate and up to 300 s (÷ timeScale) of unused capacity
   * saved for bursts ("Whenever you're not fully using a partition's throughput, DynamoDB reserves a portion of
   * that unused capacity for later bursts", burst-adaptive-capacity.html), full at the start when `saved` (an
   * idle table), else empty (the two halves of a split: without it each half would start with a free second and
   * the curve would spike at every split). Burst never lifts an item above its own limit (itemPair).
   */
  private burstPair(read: number, write: number, nowMs: number, saved: boolean): Pair {
    const seconds = BURST_SECONDS / this.timeScale;
    return {
      read: new Bucket(read, read * seconds, nowMs, saved ? read * seconds : 0),
      write: new Bucket(write, write * seconds, nowMs, saved ? write * seconds : 0),
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

  private item(key: ItemKey, nowMs: number): Item {
    const id = key.sortKey === undefined ? key.hashKey : `${key.hashKey}\u0000${key.sortKey}`;
    let it = this.items.get(id);
    if (!it) {
      const l = this.limits;
      const hash = partitionHash(key.hashKey);
      const order: OrderKey = [hash, key.sortKey ?? key.hashKey];
      const group = hash % this.partitionCount;
      it = {
        ...this.itemPair(
          PARTITION_READ_UNITS_PER_SEC * l.read,
          PARTITION_WRITE_UNITS_PER_SEC * l.write,
          nowMs,
        ),
        group,
        part: partOf(this.groups[group]!, order),
        order,
        rate: 0,
        at: nowMs,
        isolated: false,
      };
      this.items.set(id, it);
      it.part.members.push(it);
    }
    return it;
  }

  /** The on-demand ceiling moves once per second with what was consumed (a second is timeScale seconds of its window). */
  private tick(nowMs: number): void {
    if (!this.ceiling) return;
    while (nowMs - this.lastSecond >= 1000) {
      this.ceiling.read.step(this.consumed.read, this.timeScale);
      this.ceiling.write.step(this.consumed.write, this.timeScale);
      this.consumed = { read: 0, write: 0 };
      this.lastSecond += 1000;
      this.table.read.rate = this.table.read.cap = this.ceiling.read.ceiling;
      this.table.write.rate = this.table.write.cap = this.ceiling.write.ceiling;
    }
  }

  /** Isolates the hottest not-yet-isolated item of a partition (recent units/s, 2-s decay). */
  private isolateHottest(part: Part, nowMs: number): void {
    const members = part.members;
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
   * Time-scale mode: a partition asked at least half its limit (ask) starts (or keeps) its heat clock; a pause in
   * that heat longer than HEAT_PAUSE_SECONDS stops the clock. Once the clock reaches the split delay, the partition splits.
   */
  private heat(part: Part, item: Item, nowMs: number): void {
    if (part.hotSinceMs === null || nowMs - part.lastHotMs > HEAT_PAUSE_SECONDS * 1000)
      part.hotSinceMs = nowMs;
    part.lastHotMs = nowMs;
    const delayMs = (SPLIT_FOR_HEAT_SECONDS[this.model.billing.mode] * 1000) / this.timeScale;
    if (nowMs - part.hotSinceMs >= delayMs) this.split(item.group, part, nowMs);
  }

  /**
   * Time-scale mode: a partition's recent demand (units asked, admitted or not); while it is at least
   * SPLIT_HEAT_FRACTION of the partition's limit in either direction (the simulation's rule, ./simulate.ts, after
   * rules.ts: "sustained high read or write throughput", not only throttling), the partition's heat clock runs.
   */
  private ask(it: Item, dir: Dir, units: number, nowMs: number): void {
    const part = it.part;
    const c = part.demand;
    c.read = decayed(c.read, c.at, nowMs);
    c.write = decayed(c.write, c.at, nowMs);
    c.at = nowMs;
    c[dir] += units / DECAY_SECONDS;
    if (c.read >= SPLIT_HEAT_FRACTION * part.read.rate || c.write >= SPLIT_HEAT_FRACTION * part.write.rate)
      this.heat(part, it, nowMs);
  }

  /** Splits a partition in two at the key that halves its recent traffic; each half gets a partition's rates. */
  private split(g: number, part: Part, nowMs: number): void {
    const members = [...part.members].sort((a, b) => compareOrder(a.order, b.order));
    const cut = heatMidpoint(members.map((m) => decayed(m.rate, m.at, nowMs)));
    part.hotSinceMs = null;
    if (cut <= 0 || compareOrder(members[cut - 1]!.order, members[cut]!.order) === 0) return; // nothing to divide
    const group = this.groups[g]!;
    const i = group.parts.indexOf(part);
    const halves = [this.newPart(nowMs, false), this.newPart(nowMs, false)] as const;
    members.forEach((m, k) => {
      m.part = halves[k < cut ? 0 : 1];
      m.part.members.push(m);
    });
    // each half carries its share of the recent demand (its items' recent rates): heat is not reset by the split
    const heats = members.map((m) => decayed(m.rate, m.at, nowMs));
    const total = heats.reduce((a, b) => a + b, 0);
    const lower = total > 0 ? heats.slice(0, cut).reduce((a, b) => a + b, 0) / total : 0.5;
    const { read, write, at } = part.demand;
    halves.forEach((h, i) => {
      const share = i === 0 ? lower : 1 - lower;
      h.demand = {
        read: decayed(read, at, nowMs) * share,
        write: decayed(write, at, nowMs) * share,
        at: nowMs,
      };
    });
    group.parts.splice(i, 1, ...halves);
    group.bounds.splice(i, 0, members[cut]!.order);
    this.counters.splits++;
    this.counters.partitions++;
  }

  /**
   * Whether a request on `key` may start now: null when admitted (charge it with `charge`), else the throttle
   * DynamoDB would answer. `units` only feeds the item's recent-traffic rate (the split and isolation choice).
   */
  check(key: string | ItemKey, dir: Dir, units: number, nowMs: number): Throttle | null {
    this.tick(nowMs);
    const it = this.item(typeof key === 'string' ? { hashKey: key } : key, nowMs);
    it.rate = decayed(it.rate, it.at, nowMs) + units / DECAY_SECONDS;
    it.at = nowMs;
    // the demand heats the partition (time-scale mode), which may split it: the item's partition after that
    if (this.splitting && !it.isolated) this.ask(it, dir, units, nowMs);
    const part = it.part;
    for (const b of [it[dir], part[dir], this.table[dir]]) b.refill(nowMs);
    let limit: Throttle['limit'] | null = null;
    if (!it[dir].canTake()) limit = 'item';
    else if (!it.isolated && !part[dir].canTake()) {
      limit = 'partition';
      if (!this.splitting) this.isolateHottest(part, nowMs);
    } else if (!this.table[dir].canTake()) limit = 'table';
    const second = this.second(nowMs);
    if (!limit) return null;
    this.counters.throttled[limit]++;
    second.throttled[limit]++;
    return this.throttle(dir, limit);
  }

  /** Charges an admitted request's units to its item, partition and table. */
  charge(key: string | ItemKey, dir: Dir, units: number, nowMs: number): void {
    const it = this.item(typeof key === 'string' ? { hashKey: key } : key, nowMs);
    it[dir].take(units);
    if (!it.isolated) it.part[dir].take(units);
    this.table[dir].take(units);
    this.consumed[dir] += units;
    this.counters.consumedUnits[dir] += units;
    this.counters.admitted++;
    const second = this.second(nowMs);
    if (dir === 'read') second.consumedReadUnits += units;
    else second.consumedWriteUnits += units;
    second.admitted++;
  }

  /** The second `nowMs` falls in (seconds without requests filled in), its partitions and splits brought up to now. */
  private second(nowMs: number): CapacitySecond {
    const at = Math.max(0, Math.floor((nowMs - this.startMs) / 1000));
    while (this.seconds.length <= at)
      this.seconds.push({
        second: this.seconds.length,
        consumedReadUnits: 0,
        consumedWriteUnits: 0,
        admitted: 0,
        throttled: { item: 0, partition: 0, table: 0 },
        partitions: this.counters.partitions,
        splits: this.counters.splits,
      });
    const s = this.seconds[at]!;
    s.partitions = this.counters.partitions;
    s.splits = this.counters.splits;
    return s;
  }

  /** When the state began (epoch ms: the `nowMs` it was created with). */
  get startedAtMs(): number {
    return this.startMs;
  }

  /** The seconds so far (copies): up to the last request's, or with `nowMs` up to the one it falls in. */
  series(nowMs?: number): CapacitySecond[] {
    if (nowMs !== undefined) this.second(nowMs);
    return this.seconds.map((s) => ({ ...s, throttled: { ...s.throttled } }));
  }

  /**
   * One request on `key` that consumes `units` read or write units: null when admitted (and
   * charged), else the throttle DynamoDB would answer.
   */
  request(key: string | ItemKey, dir: Dir, units: number, nowMs: number): Throttle | null {
    const throttle = this.check(key, dir, units, nowMs);
    if (!throttle) this.charge(key, dir, units, nowMs);
    return throttle;
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

/**
 * Time-scale mode: a partition's heat clock stops after this many seconds asked less than half its limit. DynamoDB does not
 * document what "sustained" traffic is; a hot partition is charged many times a second, so a pause of a few
 * seconds means the heat is gone. Real seconds, not scaled: it is a measurement window, not a delay.
 */
export const HEAT_PAUSE_SECONDS = 5;

/** Time constant of an item's recent rate (seconds). */
const DECAY_SECONDS = 2;

function decayed(rate: number, atMs: number, nowMs: number): number {
  return rate * Math.exp(-Math.max(0, nowMs - atMs) / 1000 / DECAY_SECONDS);
}

function compareOrder(a: OrderKey, b: OrderKey): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** The partition of a group that holds `order`: the first whose upper bound lies above it. */
function partOf(group: Group, order: OrderKey): Part {
  let lo = 0;
  let hi = group.bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareOrder(order, group.bounds[mid]!) < 0) hi = mid;
    else lo = mid + 1;
  }
  return group.parts[lo]!;
}

/**
 * Where to cut a list of heats (in key order) so that both sides carry as nearly half as possible: the index of
 * the first item of the upper half, 1..n-1; 0 when there is nothing to divide (fewer than two items).
 */
export function heatMidpoint(heats: readonly number[]): number {
  if (heats.length < 2) return 0;
  const total = heats.reduce((a, b) => a + b, 0);
  let below = 0;
  let best = 1;
  let bestGap = Infinity;
  for (let k = 1; k < heats.length; k++) {
    below += heats[k - 1]!;
    const gap = Math.abs(total - 2 * below);
    if (gap < bestGap) {
      bestGap = gap;
      best = k;
    }
  }
  return best;
}
