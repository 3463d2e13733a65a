/**
 * The monthly cost report's building blocks, shared by the cost module (report.ts) and each target kind's cost
 * (lib/core/targets/<kind>/cost.ts): the cost input's fields besides its target, what a kind declares of its
 * monthly cost, the report of a target priced by its monthly lines, and the price a book does not have. A leaf:
 * it imports neither the registry nor report.ts.
 */
import { z } from 'zod';
import { InputError } from '../common/errors';
import type { TargetKind } from '../spec/schema';
import type { PriceBook } from './book';
import { storageGbForItems } from './capacity';
import { Q } from './decimal';
import { costPerOps, roundLines, totalOf } from './monthly';
import { fine, money } from './table-report';

const nonNeg = z.number().nonnegative();

/** The cost input's fields besides its target (report.ts puts the target first: its errors list the keys in order). */
export const COST_INPUT_FIELDS = {
  throughput: z.strictObject({ readsPerSec: nonNeg.default(0), writesPerSec: nonNeg.default(0) }),
  /** DynamoDB item size in bytes; else computed from `dataset` as YCSB writes it. */
  itemBytes: z.number().int().positive().optional(),
  dataset: z
    .looseObject({
      recordCount: z.number().int().nonnegative().optional(),
      fieldCount: z.number().int().positive().default(10),
      fieldLength: z.number().int().positive().default(100),
      /** Length of a YCSB key value ("user" + up to 19 digits = 23 bytes by default). */
      keyBytes: z.number().int().positive().optional(),
    })
    .optional(),
  /** Stored GB; else recordCount × (item size + 100 bytes) from `dataset`. */
  storageGb: nonNeg.optional(),
  /** Target utilisation when sizing provisioned capacity for the throughput (1 = none; 0.7 = auto scaling's default). */
  utilization: z.number().gt(0).max(1).default(1),
  /** Transactional reads and writes (double units). */
  transactional: z.boolean().default(false),
  /** Take off DynamoDB's always-free 25 GB, 25 WCU and 25 RCU. Off by default, as in the seeds. */
  freeTier: z.boolean().default(false),
};

/** The parsed cost input besides its target. */
export type CostInputBase = z.output<z.ZodObject<typeof COST_INPUT_FIELDS>>;

/** What every monthly report starts with. */
export interface MonthlyReportHead {
  kind: TargetKind;
  priceBook: string;
  priceBookDate: string;
  hoursPerMonth: number;
  target: { id?: string; kind: TargetKind };
}

/** A target priced by its monthly lines (nodes, storage, an external service's charges, a managed cluster's nodes). */
export interface LinesCostReport extends MonthlyReportHead {
  throughput: { readsPerSec: number; writesPerSec: number; opsPerSec: number };
  pricing: Record<string, number | string>;
  monthly: { total: number } & Record<string, number>;
  perMillionOps?: number;
  perBillionOps?: number;
}

/**
 * What a target kind declares of its monthly cost (`fleetbench cost` and the cells' cost columns): the schema of
 * its cost input's target (discriminated by `kind`; kinds that share one declare the same schema) and its report.
 */
export interface KindMonthlyCost<S extends z.ZodObject = z.ZodObject> {
  input: S;
  report(t: z.output<S>, input: CostInputBase, book: PriceBook): MonthlyReportHead;
}

/** A price the book does not have: the cost is unknown, not zero (the cells' cost columns stay empty). */
export class UnpricedError extends InputError {}

/** The report's head: the price book and its month. */
export function headOf(book: PriceBook) {
  return { priceBook: book.id, priceBookDate: book.date, hoursPerMonth: book.hoursPerMonth };
}

/** The item size: `itemBytes`, or the item the target's binding writes for the dataset (`sizeOf`, the kind's rule). */
export function itemBytesOf(
  input: CostInputBase,
  sizeOf: (dataset: NonNullable<CostInputBase['dataset']>) => number,
): { bytes: number; from: 'itemBytes' | 'dataset' } {
  if (input.itemBytes !== undefined) return { bytes: input.itemBytes, from: 'itemBytes' };
  if (input.dataset) return { bytes: sizeOf(input.dataset), from: 'dataset' };
  throw new InputError([
    { path: 'itemBytes', message: 'expected itemBytes, or a dataset to compute the YCSB item size from' },
  ]);
}

/** The stored GB: `storageGb`, or the dataset's items. */
export function storageGbOf(input: CostInputBase, itemBytes: number): Q {
  if (input.storageGb !== undefined) return Q.of(input.storageGb);
  if (input.dataset?.recordCount !== undefined)
    return storageGbForItems(input.dataset.recordCount, itemBytes);
  throw new InputError([
    { path: 'storageGb', message: 'expected storageGb, or dataset.recordCount to compute it from' },
  ]);
}

/** A report priced by its monthly lines (nodes, storage, an external service's charges). */
export function linesReport(
  t: { id?: string; kind: TargetKind },
  args: {
    input: CostInputBase;
    book: PriceBook;
    lines: Record<string, Q>;
    pricing: Record<string, number | string>;
  },
): LinesCostReport {
  const { input, book, lines, pricing } = args;
  const ops = Q.of(input.throughput.readsPerSec).add(input.throughput.writesPerSec);
  const total = totalOf(lines);
  const hpm = book.hoursPerMonth;
  return {
    kind: t.kind,
    ...headOf(book),
    target: { id: t.id, kind: t.kind },
    throughput: { ...input.throughput, opsPerSec: ops.toNumber() },
    pricing,
    monthly: roundLines(lines) as { total: number } & Record<string, number>,
    perMillionOps: fine(costPerOps(total, ops, hpm, 1e6)),
    perBillionOps: money(costPerOps(total, ops, hpm, 1e9)),
  };
}
