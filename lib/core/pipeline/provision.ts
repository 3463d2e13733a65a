/**
 * ProvisionTarget and ProvisionFleet (run in parallel), and WaitReady.
 * Both provisioning steps are idempotent: a retry after a partial success finishes the job instead
 * of failing on what the first attempt created.
 */
import {
  isDbNodeTarget,
  nodeApi,
  nodeEndpoints,
  schemaRequest,
  targetNodes,
  type SchemaRequest,
} from '../cluster';
import {
  LOADER_ROLE,
  StepFailedError,
  type Clock,
  type ClusterAdmin,
  type ClusterProbe,
  type CommandRunner,
  type DaxAdmin,
  type FleetAdmin,
  type KeyspacesAdmin,
  type ObjectStore,
  type SecretAdmin,
  type TableAdmin,
} from '../ports';
import { checkRun, readSpec, runTags, type RunContext } from './context';
import { kindOf } from '../targets/registry';
import type { ProvisionContext, Provisioned } from '../targets/kind';

export { runTags } from './context';
export { tableDefinition } from '../targets/dynamodb/provision';
export {
  SEED_POLL_MS,
  SEED_RUNNING_POLLS,
  nodeLaunchRequest,
  nodeTags,
  provisionCluster,
} from '../targets/nodes/provision';
import { readyLimits } from './timing';
// memorydb: until the kinds' not-ready hook exists (the MemoryDB kind's commit notes)
import { memoryDbNotReady } from '../targets/memorydb/lifecycle';
import type { MemoryDbAdmin } from '../targets/memorydb/port';
import { keyspacesNotActive } from './keyspaces';
import { daxProblems } from './dax';

export interface ProvisionTargetResult {
  created: string[];
  existing: string[];
  /** ScyllaDB nodes launched by this call (ids); a retry launches only the missing ones. */
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
): Promise<ProvisionTargetResult> {
  const run = checkRun(runIn);
  const spec = await readSpec(deps.store, run.runId);
  // not `{ sleep, ...ports } = deps`: a rest copy reads every getter of the Lambdas' ports, and `runs` throws
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
    tags: runTags(run, LOADER_ROLE),
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
  /** ScyllaDB nodes that answered on their client port (all clusters of the run). */
  nodesAnswering?: number;
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
  deps: {
    tables: TableAdmin;
    fleet: FleetAdmin;
    commands: CommandRunner;
    clock: Clock;
    store?: ObjectStore;
    cluster?: ClusterAdmin;
    probe?: ClusterProbe;
    /** Where ProvisionTarget made cassandra-ec2 logins: the schema step uses them. */
    secrets?: SecretAdmin;
    keyspaces?: KeyspacesAdmin;
    dax?: DaxAdmin;
    memorydb?: MemoryDbAdmin;
  },
): Promise<ReadyState> {
  const run = checkRun(input.run);
  const now = deps.clock.nowMs();
  // a DAX cluster takes 10+ minutes: a longer deadline, polled less often (the history budget holds)
  const { timeoutSeconds, pollSeconds } = readyLimits(Boolean(run.dax?.length));
  const deadlineMs = input.ready?.deadlineMs ?? now + timeoutSeconds * 1000;
  const notActive: string[] = [];
  for (const t of run.tables) {
    const s = await deps.tables.describeTable(t.name);
    if (s.status !== 'ACTIVE') notActive.push(`${t.name} is ${s.status}`);
  }
  const ids = await loaderIds(deps.fleet, run.runId);
  const online = ids.length ? await deps.commands.online(ids) : [];
  const offline = ids.filter((id) => !online.includes(id));
  const clusters = await clustersReady(run, deps);
  // Keyspaces tables and DAX clusters are not the run's DynamoDB tables (tablesActive counts those)
  const services = [
    ...(await keyspacesNotActive(run, deps.keyspaces)),
    ...(await daxProblems(run, deps.dax)),
    ...(deps.memorydb && deps.store
      ? await memoryDbNotReady(run.runId, await readSpec(deps.store, run.runId), deps.memorydb)
      : []),
  ];
  const ready =
    notActive.length === 0 &&
    services.length === 0 &&
    ids.length >= run.loaders &&
    offline.length === 0 &&
    clusters.problems.length === 0;
  if (ready && clusters.schemas.length) {
    // every node answers: create the keyspace/table (CQL) or the table (Alternator), idempotently
    for (const req of clusters.schemas) await deps.probe!.createSchema(req, { runId: run.runId });
  }
  if (!ready && now >= deadlineMs) {
    const why = [
      ...clusters.problems,
      ...services,
      ...notActive,
      ...(ids.length < run.loaders ? [`${ids.length} of ${run.loaders} loaders exist`] : []),
      ...(offline.length ? [`loaders not online in SSM: ${offline.join(', ')}`] : []),
    ];
    throw new StepFailedError('WaitReady', `not ready after ${timeoutSeconds} s: ${why.join('; ')}`);
  }
  return {
    ready,
    deadlineMs,
    waitSeconds: pollSeconds,
    tablesActive: run.tables.length - notActive.length,
    loadersOnline: online.length,
    ...(run.clusters?.length ? { nodesAnswering: clusters.answering } : {}),
  };
}

/** Whether every node of every cluster exists and answers; the schema requests for when they all do. */
async function clustersReady(
  run: RunContext,
  deps: { store?: ObjectStore; cluster?: ClusterAdmin; probe?: ClusterProbe; secrets?: SecretAdmin },
): Promise<{ problems: string[]; answering: number; schemas: SchemaRequest[] }> {
  const problems: string[] = [];
  const schemas: SchemaRequest[] = [];
  let answering = 0;
  if (!run.clusters?.length) return { problems, answering, schemas };
  if (!deps.cluster || !deps.probe || !deps.store) {
    throw new StepFailedError(
      'WaitReady',
      'the run has ScyllaDB nodes and no cluster/probe port is configured',
    );
  }
  const spec = await readSpec(deps.store, run.runId);
  const all = await deps.cluster.list({ runId: run.runId });
  for (const c of run.clusters) {
    const target = spec.targets.find((t) => t.id === c.target);
    if (!target || !isDbNodeTarget(target)) continue;
    const nodes = targetNodes(all, c.target);
    const running = nodes.filter((n) => n.state === 'running' && n.privateIp);
    if (running.length < c.nodes) {
      problems.push(`${running.length} of ${c.nodes} nodes of ${c.target} running`);
      continue;
    }
    const endpoints = nodeEndpoints(target, running);
    const api = nodeApi(target);
    const health = await deps.probe.check(api, endpoints, { runId: run.runId });
    // a Cassandra node must run the spec's version (the probe reads its release_version): another
    // version never becomes the right one, so the run fails now instead of at the deadline
    if (target.kind === 'cassandra-ec2') refuseOtherVersions(target, spec.targets.indexOf(target), health);
    const down = health.filter((h) => !h.ok);
    answering += health.length - down.length;
    if (down.length) {
      problems.push(
        `${c.target}: ${down.length} of ${health.length} nodes do not answer on ${api}: ` +
          down.map((d) => `${d.endpoint}${d.detail ? ` (${d.detail})` : ''}`).join(', '),
      );
      continue;
    }
    schemas.push(
      schemaRequest({
        target,
        endpoints,
        table: c.table,
        fieldCount: spec.dataset.fieldCount,
        // the run made a login (ProvisionTarget) where there is a secrets port
        ...(deps.secrets ? { runId: run.runId } : {}),
      }),
    );
  }
  return { problems, answering, schemas };
}

/** Fails the step when a node of a cassandra-ec2 target answers with another release_version than the spec's. */
function refuseOtherVersions(
  target: { id: string; version: string },
  index: number,
  health: { endpoint: string; version?: string }[],
): void {
  const other = health.filter((h) => h.version !== undefined && h.version !== target.version);
  if (!other.length) return;
  throw new StepFailedError(
    'WaitReady',
    `${target.id}: ${other.map((h) => `node ${h.endpoint} runs Apache Cassandra ${h.version}`).join(', ')}; ` +
      `the spec asks for ${target.version} (targets[${index}].version)`,
  );
}
