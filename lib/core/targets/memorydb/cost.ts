/**
 * What a run of a memorydb target costs on AWS: node-hours (every node of every shard, billed per hour from
 * creation to deletion) and data written (MemoryDB bills the GB written to its transaction log), both from the
 * price book's `memorydb` entry for the target's engine (https://aws.amazon.com/memorydb/pricing/). A book without
 * the price leaves the line unpriced (listed, kept out of the total) rather than guessing it.
 */
import { z } from 'zod';
import type { Price, PriceBook } from '../../cost/book';
import { Q } from '../../cost/decimal';
import type { KindRunCost, Line } from '../../cost/lines';
import { type KindMonthlyCost, UnpricedError, linesReport } from '../../cost/report-parts';
import type { CellLike } from '../../cost/workload-units';
import type { RunSpec } from '../../spec/schema';
import { MEMORYDB_DEFAULT_ENGINE } from './spec';
import type { MemoryDbTarget } from './target';
import { MemoryDbTarget as MemoryDbTargetSchema } from './spec';

/** Creating a cluster takes several minutes and deleting it as long: billed around the run. */
export const MEMORYDB_SETUP_SECONDS = 1800;

/** Nodes of a cluster: a primary and its replicas per shard. */
export function memoryDbNodes(t: Pick<MemoryDbTarget, 'shards' | 'replicasPerShard'>): number {
  return t.shards * (1 + t.replicasPerShard);
}

/**
 * Bytes one write puts in the transaction log, as YCSB's core workload writes: an insert all `fieldCount` fields of
 * `fieldLength` bytes, an update (and a read-modify-write) one field (YCSB's writeallfields=false). Field names, the
 * key and the command's framing are left out: a lower bound.
 */
export function bytesWritten(
  dataset: Pick<RunSpec['dataset'], 'fieldCount' | 'fieldLength'>,
  op: 'insert' | 'update',
): number {
  return op === 'insert' ? dataset.fieldCount * dataset.fieldLength : dataset.fieldLength;
}

/** GB (10^9 bytes) the run writes to a target: the load, then the cells' inserts and updates at their targets. */
export function runGbWritten(
  spec: Pick<RunSpec, 'dataset'>,
  targetId: string,
  plan: { cells: readonly CellLike[]; load: { targets: string[] } | null },
): Q {
  const insert = bytesWritten(spec.dataset, 'insert');
  const update = bytesWritten(spec.dataset, 'update');
  let bytes = plan.load?.targets.includes(targetId) ? Q.of(spec.dataset.recordCount).mul(insert) : Q.ZERO;
  for (const c of plan.cells) {
    if (c.target !== targetId) continue;
    const p = c.proportions;
    const ops = Q.of(c.targetOpsPerSec).mul(c.durationSeconds);
    bytes = bytes
      .add(ops.mul(p.insert).mul(insert))
      .add(ops.mul(Q.of(p.update).add(p.readModifyWrite)).mul(update));
  }
  return bytes.div(1e9);
}

/** The run's MemoryDB lines of a target (and what the book does not price). */
export function memoryDbEstimate(
  t: MemoryDbTarget,
  i: number,
  r: {
    spec: RunSpec;
    plan: { cells: readonly CellLike[]; load: { targets: string[] } | null };
    book: PriceBook;
    runSeconds: Q;
  },
): { items: Line[]; unpriced: string[] } {
  const items: Line[] = [];
  const unpriced: string[] = [];
  const prices = r.book.memorydb?.[t.engine.engine];
  const nodes = memoryDbNodes(t);
  const hours = Math.ceil(r.runSeconds.add(MEMORYDB_SETUP_SECONDS).toNumber() / 3600);
  const node: Price | undefined = prices?.nodeHour[t.nodeType];
  if (node)
    items.push({
      kind: 'memorydb',
      label: `${t.id}: MemoryDB ${t.engine.engine} cluster of ${nodes} × ${t.nodeType} for the run (${hours} h billed per node)`,
      target: t.id,
      quantity: Q.of(nodes * hours),
      unit: 'node-hour',
      unitUsd: Q.of(node.usd),
    });
  else
    unpriced.push(
      `targets[${i}].nodeType: no MemoryDB ${t.engine.engine} price for "${t.nodeType}" in price book "${r.book.id}"`,
    );
  if (prices?.dataWrittenGb) {
    const gb = runGbWritten(r.spec, t.id, r.plan);
    items.push({
      kind: 'memorydb',
      label: `${t.id}: data written to MemoryDB (the load and the cells' writes, field bytes only)`,
      target: t.id,
      quantity: gb,
      unit: 'GB',
      unitUsd: Q.of(prices.dataWrittenGb.usd),
    });
  } else
    unpriced.push(
      `targets[${i}].engine: no MemoryDB ${t.engine.engine} data-written price in price book "${r.book.id}"`,
    );
  return { items, unpriced };
}

/** The memorydb kind's run cost. */
export const MEMORYDB_RUN_COST: KindRunCost<MemoryDbTarget> = { estimate: memoryDbEstimate };

/** A price of the book's `memorydb` entry, or an UnpricedError naming the field and what the book has. */
function bookPrice(
  book: PriceBook,
  engine: 'valkey' | 'redis',
  what: { nodeType: string } | 'dataWrittenGb',
): Q {
  const prices = book.memorydb?.[engine];
  const p = what === 'dataWrittenGb' ? prices?.dataWrittenGb : prices?.nodeHour[what.nodeType];
  if (p) return Q.of(p.usd);
  const known = Object.keys(prices?.nodeHour ?? {});
  throw new UnpricedError([
    what === 'dataWrittenGb'
      ? {
          path: 'target.engine',
          message: `price book "${book.id}" has no MemoryDB ${engine} data-written price`,
        }
      : {
          path: 'target.nodeType',
          message: `price book "${book.id}" has no MemoryDB ${engine} price for node type "${what.nodeType}"; it has ${known.length ? known.join(', ') : 'no MemoryDB prices'}`,
        },
  ]);
}

/** YCSB's default record: 10 fields of 100 bytes. */
const YCSB_DEFAULT_RECORD_BYTES = 10 * 100;

/**
 * A cluster for a month at a write rate (`fleetbench cost`): its nodes for the book's hours, and the data written.
 * Every write is counted as a whole record (`itemBytes`, else the dataset's fields, else YCSB's default record):
 * an upper bound for updates, which write one field.
 */
export function memoryDbMonthly(
  t: Pick<MemoryDbTarget, 'nodeType' | 'shards' | 'replicasPerShard'> & {
    engine: { engine: 'valkey' | 'redis' };
  },
  load: { writesPerSec: number; itemBytes?: number; dataset?: { fieldCount: number; fieldLength: number } },
  book: PriceBook,
): { lines: { nodes: Q; dataWritten: Q }; pricing: Record<string, number | string> } {
  const bytesPerWrite =
    load.itemBytes ?? (load.dataset ? bytesWritten(load.dataset, 'insert') : YCSB_DEFAULT_RECORD_BYTES);
  const nodes = memoryDbNodes(t);
  const nodeHour = bookPrice(book, t.engine.engine, { nodeType: t.nodeType });
  const perGb = bookPrice(book, t.engine.engine, 'dataWrittenGb');
  const gbPerMonth = Q.of(load.writesPerSec).mul(bytesPerWrite).mul(book.hoursPerMonth).mul(3600).div(1e9);
  return {
    lines: { nodes: nodeHour.mul(nodes).mul(book.hoursPerMonth), dataWritten: perGb.mul(gbPerMonth) },
    pricing: {
      engine: t.engine.engine,
      nodeType: t.nodeType,
      nodes,
      usdPerNodeHour: nodeHour.toNumber(),
      usdPerGbWritten: perGb.toNumber(),
      bytesPerWrite,
      gbWrittenPerMonth: gbPerMonth.toNumber(),
    },
  };
}

/** A memorydb target as `fleetbench cost` reads it (lib/core/cost/report.ts): the spec's fields, defaulted alike. */
export const MemoryDbCostTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('memorydb'),
  ...MemoryDbTargetSchema.pick({ nodeType: true, shards: true, replicasPerShard: true }).shape,
  engine: z
    .looseObject({ engine: z.enum(['valkey', 'redis']).default(MEMORYDB_DEFAULT_ENGINE.engine) })
    .default({ engine: MEMORYDB_DEFAULT_ENGINE.engine }),
});

/** The memorydb kind's monthly cost. */
export const MEMORYDB_MONTHLY_COST: KindMonthlyCost<typeof MemoryDbCostTarget> = {
  input: MemoryDbCostTarget,
  report: (t, input, book) => {
    const m = memoryDbMonthly(t, { writesPerSec: input.throughput.writesPerSec, ...input }, book);
    return linesReport(t, { input, book, lines: m.lines, pricing: m.pricing });
  },
};
