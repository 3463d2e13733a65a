/**
 * CellFailed: a cell's step failed (ConfigureCell, StartCell, CheckCell or AggregateCell: a JVM killed, a loader
 * lost, a command undeliverable, a deadline passed). Under the plan's policy (lib/core/plan/cell-failure.ts):
 * - `stop`: the run ends (torn down) with the cell's error;
 * - `retry-then-continue`: the cell runs once more with fresh YCSB processes, lost loaders replaced first by the
 *   same launch path and tags (ProvisionFleet's); failing again (or with no retry left in the history budget) it is
 *   recorded incomplete with its reason (result.json, the `cells` row, the report and notification) and the run goes
 *   on to the next cell, unless that makes MAX_CONSECUTIVE_FAILED_CELLS in a row: then the run ends.
 * Every attempt's failure is kept at `runs/<id>/cells/<cell>/failures/attempt-<n>.json`.
 */
import { InputError } from '../common/errors';
import {
  StepFailedError,
  type Clock,
  type CommandRunner,
  type FleetAdmin,
  type ObjectStore,
} from '../common/ports';
import { tableDef } from '../results/schema';
import { cellMetaOf, tableObjectKey, toJsonLines, unmeasuredCellRow } from '../results/rows';
import type { CellSummary, PlanIndex } from '../plan';
import type { CellFailurePlan } from '../plan/cell-failure';
import { LOADER_REPLACEMENT_LIMITS } from '../plan/history';
import {
  cellFailureKey,
  cellKey,
  checkRun,
  readOptional,
  readPlan,
  runKey,
  type PhaseJob,
  type RunContext,
} from './context';
import { failureExcerpt } from '../common/excerpt';
import { replaceLostLoaders, type LoaderReplacement } from './loader-replacement';
import { closeSearchAfter, type CellResult } from './aggregate';
import { readProbeDecision } from './probe';
import { targetLoaders } from './provision';
import { executionOf, loaderGroupOf } from './run-context';

export interface CellFailedInput {
  run: unknown;
  /** the state machine's cursor: which cell, which attempt failed */
  cursor: { index: number; attempt?: number };
  /** the caught error ($.cellError: Error and Cause) */
  error?: { Error?: string; Cause?: string } | null;
  /** the last phase job ($.job), so a command still running for this cell is cancelled */
  job?: Partial<PhaseJob> | null;
}

export interface CellFailedResult {
  action: 'retry' | 'skip' | 'stop';
  index: number;
  /** the attempt the cell runs next (retry), or the one that failed */
  attempt: number;
  cellId: string;
  reason: string;
  /**
   * stop: the cause the run fails with (the failed step's own, or why the study stops); the error is the step's
   * (CellFailureIsFatal fails the target's iteration with both; the targets' Map's catch puts them in $.error)
   */
  cause: string;
  /** retry: until when the replacement loaders are waited on, and how long to wait before the first look */
  loaders: {
    deadlineMs: number;
    waitSeconds: number;
    replacement: LoaderReplacement | null;
    /** a parallel run: the cell's loader group, the only one replaced and waited for */
    group?: string;
  };
}

/** What this execution of the run has spent on retries so far (the records under retriesKey). */
interface RetryLedger {
  replacements: number;
  replacementUsd: number;
}

/**
 * One retry granted, to a cell's attempt: the replacement's worst-case cost when loaders were replaced with it (null
 * until then, or when none were).
 */
interface RetryRecord {
  cellId: string;
  attempt: number;
  replacementUsd: number | null;
}

/**
 * The retries of one execution of a run (`runs/<id>/retries/<execution>/`: a resuming execution has a history, and a
 * budget, of its own), one slot per retry the plan allows (`slot-<k>.json`, k < the policy's retries), each claimed
 * by a create-only write: when the CellFailed steps of a parallel run's targets race for the last retry, one gets it
 * (a counter read and written by each could lose one; records of their own could both be written).
 */
const retriesKey = (run: RunContext) => runKey(run.runId, 'retries', executionOf(run));
const retrySlotKey = (run: RunContext, k: number) => `${retriesKey(run)}/slot-${k}.json`;

/**
 * The slot of this cell's next attempt: the one it holds already (a Lambda retry of this step), else the first free
 * slot it wins; null when every slot is taken. `held`: the slots as last read (read again only after a lost race).
 */
async function claimRetry(
  store: ObjectStore,
  run: RunContext,
  claim: { cellId: string; attempt: number; slots: number },
  first: readonly HeldRetry[],
): Promise<string | null> {
  let held = first;
  for (;;) {
    const own = held.find((r) => r.record.cellId === claim.cellId && r.record.attempt === claim.attempt);
    if (own) return own.key;
    if (held.length >= claim.slots) return null;
    const taken = new Set(held.map((r) => r.key));
    const k = [...Array(claim.slots).keys()].find((i) => !taken.has(retrySlotKey(run, i)))!;
    const record: RetryRecord = { cellId: claim.cellId, attempt: claim.attempt, replacementUsd: null };
    if (await store.createJson(retrySlotKey(run, k), record)) return retrySlotKey(run, k);
    // another cell's step won slot k between the read and the write: look again
    held = await readRetries(store, run);
  }
}

type HeldRetry = { key: string; record: RetryRecord };

async function readRetries(store: ObjectStore, run: RunContext): Promise<HeldRetry[]> {
  const keys = await store.list(`${retriesKey(run)}/`);
  return Promise.all(keys.map(async (key) => ({ key, record: (await store.getJson(key)) as RetryRecord })));
}

/** The plan's policy; a plan written before the policy existed stops, as those runs did. */
function policyOf(plan: PlanIndex): CellFailurePlan {
  return (
    plan.onCellFailure ?? {
      policy: 'stop',
      attempts: 1,
      retries: 0,
      replacements: 0,
      stopAfterConsecutiveFailures: 1,
      worstCase: { extraUsd: 0, extraHours: 0 },
    }
  );
}

/** The error of the failed step as one line (the Cause of a Lambda error is its JSON: its message is kept). */
export function failureReason(error: CellFailedInput['error']): string {
  const name = error?.Error ?? 'Error';
  let cause = error?.Cause ?? '';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') cause = parsed.errorMessage;
  } catch {
    /* a plain message */
  }
  return failureExcerpt(`${name}: ${cause}`.trim(), 500);
}

export async function cellFailed(
  input: CellFailedInput,
  deps: { store: ObjectStore; commands: CommandRunner; fleet: FleetAdmin; clock: Clock },
): Promise<CellFailedResult> {
  const run = checkRun(input.run);
  const index = input.cursor?.index;
  const attempt = input.cursor?.attempt ?? 0;
  const plan = await readPlan(deps.store, run.runId);
  const cell = typeof index === 'number' ? plan.cells[index] : undefined;
  if (!cell) throw new InputError([{ path: 'cursor.index', message: `no cell ${String(index)}` }]);
  const now = deps.clock.nowMs();
  const reason = failureReason(input.error);
  // a command still running for this cell (a check that failed, not the command) must not run beside the retry
  const job = input.job;
  if (job?.phase === 'run' && job.index === index && job.commandIds?.length)
    await deps.commands.cancel(job.commandIds).catch(() => undefined);
  await deps.store.putJson(cellFailureKey(run.runId, cell.id, attempt), {
    cellId: cell.id,
    attempt,
    atMs: now,
    error: input.error ?? null,
    reason,
  });
  const policy = policyOf(plan);
  const base = { index: cell.index, cellId: cell.id, reason, cause: input.error?.Cause ?? reason };
  const noLoaders = { deadlineMs: now, waitSeconds: 0, replacement: null };
  if (policy.policy === 'stop') return { ...base, action: 'stop', attempt, loaders: noLoaders };
  const held = await readRetries(deps.store, run);
  const ledger = ledgerOf(held);
  const claim = { cellId: cell.id, attempt: attempt + 1, slots: policy.retries };
  const slot = attempt + 1 < policy.attempts ? await claimRetry(deps.store, run, claim, held) : null;
  if (slot !== null) {
    const replacement = await replaceLostLoaders(run, plan, {
      store: deps.store,
      fleet: deps.fleet,
      commands: deps.commands,
      clock: deps.clock,
      spentUsd: ledger.replacementUsd,
      left: policy.replacements - ledger.replacements,
      target: cell.target,
    });
    await deps.store.putJson(slot, {
      cellId: cell.id,
      attempt: attempt + 1,
      replacementUsd: replacement?.worstCaseUsd ?? null,
    } satisfies RetryRecord);
    return {
      ...base,
      action: 'retry',
      attempt: attempt + 1,
      loaders: {
        deadlineMs: now + LOADER_REPLACEMENT_LIMITS.timeoutSeconds * 1000,
        waitSeconds: replacement ? LOADER_REPLACEMENT_LIMITS.firstWaitSeconds : 0,
        replacement,
        ...(loaderGroupOf(run, cell.target) ? { group: cell.target } : {}),
      },
    };
  }
  const why =
    attempt + 1 < policy.attempts
      ? `${reason} (not retried: the run's ${policy.retries} retries are spent)`
      : `${reason} (failed ${attempt + 1} times)`;
  await recordIncomplete(run, cell, { atMs: now, reason: why }, deps.store);
  // a probe that failed counts as failing its search, which may have ended on it: the search's frontier row
  await closeSearchAfter(deps.store, { run, plan, cell });
  const inARow = await failedInARow(run, plan, cell.index, deps.store);
  if (inARow >= policy.stopAfterConsecutiveFailures) {
    const stopped = `${inARow} cells in a row failed, the last: ${why}`;
    return {
      ...base,
      reason: stopped,
      cause: stopped,
      action: 'stop',
      attempt,
      loaders: noLoaders,
    };
  }
  return { ...base, reason: why, action: 'skip', attempt, loaders: noLoaders };
}

function ledgerOf(held: readonly HeldRetry[]): RetryLedger {
  const records = held.map((r) => r.record);
  const replaced = records.filter((r) => r.replacementUsd !== null);
  return {
    replacements: replaced.length,
    replacementUsd: replaced.reduce((s, r) => s + r.replacementUsd!, 0),
  };
}

/** The cell's result: an unmeasured, incomplete row with the reason (result.json and the `cells` table). */
async function recordIncomplete(
  run: RunContext,
  cell: CellSummary,
  failure: { atMs: number; reason: string },
  store: ObjectStore,
): Promise<void> {
  const meta = cellMetaOf(run, cell);
  // a probe ran at the rate its search decided (StartCell's probe.json), not at the plan's placeholder
  const decided = cell.probe ? await readProbeDecision(store, run.runId, cell.id) : null;
  const targetOpsPerSec = decided?.rateOpsPerSec ?? cell.targetOpsPerSec;
  const row = unmeasuredCellRow(meta, { targetOpsPerSec, ...failure });
  const cells = tableDef('cells');
  await store.put(tableObjectKey(cells, meta, `${run.runId}.${cell.id}`), toJsonLines(cells, [row]));
  const result: CellResult = { cellId: cell.id, row, failed: { reason: failure.reason, atMs: failure.atMs } };
  await store.putJson(cellKey(run.runId, cell.id, 'result.json'), result);
}

/**
 * How many of the target's cells up to this one failed one after another (each recorded as failed by this step).
 * Another target's cells are another streak (in parallel they run beside this one, in sequence before it); an SLO
 * search's probes neither count nor break one: a search fails probes above the target's limit by design, and its
 * probes are bounded by its worst case.
 */
async function failedInARow(
  run: RunContext,
  plan: PlanIndex,
  index: number,
  store: ObjectStore,
): Promise<number> {
  let n = 0;
  const target = plan.cells[index]!.target;
  for (let i = index; i >= 0; i--) {
    const c = plan.cells[i]!;
    if (c.target !== target) break;
    if (c.probe) continue;
    const r = (await readOptional(store, cellKey(run.runId, c.id, 'result.json'))) as CellResult | null;
    if (!r?.failed) break;
    n++;
  }
  return n;
}

/**
 * WaitLoaders: after a replacement, every loader of the run exists and is online in SSM; fails once the deadline
 * CellFailed set has passed.
 */
export async function waitLoaders(
  input: { run: unknown; loaders: Pick<CellFailedResult['loaders'], 'deadlineMs' | 'group'> },
  deps: { fleet: FleetAdmin; commands: CommandRunner; clock: Clock },
): Promise<{ ready: boolean; waitSeconds: number; online: number }> {
  const run = checkRun(input.run);
  // a parallel run: the failed cell's own group (CellFailed names it), else every loader of the run
  const { ids, expected: loaders } = await targetLoaders(deps.fleet, run, input.loaders.group);
  const online = ids.length ? await deps.commands.online(ids) : [];
  const ready = ids.length >= loaders && online.length >= loaders;
  if (!ready && deps.clock.nowMs() >= input.loaders.deadlineMs) {
    throw new StepFailedError(
      'WaitLoaders',
      `replacement loaders not online after ${LOADER_REPLACEMENT_LIMITS.timeoutSeconds} s: ` +
        `${online.length} of ${loaders} online`,
    );
  }
  return { ready, waitSeconds: LOADER_REPLACEMENT_LIMITS.pollSeconds, online: online.length };
}
