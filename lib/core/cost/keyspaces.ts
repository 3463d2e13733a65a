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
import { DynamoLines, Num, Throughput, dynamoOnDemand, dynamoProvisioned } from './monthly';

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
