/**
 * What a run of a dynamodb target costs on AWS: the table's provisioned capacity for the run's hours (or, on
 * demand, request units at the cells' target throughput and the load's writes), DAX in front of it, the items
 * stored for the run; and how long the load takes under the table's capacity (docs/cost-model.md). And its
 * monthly cost at a throughput (`fleetbench cost`, the cells' cost columns), with the DAX cluster in front of it.
 */
import { InputError } from '../../common/errors';
import { z } from 'zod';
import { dynamoPrices, usd, type PriceBook } from '../../cost/book';
import { type Consistency, readUnitsPerRead, writeUnitsPerWrite } from '../../cost/capacity';
import {
  type CostInputBase,
  type KindMonthlyCost,
  headOf,
  itemBytesOf,
  storageGbOf,
} from '../../cost/report-parts';
import { type TableCost, tableCost } from '../../cost/table-report';
import { storageGbForItems } from '../../cost/capacity';
import { Q } from '../../cost/decimal';
import {
  ESTIMATE_ASSUMPTIONS as A,
  capacityLines,
  cellRequestUnits,
  requestLines,
  round,
  type KindRunCost,
  type Line,
  type RunSpan,
  type TargetEstimate,
} from '../../cost/lines';
import { dynamoOpUnits, predictedUnits } from '../../cost/workload-units';
import type { RunSpec } from '../../spec/schema';
import { DynamoDbBilling, DynamoDbTarget } from './spec';
import { dynamoItemBytes } from './item-size';
import { daxBilledNodeHours, daxMonthly, daxNodeHourPrice } from './dax-cost';

/** A DAX cluster's node-hours from creation to deletion, each partial node-hour billed as a full one. */
function daxLine(
  target: string,
  dax: { nodeType: string; nodes: number },
  r: { runSeconds: Q; book: PriceBook; path: string },
): Line {
  const nodeHours = daxBilledNodeHours(dax, r.runSeconds.add(A.daxSetupSeconds).toNumber(), r.path);
  return {
    kind: 'dax',
    label: `${target}: DAX cluster of ${dax.nodes} × ${dax.nodeType} for the run (${nodeHours / dax.nodes} h billed per node)`,
    target,
    quantity: Q.of(nodeHours),
    unit: 'node-hour',
    unitUsd: daxNodeHourPrice(r.book, dax.nodeType, `${r.path}.nodeType`),
  };
}

/** The request lines' labels: at the cells' target throughput, unpaced cells' at their predicted consumption. */
function requestLabels(plan: RunSpan['plan'], target: string, consistency: Consistency) {
  const cells = plan.cells.filter((c) => c.target === target);
  const predicted = cells.filter((c) => predictedUnits(c)).length;
  const basis =
    predicted === 0
      ? "at the cells' target throughput"
      : predicted === cells.length
        ? "at the cells' predicted consumption (unpaced: the capacity model's timeline)"
        : "at the cells' target throughput, unpaced cells' at their predicted consumption (the capacity model's timeline)";
  return {
    writes: `write request units ${basis}`,
    reads: `read request units ${basis} (${consistency} reads)`,
  };
}

/** A DynamoDB table for the run: capacity or requests, the load, DAX in front of it, the rows stored. */
function dynamoDbEstimate(t: DynamoDbTarget, i: number, r: RunSpan): TargetEstimate {
  const { spec, plan, book, runSeconds, runHours } = r;
  const hpm = Q.of(book.hoursPerMonth);
  const lines: Line[] = [];
  const prices = dynamoPrices(book, t.tableClass === 'STANDARD' ? 'standard' : 'standard-ia');
  const units = dynamoOpUnits(spec, t);
  const created = !t.existingTable;
  if (t.billing.mode === 'provisioned') {
    if (created) lines.push(...capacityLines('dynamodb-capacity', t.id, t.billing, prices, runHours));
  } else {
    lines.push(
      ...requestLines(
        'dynamodb-requests',
        t.id,
        cellRequestUnits(plan, t.id, units),
        requestLabels(plan, t.id, units.consistency),
        prices,
      ),
    );
    if (plan.load?.targets.includes(t.id)) {
      lines.push({
        kind: 'dynamodb-load',
        label: `${t.id}: loading ${spec.dataset.recordCount.toLocaleString('en-US')} items of ${units.itemBytes} B`,
        target: t.id,
        quantity: Q.of(spec.dataset.recordCount).mul(units.writeUnitsPerWrite),
        unit: 'write request unit',
        unitUsd: usd(prices.wruPerMillion).div(1_000_000),
      });
    }
  }
  if (t.dax) lines.push(daxLine(t.id, t.dax, { runSeconds, book, path: `targets[${i}].dax` }));
  if (created) {
    const gb = storageGbForItems(spec.dataset.recordCount, units.itemBytes);
    lines.push({
      kind: 'storage',
      label: `${t.id}: ${round(gb, 3)} GB stored for the run`,
      target: t.id,
      quantity: gb.mul(runHours).div(hpm),
      unit: 'GB-month',
      unitUsd: usd(prices.storageGbMonth),
    });
  }
  return { items: lines };
}

/**
 * Seconds to load `records` items at `rate` items/s, capped by the table's write capacity: provisioned WCU, or
 * on demand the warm throughput (or 4,000 WRU/s) doubling every 30 minutes up to the table's maximum.
 */
function dynamoDbLoadSeconds(t: DynamoDbTarget, spec: RunSpec, records: Q, rate: Q): Q {
  const wupw = dynamoOpUnits(spec, t).writeUnitsPerWrite;
  if (t.billing.mode === 'provisioned') return records.div(rate.min(Q.of(t.billing.wcu).div(wupw)));
  let units = Q.of(t.warmThroughput?.writeUnitsPerSecond ?? A.onDemandInitialWriteUnitsPerSec);
  let left = records;
  let seconds = Q.ZERO;
  for (let step = 0; step < 10_000 && left.cmp(0) > 0; step++) {
    const r = rate.min(units.div(wupw));
    const done = r.mul(A.onDemandDoublingSeconds);
    if (done.cmp(left) >= 0) return seconds.add(left.div(r));
    left = left.sub(done);
    seconds = seconds.add(A.onDemandDoublingSeconds);
    units = units.mul(2).min(t.billing.maxWriteRequestUnits ?? A.tableQuotaUnitsPerSec);
  }
  return seconds;
}

/** The dynamodb kind's run cost. */
export const DYNAMODB_RUN_COST: KindRunCost<DynamoDbTarget> = {
  estimate: dynamoDbEstimate,
  loadSeconds: dynamoDbLoadSeconds,
};

// ---- the monthly cost ----

/**
 * A dynamodb target as `fleetbench cost` reads it: the run spec's fields (their schemas and defaults, ./spec.ts), the
 * id and billing optional. Its fields are also checked against the spec's strict target schema, so a misspelt one
 * is refused rather than priced at its default (lib/core/cost/report.ts, specTargetCheck).
 */
const dynamoTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('dynamodb'),
  billing: DynamoDbBilling.optional(),
  tableClass: DynamoDbTarget.shape.tableClass,
  consistentReads: DynamoDbTarget.shape.consistentReads,
  keyAttribute: DynamoDbTarget.shape.keyAttribute,
  /** The table's key design (the run spec's): with N partition-key values the item also holds the sort key. */
  keyDesign: DynamoDbTarget.shape.keyDesign,
  /** A DAX cluster in front of the table (the run spec's `dax`): its node-hours are added to the table's cost. */
  dax: DynamoDbTarget.shape.dax,
});

/** The `fleetbench cost` report of a DynamoDB table. */
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

/** A DynamoDB table: by its item size and read consistency, with the DAX cluster in front of it if any. */
function dynamoReport(
  t: z.output<typeof dynamoTarget>,
  input: CostInputBase,
  book: PriceBook,
): DynamoCostReport {
  // the always-free 25 GB, 25 WCU and 25 RCU are the Standard class's: AWS's price list gives the Standard-IA class's
  // storage and capacity no free tier (AmazonDynamoDB offer file, us-east-1: TimedStorage-ByteHrs 0-25 GB-Mo at $0,
  // IA-TimedStorage-ByteHrs flat; https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonDynamoDB/current/us-east-1/index.json)
  if (input.freeTier && t.tableClass !== 'STANDARD')
    throw new InputError([
      {
        path: 'freeTier',
        message: `DynamoDB's always-free tier applies to the STANDARD table class only, not to ${t.tableClass}`,
      },
    ]);
  const prices = dynamoPrices(book, t.tableClass === 'STANDARD' ? 'standard' : 'standard-ia');
  const item = itemBytesOf(input, (dataset) => dynamoItemBytes(t, dataset));
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

/** The dynamodb kind's monthly cost. */
export const DYNAMODB_MONTHLY_COST: KindMonthlyCost<typeof dynamoTarget> = {
  input: dynamoTarget,
  report: dynamoReport,
};
