/**
 * ProvisionTarget and ProvisionFleet (run in parallel), and WaitReady.
 * Both provisioning steps are idempotent: a retry after a partial success finishes the job instead
 * of failing on what the first attempt created.
 */
import type { DynamoDbTarget, RunSpec } from '../spec';
import { ownedByRun } from './ownership';
import { cassandraBootstrapScript, ec2ClusterParams, initialToken } from '../cassandra-node';
import { cqlLoginSecretName, provisionCqlLogin } from '../cql-auth';
import {
  NODE_ROLES,
  isDbNodeTarget,
  nodeApi,
  type DbNodeTarget,
  TAG_NODE_INDEX,
  TAG_TARGET,
  nodeEndpoints,
  nodeUserDataBase64,
  schemaRequest,
  targetNodes,
  type ClusterNode,
  type SchemaRequest,
} from '../cluster';
import {
  ConflictError,
  LOADER_ROLE,
  StepFailedError,
  TAG_EXPIRES_AT,
  TAG_ROLE,
  TAG_RUN_ID,
  TAG_SPEC,
  type Clock,
  type ClusterAdmin,
  type ClusterProbe,
  type DaxAdmin,
  type NodeLaunchRequest,
  type CommandRunner,
  type FleetAdmin,
  type KeyspacesAdmin,
  type ObjectStore,
  type SecretAdmin,
  type TableAdmin,
  type TableDefinition,
  type Tags,
} from '../ports';
import { checkRun, readSpec, type RunContext } from './context';
import { readyLimits } from './timing';
import { keyspacesNotActive, provisionKeyspaces, realSleep } from './keyspaces';
import { daxProblems, provisionDax } from './dax';

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
  /** ScyllaDB nodes launched by this call (ids); a retry launches only the missing ones. */
  nodes?: string[];
  /** DAX clusters created (or found again, on a retry) for dynamodb targets with dax. */
  dax?: string[];
  /** cassandra-ec2 login secrets (names) created, or found again tagged with the run on a retry. */
  secrets?: string[];
}

/** Tags of node `index` of a scylla-ec2 (or, with its role, cassandra-ec2) target. */
export function nodeTags(
  run: RunContext,
  targetId: string,
  index: number,
  userTags: Tags,
  role: string,
): Tags {
  return runTags(run, role, { ...userTags, [TAG_TARGET]: targetId, [TAG_NODE_INDEX]: String(index) });
}

/** What nodes of a target are launched with: the image, volumes and per-node user data of its kind. */
export function nodeLaunchRequest(args: {
  run: RunContext;
  target: DbNodeTarget;
  userTags: Tags;
  indexes: number[];
  /** Node 0's private IP; empty when launching node 0. */
  seeds: string[];
  /** Where cassandra-ec2 nodes fetch Cassandra (ClusterAdmin.cassandraAsset). */
  cassandraAsset?: string;
  /** cassandra-ec2: the run made a login for the target (its nodes ask for credentials). */
  login?: boolean;
}): NodeLaunchRequest {
  const { run, target, indexes, seeds } = args;
  const tags = (index: number) => nodeTags(run, target.id, index, args.userTags, NODE_ROLES[target.kind]);
  const base = { runId: run.runId, targetId: target.id, instanceType: target.instanceType };
  if (target.kind === 'scylla-ec2') {
    return {
      ...base,
      ami: target.ami,
      ...(target.ebsGb ? { ebsGb: target.ebsGb } : {}),
      nodes: indexes.map((index) => ({
        index,
        userData: nodeUserDataBase64({ target, runId: run.runId, seeds }),
        tags: tags(index),
      })),
    };
  }
  if (!args.cassandraAsset) {
    throw new StepFailedError(
      'ProvisionTarget',
      `target ${target.id} needs the Apache Cassandra asset and the cluster port has none (build it: npm run build:cassandra)`,
    );
  }
  // the same for every node but its token: computed once
  const cluster = ec2ClusterParams({
    target,
    runId: run.runId,
    asset: args.cassandraAsset,
    ...(seeds[0] ? { seedIp: seeds[0] } : {}),
    login: args.login === true,
  });
  return {
    ...base,
    kind: 'cassandra-ec2',
    ami: { amazonLinux2023: true },
    dataVolumeGb: target.volume.sizeGb,
    nodes: indexes.map((index) => ({
      index,
      userData: Buffer.from(
        cassandraBootstrapScript({ ...cluster, initialToken: initialToken(index, target.nodes) }),
      ).toString('base64'),
      tags: tags(index),
    })),
  };
}

/**
 * Launches the nodes of a scylla-ec2 or cassandra-ec2 target that are not there yet: node 0 (the seed)
 * first, then, once node 0 is running, the others with node 0's private IP as their seed. Idempotent:
 * nodes are found again by tags.
 */
export async function provisionCluster(
  run: RunContext,
  target: DbNodeTarget,
  userTags: Tags,
  cluster: ClusterAdmin,
  sleep: (ms: number) => Promise<void> = realSleep,
  login = false,
): Promise<string[]> {
  const have = targetNodes(await cluster.list({ runId: run.runId }), target.id);
  const present = new Set(have.map((n) => Number(n.tags[TAG_NODE_INDEX])));
  const launched: ClusterNode[] = [];
  const launch = async (indexes: number[], seeds: string[]) => {
    if (!indexes.length) return;
    launched.push(
      ...(await cluster.launch(
        nodeLaunchRequest({
          run,
          target,
          userTags,
          indexes,
          seeds,
          ...(cluster.cassandraAsset ? { cassandraAsset: cluster.cassandraAsset } : {}),
          login,
        }),
      )),
    );
  };
  if (!present.has(0)) await launch([0], []);
  let seed = [...have, ...launched].find((n) => n.tags[TAG_NODE_INDEX] === '0');
  if (!seed?.privateIp) {
    throw new StepFailedError(
      'ProvisionTarget',
      `node 0 of ${target.id} has no private IP to seed the others`,
    );
  }
  const rest = Array.from({ length: target.nodes }, (_, i) => i).filter((i) => i > 0 && !present.has(i));
  if (!rest.length) return launched.map((n) => n.id);
  // the others join through node 0: they are launched once it runs (its ScyllaDB boots first), never
  // before; a seed that does not run in time fails the step (teardown removes it)
  for (let poll = 0; seed?.state !== 'running'; poll++) {
    if (poll >= SEED_RUNNING_POLLS || seed === undefined || /terminat|stop/.test(seed.state)) {
      throw new StepFailedError(
        'ProvisionTarget',
        `node 0 (the seed) of ${target.id} is ${seed?.state ?? 'gone'} ${poll * (SEED_POLL_MS / 1000)} s after launch; ` +
          `nodes 1-${target.nodes - 1} were not launched`,
      );
    }
    await sleep(SEED_POLL_MS);
    seed = targetNodes(await cluster.list({ runId: run.runId }), target.id).find(
      (n) => n.tags[TAG_NODE_INDEX] === '0',
    );
  }
  await launch(rest, [seed.privateIp!]);
  return launched.map((n) => n.id);
}

/**
 * The run's node clusters, side by side: each cluster's seed wait (≤ SEED_RUNNING_POLLS × SEED_POLL_MS) runs at the
 * same time as the others', so a run with several clusters needs one seed wait of the Lambda's 2 minutes, not one
 * per cluster. Every cluster is tried even when another fails; the failures are raised together, each naming its
 * target (the retry or teardown finds the nodes launched by their tags).
 */
async function provisionClusters(
  run: RunContext,
  spec: RunSpec,
  cluster: ClusterAdmin | undefined,
  secrets: SecretAdmin | undefined,
  sleep: ((ms: number) => Promise<void>) | undefined,
): Promise<{ nodes: string[]; secrets: string[] }> {
  const targets = (run.clusters ?? []).flatMap((c) => {
    const target = spec.targets.find((x) => x.id === c.target);
    return target && isDbNodeTarget(target) ? [target] : [];
  });
  if (!targets.length) return { nodes: [], secrets: [] };
  if (!cluster)
    throw new StepFailedError(
      'ProvisionTarget',
      `target ${targets[0]!.id} needs database nodes and no cluster port is configured`,
    );
  const logins: string[] = [];
  const results = await Promise.allSettled(
    targets.map(async (t) => {
      // a cassandra-ec2 target's login before its nodes: they start with PasswordAuthenticator
      const login = t.kind === 'cassandra-ec2' && secrets !== undefined;
      if (login) logins.push(await provisionRunLogin(run, t.id, spec.tags, secrets));
      return provisionCluster(run, t, spec.tags, cluster, sleep, login);
    }),
  );
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
  if (failures.length === 1)
    throw (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
  if (failures.length) throw new StepFailedError('ProvisionTarget', failures.join('; '));
  return {
    nodes: results.flatMap((r) => (r.status === 'fulfilled' ? r.value : [])),
    secrets: logins.sort(),
  };
}

/** ProvisionTarget waits for node 0 to run for at most SEED_RUNNING_POLLS × SEED_POLL_MS (its Lambda has 2 min). */
export const SEED_RUNNING_POLLS = 16;
export const SEED_POLL_MS = 5000;

export async function provisionTarget(
  runIn: unknown,
  deps: {
    store: ObjectStore;
    tables: TableAdmin;
    cluster?: ClusterAdmin;
    keyspaces?: KeyspacesAdmin;
    dax?: DaxAdmin;
    /** cassandra-ec2 logins (lib/core/cql-auth.ts). */
    secrets?: SecretAdmin;
    /** Waits between checks of the seed node and of a new keyspace (tests pass a fake). */
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<ProvisionTargetResult> {
  const run = checkRun(runIn);
  const spec = await readSpec(deps.store, run.runId);
  const created: string[] = [];
  const existing: string[] = [];
  const { nodes, secrets } = await provisionClusters(run, spec, deps.cluster, deps.secrets, deps.sleep);
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
      if (!ownedByRun(await deps.tables.tableTags(t.name), run.runId)) {
        throw new StepFailedError('ProvisionTarget', `table ${t.name} already exists and is not this run's`);
      }
      created.push(t.name);
    }
  }
  const targetTags = runTags(run, 'target', spec.tags);
  created.push(...(await provisionKeyspaces(run, spec, targetTags, deps.keyspaces, deps.sleep)));
  // DAX after the tables: its clusters reach them through the DAX role
  const dax = await provisionDax(run, spec, targetTags, deps.dax);
  return {
    created,
    existing,
    ...(nodes.length ? { nodes } : {}),
    ...(dax.length ? { dax } : {}),
    ...(secrets.length ? { secrets } : {}),
  };
}

/** A cassandra-ec2 target's login secret, before its nodes (the schema step needs it once they answer). */
async function provisionRunLogin(
  run: RunContext,
  targetId: string,
  userTags: Tags,
  secrets: SecretAdmin,
): Promise<string> {
  await provisionCqlLogin(run.runId, targetId, runTags(run, 'target', userTags), secrets);
  return cqlLoginSecretName(run.runId, targetId);
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
