/**
 * Amazon Keyspaces cost (single-region): request units per operation from the row size and consistency, and the
 * monthly bill in on-demand (per million RRU/WRU) or provisioned (RCU/WCU-hours) mode plus storage. The
 * arithmetic is DynamoDB's (monthly.ts), with the book's `keyspaces` prices.
 *
 * Units (https://docs.aws.amazon.com/keyspaces/latest/devguide/consistency.html,
 * https://docs.aws.amazon.com/keyspaces/latest/devguide/ReadWriteCapacityMode.Provisioned.html): a write of up to
 * 1 KB = 1 WRU/WCU (always LOCAL_QUORUM); a LOCAL_QUORUM read of up to 4 KB = 1 RRU/RCU, a LOCAL_ONE or ONE read
 * half of that; larger rows take more units. The row size is Keyspaces' encoded row size
 * (https://docs.aws.amazon.com/keyspaces/latest/devguide/calculating-row-size.html), which the caller gives.
 */
import { InputError } from '../errors';
import { DynamoClassPrices, PriceBook } from './book';
import { BYTES_PER_GB, YCSB_DEFAULT_KEY_BYTES } from './capacity';
import { Q } from './decimal';
import {
  DynamoLines,
  Num,
  Throughput,
  costPerOps,
  dynamoOnDemand,
  dynamoProvisioned,
  provisionedCapacityFor,
  roundLines,
  totalOf,
} from './monthly';

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

/** On-demand month (or `hours`): reads and writes at the given rates, plus storage. */
export function keyspacesOnDemand(args: {
  throughput: Throughput;
  rowBytes: number;
  readConsistency: KeyspacesReadConsistency;
  storageGb: Num;
  book: PriceBook;
  hours?: Num;
}): DynamoLines {
  return dynamoOnDemand({
    throughput: args.throughput,
    writeUnitsPerWrite: keyspacesWriteUnits(args.rowBytes),
    readUnitsPerRead: keyspacesReadUnits(args.rowBytes, args.readConsistency),
    storageGb: args.storageGb,
    book: args.book,
    prices: keyspacesPrices(args.book),
    hours: args.hours,
  });
}

/** Provisioned month (or `hours`): RCU and WCU as provisioned, plus storage. */
export function keyspacesProvisioned(args: {
  rcu: number;
  wcu: number;
  storageGb: Num;
  book: PriceBook;
  hours?: Num;
}): DynamoLines {
  return dynamoProvisioned({
    rcu: args.rcu,
    wcu: args.wcu,
    storageGb: args.storageGb,
    book: args.book,
    prices: keyspacesPrices(args.book),
    hours: args.hours,
  });
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

/** The `fleetbench cost` report of a Keyspaces table: like a DynamoDB table's, in Keyspaces' units. */
export interface KeyspacesCostReport {
  kind: 'keyspaces';
  priceBook: string;
  priceBookDate: string;
  hoursPerMonth: number;
  target: { id?: string; kind: 'keyspaces' };
  rowBytes: number;
  readConsistency: KeyspacesReadConsistency;
  units: { writeUnitsPerWrite: number; readUnitsPerRead: number };
  throughput: { readsPerSec: number; writesPerSec: number; opsPerSec: number };
  storageGb: number;
  capacity: { needed: { wcu: number; rcu: number }; configured?: { wcu: number; rcu: number } };
  monthly: {
    provisioned: Record<'writes' | 'reads' | 'storage' | 'total', number>;
    provisionedAsConfigured?: Record<'writes' | 'reads' | 'storage' | 'total', number>;
    onDemand: Record<'writes' | 'reads' | 'storage' | 'total', number>;
  };
  perBillionOps: { provisioned?: number; onDemand?: number };
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
  throughput: Throughput;
  rowBytes: { requestBytes: number; storageBytes: number };
  rows?: number;
  storageGb?: number;
  book: PriceBook;
}): KeyspacesCostReport {
  const { target: t, book } = args;
  const consistency = t.readConsistency ?? 'LOCAL_QUORUM';
  const units = {
    writeUnitsPerWrite: keyspacesWriteUnits(args.rowBytes.requestBytes),
    readUnitsPerRead: keyspacesReadUnits(args.rowBytes.requestBytes, consistency),
  };
  if (args.storageGb === undefined && args.rows === undefined)
    throw new InputError([{ path: 'storageGb', message: 'expected storageGb, or dataset.recordCount' }]);
  const storageGb =
    args.storageGb !== undefined
      ? Q.of(args.storageGb)
      : keyspacesStorageGb(args.rows!, args.rowBytes.storageBytes);
  const needed = provisionedCapacityFor(args.throughput, units);
  const provisioned = keyspacesProvisioned({
    rcu: Number(needed.rcu),
    wcu: Number(needed.wcu),
    storageGb,
    book,
  });
  const onDemand = keyspacesOnDemand({
    throughput: args.throughput,
    rowBytes: args.rowBytes.requestBytes,
    readConsistency: consistency,
    storageGb,
    book,
  });
  const configured =
    t.capacity?.mode === 'provisioned'
      ? keyspacesProvisioned({ rcu: t.capacity.rcu, wcu: t.capacity.wcu, storageGb, book })
      : undefined;
  const ops = Q.of(args.throughput.readsPerSec).add(args.throughput.writesPerSec);
  const hpm = book.hoursPerMonth;
  const pTotal = totalOf({ ...provisioned });
  const oTotal = totalOf({ ...onDemand });
  return {
    kind: 'keyspaces',
    priceBook: book.id,
    priceBookDate: book.date,
    hoursPerMonth: hpm,
    target: { id: t.id, kind: 'keyspaces' },
    rowBytes: args.rowBytes.requestBytes,
    readConsistency: consistency,
    units,
    throughput: {
      readsPerSec: Q.of(args.throughput.readsPerSec).toNumber(),
      writesPerSec: Q.of(args.throughput.writesPerSec).toNumber(),
      opsPerSec: ops.toNumber(),
    },
    storageGb: Math.round(storageGb.toNumber() * 1e6) / 1e6,
    capacity: {
      needed: { wcu: Number(needed.wcu), rcu: Number(needed.rcu) },
      ...(t.capacity?.mode === 'provisioned'
        ? { configured: { wcu: t.capacity.wcu, rcu: t.capacity.rcu } }
        : {}),
    },
    monthly: {
      provisioned: roundLines({ ...provisioned }) as KeyspacesCostReport['monthly']['provisioned'],
      ...(configured
        ? {
            provisionedAsConfigured: roundLines({
              ...configured,
            }) as KeyspacesCostReport['monthly']['provisioned'],
          }
        : {}),
      onDemand: roundLines({ ...onDemand }) as KeyspacesCostReport['monthly']['onDemand'],
    },
    perBillionOps: {
      provisioned: costPerOps(pTotal, ops, hpm, 1e9)?.toUsd(),
      onDemand: costPerOps(oTotal, ops, hpm, 1e9)?.toUsd(),
    },
  };
}
