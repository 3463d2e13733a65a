/**
 * The cost of a table billed per capacity unit and per request unit — DynamoDB, and Amazon Keyspaces, whose
 * arithmetic is DynamoDB's with its own prices: capacity provisioned for the throughput, as configured, on-demand,
 * and per million and per billion operations. One shape and one builder for both services; each gives its units
 * per operation, its storage and its prices (lib/core/cost/report.ts, lib/core/targets/keyspaces/cost.ts).
 */
import type { DynamoClassPrices, PriceBook } from './book';
import { Q } from './decimal';
import {
  costPerOps,
  costRatio,
  dynamoOnDemand,
  dynamoProvisioned,
  provisionedCapacityFor,
  roundLines,
  totalOf,
} from './monthly';

/** Monthly lines of a table, rounded to cents; `total` is the sum of the rounded lines. */
export type TableLines = Record<'writes' | 'reads' | 'storage' | 'total', number>;

/** The part of a DynamoDB or Keyspaces cost report both services share (their reports add what they price by). */
export interface TableCost {
  units: { writeUnitsPerWrite: number; readUnitsPerRead: number };
  throughput: { readsPerSec: number; writesPerSec: number; opsPerSec: number };
  storageGb: number;
  capacity: {
    /** Capacity the throughput needs at the given utilisation (what `monthly.provisioned` prices). */
    needed: { wcu: number; rcu: number; utilization: number };
    /** The target's own provisioned capacity, when it has one. */
    configured?: { wcu: number; rcu: number };
  };
  monthly: {
    provisioned: TableLines;
    provisionedAsConfigured?: TableLines;
    onDemand: TableLines;
  };
  perMillionOps: { provisioned?: number; onDemand?: number };
  perBillionOps: { provisioned?: number; onDemand?: number };
  onDemandOverProvisioned?: number;
}

/** A figure in cents. */
export function money(q: Q | undefined): number | undefined {
  return q === undefined ? undefined : q.toUsd();
}

/** A figure with more precision than cents (for per-million costs that may be fractions of a cent). */
export function fine(q: Q | undefined): number | undefined {
  return q === undefined ? undefined : Math.round(q.toNumber() * 1e6) / 1e6;
}

/**
 * A table's monthly cost at a throughput: capacity provisioned for it (at `utilization`), the target's own
 * capacity when it has one, and on-demand requests; storage in each. `freeTier` takes off DynamoDB's always-free
 * 25 WCU, 25 RCU and 25 GB (the caller allows it for DynamoDB only).
 */
export function tableCost(args: {
  book: PriceBook;
  prices: DynamoClassPrices;
  throughput: { readsPerSec: number; writesPerSec: number };
  units: { writeUnitsPerWrite: number; readUnitsPerRead: number };
  storageGb: Q;
  configured?: { wcu: number; rcu: number };
  utilization: number;
  freeTier: boolean;
}): TableCost {
  const { book, prices, units, storageGb, configured, freeTier } = args;
  const ops = Q.of(args.throughput.readsPerSec).add(args.throughput.writesPerSec);
  const hpm = book.hoursPerMonth;
  const needed = provisionedCapacityFor(args.throughput, units, args.utilization);
  const provisioned = dynamoProvisioned({ ...needed, storageGb, book, prices, freeTier });
  const onDemand = dynamoOnDemand({
    throughput: args.throughput,
    ...units,
    storageGb,
    book,
    prices,
    freeTier,
  });
  const asConfigured = configured
    ? dynamoProvisioned({ wcu: configured.wcu, rcu: configured.rcu, storageGb, book, prices, freeTier })
    : undefined;
  const pTotal = totalOf({ ...provisioned });
  const oTotal = totalOf({ ...onDemand });
  return {
    units,
    throughput: { ...args.throughput, opsPerSec: ops.toNumber() },
    storageGb: Math.round(storageGb.toNumber() * 1e6) / 1e6,
    capacity: {
      needed: { wcu: Number(needed.wcu), rcu: Number(needed.rcu), utilization: args.utilization },
      ...(configured ? { configured: { wcu: configured.wcu, rcu: configured.rcu } } : {}),
    },
    monthly: {
      provisioned: roundLines({ ...provisioned }),
      ...(asConfigured ? { provisionedAsConfigured: roundLines({ ...asConfigured }) } : {}),
      onDemand: roundLines({ ...onDemand }),
    },
    perMillionOps: {
      provisioned: fine(costPerOps(pTotal, ops, hpm, 1e6)),
      onDemand: fine(costPerOps(oTotal, ops, hpm, 1e6)),
    },
    perBillionOps: {
      provisioned: money(costPerOps(pTotal, ops, hpm, 1e9)),
      onDemand: money(costPerOps(oTotal, ops, hpm, 1e9)),
    },
    onDemandOverProvisioned: fine(costRatio(oTotal, pTotal)),
  };
}
