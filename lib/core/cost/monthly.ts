/**
 * Monthly cost arithmetic, exact (see decimal.ts). Every function returns exact amounts in USD;
 * rounding to cents happens once, when a figure is reported.
 */
import { InputError } from '../common/errors';
import { DynamoClassPrices, PriceBook, usd } from './book';
import { Q, sum } from './decimal';
import { unitsToServe } from './capacity';

export type Num = number | Q;

function nonNegative(x: Num, path: string): Q {
  const q = Q.of(x);
  if (q.cmp(0) < 0) throw new InputError([{ path, message: `expected a number >= 0, got ${q.toNumber()}` }]);
  return q;
}

/** Per-unit price of a request unit from a per-million price. */
function perRequestUnit(perMillion: Q): Q {
  return perMillion.div(1_000_000);
}

export interface Throughput {
  readsPerSec: Num;
  writesPerSec: Num;
}

export interface DynamoLines {
  writes: Q;
  reads: Q;
  storage: Q;
}

/** Storage: GB × price per GB-month × months; the free tier (25 GB) only when asked. */
export function dynamoStorage(
  storageGb: Num,
  prices: DynamoClassPrices,
  opts: { months?: Num; freeTierGb?: number } = {},
): Q {
  const gb = nonNegative(storageGb, 'storageGb');
  const billed = gb.sub(opts.freeTierGb ?? 0).max(0);
  return billed.mul(usd(prices.storageGbMonth)).mul(opts.months ?? 1);
}

/** Whole capacity units (WCU, RCU) a provisioned table needs to serve a throughput at a target utilisation. */
export function provisionedCapacityFor(
  t: Throughput,
  units: { writeUnitsPerWrite: number; readUnitsPerRead: number },
  utilization: Num = 1,
): { wcu: bigint; rcu: bigint } {
  const w = nonNegative(t.writesPerSec, 'throughput.writesPerSec');
  const r = nonNegative(t.readsPerSec, 'throughput.readsPerSec');
  return {
    wcu: unitsToServe(w, units.writeUnitsPerWrite, utilization),
    rcu: unitsToServe(r, units.readUnitsPerRead, utilization),
  };
}

/**
 * Provisioned mode: capacity units × price per unit-hour × hours, plus storage. `freeTier` takes
 * off the always-free 25 WCU, 25 RCU and 25 GB.
 */
export function dynamoProvisioned(args: {
  wcu: bigint | number;
  rcu: bigint | number;
  storageGb: Num;
  book: PriceBook;
  prices: DynamoClassPrices;
  hours?: Num;
  freeTier?: boolean;
}): DynamoLines {
  const hours = Q.of(args.hours ?? args.book.hoursPerMonth);
  const ft = args.freeTier ? args.book.dynamodb.freeTier : undefined;
  const wcu = Q.of(BigInt(args.wcu))
    .sub(ft?.wcu ?? 0)
    .max(0);
  const rcu = Q.of(BigInt(args.rcu))
    .sub(ft?.rcu ?? 0)
    .max(0);
  return {
    writes: wcu.mul(usd(args.prices.wcuHour)).mul(hours),
    reads: rcu.mul(usd(args.prices.rcuHour)).mul(hours),
    storage: dynamoStorage(args.storageGb, args.prices, {
      months: hours.div(args.book.hoursPerMonth),
      freeTierGb: ft?.storageGb,
    }),
  };
}

/** On-demand mode: ops/s × 3600 × hours × request units per op × price per request unit, plus storage. */
export function dynamoOnDemand(args: {
  throughput: Throughput;
  writeUnitsPerWrite: number;
  readUnitsPerRead: number;
  storageGb: Num;
  book: PriceBook;
  prices: DynamoClassPrices;
  hours?: Num;
  freeTier?: boolean;
}): DynamoLines {
  const hours = Q.of(args.hours ?? args.book.hoursPerMonth);
  const seconds = hours.mul(3600);
  const w = nonNegative(args.throughput.writesPerSec, 'throughput.writesPerSec');
  const r = nonNegative(args.throughput.readsPerSec, 'throughput.readsPerSec');
  return {
    writes: w
      .mul(seconds)
      .mul(args.writeUnitsPerWrite)
      .mul(perRequestUnit(usd(args.prices.wruPerMillion))),
    reads: r
      .mul(seconds)
      .mul(args.readUnitsPerRead)
      .mul(perRequestUnit(usd(args.prices.rruPerMillion))),
    storage: dynamoStorage(args.storageGb, args.prices, {
      months: hours.div(args.book.hoursPerMonth),
      freeTierGb: args.freeTier ? args.book.dynamodb.freeTier.storageGb : undefined,
    }),
  };
}

/** Self-managed cluster on EC2: nodes × instance price × hours, plus EBS GB × price × months. */
export function ec2Cluster(args: {
  nodes: number;
  usdPerHour: Num;
  hours: Num;
  hoursPerMonth: Num;
  ebsGbPerNode?: Num;
  ebsUsdPerGbMonth?: Num;
}): { nodes: Q; storage: Q } {
  if (!Number.isInteger(args.nodes) || args.nodes < 1) {
    throw new InputError([
      { path: 'nodes', message: `expected a whole number of nodes >= 1, got ${args.nodes}` },
    ]);
  }
  const hours = nonNegative(args.hours, 'hours');
  const nodes = Q.of(args.nodes).mul(nonNegative(args.usdPerHour, 'usdPerHour')).mul(hours);
  const ebsGb = nonNegative(args.ebsGbPerNode ?? 0, 'ebsGbPerNode');
  const storage = ebsGb.isZero()
    ? Q.ZERO
    : Q.of(args.nodes)
        .mul(ebsGb)
        .mul(nonNegative(args.ebsUsdPerGbMonth ?? 0, 'ebsUsdPerGbMonth'))
        .mul(hours.div(args.hoursPerMonth));
  return { nodes, storage };
}

/** External service at the price the user gives: per hour, or per month prorated by hours. */
export function externalService(args: {
  usdPerHour?: Num;
  usdPerMonth?: Num;
  hours: Num;
  hoursPerMonth: Num;
}): Q {
  const hours = nonNegative(args.hours, 'hours');
  if (args.usdPerHour !== undefined && args.usdPerMonth !== undefined) {
    throw new InputError([{ path: 'price', message: 'give either usdPerHour or usdPerMonth, not both' }]);
  }
  if (args.usdPerHour !== undefined) return nonNegative(args.usdPerHour, 'price.usdPerHour').mul(hours);
  if (args.usdPerMonth !== undefined) {
    return nonNegative(args.usdPerMonth, 'price.usdPerMonth').mul(hours).div(args.hoursPerMonth);
  }
  throw new InputError([
    { path: 'price', message: 'expected usdPerHour or usdPerMonth for an external target' },
  ]);
}

/** A DBaaS price model's charges (lib/core/spec/schema.ts ExternalPriceModel) over `hours` at `opsPerSec`. */
export function externalModelService(args: {
  model: {
    usdPerHour?: number;
    usdPerNodeHour?: number;
    nodes?: number;
    usdPerMillionOps?: number;
    usdPerGbMonth?: number;
    storageGb?: number;
  };
  opsPerSec: Num;
  hours: Num;
  hoursPerMonth: Num;
}): Record<string, Q> {
  const m = args.model;
  const hours = nonNegative(args.hours, 'hours');
  const lines: Record<string, Q> = {};
  if (m.usdPerHour !== undefined) lines.service = nonNegative(m.usdPerHour, 'price.usdPerHour').mul(hours);
  if (m.usdPerNodeHour !== undefined)
    lines.nodes = nonNegative(m.usdPerNodeHour, 'price.usdPerNodeHour')
      .mul(m.nodes ?? 0)
      .mul(hours);
  if (m.usdPerMillionOps !== undefined)
    lines.requests = nonNegative(m.usdPerMillionOps, 'price.usdPerMillionOps')
      .mul(nonNegative(args.opsPerSec, 'opsPerSec'))
      .mul(hours)
      .mul(3600)
      .div(1_000_000);
  if (m.usdPerGbMonth !== undefined)
    lines.storage = nonNegative(m.usdPerGbMonth, 'price.usdPerGbMonth')
      .mul(m.storageGb ?? 0)
      .mul(hours)
      .div(args.hoursPerMonth);
  return lines;
}

/** An external target's price (the run spec's `price`): flat per hour or per month, or a DBaaS price model. */
export type ExternalPrice =
  | { usdPerHour: number }
  | { usdPerMonth: number }
  | (Parameters<typeof externalModelService>[0]['model'] & { date: string; source: string });

/** An external target's charges over `hours` at `opsPerSec`, whichever form its price takes. */
export function externalCharges(args: {
  price: ExternalPrice;
  opsPerSec: Num;
  hours: Num;
  hoursPerMonth: Num;
}): Record<string, Q> {
  const { price, ...at } = args;
  if ('date' in price) return externalModelService({ model: price, ...at });
  return { service: externalService({ ...price, hours: at.hours, hoursPerMonth: at.hoursPerMonth }) };
}

/** Cost of `perOps` operations (e.g. 1e6, 1e9) at a throughput, given what `hours` of it cost. */
export function costPerOps(cost: Q, opsPerSec: Num, hours: Num, perOps: number): Q | undefined {
  const ops = Q.of(opsPerSec).mul(Q.of(hours)).mul(3600);
  if (ops.isZero()) return undefined;
  return cost.div(ops).mul(perOps);
}

/** How many times more `a` costs than `b`. */
export function costRatio(a: Q, b: Q): Q | undefined {
  return b.isZero() ? undefined : a.div(b);
}

/** Round each line to cents, and total the rounded lines (so the lines shown add up to the total). */
export function roundLines<K extends string>(lines: Record<K, Q>): Record<K | 'total', number> {
  const out = {} as Record<K | 'total', number>;
  const cents: bigint[] = [];
  for (const [k, v] of Object.entries(lines) as [K, Q][]) {
    const c = v.toCents();
    cents.push(c);
    out[k] = Number(c) / 100;
  }
  out.total = Number(cents.reduce((a, b) => a + b, 0n)) / 100;
  return out;
}

export function totalOf(lines: Record<string, Q>): Q {
  return sum(Object.values(lines));
}
