/**
 * Lost loaders replaced before a cell's retry: a loader of the run that is gone (terminated, stopped) or no longer
 * answers Run Command (offline in SSM) is terminated when it is the run's (its run tag) and a new one launched by
 * ProvisionFleet's own path (launch template, subnets, the run's tags), as long as the budget and the plan's count of
 * replacements (the history budget's) allow; otherwise the run stops. Each
 * replacement is recorded at `runs/<id>/events/loader-replacement-<ms>.json` with its worst-case cost; the report
 * lists them.
 */
import {
  StepFailedError,
  type Clock,
  type CommandRunner,
  type FleetAdmin,
  type ObjectStore,
} from '../common/ports';
import type { PlanIndex } from '../plan';
import { LOADER_REPLACEMENT_LIMITS } from '../plan/history';
import { ec2HourlyPrice } from '../cost/book';
import { ownedInstanceIds } from './ownership';
import { expectedLoaders, provisionFleet } from './provision';
import { TAG_LOADER_GROUP, loaderGroupOf } from './run-context';
import { readSpec, runKey, type RunContext } from './context';
import { runPriceBook } from './prices';

export interface LoaderReplacement {
  atMs: number;
  /** the run's loaders offline in SSM (no longer answering Run Command): terminated now */
  lost: string[];
  /** loaders of the run that were gone (terminated or stopped by someone else) */
  missing: number;
  /** loaders launched in their place */
  launched: number;
  /** the replacements' cost beyond the plan's loaders at worst: their boot wait, at the loader's hourly price */
  worstCaseUsd: number;
}

/** The run's events (a directory on both stores); replacements are `loader-replacement-<ms>.json` in it. */
export const runEventsKey = (runId: string): string => runKey(runId, 'events');
export const replacementEventKey = (runId: string, atMs: number): string =>
  runKey(runId, 'events', `loader-replacement-${atMs}.json`);

/** Replaces the run's lost loaders (none lost: null). Refused, with the run's budget named, when it would exceed it. */
export async function replaceLostLoaders(
  run: RunContext,
  plan: PlanIndex,
  deps: {
    store: ObjectStore;
    fleet: FleetAdmin;
    commands: CommandRunner;
    clock: Clock;
    /** what earlier replacements of the run cost at worst */
    spentUsd: number;
    /** replacements the plan still allows (the history budget's) */
    left: number;
    /** the failed cell's target: in a parallel run only its own loader group is looked at and replaced */
    target?: string;
  },
): Promise<LoaderReplacement | null> {
  const group = deps.target === undefined ? null : loaderGroupOf(run, deps.target);
  // another group's loaders are not this cell's: one still booting (another cell's replacement) is not lost
  const instances = (await deps.fleet.list({ runId: run.runId })).filter(
    (i) => !group || i.tags[TAG_LOADER_GROUP] === group.id,
  );
  const live = instances.filter((i) => i.state === 'pending' || i.state === 'running');
  const running = live.filter((i) => i.state === 'running').map((i) => i.id);
  const online = running.length ? await deps.commands.online(running) : [];
  const offline = running.filter((id) => !online.includes(id));
  // a parallel run: the cell's group, or the groups of targets still under way (a finished target's is terminated)
  const expected = group
    ? { loaders: group.loaders, doneGroups: otherGroups(run, group.id) }
    : await expectedLoaders(run, deps.store);
  const missing = Math.max(0, expected.loaders - live.length);
  if (!offline.length && !missing) return null;
  const lost = offline;
  const count = offline.length + missing;
  const what = [...lost, ...(missing ? [`${missing} gone`] : [])].join(', ');
  if (deps.left <= 0) {
    throw new StepFailedError(
      'CellFailed',
      `${count} loader(s) lost (${what}) and the run's loader replacements are spent: the run stops`,
    );
  }
  const worstCaseUsd = await replacementUsd(run, count, deps.store);
  const spec = await readSpec(deps.store, run.runId);
  const cap = spec.budget?.maxUsd;
  const planned = plan.estimate.totalUsd + (plan.onCellFailure?.worstCase.extraUsd ?? 0);
  if (cap !== undefined && planned + deps.spentUsd + worstCaseUsd > cap) {
    throw new StepFailedError(
      'CellFailed',
      `${count} loader(s) lost (${what}); replacing them (up to $${worstCaseUsd.toFixed(2)}) ` +
        `would take the run over budget.maxUsd ($${cap}): the run stops`,
    );
  }
  // only the run's own instances are terminated (the ownership rule of every delete)
  const owned = ownedInstanceIds(
    run.runId,
    instances.filter((i) => offline.includes(i.id)),
  );
  if (owned.length) await deps.fleet.terminate(owned);
  const launched = await provisionFleet(run, { fleet: deps.fleet }, expected.doneGroups);
  const replacement: LoaderReplacement = {
    atMs: deps.clock.nowMs(),
    lost,
    missing,
    launched: launched.launched,
    worstCaseUsd,
  };
  await deps.store.putJson(replacementEventKey(run.runId, replacement.atMs), replacement);
  return replacement;
}

/** The loader groups of a parallel run other than `id` (a replacement for `id`'s cell launches none of theirs). */
function otherGroups(run: RunContext, id: string): string[] {
  return (run.targets ?? []).filter((t) => t.loaders !== undefined && t.id !== id).map((t) => t.id);
}

/** Loader-hours a replacement adds at worst (its boot, until the wait's deadline) × the loader's price. */
async function replacementUsd(run: RunContext, count: number, store: ObjectStore): Promise<number> {
  const book = await runPriceBook(store, run.runId);
  const hours = LOADER_REPLACEMENT_LIMITS.timeoutSeconds / 3600;
  try {
    return ec2HourlyPrice(book, run.instanceType)
      .mul(count * hours)
      .toNumber();
  } catch {
    return 0; // an unpriced loader type: the plan already said the budget cannot be checked
  }
}
