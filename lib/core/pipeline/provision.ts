/**
 * ProvisionTarget and ProvisionFleet (run in parallel), and WaitReady.
 * Both provisioning steps are idempotent: a retry after a partial success finishes the job instead
 * of failing on what the first attempt created.
 */
import type { DynamoDbTarget } from '../spec';
import {
  ConflictError,
  StepFailedError,
  TAG_EXPIRES_AT,
  TAG_ROLE,
  TAG_RUN_ID,
  TAG_SPEC,
  type Clock,
  type CommandRunner,
  type FleetAdmin,
  type ObjectStore,
  type TableAdmin,
  type TableDefinition,
  type Tags,
} from '../ports';
import { checkRun, readSpec, type RunContext } from './context';
import { READY_POLL_SECONDS, READY_TIMEOUT_SECONDS } from './timing';

export function runTags(run: RunContext, role: string, extra: Tags = {}): Tags {
  return {
    ...extra,
    [TAG_RUN_ID]: run.runId,
    [TAG_SPEC]: run.specName,
    [TAG_EXPIRES_AT]: String(run.expiresAt),
    [TAG_ROLE]: role,
  };
}

export function tableDefinition(
  run: RunContext,
  target: DynamoDbTarget,
  name: string,
  userTags: Tags,
): TableDefinition {
  return {
    name,
    keyAttribute: target.keyAttribute,
    billing:
      target.billing.mode === 'provisioned'
        ? { mode: 'provisioned', rcu: target.billing.rcu, wcu: target.billing.wcu }
        : {
            mode: 'on-demand',
            ...(target.billing.maxReadRequestUnits
              ? { maxReadRequestUnits: target.billing.maxReadRequestUnits }
              : {}),
            ...(target.billing.maxWriteRequestUnits
              ? { maxWriteRequestUnits: target.billing.maxWriteRequestUnits }
              : {}),
          },
    tableClass: target.tableClass,
    ...(target.warmThroughput ? { warmThroughput: target.warmThroughput } : {}),
    tags: runTags(run, 'target', userTags),
  };
}

export interface ProvisionTargetResult {
  created: string[];
  existing: string[];
}

export async function provisionTarget(
  runIn: unknown,
  deps: { store: ObjectStore; tables: TableAdmin },
): Promise<ProvisionTargetResult> {
  const run = checkRun(runIn);
  const spec = await readSpec(deps.store, run.runId);
  const created: string[] = [];
  const existing: string[] = [];
  for (const t of run.tables) {
    const target = spec.targets.find((x) => x.id === t.target);
    if (!target || target.kind !== 'dynamodb') continue;
    if (!t.owned) {
      const state = await deps.tables.describeTable(t.name);
      if (state.status === 'MISSING') {
        throw new StepFailedError(
          'ProvisionTarget',
          `existingTable ${t.name} (target ${t.target}) does not exist`,
        );
      }
      existing.push(t.name);
      continue;
    }
    try {
      await deps.tables.createTable(tableDefinition(run, target, t.name, spec.tags));
      created.push(t.name);
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      // a retry: the table is ours if it carries this run's tag
      const mine = (await deps.tables.listTables(t.name)).find((x) => x.name === t.name);
      if (mine?.tags[TAG_RUN_ID] !== run.runId) {
        throw new StepFailedError('ProvisionTarget', `table ${t.name} already exists and is not this run's`);
      }
      created.push(t.name);
    }
  }
  return { created, existing };
}

export interface ProvisionFleetResult {
  launched: number;
  instances: number;
}

export async function provisionFleet(
  runIn: unknown,
  deps: { fleet: FleetAdmin },
): Promise<ProvisionFleetResult> {
  const run = checkRun(runIn);
  const have = (await deps.fleet.list({ runId: run.runId })).filter(
    (i) => i.state === 'pending' || i.state === 'running',
  );
  const missing = run.loaders - have.length;
  if (missing <= 0) return { launched: 0, instances: have.length };
  const ids = await deps.fleet.launch({
    runId: run.runId,
    count: missing,
    instanceType: run.instanceType,
    tags: runTags(run, 'loader'),
  });
  return { launched: ids.length, instances: have.length + ids.length };
}

export interface ReadyState {
  ready: boolean;
  /** Set on the first check; the step fails once it has passed. */
  deadlineMs: number;
  waitSeconds: number;
  tablesActive: number;
  loadersOnline: number;
}

/** Loader instance ids of the run in a stable order (loader index = position). */
export async function loaderIds(fleet: FleetAdmin, runId: string): Promise<string[]> {
  return (await fleet.list({ runId }))
    .filter((i) => i.state === 'pending' || i.state === 'running')
    .map((i) => i.id)
    .sort();
}

export async function waitReady(
  input: { run: unknown; ready?: Partial<ReadyState> | null },
  deps: { tables: TableAdmin; fleet: FleetAdmin; commands: CommandRunner; clock: Clock },
): Promise<ReadyState> {
  const run = checkRun(input.run);
  const now = deps.clock.nowMs();
  const deadlineMs = input.ready?.deadlineMs ?? now + READY_TIMEOUT_SECONDS * 1000;
  const notActive: string[] = [];
  for (const t of run.tables) {
    const s = await deps.tables.describeTable(t.name);
    if (s.status !== 'ACTIVE') notActive.push(`${t.name} is ${s.status}`);
  }
  const ids = await loaderIds(deps.fleet, run.runId);
  const online = ids.length ? await deps.commands.online(ids) : [];
  const offline = ids.filter((id) => !online.includes(id));
  const ready = notActive.length === 0 && ids.length >= run.loaders && offline.length === 0;
  if (!ready && now >= deadlineMs) {
    const why = [
      ...notActive,
      ...(ids.length < run.loaders ? [`${ids.length} of ${run.loaders} loaders exist`] : []),
      ...(offline.length ? [`loaders not online in SSM: ${offline.join(', ')}`] : []),
    ];
    throw new StepFailedError('WaitReady', `not ready after ${READY_TIMEOUT_SECONDS} s: ${why.join('; ')}`);
  }
  return {
    ready,
    deadlineMs,
    waitSeconds: READY_POLL_SECONDS,
    tablesActive: run.tables.length - notActive.length,
    loadersOnline: online.length,
  };
}
