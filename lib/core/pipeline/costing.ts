/**
 * The cost model applied to a run: each cell's monthly cost at its measured throughput (cost
 * columns of the `cells` table), and the run's own estimated AWS cost for the budget cap. The same
 * functions serve the Lambdas and the local mode.
 */
import { billedMonthly, loadPriceBook, monthlyCost, type PriceBook } from '../cost';
import type { CellSummary, Plan } from '../plan';
import { capacityProperties } from '../plan/grid';
import type { CellCosts } from '../results/rows';
import type { RunSpec } from '../spec';
import { UnpricedError } from '../cost/report-parts';
import { cellUnitsPerSec, type DynamoOpUnits } from '../cost/workload-units';
import { kindOf } from '../targets/registry';

/**
 * Reads and writes per second of a cell at `opsPerSec`, in operations on one item each: a read-modify-write is one
 * read and one write. For a kind billed per request (`units`), a scan or a query counts as the reads of one item its
 * units come to (the run estimate's rule, cellUnitsPerSec: a scan reads (1 + maxscanlength) / 2 items in 4 KB
 * blocks); otherwise each is one read.
 */
export function cellReadWriteRates(
  cell: Pick<CellSummary, 'proportions'> & { properties?: Record<string, string> },
  opsPerSec: number,
  units?: DynamoOpUnits,
): { readsPerSec: number; writesPerSec: number } {
  const p = cell.proportions;
  if (!units)
    return {
      readsPerSec: opsPerSec * (p.read + p.scan + p.query + p.readModifyWrite),
      writesPerSec: opsPerSec * (p.update + p.insert + p.readModifyWrite),
    };
  const u = cellUnitsPerSec(
    { proportions: p, targetOpsPerSec: opsPerSec, properties: cell.properties ?? {} },
    units,
  );
  return {
    readsPerSec: u.reads.div(units.readUnitsPerRead).toNumber(),
    writesPerSec: u.writes.div(units.writeUnitsPerWrite).toNumber(),
  };
}

/** Monthly cost columns of a cell at its achieved throughput, priced with `book`. */
export function cellCostsFor(spec: RunSpec, book: PriceBook = loadPriceBook()) {
  // the spec's, the same for every cell (the search's probes price many rates of one cell)
  const properties = capacityProperties(spec.workload);
  return (cell: CellSummary, achievedOpsPerSec: number): CellCosts => {
    const target = spec.targets.find((t) => t.id === cell.target);
    if (!target || !Number.isFinite(achievedOpsPerSec)) return {};
    const units = kindOf(target).opUnits?.(spec, target);
    const input = {
      target,
      throughput: cellReadWriteRates({ ...cell, properties }, achievedOpsPerSec, units),
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
