/**
 * Teardown (end of every run, every Catch, and the abort rule) and the scheduled Janitor.
 * Teardown is idempotent: it finds the run's loaders by tag and its tables by the run context (or,
 * when Plan never finished, by the run tag), removes what is there and records what it did.
 */
import { TAG_EXPIRES_AT, type Ports } from '../common/ports';
import { InputError } from '../common/errors';
import {
  contextKey,
  failureKey,
  readOptional,
  readRunContext,
  runIdFromExecutionName,
  teardownKey,
  type RunContext,
} from './context';
import { lateArrivals, type LateArrivalDeps, type LateArrivalsResult } from './late-arrivals';
import { RESOURCE_TYPES } from '../targets/registry';
import { LOADERS } from '../resources/loaders';
import { targetResources } from '../resources/run-resource';
import { targetTeardownKey } from './keys';
import { spanAt } from './run-context';
import {
  counted,
  type JanitorListField,
  type RemovalScope,
  type ResourceType,
  type TeardownListField,
} from '../resources/resource-type';
import { readTargetTeardowns, type TeardownInput } from './teardown-input';
import { writeRunRow } from './run-row';
import { failureReason } from './cell-failure';
import { runOfExecution } from './resume';

export type { TeardownInput };

/**
 * What a teardown did, per resource type (lib/core/resources: each names its fields): terminated, deleted, kept
 * (there, without this run's tag: another's, or an `existingTable`) and pending (a DAX cluster's groups, left to
 * the Janitor). Loaders and tables are always listed; the other types where their port is deployed.
 */
export type TeardownResult = {
  runId: string;
  terminated: string[];
  deletedTables: string[];
  keptTables: string[];
  failed: boolean;
} & { [field in TeardownListField]?: string[] };

type TeardownDeps = LateArrivalDeps;

/**
 * Removes what the run owns: every delete goes through the ownership rule (./ownership.ts), so a resource is
 * removed only when its own run tag is this run's id; a table, keyspace or DAX cluster the context names
 * without that tag is kept and reported. `existingTable`s are never deleted.
 */
export async function teardown(input: TeardownInput, deps: TeardownDeps): Promise<TeardownResult> {
  const named = runIdOf(input);
  const run = await runContextOf(input, named, deps);
  // an execution resuming a run (./resume.ts) has a name of its own: its context is the run's
  const runId = run?.runId ?? named;
  const { lists, errors } = await removeRunResources(runId, run, deps);
  const result: TeardownResult = {
    runId,
    terminated: [],
    deletedTables: [],
    keptTables: [],
    ...lists,
    failed: Boolean(input.error || (input.status && input.status !== 'SUCCEEDED')),
  };
  const previous = (await readOptional(deps.store, teardownKey(runId))) as TeardownRecord | null;
  await deps.store.putJson(teardownKey(runId), {
    ...mergeRecord(await withTargetTeardowns(result, run, deps.store), previous, executionStartMs(run)),
    ...(errors.length ? { errors } : {}),
    atMs: deps.clock.nowMs(),
  });
  const failure = result.failed ? await recordFailure(input, runId, run, deps) : null;
  const rowError = failure && run ? await failedRunRow(run, failure.record, deps.store) : null;
  await notify({ input, result, errors, failure, rowError }, deps);
  if (errors.length)
    throw new Error(`teardown of run ${runId} incomplete (it is retried): ${errors.join('; ')}`);
  return result;
}

/**
 * What TeardownTarget removed or kept, per resource type's record fields (`terminated` only for a parallel run's
 * target: its loader group; otherwise the loaders stay for the next target).
 */
export type TargetTeardownResult = { runId: string; target: string } & {
  [field in TeardownListField]?: string[];
};

/**
 * TeardownTarget (per-target lifecycles, docs/aws-pipeline.md): after a target's last cell, its resources (the
 * context's entries for it, and its nodes by their target tag) removed through the same resource types and ownership
 * rule as Teardown; the loaders stay for the next target, but for a parallel run's target, whose own loader group
 * (tagged with it) is terminated with it. Recorded at runs/<id>/teardown/<target>.json. Whatever it
 * leaves, the run's Teardown (at the end, or on a failure) removes: it covers every resource of the run.
 */
export async function teardownTarget(
  input: { run: unknown; target: unknown },
  deps: TeardownDeps,
): Promise<TargetTeardownResult> {
  const run = readRunContext(input.run);
  const span = spanAt(run, input.target);
  const scoped: RunContext = { ...run, resources: targetResources(run, span.id) };
  // a parallel run's target takes its own loader group with it (the estimate bills a group for its target's life)
  const scope: RemovalScope = {
    targetId: span.id,
    ...(span.loaders !== undefined ? { loaderGroup: span.id } : {}),
  };
  const { lists, errors } = await removeRunResources(run.runId, scoped, deps, scope);
  const record: TargetTeardownResult = { runId: run.runId, target: span.id, ...lists };
  await deps.store.putJson(targetTeardownKey(run.runId, span.id), {
    ...record,
    ...(errors.length ? { errors } : {}),
    atMs: deps.clock.nowMs(),
  });
  if (errors.length)
    throw new Error(`teardown of target ${span.id} of run ${run.runId} incomplete: ${errors.join('; ')}`);
  return record;
}

/**
 * The run's context: the one given, else the stored one (null when Plan never wrote it). Either may be of the
 * per-kind shape of runs started before the resource list: readRunContext converts it.
 */
async function runContextOf(
  input: TeardownInput,
  runId: string,
  deps: TeardownDeps,
): Promise<RunContext | null> {
  if (input.run) return readRunContext(input.run);
  const key = contextKey(await runOfExecution(deps.store, runId));
  const stored = await readOptional(deps.store, key);
  return stored === null ? null : readRunContext(stored, key);
}

function runIdOf(input: TeardownInput): string {
  if (input.run?.runId) return input.run.runId;
  if (!input.executionName)
    throw new InputError([{ path: 'run', message: 'teardown needs the run context or the execution name' }]);
  return runIdFromExecutionName(input.executionName);
}

/** Each type's record fields as one removal filled them. */
type RemovalLists = { [field in TeardownListField]?: string[] };

/**
 * Each type of resource (lib/core/resources) is removed even when another fails (a loader API error must not leave
 * $2/h of database nodes running); the failures are returned together once everything was tried. A type whose
 * port is not deployed here is skipped, unless the context names some (they would stay: an error says so).
 */
async function removeRunResources(
  runId: string,
  run: RunContext | null,
  deps: TeardownDeps,
  scope?: RemovalScope,
): Promise<{ lists: RemovalLists; errors: string[] }> {
  const errors: string[] = [];
  const lists: RemovalLists = {};
  // one target's teardown leaves the loaders (they serve the next target), unless it has a group of its own
  const types = RESOURCE_TYPES.filter((t) => t !== LOADERS || !scope || scope.loaderGroup !== undefined);
  for (const type of types) {
    // (a malformed entry of the context fails its type only: the others are still removed)
    try {
      if (!type.available(deps)) {
        const named = run ? type.namedIn(run) : [];
        if (named.length)
          errors.push(`${type.activity}: no ${type.service} port to delete ${named.join(', ')}`);
        continue;
      }
      if (!type.mayExist(run)) {
        recordRemoval(lists, type, { removed: [], kept: [] });
        continue;
      }
      const removal = await type.removeForRun(runId, run, deps, scope);
      recordRemoval(lists, type, removal);
      errors.push(...removal.errors);
    } catch (err) {
      errors.push(`${type.activity}: ${(err as Error).message}`);
      recordRemoval(lists, type, { removed: [], kept: [] });
    }
  }
  return { lists, errors };
}

function recordRemoval(
  lists: RemovalLists,
  type: ResourceType,
  removal: { removed: string[]; kept: string[]; pending?: string[] },
): void {
  lists[type.record.removed] = removal.removed;
  if (type.record.kept) lists[type.record.kept] = removal.kept;
  if (type.record.pending) lists[type.record.pending] = removal.pending ?? [];
}

type TeardownRecord = TeardownResult & { passes?: number; atMs?: number };

/**
 * When this execution started working on the run: a resuming execution's start (./resume.ts), else 0 (every record
 * of the run is this execution's). A record written before it is the earlier execution's.
 */
function executionStartMs(run: RunContext | null): number {
  return run?.resume?.atMs ?? 0;
}

/**
 * The run's teardown record lists what each target's teardown (TeardownTarget, runs/<id>/teardown/<target>.json)
 * removed or kept too, so teardown.json says everything the run's teardowns did.
 */
async function withTargetTeardowns(
  result: TeardownResult,
  run: RunContext | null,
  store: TeardownDeps['store'],
): Promise<TeardownResult> {
  // the targets' in their order, then this pass's own
  const lists = new Map<TeardownListField, string[]>();
  for (const span of run?.targets ?? []) {
    const key = targetTeardownKey(run!.runId, span.id);
    const rec = (await readOptional(store, key)) as Record<string, unknown> | null;
    for (const type of RESOURCE_TYPES)
      for (const field of [type.record.removed, type.record.kept]) {
        const listed = field ? rec?.[field] : undefined;
        if (field && Array.isArray(listed)) lists.set(field, [...(lists.get(field) ?? []), ...listed]);
      }
  }
  const out: TeardownResult = { ...result };
  for (const [field, listed] of lists) out[field] = [...new Set([...listed, ...(result[field] ?? [])])];
  return out;
}

/**
 * A run can be torn down more than once (the Catch, then the abort rule on FAILED; a retried teardown; a resumed
 * run's execution after the first's): the record keeps everything any pass removed or kept; `failed` is this
 * execution's (a resumed run that succeeds is not failed for its first execution's failure).
 */
function mergeRecord(
  result: TeardownResult,
  previous: TeardownRecord | null,
  sinceMs: number,
): TeardownRecord {
  const union = (a: string[] | undefined, b: string[] | undefined) => [
    ...new Set([...(a ?? []), ...(b ?? [])]),
  ];
  const merged: TeardownRecord = { ...result };
  for (const type of RESOURCE_TYPES) {
    for (const key of [type.record.removed, type.record.kept])
      if (key && (result[key] || previous?.[key])) merged[key] = union(previous?.[key], result[key]);
    // what is still pending is this pass's view
    const pending = type.record.pending;
    if (pending && (result[type.record.removed] || previous?.[type.record.removed]))
      merged[pending] = result[pending] ?? previous?.[pending] ?? [];
  }
  const ours = previous !== null && (previous.atMs ?? 0) >= sinceMs;
  merged.failed = result.failed || (ours && Boolean(previous.failed));
  merged.passes = (previous?.passes ?? 1) + (previous ? 1 : 0);
  return merged;
}

/** One execution's failure (runs/<id>/failure.json holds the latest execution's, the earlier ones under it). */
interface FailureRecord {
  runId: string;
  executionName?: string;
  status: string;
  error: string | null;
  cause: string | null;
  /** when this execution's first failed pass ran (the run's end for its `runs` row) */
  failedAtMs?: number;
  /** this pass's time */
  atMs: number;
  /** the failures of the run's earlier executions (a resumed run's first), oldest first */
  earlierExecutions?: Omit<FailureRecord, 'earlierExecutions'>[];
}

/**
 * Records this execution's failure: its first failed pass gives the error (the Catch's, before the abort rule's
 * pass of the same execution); a record of an earlier execution (written before this one resumed the run) is kept
 * under `earlierExecutions`, never taken for this one's. `first`: no pass of this execution recorded it before.
 */
async function recordFailure(
  input: TeardownInput,
  runId: string,
  run: RunContext | null,
  deps: TeardownDeps,
): Promise<{ record: FailureRecord; first: boolean }> {
  const stored = (await readOptional(deps.store, failureKey(runId))) as FailureRecord | null;
  const same = stored !== null && stored.atMs >= executionStartMs(run) ? stored : null;
  const earlier = stored
    ? same
      ? (stored.earlierExecutions ?? [])
      : [...(stored.earlierExecutions ?? []), withoutEarlier(stored)]
    : [];
  const now = deps.clock.nowMs();
  const executionName = same?.executionName ?? input.executionName ?? run?.resume?.executionName;
  const record: FailureRecord = {
    runId,
    ...(executionName ? { executionName } : {}),
    status: input.status ?? 'FAILED',
    error: same ? same.error : (input.error?.Error ?? null),
    cause: same ? same.cause : (input.error?.Cause ?? null),
    failedAtMs: same ? (same.failedAtMs ?? same.atMs) : now,
    atMs: now,
    ...(earlier.length ? { earlierExecutions: earlier } : {}),
  };
  await deps.store.putJson(failureKey(runId), record);
  return { record, first: !same };
}

function withoutEarlier(r: FailureRecord): Omit<FailureRecord, 'earlierExecutions'> {
  const rest = { ...r };
  delete rest.earlierExecutions;
  return rest;
}

/**
 * A failed (or aborted) run's row of table `runs`, with its status (ABORTED, else FAILED: a TIMED_OUT execution
 * is a failed run) and the end of its execution's first failed pass; it replaces a row Report wrote (a teardown
 * that failed after Report fails the run). A run whose Plan never wrote its context has no row: nothing ran.
 * Returns why the row could not be written, or null.
 */
async function failedRunRow(
  run: RunContext,
  failure: FailureRecord,
  store: TeardownDeps['store'],
): Promise<string | null> {
  try {
    await writeRunRow(
      {
        run,
        status: failure.status === 'ABORTED' ? 'ABORTED' : 'FAILED',
        endedAtMs: failure.failedAtMs ?? failure.atMs,
      },
      store,
    );
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The SNS message of a teardown: a failed run's first pass (or a later pass that had to remove something the first
 * left), a teardown that could not remove everything, and the run's end after a target's own teardown failed (what
 * this teardown removed of what it left). It names every kind removed or kept and the teardown's errors.
 */
async function notify(
  o: {
    input: TeardownInput;
    result: TeardownResult;
    errors: string[];
    failure: { record: FailureRecord; first: boolean } | null;
    rowError: string | null;
  },
  deps: TeardownDeps,
): Promise<void> {
  const { result, errors, failure } = o;
  const runId = result.runId;
  const removed = removedSummary(result);
  const targetsFailed = readTargetTeardowns(o.input.targetTeardowns).filter((t) => t.teardownError);
  const worthTelling = failure
    ? failure.first || removed.length > 0
    : errors.length > 0 || targetsFailed.length > 0;
  if (!deps.notifier || !worthTelling) return;
  const f = failure?.record;
  const status = f?.status ?? 'SUCCEEDED';
  const lines = [
    f
      ? `Run ${runId} ended ${status}: ${f.error ?? ''} ${f.cause ?? ''}`.trimEnd()
      : `Run ${runId} ended ${status}.`,
    ...(f?.executionName && f.earlierExecutions?.length
      ? [`(execution ${f.executionName}; an earlier execution of the run failed: ${earlierLine(f)})`]
      : []),
    ...targetsFailed.map(
      (t) =>
        `The teardown of target ${t.target} had failed (${failureReason(t.teardownError)}): this teardown ` +
        `removed what was left of the run.`,
    ),
    `Teardown ${removed.length ? removed.join(', ') : 'removed nothing'}.`,
    ...keptSummary(result),
    ...(errors.length
      ? [`Teardown errors (it is retried; what is left is named here):`, ...errors.map((e) => `- ${e}`)]
      : []),
    ...(o.rowError ? [`The run's row of table runs was not written: ${o.rowError}`] : []),
  ];
  const subject =
    `fleetbench run ${runId}: ${status}` +
    (errors.length ? ', teardown incomplete' : targetsFailed.length ? ', a target teardown failed' : '');
  await deps.notifier.publish(subject.slice(0, 99), lines.join('\n'));
}

function earlierLine(f: FailureRecord): string {
  const e = f.earlierExecutions![f.earlierExecutions!.length - 1]!;
  return `${e.executionName ?? 'its first'}, ${e.status}: ${e.error ?? ''}`.trimEnd();
}

/** "terminated 2 loaders (i-…)", "deleted 1 Keyspaces keyspace (fb_…)", ... for each type removed. */
function removedSummary(r: TeardownResult): string[] {
  return RESOURCE_TYPES.flatMap((type) => {
    const list = r[type.record.removed];
    return list?.length ? [`${type.verb} ${counted(type, list.length)} (${list.join(', ')})`] : [];
  });
}

function keptSummary(r: TeardownResult): string[] {
  const kept = RESOURCE_TYPES.flatMap((type) => (type.record.kept ? (r[type.record.kept] ?? []) : []));
  return kept.length ? [`Kept (not this run's, or given as existingTable): ${kept.join(', ')}.`] : [];
}

export type JanitorResult = Partial<Record<JanitorListField, string[]>> & {
  /** The second pass (./late-arrivals.ts): runs torn down again, and what each still owned. */
  lateArrivals?: LateArrivalsResult['tornDownAgain'];
  terminated: string[];
  deletedTables: string[];
};

/**
 * Removes every resource of any run whose expires-at tag has passed (whatever the run's state), type by type
 * (lib/core/resources); then, with a store, tears down again every run that still owns resources 15 minutes after
 * its teardown (./late-arrivals.ts).
 */
export async function janitor(
  deps: Omit<LateArrivalDeps, 'store'> & Partial<Pick<Ports, 'store'>>,
): Promise<JanitorResult> {
  const nowS = deps.clock.nowMs() / 1000;
  const expired = (tags: Record<string, string>): boolean => {
    const v = Number(tags[TAG_EXPIRES_AT]);
    return Number.isFinite(v) && v > 0 && v < nowS;
  };
  const errors: string[] = [];
  const result: JanitorResult = { terminated: [], deletedTables: [] };
  for (const type of RESOURCE_TYPES) {
    if (!type.available(deps)) continue;
    for (const field of type.swept) result[field] = [];
    try {
      const sweep = await type.sweepExpired(deps, expired);
      for (const field of type.swept) result[field] = sweep.removed[field] ?? [];
      errors.push(...(sweep.errors ?? []));
    } catch (err) {
      errors.push(`${type.activity}: ${(err as Error).message}`);
    }
  }
  // The ports as given, not spread (the Lambda's ports build lazily: a spread would build every one of them),
  // without the notifier: the janitor has no topic, and its second pass records what it removed (teardown.json)
  const quiet = new Proxy(deps, {
    get: (target, key) => (key === 'notifier' ? undefined : Reflect.get(target, key, target)),
  }) as LateArrivalDeps;
  const late = deps.store ? await lateArrivals(quiet, teardown) : undefined;
  errors.push(...(late?.errors ?? []));
  if (errors.length) throw new Error(`janitor incomplete: ${errors.join('; ')}`);
  return { ...(late ? { lateArrivals: late.tornDownAgain } : {}), ...result };
}
