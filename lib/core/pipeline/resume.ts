/**
 * Resume (`fleetbench resume <runId>`, or the execution input `{"resume": "<runId>"}`): a new execution that carries
 * on a failed run. It reuses the run's stored spec, plan and price book (nothing is planned again), provisions and
 * loads the data set again under the same run id (the failed run's teardown removed everything), runs only the cells
 * without a complete row and writes them under the same run, so its report, `runs` row and Athena partitions show one
 * run. Refused, with the reason: a run resumed before, a run whose cells are all complete, a run not torn down yet
 * (still running, or its teardown never finished), a run id the store does not hold, and (in the Plan step) a run
 * whose teardown is still removing something the resume makes again (a cluster still deleting). A refusal writes
 * nothing; the resuming execution's own Plan run again (a Lambda retry) gets its context back.
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
import { RESOURCE_TYPES } from '../targets/registry';
import type { LifecyclePorts } from '../resources/resource-type';

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

/** The execution name `fleetbench resume` gives the execution that resumes `runId` (`attempt` > 1: a later try). */
export const resumeExecutionName = (runId: string, attempt = 1): string =>
  attempt > 1 ? `${runId}-resume-${attempt}` : `${runId}-resume`;

/**
 * The first resume execution name not `taken`: a resume the Plan step refused (a cluster still deleting) failed its
 * execution, whose name Step Functions keeps for 90 days
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html), so the next try is
 * `<runId>-resume-2`, and so on.
 */
export async function freeResumeExecutionName(
  runId: string,
  taken: (name: string) => Promise<boolean>,
): Promise<string> {
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = resumeExecutionName(runId, attempt);
    if (!(await taken(name))) return name;
  }
  throw new InputError([
    { path: 'runId', message: `50 executions resuming run "${runId}" exist already: resume it no more` },
  ]);
}

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

/** What a resume needs: the store and clock, and the ports its checks of the run's live resources read. */
export interface ResumeDeps {
  store: ObjectStore;
  clock: Clock;
  /**
   * The ports of the run's resource types (the kinds' own services among them): a resume waits until the failed
   * execution's teardown has finished with the resources it will make again. Without them (a caller that only
   * plans) those checks are skipped.
   */
  ports?: LifecyclePorts;
}

/**
 * The context of the execution that resumes `runId`: the run's own (same id, start time and resources, so rows land
 * in its partitions and teardown removes what it makes) with the cells to run and a new expiry, stored as the run's
 * context; the resuming execution's own run id points to it, so a teardown by that execution's name (the abort
 * rule's) finds the run. Nothing is written until every check passed (a refused resume can be started again); the
 * same execution asking again (Step Functions retries Plan after a Lambda timeout) gets the same context back.
 */
export async function resumeRun(
  input: { resume: unknown; executionName: string },
  deps: ResumeDeps,
): Promise<RunContext> {
  const again = await retriedResume(deps.store, input);
  if (again) return again;
  const { run, cells } = await resumable(deps.store, input.resume);
  const record: ResumeRecord = { executionName: input.executionName, atMs: deps.clock.nowMs(), cells };
  const ctx = await resumedContext(deps.store, run, record);
  await refuseUnfinishedTeardown(ctx, deps);
  await writeResume(deps.store, ctx, record);
  return ctx;
}

/**
 * Plan run again by the execution that resumed the run already (a Lambda retry after the first invocation wrote its
 * record): that resume's context, completed where the first invocation stopped part-way; null for any other case.
 */
async function retriedResume(
  store: ObjectStore,
  input: { resume: unknown; executionName: string },
): Promise<RunContext | null> {
  if (typeof input.resume !== 'string' || !RUN_ID.test(input.resume)) return null;
  const record = (await readOptional(store, resumeKey(input.resume))) as ResumeRecord | null;
  if (record?.executionName !== input.executionName) return null;
  const key = contextKey(input.resume);
  const stored = readRunContext(await store.getJson(key), key);
  const ctx =
    stored.resume?.executionName === record.executionName
      ? stored
      : await resumedContext(store, stored, record);
  await writeResume(store, ctx, record);
  return ctx;
}

/** The run's context as the resuming execution runs it (`record`: when it resumed, which cells). */
async function resumedContext(
  store: ObjectStore,
  run: RunContext,
  record: ResumeRecord,
): Promise<RunContext> {
  // the targets with a cell to run (a target whose cells all have rows is not provisioned again); a context of a
  // run before per-target lifecycles gets its spans from the stored plan
  const plan = run.targets ? null : await readPlan(store, run.runId);
  const spans = (
    run.targets ?? targetSpans(Object.keys(plan!.sizing), plan!.cells, plan!.load ? plan!.load.targets : [])
  ).filter((t) => record.cells.some((c) => c >= t.cellStart && c < t.cellEnd));
  return {
    ...run,
    targets: spans,
    // a parallel run resumes in parallel (its targets left), any other one target at a time
    targetConcurrency: targetConcurrency(
      (run.targetConcurrency ?? 1) > 1 ? 'parallel' : 'sequential',
      spans.length,
    ),
    // the janitor's horizon counts from the resume, as long as the first run's was from its start
    expiresAt: Math.ceil(record.atMs / 1000) + (run.expiresAt - Math.floor(run.startedAtMs / 1000)),
    resume: record,
  };
}

/** resume.json (a run is resumed once), the run's context, and the resuming execution's pointer to the run. */
async function writeResume(store: ObjectStore, ctx: RunContext, record: ResumeRecord): Promise<void> {
  await store.putJson(resumeKey(ctx.runId), record);
  await store.putJson(contextKey(ctx.runId), ctx);
  const alias = runIdFromExecutionName(record.executionName);
  if (alias !== ctx.runId)
    await store.putJson(resumesKey(alias), { runId: ctx.runId } satisfies ResumesPointer);
}

/**
 * The resumed run makes its targets' resources again under the same names. A managed cache or database cluster
 * takes minutes to delete, so the failed execution's teardown may have left one still deleting, or its groups
 * pending: each resource type with such a check (its `resumeBlockers`, in its kind's folder) says what of the
 * targets to provision is not gone yet, and the resume is refused naming each, before anything is written. Types
 * whose port is not deployed here refuse what the context names of them (it could not be checked).
 */
async function refuseUnfinishedTeardown(ctx: RunContext, deps: ResumeDeps): Promise<void> {
  if (!deps.ports) return;
  const provisioned = new Set((ctx.targets ?? []).map((t) => t.id));
  const scoped: RunContext = { ...ctx, resources: ctx.resources.filter((r) => provisioned.has(r.targetId)) };
  const problems: string[] = [];
  for (const type of RESOURCE_TYPES) {
    const named = type.resumeBlockers ? type.namedIn(scoped) : [];
    if (!named.length) continue;
    if (!type.available(deps.ports))
      problems.push(`no ${type.service} port here to check that ${named.join(', ')} are gone`);
    else problems.push(...(await type.resumeBlockers!(ctx.runId, scoped, deps.ports)));
  }
  if (problems.length)
    throw new InputError(
      problems.map((p) => ({
        path: 'resume',
        message: `run "${ctx.runId}" cannot be resumed yet (nothing was started or recorded): ${p}`,
      })),
    );
}
