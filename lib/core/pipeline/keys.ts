/** The object-store layout of a run (keys under `runs/<runId>/`), and reading a record that may not exist yet. */
import { NotFoundError, type ObjectStore } from '../common/store';

export const runKey = (runId: string, ...rest: string[]): string => ['runs', runId, ...rest].join('/');
export const specKey = (runId: string): string => runKey(runId, 'spec.json');
export const planKey = (runId: string): string => runKey(runId, 'plan.json');
/** One cell's full plan (its YCSB properties), beside the run index. */
export const cellPlanKey = (runId: string, index: number): string =>
  runKey(runId, 'plan', `cell-${index}.json`);
export const contextKey = (runId: string): string => runKey(runId, 'context.json');
export const teardownKey = (runId: string): string => runKey(runId, 'teardown.json');
/** One target's teardown record (TeardownTarget, per-target lifecycles). */
export const targetTeardownKey = (runId: string, targetId: string): string =>
  runKey(runId, 'teardown', `${targetId}.json`);
export const failureKey = (runId: string): string => runKey(runId, 'failure.json');
/** Written by the execution that resumes a run (lib/core/pipeline/resume.ts): a run is resumed once. */
export const resumeKey = (runId: string): string => runKey(runId, 'resume.json');
/** Under a resuming execution's own run id: the run it resumes (lib/core/pipeline/resume.ts). */
export const resumesKey = (executionRunId: string): string => runKey(executionRunId, 'resumes.json');
export const summaryKey = (runId: string): string => runKey(runId, 'summary.json');
/** The run's HTML report (written by the Report step, and by the local mode whatever the outcome). */
export const reportKey = (runId: string): string => runKey(runId, 'report.html');
export const cellKey = (runId: string, cellId: string, ...rest: string[]): string =>
  runKey(runId, 'cells', cellId, ...rest);
/**
 * Where a cell's loaders write their raw outputs: `raw` on its first attempt, `retry-<n>/raw` on a retry, so an
 * aggregate reads only the attempt that ran to the end (a failed attempt's outputs stay for diagnosis).
 */
export const cellRawKey = (runId: string, cellId: string, attempt = 0): string =>
  attempt > 0 ? cellKey(runId, cellId, `retry-${attempt}`, 'raw') : cellKey(runId, cellId, 'raw');
/** A cell's failure record per attempt (lib/core/pipeline/cell-failure.ts). */
export const cellFailureKey = (runId: string, cellId: string, attempt: number): string =>
  cellKey(runId, cellId, 'failures', `attempt-${attempt}.json`);
export const loadKey = (runId: string, target: string, ...rest: string[]): string =>
  runKey(runId, 'load', target, ...rest);

/** A run record that may not exist yet (teardown.json, failure.json): its JSON, or null. */
export async function readOptional(store: ObjectStore, key: string): Promise<unknown> {
  try {
    return await store.getJson(key);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}
