/**
 * ProvisionTarget and ProvisionFleet (run in parallel), and WaitReady.
 * Both provisioning steps are idempotent: a retry after a partial success finishes the job instead
 * of failing on what the first attempt created.
 */
import {
  LOADER_ROLE,
  StepFailedError,
  type Clock,
  type CommandRunner,
  type FleetAdmin,
  type ObjectStore,
} from '../common/ports';
import { readOptional, targetTeardownKey } from './keys';
import { checkRun, readSpec, runTags, type RunContext } from './context';
import { TAG_LOADER_GROUP, loaderGroupOf, spanAt } from './run-context';
import { kindOf } from '../targets/registry';
import type { ProvisionContext, Provisioned, ReadyCheck, StepContext } from '../targets/kind';
import { runReadyLimits } from '../plan/history';

export interface ProvisionTargetResult {
  created: string[];
  existing: string[];
  /** Database nodes (scylla-ec2, cassandra-ec2) launched by this call (ids); a retry launches only the missing ones. */
  nodes?: string[];
  /** DAX clusters created (or found again, on a retry) for dynamodb targets with dax. */
  dax?: string[];
  /** cassandra-ec2 login secrets (names) created, or found again tagged with the run on a retry. */
  secrets?: string[];
}

/**
 * Each target's resources, as its kind provisions them (lib/core/targets/<kind>/kind.ts), side by side: a node
 * cluster's seed wait (≤ SEED_RUNNING_POLLS × SEED_POLL_MS) overlaps the others' work, so a run with several
 * clusters needs one seed wait of the Lambda's 2 minutes, not one per cluster. Every target is tried even when
 * another fails; the failures are raised together, each naming its target (the retry or teardown finds what was
 * made by its tags).
 */
export async function provisionTarget(
  runIn: unknown,
  deps: ProvisionContext['ports'] & Pick<ProvisionContext, 'sleep'>,
  target?: unknown,
): Promise<ProvisionTargetResult> {
  const run = checkRun(runIn);
  const spec = scopedSpec(await readSpec(deps.store, run.runId), run, target);
  // not `{ sleep, ...ports } = deps`: a rest copy would build every adapter the Lambdas' ports hold
  const ctx: ProvisionContext = {
    run,
    spec,
    ports: deps,
    targetTags: runTags(run, 'target', spec.tags),
    sleep: deps.sleep,
  };
  const results = await Promise.allSettled(spec.targets.map((t) => kindOf(t).provision?.(t, ctx) ?? {}));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failures.length === 1) throw failures[0];
  if (failures.length)
    throw new StepFailedError('ProvisionTarget', failures.map((e) => e.message).join('; '));
  const made = results.map((r) => (r as PromiseFulfilledResult<Provisioned>).value);
  const all = (key: keyof Provisioned) => made.flatMap((m) => m[key] ?? []);
  const [nodes, dax, secrets] = [all('nodes'), all('dax'), all('secrets').sort()];
  return {
    created: all('created'),
    existing: all('existing'),
    ...(nodes.length ? { nodes } : {}),
    ...(dax.length ? { dax } : {}),
    ...(secrets.length ? { secrets } : {}),
  };
}

/**
 * The spec with only the target the state machine is at (`target`: its index in the run's `targets`, per-target
 * lifecycles); without an index, every target (a context of an older run).
 */
export function scopedSpec<S extends { targets: { id: string }[] }>(
  spec: S,
  run: RunContext,
  target: unknown,
): S {
  if (target === undefined || target === null) return spec;
  const span = spanAt(run, target);
  return { ...spec, targets: spec.targets.filter((t) => t.id === span.id) };
}

export interface ProvisionFleetResult {
  launched: number;
  instances: number;
}

/**
 * The run's loaders: one fleet of `run.loaders` shared by the targets in turn (sequential), or each target's group
 * (parallel: its span's `loaders`, each instance tagged with the target as its group). Idempotent: only what is
 * missing (of each group) is launched, so it also replaces lost loaders (./loader-replacement.ts); a group whose
 * target is done (`except`: torn down with its loaders) is not launched again.
 */
export async function provisionFleet(
  runIn: unknown,
  deps: { fleet: FleetAdmin },
  except: readonly string[] = [],
): Promise<ProvisionFleetResult> {
  const run = checkRun(runIn);
  const have = (await deps.fleet.list({ runId: run.runId })).filter(
    (i) => i.state === 'pending' || i.state === 'running',
  );
  const groups = (run.targets ?? []).filter((t) => t.loaders !== undefined && !except.includes(t.id));
  const wanted: { group: string | null; count: number }[] = groups.length
    ? groups.map((g) => ({
        group: g.id,
        count: g.loaders! - have.filter((i) => i.tags[TAG_LOADER_GROUP] === g.id).length,
      }))
    : [{ group: null, count: run.loaders - have.length }];
  let launched = 0;
  for (const w of wanted.filter((x) => x.count > 0)) {
    const ids = await deps.fleet.launch({
      runId: run.runId,
      count: w.count,
      instanceType: run.instanceType,
      tags: runTags(run, LOADER_ROLE, w.group === null ? {} : { [TAG_LOADER_GROUP]: w.group }),
    });
    launched += ids.length;
  }
  return { launched, instances: have.length + launched };
}

export interface ReadyState {
  ready: boolean;
  /** Set on the first check; the step fails once it has passed. */
  deadlineMs: number;
  waitSeconds: number;
  tablesActive: number;
  loadersOnline: number;
  /** Database nodes that answered on their client port (all node clusters of the run). */
  nodesAnswering?: number;
}

/**
 * Loader instance ids of the run in a stable order (loader index = position): all of them, or those of one target's
 * group (a parallel run's: `group` is the target's id).
 */
export async function loaderIds(fleet: FleetAdmin, runId: string, group?: string): Promise<string[]> {
  return (await fleet.list({ runId }))
    .filter((i) => i.state === 'pending' || i.state === 'running')
    .filter((i) => group === undefined || i.tags[TAG_LOADER_GROUP] === group)
    .map((i) => i.id)
    .sort();
}

/** The loaders a step of a target uses: its group's (parallel) or the run's (sequential), and how many there are to be. */
export async function targetLoaders(
  fleet: FleetAdmin,
  run: RunContext,
  targetId: string | undefined,
): Promise<{ ids: string[]; expected: number }> {
  const group = targetId === undefined ? null : loaderGroupOf(run, targetId);
  return group
    ? { ids: await loaderIds(fleet, run.runId, group.id), expected: group.loaders }
    : { ids: await loaderIds(fleet, run.runId), expected: run.loaders };
}

/**
 * The loaders the run should have now: all of them (sequential), or the groups of the targets not torn down yet
 * (parallel: a target's TeardownTarget terminates its group and records runs/<id>/teardown/<target>.json).
 */
export async function expectedLoaders(
  run: RunContext,
  store: ObjectStore,
): Promise<{ loaders: number; doneGroups: string[] }> {
  const groups = (run.targets ?? []).filter((t) => t.loaders !== undefined);
  if (!groups.length) return { loaders: run.loaders, doneGroups: [] };
  // a record of an earlier execution of the run (before `fleetbench resume`) does not count
  const since = run.resume?.atMs ?? 0;
  const done = await Promise.all(
    groups.map(async (g) => {
      const rec = (await readOptional(store, targetTeardownKey(run.runId, g.id))) as { atMs?: number } | null;
      return rec !== null && (rec.atMs ?? 0) >= since;
    }),
  );
  return {
    loaders: groups.reduce((n, g, i) => n + (done[i] ? 0 : g.loaders!), 0),
    doneGroups: groups.filter((_, i) => done[i]).map((g) => g.id),
  };
}

/**
 * WaitReady: every target (or the one at `target`, per-target lifecycles) ready as its kind says (lib/core/targets/<kind>/kind.ts: tables ACTIVE, DAX available,
 * nodes answering), every loader online in SSM; then what each kind does once the whole run is ready (a node
 * cluster's schema). The deadline is the longest any target needs; the step fails once it has passed.
 */
export async function waitReady(
  input: { run: unknown; ready?: Partial<ReadyState> | null; target?: unknown },
  deps: StepContext['ports'] & { fleet: FleetAdmin; commands: CommandRunner; clock: Clock },
): Promise<ReadyState> {
  const run = checkRun(input.run);
  const spec = scopedSpec(await readSpec(deps.store, run.runId), run, input.target);
  const now = deps.clock.nowMs();
  const { timeoutSeconds, pollSeconds } = runReadyLimits(spec);
  const deadlineMs = input.ready?.deadlineMs ?? now + timeoutSeconds * 1000;
  const ctx: StepContext = { run, spec, step: 'WaitReady', ports: deps };
  const checks: ReadyCheck[] = [];
  for (const t of spec.targets) {
    const check = await kindOf(t).notReady?.(t, ctx);
    if (check) checks.push(check);
  }
  // the target's own loader group in a parallel run (one target at a time here), else the run's loaders
  const only = spec.targets.length === 1 ? spec.targets[0]!.id : undefined;
  const { ids, expected } = await targetLoaders(deps.fleet, run, only);
  const online = ids.length ? await deps.commands.online(ids) : [];
  const offline = ids.filter((id) => !online.includes(id));
  const problems = [
    ...checks.flatMap((c) => c.problems),
    ...(ids.length < expected ? [`${ids.length} of ${expected} loaders exist`] : []),
    ...(offline.length ? [`loaders not online in SSM: ${offline.join(', ')}`] : []),
  ];
  const ready = problems.length === 0;
  if (ready) for (const c of checks) await c.whenAllReady?.();
  if (!ready && now >= deadlineMs)
    throw new StepFailedError('WaitReady', `not ready after ${timeoutSeconds} s: ${problems.join('; ')}`);
  const count = (key: 'tablesActive' | 'nodesAnswering') =>
    checks.reduce((n, c) => n + (c.counts?.[key] ?? 0), 0);
  // nodes answering: counted for runs with database nodes (the targets whose check counts them)
  const withNodes = checks.some((c) => c.counts?.nodesAnswering !== undefined);
  return {
    ready,
    deadlineMs,
    waitSeconds: pollSeconds,
    tablesActive: count('tablesActive'),
    loadersOnline: online.length,
    ...(withNodes ? { nodesAnswering: count('nodesAnswering') } : {}),
  };
}
