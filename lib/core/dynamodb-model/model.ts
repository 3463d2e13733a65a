/**
 * The DynamoDB capacity model of one cell: a table (billing, size, items), YCSB's key choice and
 * operation mix, and the client (threads, latency, retries). Two modes from the same rules
 * (./rules.ts) and the same solver (./solve.ts):
 * - `predictSteadyState`: adaptive capacity has isolated the hot items (each then limited by its own
 *   partition's 3,000 RCU / 1,000 WCU), burst is spent, on-demand has grown to its cap. Milliseconds.
 * - `simulate` (./simulate.ts): second by second from table creation: the initial partitions with hot
 *   keys (or item collections) hashed onto them, split for heat after sustained heat, the table's limit
 *   with its burst bucket.
 */
import {
  DEFAULT_TABLE_QUOTA_UNITS,
  EVENTUALLY_CONSISTENT_READ_FACTOR,
  ON_DEMAND_NEW_TABLE_PARTITIONS,
  ON_DEMAND_NEW_TABLE_READ_UNITS,
  ON_DEMAND_NEW_TABLE_WRITE_UNITS,
  OnDemandCeiling,
  PARTITION_MAX_BYTES,
  PARTITION_READ_UNITS_PER_SEC,
  PARTITION_WRITE_UNITS_PER_SEC,
  partitionCount,
} from './rules';
import { solve, type ClientModel, type Domain, type OpMix, type SolveResult } from './solve';
import { keyPopularity, type KeyDistribution, type KeyNaming, type KeyPopularity } from './ycsb-keys';

export interface TableModel {
  billing:
    | { mode: 'provisioned'; rcu: number; wcu: number }
    | { mode: 'on-demand'; maxReadRequestUnits?: number; maxWriteRequestUnits?: number };
  warmThroughput?: { readUnitsPerSecond?: number; writeUnitsPerSecond?: number };
  recordCount: number;
  /** bytes of one item as DynamoDB sizes it */
  itemBytes: number;
  /** bytes stored per item (item + 100 bytes of overhead) */
  storedItemBytes: number;
  /**
   * Every throughput limit (table, partition, item, on-demand ceilings) × this factor; the partition
   * count is the unscaled table's. Local emulation: a big table's behaviour at a few hundred ops/s.
   */
  capacityScale?: number;
  /**
   * Reads are eventually consistent: every read limit (item, partition, table) × 1.5 in read units,
   * the three replicas serving them (rules.ts EVENTUALLY_CONSISTENT_READ_FACTOR).
   */
  eventuallyConsistentReads?: boolean;
  /**
   * N partition-key values shared by the items (key design of seed 003), each an item collection a
   * split for heat may divide by sort-key range; absent: one value per item.
   */
  partitionKeyValues?: number;
  /**
   * How YCSB names the records (insertorder, zeropadding): with N partition-key values, which value a hot
   * record gets follows from its name (the binding's mapping); absent: YCSB's default, hashed.
   */
  keyNaming?: KeyNaming;
  /**
   * With N partition-key values: the partition (of those at creation) each value's item collection is placed on,
   * index = value; absent: by the hash of the value's name (simulate.ts collectionPartition). Another placement
   * is another draw of DynamoDB's unpublished hash (placement-spread.ts).
   */
  placement?: readonly number[];
}

/** The factor on every read limit of the table: 1.5 for eventually consistent reads, else 1. */
export function readLimitFactor(t: TableModel): number {
  return t.eventuallyConsistentReads ? EVENTUALLY_CONSISTENT_READ_FACTOR : 1;
}

export interface CellModel {
  table: TableModel;
  distribution: KeyDistribution;
  mix: OpMix;
  targetOpsPerSec: number;
  client: ClientModel;
}

export interface Prediction extends SolveResult {
  attainment: number;
  /** share of all operations on the busiest partition or isolated item */
  hottestPartitionShare: number;
  partitions: number;
  /** one line: why the cell is below target, or '' */
  reason: string;
}

/** The table's read/write ceiling in steady state (burst spent, on-demand grown to its cap). */
export function steadyTableLimit(t: TableModel): { readUnitsPerSec: number; writeUnitsPerSec: number } {
  const s = t.capacityScale ?? 1;
  const r = s * readLimitFactor(t);
  if (t.billing.mode === 'provisioned')
    return { readUnitsPerSec: t.billing.rcu * r, writeUnitsPerSec: t.billing.wcu * s };
  return {
    readUnitsPerSec: (t.billing.maxReadRequestUnits ?? DEFAULT_TABLE_QUOTA_UNITS) * r,
    writeUnitsPerSec: (t.billing.maxWriteRequestUnits ?? DEFAULT_TABLE_QUOTA_UNITS) * s,
  };
}

/**
 * An on-demand table's ceilings, read and write: from its warm throughput (or a new table's) × capacityScale, rising
 * with the previous peak up to its limit (rules.ts OnDemandCeiling). The emulator and the on-demand response share it.
 */
export function onDemandCeilings(t: TableModel): { read: OnDemandCeiling; write: OnDemandCeiling } {
  const s = t.capacityScale ?? 1;
  const warm = t.warmThroughput ?? {};
  const cap = steadyTableLimit(t);
  return {
    read: new OnDemandCeiling(
      (warm.readUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_READ_UNITS) * s,
      cap.readUnitsPerSec,
    ),
    write: new OnDemandCeiling(
      (warm.writeUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_WRITE_UNITS) * s,
      cap.writeUnitsPerSec,
    ),
  };
}

/**
 * Partitions at creation: from size and provisioned (or warm) throughput; a new on-demand table without
 * warm throughput has four (rules.ts ON_DEMAND_NEW_TABLE_PARTITIONS), or more for its size.
 */
export function initialPartitions(t: TableModel): number {
  const warm = t.warmThroughput ?? {};
  if (
    t.billing.mode === 'on-demand' &&
    warm.readUnitsPerSecond === undefined &&
    warm.writeUnitsPerSecond === undefined
  )
    return Math.max(
      ON_DEMAND_NEW_TABLE_PARTITIONS,
      Math.ceil((t.recordCount * t.storedItemBytes) / PARTITION_MAX_BYTES),
    );
  const read =
    t.billing.mode === 'provisioned'
      ? Math.max(t.billing.rcu, warm.readUnitsPerSecond ?? 0)
      : (warm.readUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_READ_UNITS);
  const write =
    t.billing.mode === 'provisioned'
      ? Math.max(t.billing.wcu, warm.writeUnitsPerSecond ?? 0)
      : (warm.writeUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_WRITE_UNITS);
  return partitionCount({
    storedBytes: t.recordCount * t.storedItemBytes,
    readUnitsPerSec: read,
    writeUnitsPerSec: write,
  });
}

/** The scale of a table's limits: capacityScale, and for reads × the eventually consistent factor. */
export interface LimitScale {
  read: number;
  write: number;
}

export function limitScale(t: TableModel): LimitScale {
  const s = t.capacityScale ?? 1;
  return { read: s * readLimitFactor(t), write: s };
}

function itemDomain(share: number, scale: LimitScale): Domain {
  return {
    kind: 'item',
    share,
    readUnitsPerSec: PARTITION_READ_UNITS_PER_SEC * scale.read,
    writeUnitsPerSec: PARTITION_WRITE_UNITS_PER_SEC * scale.write,
  };
}

/** `count` partitions taken together (limits summed), every limit × its scale. */
export function partitionDomain(share: number, count: number, scale: LimitScale): Domain {
  return {
    kind: 'partition',
    share,
    count,
    readUnitsPerSec: PARTITION_READ_UNITS_PER_SEC * count * scale.read,
    writeUnitsPerSec: PARTITION_WRITE_UNITS_PER_SEC * count * scale.write,
  };
}

/**
 * Steady-state layout: every listed hot key isolated on its own partition, the rest spread evenly
 * (by the random hash of the key) over the table's partitions.
 */
function steadyDomains(pop: KeyPopularity, partitions: number, cell: CellModel): Domain[] {
  // an item that cannot reach its limit even at the full target is never throttled on its own:
  // those are one group without a local limit (exactly equivalent, and fast)
  const m = cell.mix;
  const s = limitScale(cell.table);
  const canThrottle = (p: number) =>
    cell.targetOpsPerSec * p * m.read * m.readUnits > PARTITION_READ_UNITS_PER_SEC * s.read ||
    cell.targetOpsPerSec * p * m.write * m.writeUnits > PARTITION_WRITE_UNITS_PER_SEC * s.write;
  const domains: Domain[] = [];
  let cool = 0;
  for (const h of pop.hot) {
    if (canThrottle(h.p)) domains.push(itemDomain(h.p, s));
    else cool += h.p;
  }
  if (cool > 0)
    domains.push({ kind: 'item', share: cool, readUnitsPerSec: Infinity, writeUnitsPerSec: Infinity });
  // the identical tail partitions as one group: their share and limits summed; a table with fewer
  // keys than partitions uses one partition per key, each held to an item's limit
  if (pop.restMass > 0) {
    if (pop.restKeys > 0 && pop.restKeys <= partitions)
      domains.push({ ...partitionDomain(pop.restMass, pop.restKeys, s), kind: 'item' });
    else domains.push(partitionDomain(pop.restMass, partitions, s));
  }
  return domains;
}

function reasonFor(p: Omit<Prediction, 'reason'>, cell: CellModel): string {
  if (p.attainment >= 0.95) return '';
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const s = cell.table.capacityScale ?? 1;
  const units = (x: number) => (x * s).toLocaleString('en-US', { maximumFractionDigits: 2 });
  // eventually consistent reads: the three replicas' 1.5 × (rules.ts EVENTUALLY_CONSISTENT_READ_FACTOR)
  const readUnits = (x: number) => units(x * readLimitFactor(cell.table));
  const scaled = s !== 1 ? ` (limits × ${s})` : '';
  switch (p.limitedBy) {
    case 'item':
      return (
        `the hottest item gets ${pct(p.hottestPartitionShare)} of operations and one item is limited to ` +
        `${readUnits(PARTITION_READ_UNITS_PER_SEC)} RCU / ${units(PARTITION_WRITE_UNITS_PER_SEC)} WCU per second${scaled}; ` +
        `${p.throttledAttemptsPerOp.toFixed(2)} throttled attempts per op, ${p.addedLatencyMs.toFixed(0)} ms of retries per op`
      );
    case 'partition-read':
    case 'partition-write':
      return (
        `a partition is over its ${p.limitedBy === 'partition-read' ? `${readUnits(PARTITION_READ_UNITS_PER_SEC)} RCU` : `${units(PARTITION_WRITE_UNITS_PER_SEC)} WCU`} ` +
        `per second${scaled} (${p.partitions} partitions)`
      );
    case 'table-read':
    case 'table-write':
      return `the table's ${p.limitedBy === 'table-read' ? 'read' : 'write'} capacity is below what the cell asks`;
    case 'client':
      return `${cell.client.threads} threads at ${cell.client.latencyMs} ms cannot reach ${cell.targetOpsPerSec} ops/s (Little's Law)`;
    default:
      return 'below target';
  }
}

function finish(cell: CellModel, r: SolveResult, domains: Domain[], partitions: number): Prediction {
  const p = {
    ...r,
    attainment: cell.targetOpsPerSec > 0 ? r.goodOpsPerSec / cell.targetOpsPerSec : 0,
    hottestPartitionShare: domains.reduce(
      (m, d) => (Number.isFinite(d.readUnitsPerSec) ? Math.max(m, d.share / (d.count ?? 1)) : m),
      0,
    ),
    partitions,
  };
  return { ...p, reason: reasonFor(p, cell) };
}

/**
 * Partitions in steady state: those at creation, or, when the rest of the keys (all but the isolated hot
 * ones) would hold partitions over their limit, as many as split for heat makes to carry them: their demand
 * at the target (at most the table's limit) over one partition's limit. A partition over its limit for
 * minutes is split (./simulate.ts); one below it may stay as it is, so the count made at creation stands.
 */
export function steadyPartitions(cell: CellModel, pop: KeyPopularity): number {
  const n0 = initialPartitions(cell.table);
  const m = cell.mix;
  const s = limitScale(cell.table);
  const table = steadyTableLimit(cell.table);
  const read = Math.min(cell.targetOpsPerSec * pop.restMass * m.read * m.readUnits, table.readUnitsPerSec);
  const write = Math.min(
    cell.targetOpsPerSec * pop.restMass * m.write * m.writeUnits,
    table.writeUnitsPerSec,
  );
  const needed = Math.max(
    Math.ceil(read / (PARTITION_READ_UNITS_PER_SEC * s.read)),
    Math.ceil(write / (PARTITION_WRITE_UNITS_PER_SEC * s.write)),
  );
  // never more partitions than keys to spread (a table of 70 records has at most 70 busy ones)
  return Math.max(n0, Math.min(needed, Math.max(1, pop.restKeys)));
}

/** Analytic, steady-state prediction of one cell (the plan's). */
export function predictSteadyState(
  cell: CellModel,
  pop = keyPopularity(cell.distribution, cell.table.recordCount),
): Prediction {
  const partitions = steadyPartitions(cell, pop);
  const domains = steadyDomains(pop, partitions, cell);
  const r = solve(domains, cell.mix, steadyTableLimit(cell.table), cell.client, cell.targetOpsPerSec);
  return finish(cell, r, domains, partitions);
}

/** 32-bit FNV-1a of a string: DynamoDB's partition hash is internal; any good hash is "random". */
export function partitionHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
