/**
 * Amazon Keyspaces cost (single-region): request units per operation from the row size and consistency, and the
 * monthly bill in on-demand (per million RRU/WRU) or provisioned (RCU/WCU-hours) mode plus storage. The
 * arithmetic and the report are DynamoDB's (monthly.ts, table-report.ts), with the book's `keyspaces` prices.
 *
 * Units (https://docs.aws.amazon.com/keyspaces/latest/devguide/consistency.html,
 * https://docs.aws.amazon.com/keyspaces/latest/devguide/ReadWriteCapacityMode.Provisioned.html): a write of up to
 * 1 KB = 1 WRU/WCU (always LOCAL_QUORUM); a LOCAL_QUORUM read of up to 4 KB = 1 RRU/RCU, a LOCAL_ONE or ONE read
 * half of that; larger rows take more units. The row size is Keyspaces' encoded row size
 * (https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html), which the caller gives.
 */
import { z } from 'zod';
import { InputError } from '../../common/errors';
import { DynamoClassPrices, PriceBook, usd } from '../../cost/book';
import { BYTES_PER_GB, YCSB_DEFAULT_KEY_BYTES } from '../../cost/capacity';
import { Q } from '../../cost/decimal';
import {
  capacityLines,
  cellRequestUnits,
  requestLines,
  round,
  type KindRunCost,
  type Line,
  type RunSpan,
  type TargetEstimate,
} from '../../cost/lines';
import { type CostInputBase, type KindMonthlyCost } from '../../cost/report-parts';
import { type TableCost, tableCost } from '../../cost/table-report';
import type { KeyspacesTarget, RunSpec } from '../../spec/schema';
import { KeyspacesTarget as KeyspacesTargetSchema } from './spec';
import type { DynamoOpUnits } from '../../cost/workload-units';

export type KeyspacesReadConsistency = 'LOCAL_QUORUM' | 'LOCAL_ONE' | 'ONE';

export function keyspacesPrices(book: PriceBook): DynamoClassPrices {
  if (!book.keyspaces) {
    throw new InputError([
      { path: 'priceBook', message: `price book "${book.id}" has no Amazon Keyspaces prices` },
    ]);
  }
  return book.keyspaces;
}

function rowBytesOk(rowBytes: number): void {
  if (!Number.isInteger(rowBytes) || rowBytes < 1) {
    throw new InputError([
      { path: 'rowBytes', message: `expected a whole number of bytes ≥ 1, got ${rowBytes}` },
    ]);
  }
}

/** Write units of one write of a row: ceil(bytes / 1024). */
export function keyspacesWriteUnits(rowBytes: number): number {
  rowBytesOk(rowBytes);
  return Math.ceil(rowBytes / 1024);
}

/** Read units of one read of a row: ceil(bytes / 4096), halved for LOCAL_ONE and ONE. */
export function keyspacesReadUnits(rowBytes: number, consistency: KeyspacesReadConsistency): number {
  rowBytesOk(rowBytes);
  const units = Math.ceil(rowBytes / 4096);
  return consistency === 'LOCAL_QUORUM' ? units : units / 2;
}

/**
 * The encoded size of the YCSB row as Keyspaces bills it
 * (https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html): the text partition key
 * `y_id` is stored twice plus 3 bytes of key metadata, each column (key and fields) carries a column identifier of
 * 1 byte per 62 columns of the table, text values are their UTF-8 bytes. `storageBytes` adds the 100 bytes of row
 * metadata storage counts (and request units do not). YCSB keys are "user" + up to 19 digits (23 bytes,
 * YCSB_DEFAULT_KEY_BYTES); field values are ASCII, fieldLength bytes.
 */
export function keyspacesRowBytes(shape: { fieldCount: number; fieldLength: number; keyBytes?: number }): {
  requestBytes: number;
  storageBytes: number;
} {
  const columns = shape.fieldCount + 1;
  const columnId = Math.ceil(columns / 62);
  const key = shape.keyBytes ?? YCSB_DEFAULT_KEY_BYTES;
  const requestBytes = 2 * key + 3 + columnId + shape.fieldCount * (shape.fieldLength + columnId);
  return { requestBytes, storageBytes: requestBytes + KEYSPACES_ROW_METADATA_BYTES };
}

/** Row metadata Keyspaces adds to each stored row (calculating-row-size, "Row metadata"). */
export const KEYSPACES_ROW_METADATA_BYTES = 100;

/** GB stored for `rows` YCSB rows (binary GB, as the DynamoDB model). */
export function keyspacesStorageGb(rows: number, storageBytes: number): Q {
  return Q.of(rows).mul(storageBytes).div(BYTES_PER_GB);
}

/** The `fleetbench cost` report of a Keyspaces table: a DynamoDB table's (table-report.ts), in Keyspaces' units. */
export interface KeyspacesCostReport extends TableCost {
  kind: 'keyspaces';
  priceBook: string;
  priceBookDate: string;
  hoursPerMonth: number;
  target: { id?: string; kind: 'keyspaces' };
  /** Keyspaces' encoded row size (request units); storage adds the row metadata. */
  rowBytes: number;
  readConsistency: KeyspacesReadConsistency;
}

/** A Keyspaces target as the cost command and the cell costs give it. */
export interface KeyspacesCostTarget {
  id?: string;
  kind: 'keyspaces';
  capacity?: { mode: 'on-demand' } | { mode: 'provisioned'; rcu: number; wcu: number };
  readConsistency?: 'LOCAL_QUORUM' | 'LOCAL_ONE';
}

/** Monthly cost of a Keyspaces table at a throughput: provisioned for it, as configured, and on-demand. */
export function keyspacesCostReport(args: {
  target: KeyspacesCostTarget;
  throughput: { readsPerSec: number; writesPerSec: number };
  rowBytes: { requestBytes: number; storageBytes: number };
  rows?: number;
  storageGb?: number;
  /** Target utilisation when sizing provisioned capacity for the throughput (1: none). */
  utilization: number;
  book: PriceBook;
}): KeyspacesCostReport {
  const { target: t, book } = args;
  const consistency = t.readConsistency ?? 'LOCAL_QUORUM';
  if (args.storageGb === undefined && args.rows === undefined)
    throw new InputError([{ path: 'storageGb', message: 'expected storageGb, or dataset.recordCount' }]);
  return {
    kind: 'keyspaces',
    priceBook: book.id,
    priceBookDate: book.date,
    hoursPerMonth: book.hoursPerMonth,
    target: { id: t.id, kind: 'keyspaces' },
    rowBytes: args.rowBytes.requestBytes,
    readConsistency: consistency,
    ...tableCost({
      book,
      prices: keyspacesPrices(book),
      throughput: args.throughput,
      units: {
        writeUnitsPerWrite: keyspacesWriteUnits(args.rowBytes.requestBytes),
        readUnitsPerRead: keyspacesReadUnits(args.rowBytes.requestBytes, consistency),
      },
      storageGb:
        args.storageGb !== undefined
          ? Q.of(args.storageGb)
          : keyspacesStorageGb(args.rows!, args.rowBytes.storageBytes),
      configured:
        t.capacity?.mode === 'provisioned' ? { wcu: t.capacity.wcu, rcu: t.capacity.rcu } : undefined,
      utilization: args.utilization,
      // DynamoDB's always-free tier is DynamoDB's only
      freeTier: false,
    }),
  };
}

/** The units one operation asks of a Keyspaces table: its row as the request carries it, read at its consistency. */
export function keyspacesOpUnits(spec: RunSpec, t: KeyspacesTarget): DynamoOpUnits {
  const row = keyspacesRowBytes({
    fieldCount: spec.dataset.fieldCount,
    fieldLength: spec.dataset.fieldLength,
  });
  return {
    itemBytes: row.requestBytes,
    consistency: 'strong',
    writeUnitsPerWrite: keyspacesWriteUnits(row.requestBytes),
    readUnitsPerRead: keyspacesReadUnits(row.requestBytes, t.readConsistency),
  };
}

/**
 * A Keyspaces table for the run: provisioned capacity for the run's hours, or (on-demand) request units at the
 * cells' target throughput and the load's writes; and the rows stored for the run, as a DynamoDB table's lines.
 */
function keyspacesEstimate(t: KeyspacesTarget, _i: number, r: RunSpan): TargetEstimate {
  const { spec, plan, runHours, book } = r;
  const prices = keyspacesPrices(book);
  const row = keyspacesRowBytes({
    fieldCount: spec.dataset.fieldCount,
    fieldLength: spec.dataset.fieldLength,
  });
  const opUnits = keyspacesOpUnits(spec, t);
  const wpw = opUnits.writeUnitsPerWrite;
  const out: Line[] = [];
  const of = { target: t.id };
  if (t.capacity.mode === 'provisioned') {
    out.push(...capacityLines('keyspaces-capacity', t.id, t.capacity, prices, runHours));
  } else {
    const units = cellRequestUnits(plan, t.id, opUnits);
    if (plan.load?.targets.includes(t.id))
      units.writes = units.writes.add(Q.of(spec.dataset.recordCount).mul(wpw));
    out.push(
      ...requestLines(
        'keyspaces-requests',
        t.id,
        units,
        {
          writes: `write request units at the cells' target throughput and the load (${row.requestBytes} B rows)`,
          reads: `read request units at the cells' target throughput (${t.readConsistency} reads)`,
        },
        prices,
      ),
    );
  }
  const gb = keyspacesStorageGb(spec.dataset.recordCount, row.storageBytes);
  out.push({
    kind: 'storage',
    label: `${t.id}: ${round(gb, 3)} GB stored for the run`,
    ...of,
    quantity: gb.mul(runHours).div(book.hoursPerMonth),
    unit: 'GB-month',
    unitUsd: usd(prices.storageGbMonth),
  });
  return { items: out };
}

/** The keyspaces kind's run cost. */
export const KEYSPACES_RUN_COST: KindRunCost<KeyspacesTarget> = { estimate: keyspacesEstimate };

/** Amazon Keyspaces (lib/core/targets/keyspaces/cost.ts): priced like a DynamoDB table, in Keyspaces' row size and units. */
const keyspacesCostTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('keyspaces'),
  // the run spec's fields (./spec.ts), capacity optional; a misspelt field is refused by the spec's strict schema
  // (lib/core/cost/report.ts, specTargetCheck)
  capacity: KeyspacesTargetSchema.shape.capacity.optional(),
  readConsistency: KeyspacesTargetSchema.shape.readConsistency,
});

/** An Amazon Keyspaces table: by its encoded row size (lib/core/targets/keyspaces/cost.ts). */
function keyspacesReport(
  t: z.output<typeof keyspacesCostTarget>,
  input: CostInputBase,
  book: PriceBook,
): KeyspacesCostReport {
  const d = input.dataset;
  if (input.itemBytes === undefined && !d)
    throw new InputError([
      { path: 'itemBytes', message: 'expected itemBytes, or a dataset to compute the row size from' },
    ]);
  // DynamoDB's: not to be taken off a Keyspaces bill
  if (input.freeTier)
    throw new InputError([
      { path: 'freeTier', message: "DynamoDB's always-free tier does not apply to Amazon Keyspaces" },
    ]);
  if (input.transactional)
    throw new InputError([{ path: 'transactional', message: 'Amazon Keyspaces has no transactions' }]);
  // itemBytes, when given, is the encoded row size (request units); storage adds the row metadata
  const rowBytes =
    input.itemBytes !== undefined
      ? { requestBytes: input.itemBytes, storageBytes: input.itemBytes + KEYSPACES_ROW_METADATA_BYTES }
      : keyspacesRowBytes({ fieldCount: d!.fieldCount, fieldLength: d!.fieldLength, keyBytes: d!.keyBytes });
  return keyspacesCostReport({
    target: t,
    throughput: input.throughput,
    rowBytes,
    rows: d?.recordCount,
    storageGb: input.storageGb,
    utilization: input.utilization,
    book,
  });
}

/** The keyspaces kind's monthly cost. */
export const KEYSPACES_MONTHLY_COST: KindMonthlyCost<typeof keyspacesCostTarget> = {
  input: keyspacesCostTarget,
  report: keyspacesReport,
};
