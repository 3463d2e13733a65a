/**
 * What a run of a dynamodb target costs on AWS: the table's provisioned capacity for the run's hours (or, on
 * demand, request units at the cells' target throughput and the load's writes), DAX in front of it, the items
 * stored for the run; and how long the load takes under the table's capacity (docs/cost-model.md).
 */
import { dynamoPrices, usd, type PriceBook } from '../../cost/book';
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
import { dynamoOpUnits } from '../../cost/workload-units';
import type { DynamoDbTarget, RunSpec } from '../../spec/schema';
import { daxBilledNodeHours, daxNodeHourPrice } from './dax-cost';

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
        {
          writes: "write request units at the cells' target throughput",
          reads: `read request units at the cells' target throughput (${units.consistency} reads)`,
        },
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
