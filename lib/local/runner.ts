/**
 * `fleetbench run <spec> --local`: the deployed state machine's definition, executed on this machine
 * by aws-local-stepfunctions, each Task state mapped to the same step code the Lambdas run, over
 * local ports: DynamoDB Local (in memory, on a free loopback port), loader agents as child processes
 * running real YCSB, a directory as the object store. Every way out — success, a failed step,
 * Ctrl-C — ends with teardown (agents killed, tables deleted, DynamoDB Local stopped).
 */
import { existsSync, mkdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LocalTableAdmin } from './local-tables';
import { InputError } from '../core/common/errors';
import { kindOf, localNeeds } from '../core/targets/registry';
import {
  NON_FATAL_STATES,
  TASK_STATES,
  defaultExecutionName,
  runIdFromExecutionName,
  runKey,
  teardown,
  type TaskStateName,
} from '../core/pipeline';
import { StepFailedError, systemClock, type Ports } from '../core/common/ports';
import type { CellFailedResult } from '../core/pipeline/cell-failure';
import { resumeExecutionName } from '../core/pipeline/resume';
import type { RunSpec } from '../core/spec';
import { startDynamoDbLocal, DYNAMODB_LOCAL_CREDENTIALS, type DynamoDbLocal } from './dynamodb-local';
import { allStates, localDefinition, taskStates } from './definition';
import { ensureCassandraAsset, localJava } from '../build/cassandra-asset';
import { LocalSecrets } from './secrets';
import { LocalCluster } from './cluster';
import { LocalFleet } from './fleet';
import { FsStore } from './fs-store';
import { ensureLoaderBuilt } from '../build/maven';
import { LOCAL_STEPS } from './steps';
import { checkLocalRun } from './run-checks';
import { writeRunReport } from './report';
import { startCapacityProxy, type CapacityProxy } from './capacity-proxy';
import { cellTables, storeCellCapacity } from './capacity-store';
import { startLocalRedis, type LocalRedis } from './redis-server';
import { startKindServices, stopKindServices, type LocalKindServices } from './kind-services';
import { withResolvedBindings } from './binding-artifacts';
import { tableName } from '../core/plan';
import './promise-polyfill';

export interface LocalRunOptions {
  spec: RunSpec;
  resultsDir: string;
  runName?: string;
  /**
   * Resume this failed run (lib/core/pipeline/resume.ts): `spec` is the run's stored one, the execution is named
   * `<runId>-resume` unless `runName` says otherwise, and its input is `{"resume": runId}`.
   */
  resume?: string;
  /** Fault injection: these Task states throw instead of running (tests). */
  failAt?: TaskStateName | TaskStateName[];
  /** Retry failed teardown at once instead of after the definition's intervals (tests). */
  fastRetries?: boolean;
  /** Wait states last this many ms (default LOCAL_POLL_MS) instead of their computed time. */
  waitMs?: number;
  out?: (line: string) => void;
  /** Aborting the signal stops the run (Ctrl-C); teardown still runs. */
  signal?: AbortSignal;
  /** Called once the fleet exists, so tests can watch its processes. */
  onFleet?: (fleet: LocalFleet) => void;
  /** Called once the table admin exists (tests read its `log` of creates and deletes). */
  onTables?: (tables: LocalTableAdmin) => void;
  /** Called once the stand-in ScyllaDB cluster exists (specs with scylla-ec2 targets). */
  onCluster?: (cluster: LocalCluster) => void;
  /**
   * A DynamoDB Local already running, used instead of starting one (and left running): a sequence of
   * runs can share one. Each run's tables are its own (named after the run) and its teardown deletes them.
   */
  dynamoDbLocal?: DynamoDbLocal;
}

export interface LocalRunResult {
  runId: string;
  status: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  error?: string;
  failedState?: string;
  /** Non-fatal states that failed (the run went on to teardown): state and message. */
  warnings?: string[];
  /** Cells that failed, and what the failure policy did (retry, skip: recorded incomplete, stop). */
  cellFailures?: string[];
  reportFile?: string;
  resultsDir: string;
}

/** How long a Wait state waits in local mode: the next check comes this soon after the previous one. */
export const LOCAL_POLL_MS = 500;

export async function runLocal(o: LocalRunOptions): Promise<LocalRunResult> {
  const out = o.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const resultsDir = path.resolve(o.resultsDir);
  // the name `fleetbench start` gives by default (the spec's name shortened, the stamp kept whole)
  const runName =
    o.runName ?? (o.resume ? resumeExecutionName(o.resume) : defaultExecutionName(o.spec.name, Date.now()));
  const runId = o.resume ?? runIdFromExecutionName(runName);
  const store = new FsStore(resultsDir);
  // before anything starts or is written: the results directory, a run id already taken, what Plan would refuse
  assertResultsDirectory(resultsDir);
  const named = o.runName !== undefined;
  if (!o.resume && existsSync(path.join(resultsDir, 'runs', runId)))
    throw runExistsError({ resultsDir, runId, named });
  if (!o.resume) await checkLocalRun({ spec: o.spec, executionName: runName, resultsDir });
  claimRunDirectory({ resultsDir, runId, resume: o.resume !== undefined, named });

  out(`fleetbench local run ${runId}: ${o.spec.name}${o.resume ? ` (resumed by ${runName})` : ''}`);
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    prepared = await prepare(o.spec, out);
  } catch (err) {
    // nothing ran: the claimed run directory goes again (rmdir: only while empty), so the id can be used again
    if (!o.resume) releaseRunDirectory(path.join(resultsDir, 'runs', runId));
    throw err;
  }
  const { runSpec, built, definition } = prepared;

  const services = new LocalServices();
  const progress: RunProgress = { warnings: [], cellFailures: [] };
  const finish = (status: LocalRunResult['status'], error?: string) =>
    finishRun({ store, resultsDir, runId, status, error, progress, out });
  try {
    const ports = await services.start(o, {
      runId,
      resultsDir,
      store,
      bundleLibDir: built.bundleLibDir,
      out,
    });
    const handlers = taskHandlers({ o, ports, capacity: services.capacity, progress, out });
    return await execute({ o, definition, runSpec, runName, handlers, ports, progress, out, finish });
  } finally {
    await services.stop(o);
  }
}

/** The run's spec with its bindings resolved, the loader bundle built, the definition synthesized. */
async function prepare(spec: RunSpec, out: (l: string) => void) {
  // a user's binding named by Maven coordinates: its jars, resolved into the local cache (file:// URIs)
  const runSpec = (await withResolvedBindings(spec)) as RunSpec;
  out('  building/checking the loader bundle and DynamoDB Local (Maven)...');
  const built = await ensureLoaderBuilt();
  out('  synthesizing the state machine...');
  const definition = localDefinition();
  const missing = taskStates(definition).filter((s) => !(s in TASK_STATES));
  if (missing.length) throw new Error(`no local implementation for Task state(s): ${missing.join(', ')}`);
  return { runSpec, built, definition };
}

/**
 * What the run's Task states saw: the fatal state that failed the run (a cell's failure the policy absorbed, by a
 * retry or by recording the cell incomplete, is not one), non-fatal failures, the cell count, the cells' failures.
 */
interface RunProgress {
  failedState?: string;
  warnings: string[];
  cells?: number;
  /** CellFailed's answers, in order: `<cell id> attempt <n>: retry|skip|stop (reason)` */
  cellFailures: string[];
}

/**
 * The local stand-ins of a run (DynamoDB Local, the capacity emulator, Redis, the secrets stand-in, the loader
 * fleet, loopback database nodes), started as the spec's targets need them, and the ports over them.
 */
class LocalServices {
  ddb?: DynamoDbLocal;
  capacity?: CapacityProxy;
  fleet?: LocalFleet;
  cluster?: LocalCluster;
  redis?: LocalRedis;
  secrets?: LocalSecrets;
  /** The stand-ins of the kinds that bring a service of their own (./kind-adapters.ts), for the spec's kinds. */
  kindServices: LocalKindServices = {};

  async start(
    o: LocalRunOptions,
    run: {
      runId: string;
      resultsDir: string;
      store: FsStore;
      bundleLibDir: string;
      out: (l: string) => void;
    },
  ): Promise<Ports> {
    const { runId, out } = run;
    this.ddb = o.dynamoDbLocal ?? (await startDynamoDbLocal());
    out(`  DynamoDB Local on ${this.ddb.endpoint}`);
    this.capacity = await startCapacityEmulator(o.spec, runId, this.ddb.endpoint, out);
    this.redis = await startLocalRedis(o.spec, out);
    const needs = localNeeds(o.spec.targets);
    // the stand-ins of the spec's kinds that bring a service of their own (./kind-adapters.ts)
    this.kindServices = startKindServices(
      o.spec.targets.map((t) => t.kind),
      out,
    );
    // the run's logins (of the kinds that make them), served to the agents as Secrets Manager
    let secretsEndpoint: string | undefined;
    if (needs.has('secrets')) {
      this.secrets = new LocalSecrets();
      secretsEndpoint = await this.secrets.start();
    }
    this.fleet = new LocalFleet({
      bundleDir: path.dirname(run.bundleLibDir),
      endpoint: this.capacity?.endpoint ?? this.ddb.endpoint,
      logDir: path.join(run.resultsDir, 'runs', runId, 'local', 'agents'),
      ...(secretsEndpoint ? { env: localSecretsEnv(secretsEndpoint) } : {}),
      onProgress: throttledProgress(runId, out),
    });
    o.onFleet?.(this.fleet);
    if (needs.has('nodes')) {
      const cassandra = needs.has('cassandra')
        ? { asset: await ensureCassandraAsset(), java: await localJava() }
        : undefined;
      if (cassandra) out(`  Apache Cassandra nodes from ${path.relative(process.cwd(), cassandra.asset)}`);
      this.cluster = new LocalCluster({
        upstream: this.ddb.endpoint,
        ...(cassandra ? { cassandra } : {}),
        ...(this.secrets ? { secrets: this.secrets } : {}),
      });
      o.onCluster?.(this.cluster);
    }
    const tables = new LocalTableAdmin({
      endpoint: this.ddb.endpoint,
      region: 'us-east-1',
      credentials: DYNAMODB_LOCAL_CREDENTIALS,
    });
    o.onTables?.(tables);
    return {
      store: run.store,
      tables,
      fleet: this.fleet,
      commands: this.fleet,
      metrics: { put: async () => undefined },
      notifier: { publish: async (subject) => out(`  notify: ${subject}`) },
      runs: { running: async () => [] },
      ...(this.secrets ? { secrets: this.secrets } : {}),
      kindServices: this.kindServices,
      clock: systemClock,
      ...(this.cluster ? { cluster: this.cluster, probe: this.cluster } : {}),
    };
  }

  async stop(o: LocalRunOptions): Promise<void> {
    await this.fleet?.killAll();
    await this.cluster?.killAll();
    await this.redis?.stop();
    await stopKindServices(this.kindServices);
    await this.secrets?.stop();
    await this.capacity?.stop();
    if (this.ddb !== o.dynamoDbLocal) await this.ddb?.stop();
  }
}

/** The agents' progress lines, at most one every 2 s unless one says a phase is done. */
function throttledProgress(runId: string, out: (l: string) => void): (id: string, line: string) => void {
  let last = 0;
  return (id, line) => {
    const now = Date.now();
    if (now - last < 2000 && !/done|finished/i.test(line)) return;
    last = now;
    out(`    ${id.replace(`local-${runId}-`, 'loader-')}: ${line}`);
  };
}

/** The local implementation of each Task state: the pipeline's step over the local ports, with fault injection. */
function taskHandlers(args: {
  o: LocalRunOptions;
  ports: Ports;
  capacity: CapacityProxy | undefined;
  progress: RunProgress;
  out: (l: string) => void;
}): Record<string, (input: unknown) => Promise<unknown>> {
  const { o, ports, capacity, progress, out } = args;
  const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  // each cell's table, read from the plan at its StartCell and kept for its AggregateCell
  const tablesByCell = new Map<number, string[]>();
  const tablesOf = async (input: { run?: unknown; index?: number }) => {
    const i = input.index ?? -1;
    if (!tablesByCell.has(i)) tablesByCell.set(i, await cellTables(ports.store, input));
    return tablesByCell.get(i)!;
  };
  for (const [state, step] of Object.entries(TASK_STATES) as [TaskStateName, keyof typeof LOCAL_STEPS][]) {
    handlers[state] = async (input: unknown) => {
      const ev = input as { index?: number; run?: { cellCount?: number } | null };
      if (state === 'StartCell') {
        out(`  [${state}] cell ${(ev.index ?? 0) + 1} of ${ev.run?.cellCount ?? progress.cells ?? 0}`);
        // the emulator throttles the cells (not the load), each from an idle table's capacity state: the cell's
        // own table (a target measured beside it keeps its state)
        if (capacity) capacity.arm(await tablesOf(ev));
      } else if (state !== 'CheckCell' && state !== 'CheckLoad') out(`  [${state}]`);
      const nonFatal = NON_FATAL_STATES.includes(state);
      // a retried non-fatal state warns once per message
      const warn = (w: string) => progress.warnings.includes(w) || progress.warnings.push(w);
      if ([o.failAt ?? []].flat().includes(state)) {
        if (nonFatal) warn(`${state}: fault injected by the test`);
        else noteFailedState(state, progress);
        throw new StepFailedError(state, 'fault injected by the test');
      }
      try {
        const result = await LOCAL_STEPS[step](input as never, ports);
        if (state === 'Plan') progress.cells = (result as { cellCount: number }).cellCount;
        if (state === 'CellFailed') noteCellFailure(result as CellFailedResult, progress, out);
        if (state === 'AggregateCell' && capacity)
          await storeCellCapacity(
            capacity,
            ports.store,
            input as { run?: unknown },
            (result as { cellId: string }).cellId,
            await tablesOf(input as { run?: unknown; index?: number }),
          );
        return result;
      } catch (err) {
        if (nonFatal) warn(`${state}: ${(err as Error).message}`);
        else noteFailedState(state, progress);
        out(`  [${state}] failed: ${(err as Error).message}`);
        throw err;
      }
    };
  }
  return handlers;
}

/** The state whose failure fails the run: the latest to fail (a failing teardown after it is not that state). */
function noteFailedState(state: TaskStateName, progress: RunProgress): void {
  if (state !== 'TeardownAfterFailure' || progress.failedState === undefined) progress.failedState = state;
}

/** A cell's failure the policy absorbed (retry, skip) no longer fails the run; it is listed in the result. */
function noteCellFailure(r: CellFailedResult, progress: RunProgress, out: (l: string) => void): void {
  const line = `${r.cellId} attempt ${r.attempt + (r.action === 'retry' ? 0 : 1)}: ${r.action} (${r.reason})`;
  progress.cellFailures.push(line);
  out(`  [CellFailed] ${line}`);
  if (r.action !== 'stop') progress.failedState = undefined;
}

/** Runs the state machine locally; a failed or aborted run is torn down as the abort rule does on AWS. */
async function execute(args: {
  o: LocalRunOptions;
  definition: ReturnType<typeof localDefinition>;
  runSpec: RunSpec;
  runName: string;
  handlers: Record<string, (input: unknown) => Promise<unknown>>;
  ports: Ports;
  progress: RunProgress;
  out: (l: string) => void;
  finish: (status: LocalRunResult['status'], error?: string) => Promise<LocalRunResult>;
}): Promise<LocalRunResult> {
  const { o, definition, runName, progress, out, finish } = args;
  const { StateMachine } = await import('aws-local-stepfunctions');
  const machine = new StateMachine(definition as never);
  const input = o.resume ? { resume: o.resume } : { spec: args.runSpec };
  const execution = machine.run(input as never, {
    overrides: {
      taskResourceLocalHandlers: args.handlers as never,
      ...(o.fastRetries ? { retryIntervalOverrides: { TeardownAfterFailure: 0, TeardownTarget: 0 } } : {}),
      // Wait states poll every LOCAL_POLL_MS here: the deployed machine waits out each phase's expected
      // length (JVM start-up allowance included) to save state transitions, which cost nothing locally.
      waitTimeOverrides: Object.fromEntries(
        allStates(definition)
          .filter(([, st]) => st.Type === 'Wait')
          .map(([name]) => [name, o.waitMs ?? LOCAL_POLL_MS]),
      ),
    },
    context: {
      Execution: { Name: runName, Id: `arn:aws:states:local:000000000000:execution:fleetbench:${runName}` },
      StateMachine: { Id: 'arn:aws:states:local:000000000000:stateMachine:fleetbench', Name: 'fleetbench' },
    },
  });
  const onAbort = () => execution.abort();
  o.signal?.addEventListener('abort', onAbort);
  // stopped while the local services started (before this listener): a listener added after abort() never fires
  if (o.signal?.aborted) onAbort();
  try {
    await execution.result;
    return await finish('SUCCEEDED');
  } catch (err) {
    // As on AWS, where the EventBridge rule on ABORTED / FAILED / TIMED_OUT runs teardown (Catch does
    // not run on abort, and a teardown that itself failed gets another chance): idempotent.
    const aborted = o.signal?.aborted === true;
    const status = aborted ? 'ABORTED' : 'FAILED';
    if (aborted) out('  aborted: tearing down');
    await teardown(
      {
        executionName: runName,
        status,
        error: {
          Error: progress.failedState ?? (aborted ? 'Aborted' : 'States.Runtime'),
          Cause: aborted ? 'Ctrl-C' : (err as Error).message,
        },
      },
      args.ports,
    ).catch((e: unknown) => out(`  teardown after ${status.toLowerCase()} failed: ${(e as Error).message}`));
    if (aborted) return finish('ABORTED', 'aborted by the user');
    return finish('FAILED', (err as Error).message);
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/** The run's result (local-result.json) and its HTML report, whatever the outcome. */
async function finishRun(args: {
  store: FsStore;
  resultsDir: string;
  runId: string;
  status: LocalRunResult['status'];
  error?: string;
  progress: RunProgress;
  out: (l: string) => void;
}): Promise<LocalRunResult> {
  const { store, resultsDir, runId, status, error, progress } = args;
  const result: LocalRunResult = {
    runId,
    status,
    resultsDir,
    ...(error ? { error } : {}),
    ...(progress.failedState ? { failedState: progress.failedState } : {}),
    ...(progress.warnings.length ? { warnings: progress.warnings } : {}),
    ...(progress.cellFailures.length ? { cellFailures: progress.cellFailures } : {}),
  };
  try {
    result.reportFile = await writeRunReport(store, resultsDir, runId, status);
  } catch (err) {
    args.out(`  no report: ${(err as Error).message}`);
  }
  mkdirSync(path.join(resultsDir, 'runs', runId), { recursive: true });
  writeFileSync(path.join(resultsDir, 'runs', runId, 'local-result.json'), JSON.stringify(result, null, 2));
  return result;
}

/**
 * The capacity emulator in front of DynamoDB Local for the run's DynamoDB tables (on unless
 * `local.capacityEmulation` is false), with every limit × `local.capacityScale`.
 */
async function startCapacityEmulator(
  spec: RunSpec,
  runId: string,
  upstream: string,
  out: (line: string) => void,
): Promise<CapacityProxy | undefined> {
  const scale = spec.local?.capacityScale ?? 1;
  const tables = spec.targets.flatMap((t) => {
    const c = kindOf(t).localCapacity?.(spec, t, scale);
    return c ? [{ name: tableName(spec, t, runId), ...c }] : [];
  });
  if (!tables.length || spec.local?.capacityEmulation === false) return undefined;
  const timeScale = spec.local?.timeScale;
  const proxy = await startCapacityProxy({ upstream, ...(timeScale !== undefined ? { timeScale } : {}) });
  for (const t of tables)
    proxy.setTable(t.name, {
      model: t.model,
      keyAttribute: t.keyAttribute,
      compositeKey: t.compositeKey ?? null,
    });
  out(
    `  DynamoDB capacity emulator on ${proxy.endpoint} (limits × ${scale}` +
      `${timeScale !== undefined ? `, time ÷ ${timeScale}` : ''}; docs/dynamodb-model.md)`,
  );
  return proxy;
}

/** `--results` names a directory, or nothing yet (it is created): a file there is refused. */
function assertResultsDirectory(resultsDir: string): void {
  let stat;
  try {
    stat = statSync(resultsDir);
  } catch {
    return; // created by claimRunDirectory; a parent that is a file is refused there
  }
  if (!stat.isDirectory())
    throw new InputError([
      {
        path: '--results',
        message: `expected a directory (the results directory), found a file: ${resultsDir}`,
      },
    ]);
}

/** The refusal of a run id that already has a directory: its results would be overwritten, its cells mixed. */
function runExistsError(a: { resultsDir: string; runId: string; named: boolean }): InputError {
  const where = path.join(a.resultsDir, 'runs', a.runId);
  return new InputError([
    {
      path: '--name',
      message: a.named
        ? `expected a new run id, found run "${a.runId}" already in ${where} (a run under its id would overwrite ` +
          `its results and mix its cells with this run's): choose another --name; a failed run is carried on by ` +
          `\`fleetbench resume ${a.runId} --local\``
        : `expected a new run id, found run "${a.runId}" already in ${where}: another run of this spec started in ` +
          `the same second (the default run id is the spec's name and the UTC time to the second): start again, or ` +
          `give --name`,
    },
  ]);
}

/**
 * Creates the results directory and claims `runs/<runId>/` by creating it exclusively, so that of two runs given
 * one id (a `--name` used before, two runs in the same second) the second is refused; a resume carries on its own.
 */
function claimRunDirectory(a: { resultsDir: string; runId: string; resume: boolean; named: boolean }): void {
  const runs = path.join(a.resultsDir, 'runs');
  try {
    mkdirSync(runs, { recursive: true });
  } catch (err) {
    throw new InputError([
      {
        path: '--results',
        message:
          `expected a directory (the results directory), found that ${runs} cannot be created: ` +
          `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      },
    ]);
  }
  if (a.resume) return;
  try {
    mkdirSync(path.join(runs, a.runId));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw runExistsError(a);
    throw err;
  }
}

/** Removes a claimed run directory while it is still empty (a non-empty one is kept: something ran). */
function releaseRunDirectory(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or already gone: kept as it is
  }
}

export { runKey };
export { assertRunnable, checkLocalRun } from './run-checks';

/** How the agents reach the local secrets: the agent's Secrets Manager endpoint, and a region and keys the SDK asks for. */
function localSecretsEnv(endpoint: string): NodeJS.ProcessEnv {
  return {
    FLEETBENCH_SECRETS_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}
