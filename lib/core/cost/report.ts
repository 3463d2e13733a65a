/**
 * Monthly cost of one target at a measured (or intended) throughput: the document the
 * `fleetbench cost` command prints. Target fields follow the run spec's names (lib/core/spec),
 * declared here structurally so the cost model needs only the fields it prices.
 */
import { cassandraEbsGbPerNode } from '../targets/cassandra-ec2/node';
import { z } from 'zod';
import { InputError } from '../common/errors';
import { zodErrorIssues } from '../spec/errors';
import { PriceBook, dynamoPrices, ec2HourlyPrice, usd } from './book';
import {
  Consistency,
  readUnitsPerRead,
  storageGbForItems,
  writeUnitsPerWrite,
  ycsbItemBytes,
} from './capacity';
import { Q } from './decimal';
import { daxMonthly, daxNodeHourPrice } from '../targets/dynamodb/dax-cost';
import { costPerOps, ec2Cluster, externalCharges, type ExternalPrice, roundLines, totalOf } from './monthly';
import { ExternalPriceModel, type TargetKind } from '../spec/schema';
import { type TableCost, fine, money, tableCost } from './table-report';
import {
  type KeyspacesCostReport,
  KEYSPACES_ROW_METADATA_BYTES,
  keyspacesCostReport,
  keyspacesRowBytes,
} from '../targets/keyspaces/cost';
import { MemoryDbCostTarget, memoryDbMonthly } from '../targets/memorydb/cost';

// ---- the input -------------------------------------------------------------------------------

const nonNeg = z.number().nonnegative();

const dynamoTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('dynamodb'),
  billing: z
    .discriminatedUnion('mode', [
      z.looseObject({
        mode: z.literal('provisioned'),
        rcu: z.number().int().positive(),
        wcu: z.number().int().positive(),
      }),
      z.looseObject({ mode: z.literal('on-demand') }),
    ])
    .optional(),
  tableClass: z.enum(['STANDARD', 'STANDARD_INFREQUENT_ACCESS']).default('STANDARD'),
  consistentReads: z.boolean().default(false),
  keyAttribute: z.string().min(1).default('p'),
  /** A DAX cluster in front of the table (the run spec's `dax`): its node-hours are added to the table's cost. */
  dax: z.looseObject({ nodeType: z.string().min(1), nodes: z.number().int().min(1).max(11) }).optional(),
});

/** Database nodes on EC2: ScyllaDB (data on the instance store) or Apache Cassandra (data on an EBS volume). */
const scyllaTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.enum(['scylla-ec2', 'cassandra-ec2']),
  nodes: z.number().int().positive().default(3),
  instanceType: z.string().min(1).default('i4i.2xlarge'),
  /** EBS gp3 GB per node, when the nodes use EBS rather than (or besides) instance storage. */
  ebsGb: nonNeg.optional(),
  /** A cassandra-ec2 spec target's data volume (with its root volume, priced as `ebsGb` when that is not given). */
  volume: z.looseObject({ sizeGb: nonNeg }).optional(),
  /** Overrides the price book's hourly price for the instance type. */
  usdPerHour: nonNeg.optional(),
});

const externalTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('external'),
  price: z.union([
    z.strictObject({ usdPerHour: nonNeg }),
    z.strictObject({ usdPerMonth: nonNeg }),
    ExternalPriceModel,
  ]),
});

/** Amazon Keyspaces (lib/core/targets/keyspaces/cost.ts): priced like a DynamoDB table, in Keyspaces' row size and units. */
const keyspacesTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('keyspaces'),
  capacity: z
    .discriminatedUnion('mode', [
      z.looseObject({ mode: z.literal('on-demand') }),
      z.looseObject({
        mode: z.literal('provisioned'),
        rcu: z.number().int().positive(),
        wcu: z.number().int().positive(),
      }),
    ])
    .optional(),
  readConsistency: z.enum(['LOCAL_QUORUM', 'LOCAL_ONE']).default('LOCAL_QUORUM'),
});

export const CostInputSchema = z.strictObject({
  target: z.discriminatedUnion('kind', [
    dynamoTarget,
    scyllaTarget,
    externalTarget,
    keyspacesTarget,
    MemoryDbCostTarget,
  ]),
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
});

export type CostInput = z.input<typeof CostInputSchema>;
type ParsedInput = z.output<typeof CostInputSchema>;

export function parseCostInput(data: unknown, where = ''): ParsedInput {
  const r = CostInputSchema.safeParse(data);
  if (!r.success)
    throw new InputError(zodErrorIssues(r.error, CostInputSchema, data, where ? { under: where } : {}));
  return r.data;
}

// ---- the output ------------------------------------------------------------------------------

export interface DynamoCostReport extends TableCost {
  kind: 'dynamodb';
  priceBook: string;
  priceBookDate: string;
  hoursPerMonth: number;
  target: { id?: string; kind: 'dynamodb' };
  itemBytes: number;
  itemBytesFrom: 'itemBytes' | 'dataset';
  readConsistency: Consistency;
  transactional: boolean;
  /**
   * The DAX cluster in front of the table: `monthly` lines above are DynamoDB alone, `withDax` adds the cluster's
   * node-hours (nodes × price × hoursPerMonth) to each total.
   */
  dax?: {
    nodeType: string;
    nodes: number;
    usdPerNodeHour: number;
    monthly: number;
    withDax: { provisioned: number; onDemand: number };
  };
}

export interface ClusterCostReport {
  kind: 'scylla-ec2' | 'cassandra-ec2' | 'external' | 'memorydb';
  priceBook: string;
  priceBookDate: string;
  hoursPerMonth: number;
  target: { id?: string; kind: 'scylla-ec2' | 'cassandra-ec2' | 'external' | 'memorydb' };
  throughput: { readsPerSec: number; writesPerSec: number; opsPerSec: number };
  pricing: Record<string, number | string>;
  monthly: { total: number } & Record<string, number>;
  perMillionOps?: number;
  perBillionOps?: number;
}

export type CostReport = DynamoCostReport | ClusterCostReport | KeyspacesCostReport;

function itemBytesOf(
  input: ParsedInput,
  keyAttribute: string,
): { bytes: number; from: 'itemBytes' | 'dataset' } {
  if (input.itemBytes !== undefined) return { bytes: input.itemBytes, from: 'itemBytes' };
  if (input.dataset) {
    return {
      bytes: ycsbItemBytes({
        fieldCount: input.dataset.fieldCount,
        fieldLength: input.dataset.fieldLength,
        keyBytes: input.dataset.keyBytes,
        keyAttribute,
      }),
      from: 'dataset',
    };
  }
  throw new InputError([
    { path: 'itemBytes', message: 'expected itemBytes, or a dataset to compute the YCSB item size from' },
  ]);
}

function storageGbOf(input: ParsedInput, itemBytes: number): Q {
  if (input.storageGb !== undefined) return Q.of(input.storageGb);
  if (input.dataset?.recordCount !== undefined)
    return storageGbForItems(input.dataset.recordCount, itemBytes);
  throw new InputError([
    { path: 'storageGb', message: 'expected storageGb, or dataset.recordCount to compute it from' },
  ]);
}

type CostTarget = ParsedInput['target'];
type CostTargetOf<K extends CostTarget['kind']> = Extract<CostTarget, { kind: K }>;
type ReportOf<K extends CostTarget['kind']> = (
  t: CostTargetOf<K>,
  input: ParsedInput,
  book: PriceBook,
) => CostReport;

/** The report's head: the price book and its month. */
function headOf(book: PriceBook) {
  return { priceBook: book.id, priceBookDate: book.date, hoursPerMonth: book.hoursPerMonth };
}

/** A DynamoDB table: by its item size and read consistency, with the DAX cluster in front of it if any. */
function dynamoReport(t: CostTargetOf<'dynamodb'>, input: ParsedInput, book: PriceBook): DynamoCostReport {
  const prices = dynamoPrices(book, t.tableClass === 'STANDARD' ? 'standard' : 'standard-ia');
  const item = itemBytesOf(input, t.keyAttribute);
  const consistency: Consistency = input.transactional
    ? 'transactional'
    : t.consistentReads
      ? 'strong'
      : 'eventual';
  const report: DynamoCostReport = {
    kind: 'dynamodb',
    ...headOf(book),
    target: { id: t.id, kind: 'dynamodb' },
    itemBytes: item.bytes,
    itemBytesFrom: item.from,
    readConsistency: consistency,
    transactional: input.transactional,
    ...tableCost({
      book,
      prices,
      throughput: input.throughput,
      units: {
        writeUnitsPerWrite: writeUnitsPerWrite(item.bytes, { transactional: input.transactional }),
        readUnitsPerRead: readUnitsPerRead(item.bytes, consistency),
      },
      storageGb: storageGbOf(input, item.bytes),
      configured: t.billing?.mode === 'provisioned' ? { wcu: t.billing.wcu, rcu: t.billing.rcu } : undefined,
      utilization: input.utilization,
      freeTier: input.freeTier,
    }),
  };
  if (t.dax) {
    const monthly = daxMonthly(book, t.dax, 'target.dax').toUsd();
    const plus = (x: number) => Math.round((x + monthly) * 100) / 100;
    report.dax = {
      nodeType: t.dax.nodeType,
      nodes: t.dax.nodes,
      usdPerNodeHour: daxNodeHourPrice(book, t.dax.nodeType, 'target.dax.nodeType').toNumber(),
      monthly,
      withDax: {
        provisioned: plus(report.monthly.provisioned.total),
        onDemand: plus(report.monthly.onDemand.total),
      },
    };
  }
  return report;
}

/** An Amazon Keyspaces table: by its encoded row size (lib/core/targets/keyspaces/cost.ts). */
function keyspacesReport(t: CostTargetOf<'keyspaces'>, input: ParsedInput, book: PriceBook): CostReport {
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

/** A report priced by its monthly lines (nodes, storage, an external service's charges). */
function linesReport(
  t: CostTargetOf<ClusterCostReport['kind']>,
  input: ParsedInput,
  book: PriceBook,
  lines: Record<string, Q>,
  pricing: Record<string, number | string>,
): ClusterCostReport {
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

/** Database nodes on EC2 (scylla-ec2, cassandra-ec2): instance-hours and their EBS volumes. */
function nodesReport(
  t: CostTargetOf<'scylla-ec2' | 'cassandra-ec2'>,
  input: ParsedInput,
  book: PriceBook,
): ClusterCostReport {
  const hoursPerMonth = book.hoursPerMonth;
  const perHour =
    t.usdPerHour !== undefined
      ? Q.of(t.usdPerHour)
      : ec2HourlyPrice(book, t.instanceType, 'target.instanceType');
  const ebsGb = t.ebsGb ?? (t.volume ? cassandraEbsGbPerNode({ volume: t.volume }) : undefined);
  const c = ec2Cluster({
    nodes: t.nodes,
    usdPerHour: perHour,
    hours: hoursPerMonth,
    hoursPerMonth,
    ebsGbPerNode: ebsGb,
    ebsUsdPerGbMonth: usd(book.ebs.gp3GbMonth),
  });
  return linesReport(t, input, book, ebsGb ? { nodes: c.nodes, storage: c.storage } : { nodes: c.nodes }, {
    nodes: t.nodes,
    instanceType: t.instanceType,
    usdPerNodeHour: perHour.toNumber(),
    usdPerNodeHourFrom: t.usdPerHour !== undefined ? 'target.usdPerHour' : `price book ${book.id}`,
    ...(ebsGb ? { ebsGbPerNode: ebsGb, ebsUsdPerGbMonth: usd(book.ebs.gp3GbMonth).toNumber() } : {}),
  });
}

/** An external service at its given price: flat, or a DBaaS model's hourly parts, operations and storage. */
function externalReport(t: CostTargetOf<'external'>, input: ParsedInput, book: PriceBook): ClusterCostReport {
  const price = t.price as ExternalPrice;
  const opsPerSec = Q.of(input.throughput.readsPerSec).add(input.throughput.writesPerSec);
  const hoursPerMonth = book.hoursPerMonth;
  const lines = externalCharges({ price, opsPerSec, hours: hoursPerMonth, hoursPerMonth });
  return linesReport(t, input, book, lines, { ...price });
}

/**
 * Each target kind's report, looked up by kind: a new kind adds its cost input above and its entry here (the
 * mapped type refuses to compile without one).
 */
const REPORTS: { [K in CostTarget['kind']]: ReportOf<K> } = {
  dynamodb: dynamoReport,
  keyspaces: keyspacesReport,
  'scylla-ec2': nodesReport,
  'cassandra-ec2': nodesReport,
  external: externalReport,
  memorydb: (t, input, book) => {
    const m = memoryDbMonthly(t, { writesPerSec: input.throughput.writesPerSec, ...input }, book);
    return linesReport(t, input, book, m.lines, m.pricing);
  },
};

/** Every run-spec target kind has a cost input, and no other kind: `never` unless the two lists agree. */
type KindsAgree = [Exclude<TargetKind, CostTarget['kind']>, Exclude<CostTarget['kind'], TargetKind>] extends [
  never,
  never,
]
  ? true
  : never;
const KINDS_AGREE: KindsAgree = true;
void KINDS_AGREE;

function reportFor<K extends CostTarget['kind']>(t: CostTargetOf<K>, input: ParsedInput, book: PriceBook) {
  const report: ReportOf<K> = REPORTS[t.kind as K];
  return report(t, input, book);
}

/** Monthly cost of one target at a throughput, priced with a book. */
export function monthlyCost(raw: unknown, book: PriceBook): CostReport {
  const input = parseCostInput(raw);
  return reportFor(input.target, input, book);
}

/** The headline monthly totals of a report, by pricing model. */
export function headlineTotals(r: CostReport): Record<string, number> {
  // a table with DAX: its cost includes the cluster's
  if (r.kind === 'dynamodb' && r.dax) return { ...r.dax.withDax };
  if (r.kind === 'dynamodb' || r.kind === 'keyspaces')
    return { provisioned: r.monthly.provisioned.total, onDemand: r.monthly.onDemand.total };
  return { total: r.monthly.total };
}

/**
 * The monthly cost of the target as it is billed: a table with its own provisioned capacity at the capacity the
 * throughput needs (provisioned), otherwise on-demand; any other target its total. With both models of a table
 * (null for other targets).
 */
export function billedMonthly(r: CostReport): {
  provisioned: number | null;
  onDemand: number | null;
  own: number;
} {
  const totals = headlineTotals(r);
  if (r.kind !== 'dynamodb' && r.kind !== 'keyspaces')
    return { provisioned: null, onDemand: null, own: totals.total! };
  const provisioned = totals.provisioned!;
  const onDemand = totals.onDemand!;
  return { provisioned, onDemand, own: r.capacity.configured ? provisioned : onDemand };
}
