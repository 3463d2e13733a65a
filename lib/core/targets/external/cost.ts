/**
 * What a run of an external target costs: its given price model for the run's hours and the operations at the
 * cells' targets, attributed to it outside the AWS total (AWS does not bill it).
 */
import { z } from 'zod';
import type { PriceBook } from '../../cost/book';
import { Q } from '../../cost/decimal';
import {
  type LinesCostReport,
  type CostInputBase,
  type KindMonthlyCost,
  linesReport,
} from '../../cost/report-parts';
import type { KindRunCost, Line, RunSpan, TargetEstimate } from '../../cost/lines';
import { externalCharges, type ExternalPrice, totalOf } from '../../cost/monthly';
import { ExternalPriceModel, type ExternalTarget } from '../../spec/schema';

/** An external target's price model: attributed to it, outside the AWS total. */
function externalEstimate(t: ExternalTarget, _i: number, r: RunSpan): TargetEstimate {
  const { plan, book, runHours } = r;
  const attributed: Line[] = [];
  // the price's charges for one hour without operations (its hourly parts, its storage prorated), and the
  // requests at each cell's target
  const perHour = totalOf(
    externalCharges({ price: t.price, opsPerSec: 0, hours: 1, hoursPerMonth: book.hoursPerMonth }),
  );
  if ('date' in t.price && t.price.usdPerMillionOps !== undefined) {
    const ops = plan.cells
      .filter((c) => c.target === t.id)
      .reduce((a, c) => a.add(Q.of(c.targetOpsPerSec).mul(c.durationSeconds)), Q.ZERO);
    attributed.push({
      kind: 'external',
      label: `${t.id}: operations at the cells' targets, at its given price per million`,
      target: t.id,
      quantity: ops.div(1_000_000),
      unit: 'million operations',
      unitUsd: Q.of(t.price.usdPerMillionOps),
    });
  }
  attributed.push({
    kind: 'external',
    label: `${t.id}: external service at its given price for the run`,
    target: t.id,
    quantity: runHours,
    unit: 'hour',
    unitUsd: perHour,
  });
  return { attributed };
}

/** The external kind's run cost. */
export const EXTERNAL_RUN_COST: KindRunCost<ExternalTarget> = { estimate: externalEstimate };

const nonNeg = z.number().nonnegative();

/** An external target as `fleetbench cost` reads it. */
const externalCostTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.literal('external'),
  price: z.union([
    z.strictObject({ usdPerHour: nonNeg }),
    z.strictObject({ usdPerMonth: nonNeg }),
    ExternalPriceModel,
  ]),
});

/** An external service at its given price: flat, or a DBaaS model's hourly parts, operations and storage. */
function externalReport(
  t: z.output<typeof externalCostTarget>,
  input: CostInputBase,
  book: PriceBook,
): LinesCostReport {
  const price = t.price as ExternalPrice;
  const opsPerSec = Q.of(input.throughput.readsPerSec).add(input.throughput.writesPerSec);
  const hoursPerMonth = book.hoursPerMonth;
  const lines = externalCharges({ price, opsPerSec, hours: hoursPerMonth, hoursPerMonth });
  return linesReport(t, { input, book, lines, pricing: { ...price } });
}

/** The external kind's monthly cost. */
export const EXTERNAL_MONTHLY_COST: KindMonthlyCost<typeof externalCostTarget> = {
  input: externalCostTarget,
  report: externalReport,
};
