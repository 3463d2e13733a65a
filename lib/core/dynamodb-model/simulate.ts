/**
 * The time-stepped mode of the capacity model (docs/dynamodb-model.md): a cell second by second from
 * table creation. The partitions at creation with the keys hashed onto them; split for heat after
 * sustained heat; the table's limit with its burst bucket; the client's rate (./solve.ts) each step.
 *
 * Two layouts of the keys, by the table's key design:
 * - one item per partition-key value (`ItemLayout`): YCSB's hot keys hashed one by one, the rest spread
 *   evenly; a split divides the hot keys between the halves, a single item never splits;
 * - N partition-key values (`CollectionLayout`): each value's item collection hashed whole onto a
 *   partition; a split divides a partition's heat in two by sort-key range (the run creates no local
 *   secondary index, so a split may cut an item collection), down to a single item.
 */
import {
  BurstBucket,
  PARTITION_READ_UNITS_PER_SEC,
  PARTITION_WRITE_UNITS_PER_SEC,
  SPLIT_FOR_HEAT_SECONDS,
  SPLIT_HEAT_FRACTION,
} from './rules';
import { solve, type Domain, type SolveResult } from './solve';
import { keyPopularity, ycsbKeyName, type KeyNaming, type KeyPopularity } from './ycsb-keys';
import { partitionKeyIndex, partitionKeyValueName } from '../targets/dynamodb/key-design';
import {
  initialPartitions,
  limitScale,
  partitionDomain,
  partitionHash,
  steadyTableLimit,
  type CellModel,
  type LimitScale,
} from './model';

export interface SimStep extends SolveResult {
  t: number;
  partitions: number;
  attainment: number;
  burstRead: number;
  burstWrite: number;
  tableReadLimit: number;
  tableWriteLimit: number;
}

export interface SimulationOptions {
  seconds: number;
  stepSeconds?: number;
  /** burst bucket full at start (default true: an idle table has five minutes saved) */
  burstFullAtStart?: boolean;
  /** seconds of sustained heat before a split (default per billing mode, from the AWS blog) */
  splitAfterSeconds?: number;
}

/** Where the operations go, partition by partition, and how a heated partition splits. */
interface Layout {
  /** every partition's share of all operations */
  shares(): number[];
  /** splits the partitions whose index is in `heated` */
  split(heated: Set<number>): void;
  /** whether partition i can split at all (more than one item's heat) */
  splittable(i: number): boolean;
}

interface ItemPartition {
  /** indices into pop.hot */
  keys: number[];
  /** share of the tail (restMass) */
  tail: number;
}

/** One item per partition-key value: YCSB's hot keys placed by their hash, the rest spread evenly. */
class ItemLayout implements Layout {
  private parts: ItemPartition[];
  constructor(
    private readonly pop: KeyPopularity,
    n0: number,
  ) {
    // the tail's keys are spread by hash; with fewer keys than partitions, only as many hold any
    const holding = Math.max(1, Math.min(n0, pop.restKeys));
    this.parts = Array.from({ length: n0 }, (_, i) => ({ keys: [], tail: i < holding ? 1 / holding : 0 }));
    pop.hot.forEach((h, i) => this.parts[partitionHash(ycsbKeyName(h.keynum)) % n0]!.keys.push(i));
  }
  shares(): number[] {
    return this.parts.map(
      (p) => p.keys.reduce((s, k) => s + this.pop.hot[k]!.p, 0) + p.tail * this.pop.restMass,
    );
  }
  splittable(i: number): boolean {
    const p = this.parts[i]!;
    return p.keys.length > 1 || (p.keys.length === 1 && p.tail > 0);
  }
  split(heated: Set<number>): void {
    this.parts = this.parts.flatMap((p, i) => (heated.has(i) ? this.splitOne(p) : [p]));
  }
  /** Splits a partition in two, dividing its hot keys greedily to balance their heat. */
  private splitOne(p: ItemPartition): ItemPartition[] {
    // a lone hot item is separated from the tail entirely (the item's own partition)
    if (p.keys.length === 1)
      return [
        { keys: p.keys, tail: 0 },
        { keys: [], tail: p.tail },
      ];
    const a: ItemPartition = { keys: [], tail: p.tail / 2 };
    const b: ItemPartition = { keys: [], tail: p.tail / 2 };
    let sa = a.tail * this.pop.restMass;
    let sb = b.tail * this.pop.restMass;
    for (const k of [...p.keys].sort((x, y) => this.pop.hot[y]!.p - this.pop.hot[x]!.p)) {
      if (sa <= sb) {
        a.keys.push(k);
        sa += this.pop.hot[k]!.p;
      } else {
        b.keys.push(k);
        sb += this.pop.hot[k]!.p;
      }
    }
    return [a, b];
  }
}

/**
 * The partition-key value (its index) of YCSB's record `keynum` with N values: the binding's rule
 * (lib/core/targets/dynamodb/key-design.ts partitionKeyIndex, the key's digits mod N) on the name YCSB gives
 * the record (hashed by default: "user" + fnvhash64(keynum); ordered: "user" + keynum, where it is keynum mod N).
 */
export function partitionKeyValueOf(keynum: number, values: number, naming: KeyNaming = {}): number {
  return partitionKeyIndex(ycsbKeyName(keynum, naming), values);
}

/**
 * The partition of a partition-key value among `n`: FNV-1a (./model.ts partitionHash) with MurmurHash3's
 * 32-bit finaliser (fmix32, https://github.com/aappleby/smhasher/blob/master/src/MurmurHash3.cpp) over it.
 * FNV-1a alone is not random in its low bits for names that differ in their last characters ("pk0" …
 * "pk199" fall exactly 50 / 50 / 50 / 50 on 4 partitions); DynamoDB's hash spreads them at random.
 */
export function collectionPartition(name: string, n: number): number {
  let h = partitionHash(name);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return (h >>> 0) % n;
}

/**
 * Records per value: ordered keys go round robin (keynum mod N: ⌊R/N⌋ or ⌈R/N⌉ each, exactly); hashed keys'
 * digits spread evenly over the residues, so the same counts are their expectation (each value's count varies
 * by about √(R/N) from it; counting exactly would hash every record).
 */
function itemsOfValue(records: number, values: number, j: number): number {
  return Math.floor(records / values) + (j < records % values ? 1 : 0);
}

/**
 * Each value's share of the operations: YCSB's listed hot keys by their value (partitionKeyValueOf: the
 * binding's mapping of the key YCSB names them by), the rest of the mass spread over the values in
 * proportion to their items (itemsOfValue).
 */
export function collectionShares(pop: KeyPopularity, values: number, naming: KeyNaming = {}): number[] {
  const r = pop.recordCount;
  const shares = Array.from(
    { length: values },
    (_, j) => (pop.restMass * itemsOfValue(r, values, j)) / Math.max(1, r),
  );
  for (const h of pop.hot) shares[partitionKeyValueOf(h.keynum, values, naming)]! += h.p;
  return shares;
}

interface CollectionPartition {
  share: number;
  /** items on the partition (a single item cannot split) */
  items: number;
  /** the share of its hottest item: no split puts less on one side */
  hottestItem: number;
}

/** N partition-key values: item collections hashed whole, split by sort-key range to balance heat. */
class CollectionLayout implements Layout {
  private parts: CollectionPartition[];
  constructor(
    pop: KeyPopularity,
    values: number,
    n0: number,
    opts: { naming: KeyNaming; placement?: readonly number[] | undefined },
  ) {
    const { naming, placement } = opts;
    this.parts = Array.from({ length: n0 }, () => ({ share: 0, items: 0, hottestItem: 0 }));
    const shares = collectionShares(pop, values, naming);
    const r = pop.recordCount;
    const coldItem = pop.restKeys > 0 ? pop.restMass / pop.restKeys : 0;
    const hottest = new Map<number, number>();
    for (const h of pop.hot) {
      const v = partitionKeyValueOf(h.keynum, values, naming);
      hottest.set(v, Math.max(hottest.get(v) ?? 0, h.p));
    }
    shares.forEach((share, j) => {
      const p = this.parts[placement?.[j] ?? collectionPartition(partitionKeyValueName(j), n0)]!;
      p.share += share;
      p.items += itemsOfValue(r, values, j);
      p.hottestItem = Math.max(p.hottestItem, hottest.get(j) ?? coldItem);
    });
  }
  shares(): number[] {
    return this.parts.map((p) => p.share);
  }
  splittable(i: number): boolean {
    return this.parts[i]!.items > 1;
  }
  split(heated: Set<number>): void {
    this.parts = this.parts.flatMap((p, i) => {
      if (!heated.has(i)) return [p];
      // the split point balances heat; the hottest item stays whole on one side
      const a = Math.min(p.share, Math.max(p.share / 2, p.hottestItem));
      const itemsA = Math.max(1, Math.floor(p.items / 2));
      return [
        { share: a, items: itemsA, hottestItem: p.hottestItem },
        { share: p.share - a, items: p.items - itemsA, hottestItem: Math.min(p.hottestItem, p.share - a) },
      ];
    });
  }
}

/** Partitions with the same share as one domain (most of a large table at first). */
function groupDomains(shares: number[], limits: LimitScale): { domains: Domain[]; groupOf: number[] } {
  const groups = new Map<number, number[]>();
  shares.forEach((s, i) => {
    const g = groups.get(s);
    if (g) g.push(i);
    else groups.set(s, [i]);
  });
  const groupOf: number[] = new Array<number>(shares.length);
  const domains: Domain[] = [];
  for (const [s, members] of groups) {
    for (const i of members) groupOf[i] = domains.length;
    domains.push(partitionDomain(s * members.length, members.length, limits));
  }
  return { domains, groupOf };
}

/**
 * The table's limit over time, for both billing modes: the provisioned rate, or an on-demand table's
 * max (MaxRead/WriteRequestUnits or the table quota), with up to 300 s of unused capacity as burst.
 * An on-demand table's growth is its partitions' (splits): the post's on-demand tables went from
 * 4,500 to 220,000 read units in an hour, no "twice the previous peak per 30 minutes" ceiling in sight.
 */
function tableLimits(cell: CellModel, full: boolean) {
  const steady = steadyTableLimit(cell.table);
  const read = new BurstBucket(steady.readUnitsPerSec, full);
  const write = new BurstBucket(steady.writeUnitsPerSec, full);
  return {
    now: (dt: number) => ({
      readUnitsPerSec: steady.readUnitsPerSec + read.available / dt,
      writeUnitsPerSec: steady.writeUnitsPerSec + write.available / dt,
    }),
    spend: (r: SolveResult, dt: number) => {
      read.step(r.consumedReadUnitsPerSec, dt);
      write.step(r.consumedWriteUnitsPerSec, dt);
    },
    burst: () => ({ read: read.available, write: write.available }),
  };
}

/**
 * Time-stepped simulation of a cell from table creation: a partition that has consumed at least half its
 * limit (SPLIT_HEAT_FRACTION) for `splitAfterSeconds` splits in two; the table's limit with its burst;
 * the client's rate solved each step.
 */
export function simulate(
  cell: CellModel,
  opts: SimulationOptions,
  pop = keyPopularity(cell.distribution, cell.table.recordCount),
): SimStep[] {
  const dt = opts.stepSeconds ?? 1;
  const t = cell.table;
  const limits = limitScale(t);
  const n0 = initialPartitions(t);
  const layout: Layout =
    t.partitionKeyValues !== undefined
      ? new CollectionLayout(pop, t.partitionKeyValues, n0, {
          naming: t.keyNaming ?? {},
          placement: t.placement,
        })
      : new ItemLayout(pop, n0);
  const splitAfter = opts.splitAfterSeconds ?? SPLIT_FOR_HEAT_SECONDS[t.billing.mode];
  const table = tableLimits(cell, opts.burstFullAtStart ?? true);
  const heat: number[] = new Array<number>(n0).fill(0);
  const out: SimStep[] = [];
  // the layout changes only when a partition splits, and the solution only with it or the table's limit
  let shares = layout.shares();
  let { domains, groupOf } = groupDomains(shares, limits);
  let solved = null as { key: string; r: SolveResult } | null;
  for (let now = 0; now < opts.seconds; now += dt) {
    const limit = table.now(dt);
    const key = `${limit.readUnitsPerSec}:${limit.writeUnitsPerSec}`;
    if (solved?.key !== key)
      solved = { key, r: solve(domains, cell.mix, limit, cell.client, cell.targetOpsPerSec) };
    const r = solved.r;
    const burst = table.burst();
    out.push({
      ...r,
      t: now,
      partitions: shares.length,
      attainment: r.goodOpsPerSec / cell.targetOpsPerSec,
      burstRead: burst.read,
      burstWrite: burst.write,
      tableReadLimit: limit.readUnitsPerSec,
      tableWriteLimit: limit.writeUnitsPerSec,
    });
    table.spend(r, dt);
    const heated = new Set<number>();
    shares.forEach((_share, i) => {
      const d = r.domains[groupOf[i]!]!;
      const n = domains[groupOf[i]!]!.count ?? 1;
      // per partition of the group: its demand against SPLIT_HEAT_FRACTION of its own limit
      const hot =
        d.readDemand / n >= SPLIT_HEAT_FRACTION * PARTITION_READ_UNITS_PER_SEC * limits.read ||
        d.writeDemand / n >= SPLIT_HEAT_FRACTION * PARTITION_WRITE_UNITS_PER_SEC * limits.write;
      heat[i] = hot ? heat[i]! + dt : 0;
      if (heat[i]! >= splitAfter && layout.splittable(i)) heated.add(i);
    });
    if (heated.size) {
      layout.split(heated);
      shares = layout.shares();
      ({ domains, groupOf } = groupDomains(shares, limits));
      solved = null;
      // both halves start cold; the others keep their heat, in the same order as the layout's
      const next: number[] = [];
      heat.forEach((h, i) => (heated.has(i) ? next.push(0, 0) : next.push(h)));
      heat.splice(0, heat.length, ...next);
    }
  }
  return out;
}
