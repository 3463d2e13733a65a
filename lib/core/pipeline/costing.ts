/**
 * The cost model applied to a run: each cell's monthly cost at its measured throughput (cost
 * columns of the `cells` table), and the run's own estimated AWS cost for the budget cap. The same
 * functions serve the Lambdas and the local mode.
 */
import { billedMonthly, loadPriceBook, monthlyCost, type PriceBook } from '../cost';
import type { CellSummary, Plan } from '../plan';
import type { CellCosts } from '../results/rows';
import type { RunSpec } from '../spec';
import { UnpricedError } from '../cost/report-parts';

/**
 * Reads and writes per second of a cell at `opsPerSec`: a read-modify-write is one read and one
 * write; scans are priced as reads of one item each (a lower bound: a scan reads up to maxscanlength
 * items).
 */
export function cellReadWriteRates(
  cell: Pick<CellSummary, 'proportions'>,
  opsPerSec: number,
): { readsPerSec: number; writesPerSec: number } {
  const p = cell.proportions;
  return {
    readsPerSec: opsPerSec * (p.read + p.scan + p.readModifyWrite),
    writesPerSec: opsPerSec * (p.update + p.insert + p.readModifyWrite),
  };
}

/** Monthly cost columns of a cell at its achieved throughput, priced with `book`. */
export function cellCostsFor(spec: RunSpec, book: PriceBook = loadPriceBook()) {
  return (cell: CellSummary, achievedOpsPerSec: number): CellCosts => {
    const target = spec.targets.find((t) => t.id === cell.target);
    if (!target || !Number.isFinite(achievedOpsPerSec)) return {};
    const input = {
      target,
      throughput: cellReadWriteRates(cell, achievedOpsPerSec),
      dataset: {
        recordCount: spec.dataset.recordCount,
        fieldCount: spec.dataset.fieldCount,
        fieldLength: spec.dataset.fieldLength,
      },
    };
    let report: ReturnType<typeof monthlyCost>;
    try {
      report = monthlyCost(input, book);
    } catch (err) {
      // a target the book does not price: no cost, rather than $0
      if (err instanceof UnpricedError) return {};
      throw err;
    }
    const billed = billedMonthly(report);
    return {
      monthlyCostProvisionedUsd: billed.provisioned,
      monthlyCostOnDemandUsd: billed.onDemand,
      monthlyCostUsd: billed.own,
      hoursPerMonth: book.hoursPerMonth,
    };
  };
}

/** The run's own AWS cost estimate (the plan carries it, itemised). */
export function estimateRunUsd(_spec: RunSpec, plan: Plan): number {
  return plan.estimate.totalUsd;
}
