/**
 * The DynamoDB capacity model of one cell: a table (billing, size, items), YCSB's key choice and
 * operation mix, and the client (threads, latency, retries). Two modes from the same rules
 * (./rules.ts) and the same solver (./solve.ts):
 * - `predictSteadyState`: adaptive capacity has isolated the hot items (each then limited by its own
 *   partition's 3,000 RCU / 1,000 WCU), burst is spent, on-demand has grown to its cap. Milliseconds.
 * - `simulate`: second by second from table creation: the initial partitions with hot keys hashed
 *   onto them, split for heat after sustained heat, the burst bucket, the on-demand ceiling.
 */
import {
  BurstBucket,
  DEFAULT_TABLE_QUOTA_UNITS,
  OnDemandCeiling,
  ON_DEMAND_NEW_TABLE_READ_UNITS,
  ON_DEMAND_NEW_TABLE_WRITE_UNITS,
  PARTITION_READ_UNITS_PER_SEC,
  PARTITION_WRITE_UNITS_PER_SEC,
  SPLIT_FOR_HEAT_SECONDS,
  partitionCount,
} from './rules';
import { solve, type ClientModel, type Domain, type OpMix, type SolveResult } from './solve';
import { keyPopularity, ycsbKeyName, type KeyDistribution, type KeyPopularity } from './ycsb-keys';

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
  if (t.billing.mode === 'provisioned')
    return { readUnitsPerSec: t.billing.rcu * s, writeUnitsPerSec: t.billing.wcu * s };
  return {
    readUnitsPerSec: (t.billing.maxReadRequestUnits ?? DEFAULT_TABLE_QUOTA_UNITS) * s,
    writeUnitsPerSec: (t.billing.maxWriteRequestUnits ?? DEFAULT_TABLE_QUOTA_UNITS) * s,
  };
}

/** Partitions at creation: from size and provisioned (or warm / new on-demand) throughput. */
export function initialPartitions(t: TableModel): number {
  const warm = t.warmThroughput ?? {};
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

function itemDomain(share: number, capacityScale: number): Domain {
  return {
    kind: 'item',
    share,
    readUnitsPerSec: PARTITION_READ_UNITS_PER_SEC * capacityScale,
    writeUnitsPerSec: PARTITION_WRITE_UNITS_PER_SEC * capacityScale,
  };
}

/** `count` partitions taken together (limits summed), every limit × capacityScale. */
function partitionDomain(share: number, count: number, capacityScale: number): Domain {
  return {
    kind: 'partition',
    share,
    count,
    readUnitsPerSec: PARTITION_READ_UNITS_PER_SEC * count * capacityScale,
    writeUnitsPerSec: PARTITION_WRITE_UNITS_PER_SEC * count * capacityScale,
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
  const s = cell.table.capacityScale ?? 1;
  const canThrottle = (p: number) =>
    cell.targetOpsPerSec * p * m.read * m.readUnits > PARTITION_READ_UNITS_PER_SEC * s ||
    cell.targetOpsPerSec * p * m.write * m.writeUnits > PARTITION_WRITE_UNITS_PER_SEC * s;
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
  const scaled = s !== 1 ? ` (limits × ${s})` : '';
  switch (p.limitedBy) {
    case 'item':
      return (
        `the hottest item gets ${pct(p.hottestPartitionShare)} of operations and one item is limited to ` +
        `${units(PARTITION_READ_UNITS_PER_SEC)} RCU / ${units(PARTITION_WRITE_UNITS_PER_SEC)} WCU per second${scaled}; ` +
        `${p.throttledAttemptsPerOp.toFixed(2)} throttled attempts per op, ${p.addedLatencyMs.toFixed(0)} ms of retries per op`
      );
    case 'partition-read':
    case 'partition-write':
      return (
        `a partition is over its ${p.limitedBy === 'partition-read' ? `${units(PARTITION_READ_UNITS_PER_SEC)} RCU` : `${units(PARTITION_WRITE_UNITS_PER_SEC)} WCU`} ` +
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

/** Analytic, steady-state prediction of one cell (the plan's). */
export function predictSteadyState(
  cell: CellModel,
  pop = keyPopularity(cell.distribution, cell.table.recordCount),
): Prediction {
  const partitions = initialPartitions(cell.table);
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

interface SimPartition {
  /** indices into pop.hot */
  keys: number[];
  /** share of the tail (restMass) */
  tail: number;
  /** seconds of sustained heat */
  hot: number;
}

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

/**
 * Time-stepped simulation of a cell from table creation: the partitions at creation, hot keys
 * hashed onto them, a partition at its limit for `splitAfterSeconds` split in two (hot keys
 * divided to balance heat; a single item never splits), the burst bucket (provisioned) or the
 * on-demand ceiling, and the client's rate (solve.ts) solved each step.
 */
export function simulate(
  cell: CellModel,
  opts: SimulationOptions,
  pop = keyPopularity(cell.distribution, cell.table.recordCount),
): SimStep[] {
  const dt = opts.stepSeconds ?? 1;
  const t = cell.table;
  const scale = t.capacityScale ?? 1;
  const n0 = initialPartitions(t);
  // the tail's keys are spread by hash; with fewer keys than partitions, only as many hold any
  const holding = Math.max(1, Math.min(n0, pop.restKeys));
  const parts: SimPartition[] = Array.from({ length: n0 }, (_, i) => ({
    keys: [],
    tail: i < holding ? 1 / holding : 0,
    hot: 0,
  }));
  pop.hot.forEach((h, i) => parts[partitionHash(ycsbKeyName(h.keynum)) % n0]!.keys.push(i));
  const splitAfter = opts.splitAfterSeconds ?? SPLIT_FOR_HEAT_SECONDS[t.billing.mode];
  const full = opts.burstFullAtStart ?? true;
  const steady = steadyTableLimit(t);
  const burst =
    t.billing.mode === 'provisioned'
      ? {
          read: new BurstBucket(steady.readUnitsPerSec, full),
          write: new BurstBucket(steady.writeUnitsPerSec, full),
        }
      : null;
  const warm = t.warmThroughput ?? {};
  const ceiling =
    t.billing.mode === 'on-demand'
      ? {
          read: new OnDemandCeiling(
            warm.readUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_READ_UNITS,
            steady.readUnitsPerSec,
          ),
          write: new OnDemandCeiling(
            warm.writeUnitsPerSecond ?? ON_DEMAND_NEW_TABLE_WRITE_UNITS,
            steady.writeUnitsPerSec,
          ),
        }
      : null;
  const shareOf = (p: SimPartition) => p.keys.reduce((s, k) => s + pop.hot[k]!.p, 0) + p.tail * pop.restMass;
  const out: SimStep[] = [];
  for (let now = 0; now < opts.seconds; now += dt) {
    const table = burst
      ? {
          readUnitsPerSec: steady.readUnitsPerSec + burst.read.available / dt,
          writeUnitsPerSec: steady.writeUnitsPerSec + burst.write.available / dt,
        }
      : { readUnitsPerSec: ceiling!.read.ceiling, writeUnitsPerSec: ceiling!.write.ceiling };
    // partitions with the same share are one group (most of a large table at first)
    const groups = new Map<number, number[]>();
    parts.forEach((p, i) => {
      const s = shareOf(p);
      const g = groups.get(s);
      if (g) g.push(i);
      else groups.set(s, [i]);
    });
    const groupOf: number[] = new Array<number>(parts.length);
    const domains: Domain[] = [];
    for (const [s, members] of groups) {
      for (const i of members) groupOf[i] = domains.length;
      domains.push(partitionDomain(s * members.length, members.length, scale));
    }
    const r = solve(domains, cell.mix, table, cell.client, cell.targetOpsPerSec);
    out.push({
      ...r,
      t: now,
      partitions: parts.length,
      attainment: r.goodOpsPerSec / cell.targetOpsPerSec,
      burstRead: burst ? burst.read.available : 0,
      burstWrite: burst ? burst.write.available : 0,
      tableReadLimit: table.readUnitsPerSec,
      tableWriteLimit: table.writeUnitsPerSec,
    });
    if (burst) {
      burst.read.step(r.consumedReadUnitsPerSec, dt);
      burst.write.step(r.consumedWriteUnitsPerSec, dt);
    }
    if (ceiling) {
      ceiling.read.step(r.consumedReadUnitsPerSec, dt);
      ceiling.write.step(r.consumedWriteUnitsPerSec, dt);
    }
    // split for heat: a partition at its limit (any throttling) for splitAfter seconds
    const next: SimPartition[] = [];
    parts.forEach((p, i) => {
      const g = groupOf[i]!;
      const d = r.domains[g]!;
      const heated =
        d.readDemand >= domains[g]!.readUnitsPerSec || d.writeDemand >= domains[g]!.writeUnitsPerSec;
      p.hot = heated ? p.hot + dt : 0;
      if (p.hot >= splitAfter && (p.keys.length > 1 || (p.keys.length === 1 && p.tail > 0))) {
        next.push(...splitPartition(p, pop));
      } else next.push(p);
    });
    parts.splice(0, parts.length, ...next);
  }
  return out;
}

/** Splits a partition in two, dividing its hot keys greedily to balance their heat. */
function splitPartition(p: SimPartition, pop: KeyPopularity): SimPartition[] {
  const a: SimPartition = { keys: [], tail: p.tail / 2, hot: 0 };
  const b: SimPartition = { keys: [], tail: p.tail / 2, hot: 0 };
  let sa = a.tail * pop.restMass;
  let sb = b.tail * pop.restMass;
  for (const k of [...p.keys].sort((x, y) => pop.hot[y]!.p - pop.hot[x]!.p)) {
    if (sa <= sb) {
      a.keys.push(k);
      sa += pop.hot[k]!.p;
    } else {
      b.keys.push(k);
      sb += pop.hot[k]!.p;
    }
  }
  // a lone hot item is separated from the tail entirely (the item's own partition)
  if (p.keys.length === 1)
    return [
      { keys: p.keys, tail: 0, hot: 0 },
      { keys: [], tail: p.tail, hot: 0 },
    ];
  return [a, b];
}
