/**
 * A phase is the load of one target or the run of one cell. StartLoad/StartCell write one job
 * document per loader (`<prefix>/jobs/<instance id>.json`, the loader agent's input) and send the
 * loader command; CheckLoad/CheckCell poll it. ConfigureCell prepares the target for a cell.
 */
import type { CellPlan, Plan } from '../plan';
import type { RunSpec } from '../spec';
import {
  StepFailedError,
  type Clock,
  type ClusterAdmin,
  type CommandRunner,
  type FleetAdmin,
  type ObjectStore,
  type TableAdmin,
} from '../ports';
import { InputError } from '../errors';
import { AGENT_OWNED_PROPERTIES } from '../loader-properties';
import {
  CQL_BINDING_CLASS,
  cassandraJobProperties,
  isDbNodeTarget,
  nodeEndpoints,
  scyllaJobProperties,
  targetNodes,
} from '../cluster';
import { cellKey, checkRun, loadKey, readPlan, readSpec, type PhaseJob, type RunContext } from './context';
import { loaderIds } from './provision';
import { GRACE_SECONDS, KILL_AFTER_SECONDS, cellTimes, loadTimes, nextWaitSeconds } from './timing';

const AGENT_OWNED = new Set<string>(AGENT_OWNED_PROPERTIES);

function jobProperties(props: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(props).filter(([k]) => !AGENT_OWNED.has(k)));
}

/** The loader agent's job document (see loader/agent/src/job.ts). */
export interface LoaderJob {
  runId: string;
  cellId: string;
  loaderIndex: number;
  phase: 'load' | 'run';
  processes: Record<string, string>[];
  durationSeconds: number;
  graceSeconds: number;
  killAfterSeconds: number;
  statusIntervalSeconds: number;
  outputPrefix: string;
  /** The YCSB binding class when not the DynamoDB-API one (CQL targets). */
  db?: string;
  /**
   * Where the agent fetches the target's credentials at job start (external targets): a Secrets
   * Manager ARN, never the credentials themselves.
   */
  credentials?: { secretArn: string; protocol: 'dynamodb' | 'cql' };
}

/** Per-target additions to a job: endpoint properties, binding class, credentials reference. */
export interface TargetWiring {
  properties: Record<string, string>;
  db?: string;
  credentials?: { secretArn: string; protocol: 'dynamodb' | 'cql' };
}

/** The wiring of a target whose endpoints are known (scylla-ec2: from its running nodes). */
export function targetWiring(
  spec: RunSpec,
  targetId: string,
  clusterEndpoints?: { host: string; port: number }[],
): TargetWiring {
  const t = spec.targets.find((x) => x.id === targetId);
  if (!t || t.kind === 'dynamodb') return { properties: {} };
  if (t.kind === 'scylla-ec2') {
    return {
      properties: scyllaJobProperties(t, clusterEndpoints ?? []),
      ...(t.api === 'cql' ? { db: CQL_BINDING_CLASS } : {}),
    };
  }
  if (t.kind === 'cassandra-ec2') {
    return { properties: cassandraJobProperties(t, clusterEndpoints ?? []), db: CQL_BINDING_CLASS };
  }
  return {
    properties: {},
    ...(t.protocol === 'cql' ? { db: CQL_BINDING_CLASS } : {}),
    ...(t.credentialsSecretArn
      ? { credentials: { secretArn: t.credentialsSecretArn, protocol: t.protocol } }
      : {}),
  };
}

/** Where a phase's files go: `runs/<id>/cells/<cell>` or `runs/<id>/load/<target>`. */
export function phasePrefix(runId: string, phase: 'load' | 'run', name: string): string {
  return phase === 'run' ? cellKey(runId, name) : loadKey(runId, name);
}

/** Target-specific properties (table, dynamodb.*) of a target, taken from its first cell. */
function targetProperties(plan: Plan, target: string): Record<string, string> {
  const cell = plan.cells.find((c) => c.target === target);
  if (!cell) return {};
  const p = cell.processes[0]!.properties;
  return Object.fromEntries(
    Object.entries(p).filter(([k]) => k === 'table' || k.startsWith('dynamodb.') || k.startsWith('cql.')),
  );
}

/** The job of every loader of a phase (loader index i → jobs[i]). Pure. */
export function buildJobs(args: {
  run: RunContext;
  plan: Plan;
  spec: RunSpec;
  phase: 'load' | 'run';
  index: number;
  storeUri: string;
  /** Endpoint properties, binding and credentials per target id (see targetWiring). */
  wiring?: Record<string, TargetWiring>;
}): { name: string; jobs: LoaderJob[]; expected: number; deadline: number } {
  const { run, plan, spec, phase, index } = args;
  const wire = (targetId: string) => {
    const w = args.wiring?.[targetId] ?? targetWiring(spec, targetId);
    return {
      props: w.properties,
      extra: { ...(w.db ? { db: w.db } : {}), ...(w.credentials ? { credentials: w.credentials } : {}) },
    };
  };
  const status = spec.workload.statusIntervalSeconds;
  if (phase === 'run') {
    const cell: CellPlan | undefined = plan.cells[index];
    if (!cell)
      throw new InputError([
        { path: 'cell.index', message: `no cell ${index} (the plan has ${plan.cells.length})` },
      ]);
    const t = cellTimes(cell.durationSeconds);
    const out = `${args.storeUri}/${phasePrefix(run.runId, 'run', cell.id)}/raw`;
    const w = wire(cell.target);
    const jobs: LoaderJob[] = [];
    for (let l = 0; l < cell.loaders; l++) {
      jobs.push({
        runId: run.runId,
        cellId: cell.id,
        loaderIndex: l,
        phase: 'run',
        processes: cell.processes
          .filter((p) => p.loader === l)
          .map((p) => jobProperties({ ...p.properties, ...w.props })),
        durationSeconds: cell.durationSeconds,
        graceSeconds: GRACE_SECONDS,
        killAfterSeconds: KILL_AFTER_SECONDS,
        statusIntervalSeconds: status,
        outputPrefix: out,
        ...w.extra,
      });
    }
    return { name: cell.id, jobs: jobs.filter((j) => j.processes.length > 0), ...t };
  }
  const target = run.loadTargets[index];
  if (!plan.load || target === undefined) {
    throw new InputError([{ path: 'load.index', message: `no load target ${index}` }]);
  }
  const t = loadTimes(plan, spec);
  const w = wire(target);
  const extra = { ...targetProperties(plan, target), ...w.props };
  const name = `load-${target}`;
  const out = `${args.storeUri}/${phasePrefix(run.runId, 'load', target)}/raw`;
  const loaders = Math.max(...plan.load.processes.map((p) => p.loader)) + 1;
  const jobs: LoaderJob[] = [];
  for (let l = 0; l < loaders; l++) {
    const procs = plan.load.processes.filter((p) => p.loader === l);
    if (!procs.length) continue;
    jobs.push({
      runId: run.runId,
      cellId: name,
      loaderIndex: l,
      phase: 'load',
      processes: procs.map((p) => jobProperties({ ...p.properties, ...extra })),
      durationSeconds: t.deadline - GRACE_SECONDS - KILL_AFTER_SECONDS - 30,
      graceSeconds: GRACE_SECONDS,
      killAfterSeconds: KILL_AFTER_SECONDS,
      statusIntervalSeconds: status,
      outputPrefix: out,
      ...w.extra,
    });
  }
  return { name, jobs, ...t };
}

export interface StartInput {
  run: unknown;
  /** load: which load target; run: which cell */
  index: number;
}

export async function startPhase(
  phase: 'load' | 'run',
  input: StartInput,
  deps: {
    store: ObjectStore;
    fleet: FleetAdmin;
    commands: CommandRunner;
    clock: Clock;
    cluster?: ClusterAdmin;
  },
): Promise<PhaseJob> {
  const run = checkRun(input.run);
  const [plan, spec] = await Promise.all([readPlan(deps.store, run.runId), readSpec(deps.store, run.runId)]);
  const wiring: Record<string, TargetWiring> = {};
  if (run.clusters?.length) {
    if (!deps.cluster)
      throw new StepFailedError(phase === 'run' ? 'StartCell' : 'StartLoad', 'no cluster port');
    const nodes = await deps.cluster.list({ runId: run.runId });
    for (const c of run.clusters) {
      const t = spec.targets.find((x) => x.id === c.target);
      if (!t || !isDbNodeTarget(t)) continue;
      const running = targetNodes(nodes, c.target).filter((n) => n.state === 'running');
      if (running.length < c.nodes) {
        throw new StepFailedError(
          phase === 'run' ? 'StartCell' : 'StartLoad',
          `${running.length} of ${c.nodes} nodes of ${c.target} are running`,
        );
      }
      wiring[c.target] = targetWiring(spec, c.target, nodeEndpoints(t, running));
    }
  }
  const { name, jobs, expected, deadline } = buildJobs({
    run,
    plan,
    spec,
    phase,
    index: input.index,
    storeUri: deps.store.uri,
    wiring,
  });
  const step = phase === 'run' ? 'StartCell' : 'StartLoad';
  const ids = await loaderIds(deps.fleet, run.runId);
  if (ids.length < jobs.length) {
    throw new StepFailedError(step, `${jobs.length} loaders needed, ${ids.length} running`);
  }
  const used = ids.slice(0, jobs.length);
  const prefix = `${phasePrefix(run.runId, phase, phase === 'run' ? name : run.loadTargets[input.index]!)}/jobs`;
  await Promise.all(used.map((id, l) => deps.store.putJson(`${prefix}/${id}.json`, jobs[l])));
  const now = deps.clock.nowMs();
  const commandIds = await deps.commands.send({
    instanceIds: used,
    jobPrefix: deps.store.uriOf(prefix),
    timeoutSeconds: deadline,
    comment: `fleetbench ${run.runId} ${name}`.slice(0, 100),
  });
  const expectedEndMs = now + expected * 1000;
  const deadlineMs = now + deadline * 1000;
  return {
    phase,
    index: input.index,
    commandIds,
    instances: used.length,
    startedAtMs: now,
    expectedEndMs,
    deadlineMs,
    waitSeconds: nextWaitSeconds(now, expectedEndMs, deadlineMs),
    done: false,
  };
}

export async function checkPhase(
  jobIn: PhaseJob,
  deps: { commands: CommandRunner; clock: Clock },
): Promise<PhaseJob> {
  const job = jobIn;
  if (!job || !Array.isArray(job.commandIds)) {
    throw new InputError([
      { path: 'job.commandIds', message: 'missing (pass the output of StartLoad/StartCell)' },
    ]);
  }
  const step = job.phase === 'run' ? 'CheckCell' : 'CheckLoad';
  const invocations = await deps.commands.status(job.commandIds);
  const failed = invocations.filter((i) => ['Failed', 'TimedOut', 'Cancelled'].includes(i.status));
  if (failed.length) {
    await deps.commands.cancel(job.commandIds);
    throw new StepFailedError(
      step,
      `the loader command failed on ${failed.length} of ${job.instances} loaders: ` +
        failed
          .map((f) => `${f.instanceId} ${f.status}${f.detail ? ` (${f.detail.slice(-200)})` : ''}`)
          .join('; '),
    );
  }
  const done = invocations.length >= job.instances && invocations.every((i) => i.status === 'Success');
  const now = deps.clock.nowMs();
  if (!done && now >= job.deadlineMs) {
    await deps.commands.cancel(job.commandIds);
    const late = invocations.filter((i) => i.status !== 'Success').map((i) => i.instanceId);
    throw new StepFailedError(
      step,
      `deadline passed; loaders still running: ${late.join(', ') || 'unknown'}`,
    );
  }
  return { ...job, done, waitSeconds: done ? 0 : nextWaitSeconds(now, job.expectedEndMs, job.deadlineMs) };
}

/**
 * ConfigureCell: the cell's target must be ACTIVE, and a provisioned table gets the capacity the
 * spec gives it (it may have been changed since, e.g. by a load phase or by hand).
 */
export async function configureCell(
  input: { run: unknown; index: number },
  deps: { store: ObjectStore; tables: TableAdmin },
): Promise<{ index: number; cellId: string; changed: boolean }> {
  const run = checkRun(input.run);
  const [plan, spec] = await Promise.all([readPlan(deps.store, run.runId), readSpec(deps.store, run.runId)]);
  const cell = plan.cells[input.index];
  if (!cell) throw new InputError([{ path: 'cell.index', message: `no cell ${input.index}` }]);
  const target = spec.targets.find((t) => t.id === cell.target);
  const table = run.tables.find((t) => t.target === cell.target);
  if (!target || target.kind !== 'dynamodb' || !table)
    return { index: input.index, cellId: cell.id, changed: false };
  const state = await deps.tables.describeTable(table.name);
  if (state.status === 'MISSING' || state.status === 'DELETING') {
    throw new StepFailedError('ConfigureCell', `table ${table.name} is ${state.status}`);
  }
  if (target.billing.mode !== 'provisioned' || !table.owned) {
    return { index: input.index, cellId: cell.id, changed: false };
  }
  const { rcu, wcu } = target.billing;
  if (state.rcu === rcu && state.wcu === wcu) return { index: input.index, cellId: cell.id, changed: false };
  await deps.tables.updateCapacity(table.name, { rcu, wcu });
  return { index: input.index, cellId: cell.id, changed: true };
}
