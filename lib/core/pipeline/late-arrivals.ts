/**
 * The janitor's second pass: late arrivals. The targets run in a Map (side by side with `"execution": "parallel"`);
 * when one iteration fails, or the execution is stopped, a Lambda already running in another (ProvisionTarget: database
 * nodes after the seed wait, a DAX cluster) keeps going and can create resources after TeardownAfterFailure and the
 * abort rule's teardown ran. Those
 * carry the run's tag and an expires-at days away. This pass finds every run that still owns something
 * (by the run tag) although its teardown record (`teardown.json`) or failure record (`failure.json`) is
 * older than LATE_ARRIVAL_AFTER_MS, and runs that run's teardown again. A run without either record is
 * going (or its Plan never wrote anything): left to the first pass's expires-at.
 */
import { TAG_RUN_ID, type ObjectStore } from '../common/ports';
import type { LifecyclePorts } from '../resources/resource-type';
import { RESOURCE_TYPES } from '../targets/registry';
import { failureKey, readOptional, resumeKey, teardownKey } from './context';
import type { TeardownInput } from './teardown-input';

/** How long after a run's teardown (or failure) record a resource of the run counts as a late arrival. */
export const LATE_ARRIVAL_AFTER_MS = 15 * 60 * 1000;

/**
 * The ports the second pass reads and the teardown it runs again uses (secrets are not searched here: they cost
 * cents, not dollars an hour, and the teardown run again deletes the run's logins).
 */
export type LateArrivalDeps = LifecyclePorts;

export interface LateArrivalsResult {
  /** Runs torn down again, with what each still owned (`loader i-…`, `table …`, `node …`, …). */
  tornDownAgain: { runId: string; owned: string[] }[];
  /** Runs that still own resources but whose records are younger than the limit (or absent). */
  leftAlone: string[];
  errors: string[];
}

/** What each run still owns, by its run tag, across every type of resource the pipeline creates (lib/core/resources). */
export async function resourcesByRun(deps: LateArrivalDeps): Promise<Map<string, string[]>> {
  const owned = new Map<string, string[]>();
  for (const type of RESOURCE_TYPES) {
    if (!type.available(deps)) continue;
    for (const { tags, label } of await type.liveByRun(deps)) {
      const runId = tags[TAG_RUN_ID];
      if (runId) owned.set(runId, [...(owned.get(runId) ?? []), label]);
    }
  }
  return owned;
}

/**
 * When the run's teardown or failure record was written last (epoch ms), or undefined without either, or when the
 * run was resumed since (./resume.ts: it runs again until its new teardown record).
 */
export async function endedAtMs(store: ObjectStore, runId: string): Promise<number | undefined> {
  const atOf = async (key: string) =>
    Number(((await readOptional(store, key)) as { atMs?: unknown } | null)?.atMs);
  const times: number[] = [];
  for (const key of [teardownKey(runId), failureKey(runId)]) {
    const at = await atOf(key);
    if (Number.isFinite(at) && at > 0) times.push(at);
  }
  if (!times.length) return undefined;
  const ended = Math.max(...times);
  const resumed = await atOf(resumeKey(runId));
  return Number.isFinite(resumed) && resumed > ended ? undefined : ended;
}

/**
 * Runs teardown again for every run that owns something and ended more than LATE_ARRIVAL_AFTER_MS ago.
 * `teardown` is the pipeline's (passed in: teardown.ts calls this module from its janitor).
 */
export async function lateArrivals(
  deps: LateArrivalDeps,
  teardown: (input: TeardownInput, deps: LateArrivalDeps) => Promise<unknown>,
): Promise<LateArrivalsResult> {
  const result: LateArrivalsResult = { tornDownAgain: [], leftAlone: [], errors: [] };
  let owned: Map<string, string[]>;
  try {
    owned = await resourcesByRun(deps);
  } catch (err) {
    result.errors.push(`listing resources by run: ${(err as Error).message}`);
    return result;
  }
  const now = deps.clock.nowMs();
  for (const [runId, what] of [...owned].sort(([a], [b]) => a.localeCompare(b))) {
    try {
      const ended = await endedAtMs(deps.store, runId);
      if (ended === undefined || now - ended < LATE_ARRIVAL_AFTER_MS) {
        result.leftAlone.push(runId);
        continue;
      }
      result.tornDownAgain.push({ runId, owned: what });
      await teardown({ executionName: runId }, deps);
    } catch (err) {
      result.errors.push(`late arrivals of run ${runId}: ${(err as Error).message}`);
    }
  }
  return result;
}
