/**
 * The state machine's Task states and the pipeline function each runs. The CDK construct builds the
 * definition from this table (state names are stable: the local runner maps them to local
 * implementations and a test checks every Task state of the definition is covered).
 */
export const TASK_STATES = {
  Plan: 'plan',
  ProvisionTarget: 'provisionTarget',
  ProvisionFleet: 'provisionFleet',
  WaitReady: 'waitReady',
  StartLoad: 'startLoad',
  CheckLoad: 'checkLoad',
  ConfigureCell: 'configureCell',
  StartCell: 'startCell',
  CheckCell: 'checkCell',
  AggregateCell: 'aggregateCell',
  CellFailed: 'cellFailed',
  WaitLoaders: 'waitLoaders',
  TeardownTarget: 'teardownTarget',
  Report: 'report',
  DetectRegressions: 'detectRegressions',
  Teardown: 'teardown',
  TeardownAfterFailure: 'teardown',
} as const;

export type TaskStateName = keyof typeof TASK_STATES;

/**
 * The states of one cell: their failure goes to CellFailed (lib/core/pipeline/cell-failure.ts), which retries the
 * cell, records it incomplete or fails the run by the plan's policy.
 */
export const CELL_STATES: readonly TaskStateName[] = [
  'ConfigureCell',
  'StartCell',
  'CheckCell',
  'AggregateCell',
];

/**
 * Task states whose failure does not fail the run. DetectRegressions: caught into the normal Teardown (the run's
 * results are already written when it runs). TeardownTarget: caught into TargetTeardownFailed, which ends its
 * target's iteration (the run's Teardown removes what it left). The run still reports the error.
 */
export const NON_FATAL_STATES: readonly TaskStateName[] = ['DetectRegressions', 'TeardownTarget'];
export type StepName = (typeof TASK_STATES)[TaskStateName];

/** Every step with a Lambda (one function per step; the two teardown states share one). */
export const STEP_NAMES: readonly StepName[] = [...new Set(Object.values(TASK_STATES))];

/** Lambda entry file (under lambdas/) per step. */
export const STEP_ENTRIES: Record<StepName, string> = {
  plan: 'plan.ts',
  provisionTarget: 'provision-target.ts',
  provisionFleet: 'provision-fleet.ts',
  waitReady: 'wait-ready.ts',
  startLoad: 'start-load.ts',
  checkLoad: 'check-phase.ts',
  configureCell: 'configure-cell.ts',
  startCell: 'start-cell.ts',
  checkCell: 'check-phase.ts',
  aggregateCell: 'aggregate-cell.ts',
  cellFailed: 'cell-failed.ts',
  waitLoaders: 'wait-loaders.ts',
  report: 'report.ts',
  teardown: 'teardown.ts',
  // the same function as Teardown (its grants: every resource type's deletes); the handler tells them apart
  teardownTarget: 'teardown.ts',
  detectRegressions: 'detect-regressions.ts',
};
