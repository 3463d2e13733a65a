/**
 * What a run does when a cell fails (spec `onCellFailure`), as the plan fixes it: the policy (a study of more than
 * one cell retries by default, a single cell stops), how often a cell runs at most, when a run of failures stops the
 * study, and what the retries can cost at worst. The step that applies it is lib/core/pipeline/cell-failure.ts.
 */
import type { CellFailurePolicy, RunSpec } from '../spec/schema';
import type { PriceBook } from '../cost/book';
import { estimateRunCost, type PlanLike, type RunEstimate } from '../cost/estimate';
import { LOADER_REPLACEMENT_LIMITS, readyChecksOf, retryRoom } from './history';

/** Runs of one cell at most under retry-then-continue: the first, and one retry with fresh YCSB processes. */
export const CELL_ATTEMPTS = 2;

/**
 * Cells failing in a row (each after its retry) that end the study anyway: the fault is then the target's, the
 * network's or the account's, not one cell's, and every further cell would pay for nothing.
 */
export const MAX_CONSECUTIVE_FAILED_CELLS = 3;

export interface CellFailurePlan {
  policy: CellFailurePolicy;
  /** runs of one cell at most (1 under stop) */
  attempts: number;
  /**
   * retries the run may make in all: one per cell, as far as the execution history has room (./history.ts); a cell
   * failing when none is left is recorded incomplete at once
   */
  retries: number;
  /** lost loaders replaced at most (each replacement happens in a retry) */
  replacements: number;
  /** cells failing in a row (each after its retry) that end the run */
  stopAfterConsecutiveFailures: number;
  /** every cell failing once and running again: the extra cost and wall time at worst (0 under stop) */
  worstCase: { extraUsd: number; extraHours: number };
}

/** The policy a spec asks for, or the default by the number of cells. */
export function cellFailurePolicy(spec: Pick<RunSpec, 'onCellFailure'>, cells: number): CellFailurePolicy {
  return spec.onCellFailure ?? (cells > 1 ? 'retry-then-continue' : 'stop');
}

/**
 * The plan's failure policy with its worst case: the run estimated again with every retry it allows spent on its
 * longest cells and every replacement it allows waited on to its deadline (loaders, target capacity, requests and
 * pipeline steps meanwhile), less the estimate itself.
 */
export function planCellFailure(
  spec: RunSpec,
  plan: PlanLike,
  book: PriceBook,
  estimate: Pick<RunEstimate, 'totalUsd' | 'runHours'>,
): CellFailurePlan {
  const policy = cellFailurePolicy(spec, plan.cells.length);
  const attempts = policy === 'stop' ? 1 : CELL_ATTEMPTS;
  const loads = plan.load ? plan.load.targets.length : 0;
  const { retries, replacements } =
    attempts === 1
      ? { retries: 0, replacements: 0 }
      : retryRoom({
          cells: plan.cells.length,
          loads,
          targets: spec.targets.length,
          readyChecks: readyChecksOf(spec.targets),
        });
  if (retries === 0)
    return {
      policy,
      attempts,
      retries,
      replacements,
      stopAfterConsecutiveFailures: attempts === 1 ? 1 : MAX_CONSECUTIVE_FAILED_CELLS,
      worstCase: { extraUsd: 0, extraHours: 0 },
    };
  // the longest cells are the ones retried at worst
  const again = [...plan.cells].sort((a, b) => b.durationSeconds - a.durationSeconds).slice(0, retries);
  const twice = estimateRunCost(
    spec,
    {
      ...plan,
      cells: [...plan.cells, ...again],
      // and every replacement's loaders waited on to the deadline, the rest of the run standing by
      cellSeconds:
        plan.cellSeconds +
        again.reduce((s, c) => s + c.durationSeconds, 0) +
        replacements * LOADER_REPLACEMENT_LIMITS.timeoutSeconds,
    },
    book,
  );
  return {
    policy,
    attempts,
    retries,
    replacements,
    stopAfterConsecutiveFailures: MAX_CONSECUTIVE_FAILED_CELLS,
    worstCase: {
      extraUsd: Math.round((twice.totalUsd - estimate.totalUsd) * 100) / 100,
      extraHours: Math.round((twice.runHours - estimate.runHours) * 10_000) / 10_000,
    },
  };
}
