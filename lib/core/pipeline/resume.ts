/**
 * Resume (`fleetbench resume <runId>`, or the execution input `{"resume": "<runId>"}`): a new execution that carries
 * on a failed run. It reuses the run's stored spec, plan and price book (nothing is planned again), provisions and
 * loads the data set again under the same run id (the failed run's teardown removed everything), runs only the cells
 * without a complete row and writes them under the same run, so its report, `runs` row and Athena partitions show one
 * run. Refused, with the reason: a run resumed before, a run whose cells are all complete, a run not torn down yet
 * (still running, or its teardown never finished), a run id the store does not hold.
 */
import { InputError } from '../common/errors';
import type { Clock, ObjectStore } from '../common/ports';
import {
  cellKey,
  contextKey,
  readOptional,
  readPlan,
  resumeKey,
  resumesKey,
  runIdFromExecutionName,
  teardownKey,
  type RunContext,
} from './context';
import { readRunContext, targetConcurrency, targetSpans } from './run-context';
import type { CellResult } from './aggregate';

const RUN_ID = /^[a-z0-9][a-z0-9-]{0,79}$/;

/** Under the resuming execution's own run id: which run it resumes (teardown by execution name follows it). */
export interface ResumesPointer {
  runId: string;
}

/** What the resuming execution records (`runs/<id>/resume.json`). */
export interface ResumeRecord {
  executionName: string;
  atMs: number;
  /** the cells it runs (plan indexes) */
  cells: number[];
}

/** The execution name `fleetbench resume` gives the execution that resumes `runId`. */
export const resumeExecutionName = (runId: string): string => `${runId}-resume`;

/**
 * The run an execution works on, by the run id its name gives: a resuming execution's pointer names the run it
 * resumes; any other execution's run is its own.
 */
export async function runOfExecution(store: ObjectStore, executionRunId: string): Promise<string> {
  const pointer = (await readOptional(store, resumesKey(executionRunId))) as { runId?: unknown } | null;
  return typeof pointer?.runId === 'string' ? pointer.runId : executionRunId;
}

/** Plan indexes of the cells without a complete row (no result.json, or an incomplete one). */
export async function cellsToResume(store: ObjectStore, runId: string): Promise<number[]> {
  const plan = await readPlan(store, runId);
  const results = await Promise.all(
    plan.cells.map(
      async (cell) =>
        (await readOptional(store, cellKey(runId, cell.id, 'result.json'))) as CellResult | null,
    ),
  );
  return plan.cells.filter((_, i) => !results[i] || results[i].row.incomplete === true).map((c) => c.index);
}

/**
 * The context of the execution that resumes `runId`: the run's own (same id, start time and resources, so rows land
 * in its partitions and teardown removes what it makes) with the cells to run and a new expiry, stored as the run's
 * context; the resuming execution's own run id points to it, so a teardown by that execution's name (the abort
 * rule's) finds the run.
 */
/**
 * Whether `runId` can be resumed: its stored context and the cells to run, or an InputError at `resume` saying why not.
 * Reads only (the CLI asks before starting anything; the Plan step asks again).
 */
export async function resumable(
  store: ObjectStore,
  runId: unknown,
): Promise<{ runId: string; run: RunContext; cells: number[] }> {
  if (typeof runId !== 'string' || !RUN_ID.test(runId))
    throw new InputError([{ path: 'resume', message: 'a run id (lower-case letters, digits and "-")' }]);
  const refuse = (message: string) => new InputError([{ path: 'resume', message }]);
  const stored = await readOptional(store, contextKey(runId));
  if (stored === null) throw refuse(`no run "${runId}" in ${store.uri}`);
  const previous = (await readOptional(store, resumeKey(runId))) as ResumeRecord | null;
  if (previous)
    throw refuse(
      `run "${runId}" was resumed already, by execution ${previous.executionName} at ` +
        `${new Date(previous.atMs).toISOString()}; a run is resumed once (start the spec again for a new run)`,
    );
  if ((await readOptional(store, teardownKey(runId))) === null)
    throw refuse(
      `run "${runId}" has not been torn down: it is still running, or its teardown never finished ` +
        '(wait for it, or run the janitor); a run is resumed once everything it made is gone',
    );
  const cells = await cellsToResume(store, runId);
  if (!cells.length) throw refuse(`run "${runId}" has a complete row for every cell: nothing to resume`);
  return { runId, run: readRunContext(stored, contextKey(runId)), cells };
}

/**
 * The context of the execution that resumes `runId`: the run's own (same id, start time and resources, so rows land
 * in its partitions and teardown removes what it makes) with the cells to run and a new expiry, stored as the run's
 * context; the resuming execution's own run id points to it, so a teardown by that execution's name (the abort
 * rule's) finds the run.
 */
export async function resumeRun(
  input: { resume: unknown; executionName: string },
  deps: { store: ObjectStore; clock: Clock },
): Promise<RunContext> {
  const { runId, run, cells } = await resumable(deps.store, input.resume);
  const now = deps.clock.nowMs();
  const record: ResumeRecord = { executionName: input.executionName, atMs: now, cells };
  // the targets with a cell to run (a target whose cells all have rows is not provisioned again); a context of a
  // run before per-target lifecycles gets its spans from the stored plan
  const plan = run.targets ? null : await readPlan(deps.store, runId);
  const spans = (
    run.targets ?? targetSpans(Object.keys(plan!.sizing), plan!.cells, plan!.load ? plan!.load.targets : [])
  ).filter((t) => cells.some((c) => c >= t.cellStart && c < t.cellEnd));
  const ctx: RunContext = {
    ...run,
    targets: spans,
    // a parallel run resumes in parallel (its targets left), any other one target at a time
    targetConcurrency: targetConcurrency(
      (run.targetConcurrency ?? 1) > 1 ? 'parallel' : 'sequential',
      spans.length,
    ),
    // the janitor's horizon counts from now, as long as the first run's was from its start
    expiresAt: Math.ceil(now / 1000) + (run.expiresAt - Math.floor(run.startedAtMs / 1000)),
    resume: record,
  };
  await deps.store.putJson(resumeKey(runId), record);
  await deps.store.putJson(contextKey(runId), ctx);
  const alias = runIdFromExecutionName(input.executionName);
  if (alias !== runId) await deps.store.putJson(resumesKey(alias), { runId } satisfies ResumesPointer);
  return ctx;
}
