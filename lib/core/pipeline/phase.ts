/**
 * A phase is the load of one target or the run of one cell. StartLoad/StartCell write one job
 * document per loader (`<prefix>/jobs/<instance id>.json`, the loader agent's input) and send the
 * loader command; CheckLoad/CheckCell poll it. ConfigureCell prepares the target for a cell.
 */
import { cellProcesses, loadProcesses, type CellPlan, type PlanIndex } from '../plan';
import type { RunSpec } from '../spec';
import {
  StepFailedError,
  type Clock,
  type CommandRunner,
  type FleetAdmin,
  type KeyspacesAdmin,
  type ObjectStore,
  type DynamoDbAdmin,
} from '../common/ports';
import { InputError } from '../common/errors';
import type { JobCredentials, JobInput } from '../contract/job';
import { BINDINGS } from '../contract/bindings';
import {
  cellKey,
  cellRawKey,
  checkRun,
  loadKey,
  readCellPlan,
  readPlan,
  readSpec,
  type PhaseJob,
  type RunContext,
} from './context';
import { targetLoaders } from './provision';
import { executionOf } from './run-context';
import { kindOf } from '../targets/registry';
import { failureExcerpt } from '../common/excerpt';
import type { StepContext } from '../targets/kind';
import { decideProbe } from './probe';
import { GRACE_SECONDS, KILL_AFTER_SECONDS, cellTimes, loadTimes, nextWaitSeconds } from './timing';

/** Where a phase's files go: `runs/<id>/cells/<cell>` or `runs/<id>/load/<target>`. */
export function phasePrefix(runId: string, phase: 'load' | 'run', name: string): string {
  return phase === 'run' ? cellKey(runId, name) : loadKey(runId, name);
}

/**
 * The job of every loader of a phase (loader index i → jobs[i]). Pure: the processes' properties are
 * the plan's (cellProcesses / loadProcesses, the target's binding properties from plan.bindings) plus,
 * for targets whose nodes the run launches, their endpoints (`endpoints`, from the running nodes).
 */
export function buildJobs(args: {
  run: RunContext;
  plan: PlanIndex;
  /** run: the cell (readCellPlan) */
  cell?: CellPlan;
  spec: RunSpec;
  phase: 'load' | 'run';
  index: number;
  storeUri: string;
  /** Endpoint properties per target id whose nodes run (runtimeEndpointProperties). */
  endpoints?: Record<string, Record<string, string>>;
  /** Credentials per target id the run made (cassandra-ec2 logins: runLoginCredentials). */
  credentials?: Record<string, JobCredentials>;
  /** run: which attempt of the cell (0 first, 1 its retry): where its loaders write (cellRawKey) */
  attempt?: number;
}): { name: string; jobs: JobInput[]; expected: number; deadline: number } {
  const { run, plan, spec, phase, index } = args;
  const common = (targetId: string) => {
    const b = plan.bindings[targetId];
    if (!b) throw new InputError([{ path: 'plan.bindings', message: `no binding for target "${targetId}"` }]);
    const credentials = args.credentials?.[targetId] ?? b.credentials;
    return {
      runId: run.runId,
      execution: executionOf(run),
      graceSeconds: GRACE_SECONDS,
      killAfterSeconds: KILL_AFTER_SECONDS,
      statusIntervalSeconds: spec.workload.statusIntervalSeconds,
      db: b.db,
      ...(credentials ? { credentials } : {}),
      ...(b.jars ? { bindingJars: b.jars, bindingJarSha256: b.jarSha256 } : {}),
    };
  };
  const perLoader = <P extends { loader: number; properties: Record<string, string> }>(
    procs: P[],
    extra: Record<string, string>,
  ): Record<string, string>[][] => {
    const loaders = Math.max(-1, ...procs.map((p) => p.loader)) + 1;
    return Array.from({ length: loaders }, (_, l) =>
      procs.filter((p) => p.loader === l).map((p) => ({ ...p.properties, ...extra })),
    );
  };
  if (phase === 'run') {
    const cell = args.cell;
    if (!cell || cell.index !== index)
      throw new InputError([
        { path: 'cell.index', message: `no cell ${index} (the plan has ${plan.cells.length})` },
      ]);
    const out = `${args.storeUri}/${cellRawKey(run.runId, cell.id, args.attempt ?? 0)}`;
    const jobs = perLoader(cellProcesses(cell), args.endpoints?.[cell.target] ?? {})
      .map((processes, l): JobInput => ({
        ...common(cell.target),
        cellId: cell.id,
        loaderIndex: l,
        phase: 'run',
        processes,
        durationSeconds: cell.durationSeconds,
        outputPrefix: out,
      }))
      .filter((j) => j.processes.length > 0);
    return { name: cell.id, jobs, ...cellTimes(cell.durationSeconds) };
  }
  const target = run.loadTargets[index];
  if (!plan.load || target === undefined) {
    throw new InputError([{ path: 'load.index', message: `no load target ${index}` }]);
  }
  const t = loadTimes(plan, spec);
  const name = `load-${target}`;
  const out = `${args.storeUri}/${phasePrefix(run.runId, 'load', target)}/raw`;
  const b = plan.bindings[target];
  // the binding's properties, its load ones (batched inserts where it has them), the running nodes' endpoints
  const extra = {
    ...b?.properties,
    ...(b ? BINDINGS[b.binding].loadProperties : {}),
    ...args.endpoints?.[target],
  };
  const jobs = perLoader(loadProcesses(plan.load), extra)
    .map((processes, l): JobInput => ({
      ...common(target),
      cellId: name,
      loaderIndex: l,
      phase: 'load',
      processes,
      durationSeconds: t.deadline - GRACE_SECONDS - KILL_AFTER_SECONDS - 30,
      outputPrefix: out,
    }))
    .filter((j) => j.processes.length > 0);
  return { name, jobs, ...t };
}

/**
 * What each target's jobs need that is known only once it runs (its kind says: node endpoints, a DAX endpoint,
 * a login secret by reference), by target id.
 */
async function runtimeOf(ctx: StepContext): Promise<{
  endpoints: Record<string, Record<string, string>>;
  credentials: Record<string, JobCredentials>;
}> {
  const endpoints: Record<string, Record<string, string>> = {};
  const credentials: Record<string, JobCredentials> = {};
  for (const t of ctx.spec.targets) {
    const r = await kindOf(t).runtime?.(t, ctx);
    if (r?.properties && Object.keys(r.properties).length) endpoints[t.id] = r.properties;
    if (r?.credentials) credentials[t.id] = r.credentials;
  }
  return { endpoints, credentials };
}

export interface StartInput {
  run: unknown;
  /** load: which load target; run: which cell */
  index: number;
  /** run: which attempt of the cell (the state machine's cursor; 0 when absent) */
  attempt?: number;
}

export async function startPhase(
  phase: 'load' | 'run',
  input: StartInput,
  deps: StepContext['ports'] & { fleet: FleetAdmin; commands: CommandRunner; clock: Clock },
): Promise<PhaseJob> {
  const run = checkRun(input.run);
  const step = phase === 'run' ? 'StartCell' : 'StartLoad';
  const [plan, spec, cell] = await Promise.all([
    readPlan(deps.store, run.runId),
    readSpec(deps.store, run.runId),
    phase === 'run' ? readCellPlan(deps.store, run.runId, input.index) : Promise.resolve(undefined),
  ]);
  // a probe of an SLO search runs the rate its search decides now, or nothing once the search has ended
  const probe = cell ? await decideProbe(deps.store, { run, plan, spec, cell }) : null;
  if (probe && probe.rateOpsPerSec === null) return skippedProbeJob(input.index, deps.clock.nowMs());
  const { endpoints, credentials } = await runtimeOf({ run, spec, step, ports: deps });
  const { name, jobs, expected, deadline } = buildJobs({
    run,
    plan,
    cell: probe && cell ? { ...cell, targetOpsPerSec: probe.rateOpsPerSec! } : cell,
    spec,
    phase,
    index: input.index,
    storeUri: deps.store.uri,
    endpoints,
    credentials,
    attempt: input.attempt ?? 0,
  });
  // the phase's target's own loader group in a parallel run, else the run's loaders
  const targetId = phase === 'run' ? cell?.target : run.loadTargets[input.index];
  const { ids } = await targetLoaders(deps.fleet, run, targetId);
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

/** A probe its search no longer needs: done at once, no loader command (CheckCell passes it on). */
function skippedProbeJob(index: number, now: number): PhaseJob {
  return {
    phase: 'run',
    index,
    commandIds: [],
    instances: 0,
    startedAtMs: now,
    expectedEndMs: now,
    deadlineMs: now,
    waitSeconds: 0,
    done: true,
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
  // a skipped probe (skippedProbeJob): nothing was sent
  if (job.done && job.commandIds.length === 0) return job;
  const invocations = await deps.commands.status(job.commandIds);
  const failed = invocations.filter((i) => ['Failed', 'TimedOut', 'Cancelled'].includes(i.status));
  if (failed.length) {
    await deps.commands.cancel(job.commandIds);
    throw new StepFailedError(
      step,
      `the loader command failed on ${failed.length} of ${job.instances} loaders: ` +
        failed
          .map((f) => `${f.instanceId} ${f.status}${f.detail ? ` (${failureExcerpt(f.detail, 300)})` : ''}`)
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
 * spec gives it (a cell a resumed run does not run is skipped: `skip`) (it may have been changed since, e.g. by a load phase or by hand). DynamoDB tables here, Amazon
 * Keyspaces tables in ./keyspaces.ts (the same rule).
 */
export async function configureCell(
  input: { run: unknown; index: number },
  deps: {
    store: ObjectStore;
    tables: DynamoDbAdmin;
    keyspaces?: KeyspacesAdmin;
    /** Between polls of a Keyspaces table not ACTIVE yet (tests pass one that returns at once). */
    sleep?: (ms: number) => Promise<void>;
  },
): Promise<{ index: number; cellId: string; changed: boolean; skip: boolean }> {
  const run = checkRun(input.run);
  const [plan, spec] = await Promise.all([readPlan(deps.store, run.runId), readSpec(deps.store, run.runId)]);
  const cell = plan.cells[input.index];
  if (!cell) throw new InputError([{ path: 'cell.index', message: `no cell ${input.index}` }]);
  // a resumed run runs only the cells without a complete row (./resume.ts): the others are skipped
  if (run.resume && !run.resume.cells.includes(cell.index))
    return { index: input.index, cellId: cell.id, changed: false, skip: true };
  const target = spec.targets.find((t) => t.id === cell.target);
  const changed = target
    ? ((await kindOf(target).configureCell?.(target, {
        run,
        spec,
        step: 'ConfigureCell',
        ports: deps,
        sleep: deps.sleep,
      })) ?? false)
    : false;
  return { index: input.index, cellId: cell.id, changed, skip: false };
}
