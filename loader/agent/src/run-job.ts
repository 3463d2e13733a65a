/**
 * Runs one job: P YCSB JVMs side by side, live progress, a hard deadline, and the upload of every
 * process's raw outputs. Used by the agent's CLI (on a loader, or as a child process of the local
 * mode) and in-process by the local runner.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { MetricsSink } from '../../../lib/core/common/ports';
import { ObjectStore, joinKey, splitObjectUri } from '../../../lib/core/common/store';
import { Job, validateJob } from './job';
import type { JobCredentials } from '../../../lib/core/contract/job';
import { bindingOf } from '../../../lib/core/contract/bindings';
import {
  ProgressContext,
  ProgressReport,
  ProgressTracker,
  formatEmf,
  formatPlain,
  progressMetrics,
} from './progress';
import { toPropertiesText } from './properties';
import { CpuWatch } from './cpu';
import type { ManifestCpu } from '../../../lib/core/contract/manifest';
import type { ProcessManifest } from '../../../lib/core/contract/manifest';
import {
  operationCounts,
  parseSummary,
  returnCounts,
  type YcsbSummary,
} from '../../../lib/core/contract/summary';
import { judgeProcess, opTotals, parseStatusLine } from './ycsb-output';

/** site.ycsb.Client behind fleetbench's pacing (loader/ycsb-binding: Launcher, OpenLoopWorkload). */
export const YCSB_MAIN_CLASS = 'dev.fleetbench.ycsb.Launcher';
export const JSON_ARRAY_EXPORTER = 'site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter';

export interface AgentDeps {
  /** The Java classpath holding YCSB core, HdrHistogram 2.1.12+ and the bindings (e.g. `<bundle>/lib/*`). */
  classpath: string;
  /** Opens the object store an URI names (S3 or a directory). */
  openStore: (uri: string) => ObjectStore;
  /** The java executable; default `$JAVA_HOME/bin/java` or `java`. */
  java?: string;
  /** Local scratch directory; default a fresh temporary one, removed after a successful upload. */
  workDir?: string;
  keepWorkDir?: boolean;
  /** Progress lines (stdout on a loader). */
  out?: (line: string) => void;
  /** The agent's log (stderr on a loader). */
  log?: (line: string) => void;
  /** `emf` prints CloudWatch Embedded Metric Format documents instead of plain lines. */
  progressFormat?: 'plain' | 'emf';
  /** Also sends each progress report as metrics (CloudWatch on a loader); a failure is logged, never fatal. */
  metrics?: MetricsSink;
  /** Aborting kills every JVM (SIGTERM, then SIGKILL) and uploads what they left. */
  signal?: AbortSignal;
  host?: string;
  /** Extra environment for the JVMs (e.g. AWS credentials for DynamoDB Local). */
  env?: NodeJS.ProcessEnv;
  /** Fetches a Secrets Manager secret's string (jobs with `credentials`). */
  fetchSecret?: (secretArn: string) => Promise<string>;
  /**
   * Run the JVMs as this user (uid/gid; the agent must be root): on a loader the unprivileged
   * `fleetbench-ycsb` (FLEETBENCH_RUN_AS), so a custom binding's code does not run as root. The work
   * directory is handed to the user; the agent reads what the JVMs wrote and uploads it.
   */
  runAs?: { uid: number; gid: number };
  /** Called when a JVM has started (tests use it to watch pids). */
  onSpawn?: (proc: number, pid: number) => void;
}

/**
 * The secret (a JSON object whose fields the binding's descriptor names, lib/core/contract/bindings.ts:
 * `{"accessKeyId", "secretAccessKey", "sessionToken"?}` for DynamoDB-API endpoints, `{"username",
 * "password"}` for CQL) as the JVMs' environment. Errors name the fields, never values.
 */
export async function credentialEnv(
  credentials: JobCredentials,
  fetchSecret: ((arn: string) => Promise<string>) | undefined,
): Promise<Record<string, string>> {
  if (!fetchSecret)
    throw new Error('job.credentials: this agent cannot fetch secrets (no Secrets Manager client)');
  let text: string;
  try {
    text = await fetchSecret(credentials.secretArn);
  } catch (err) {
    throw new Error(
      `job.credentials.secretArn: cannot read ${credentials.secretArn}: ${(err as Error).message}`,
    );
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`job.credentials.secretArn: the secret ${credentials.secretArn} is not a JSON object`);
  }
  const { env, required, asProperties } = bindingOf(credentials.binding).secret;
  const str = (k: string): string | undefined =>
    typeof doc[k] === 'string' && doc[k] !== '' ? (doc[k] as string) : undefined;
  const missing = required.filter((k) => !str(k));
  if (missing.length)
    throw new Error(
      `job.credentials.secretArn: the secret ${credentials.secretArn} lacks ${missing.map((m) => `"${m}"`).join(', ')} (a ${credentials.binding} secret has ${required.join(' and ')})`,
    );
  if (asProperties) {
    // a user's binding: every string field is one of its properties (loader/ycsb-binding IsolatedDb)
    const props = Object.fromEntries(Object.keys(doc).flatMap((k) => (str(k) ? [[k, str(k)!]] : [])));
    return { [asProperties]: toPropertiesText(props) };
  }
  return Object.fromEntries(
    Object.entries(env).flatMap(([field, variable]) => (str(field) ? [[variable, str(field)!]] : [])),
  );
}

/** The manifest's schema and type are the results reader's too: lib/core/contract/manifest.ts. */
export type { ProcessManifest };

export interface JobResult {
  ok: boolean;
  outputPrefix: string;
  failed: { process: number; reason: string }[];
  manifests: ProcessManifest[];
}

/** Every JVM any job in this Node process has started and that has not exited yet. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last line of defence: whatever way this process ends, no JVM outlives it.
  process.once('exit', () => {
    for (const c of liveChildren) {
      try {
        c.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export function defaultJava(): string {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

interface Running {
  index: number;
  dir: string;
  command: string[];
  child: ChildProcess;
  startMs: number;
  endMs?: number;
  /** when YCSB's workload began: its first status line, less the seconds it reports (epoch ms) */
  workloadStartMs?: number;
  exitCode: number | null;
  signal: string | null;
  killed: 'deadline' | 'aborted' | null;
  startError?: string;
  done: Promise<void>;
}

/** Runs a job document (validated here again, so in-process callers get the same checks). */
export async function runJob(jobDoc: unknown, depsIn: AgentDeps): Promise<JobResult> {
  let deps = depsIn;
  const job: Job = await validateJob(jobDoc);
  if (!deps.classpath) throw new Error('runJob: deps.classpath is empty (build the loader bundle first)');
  const log = deps.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const out = deps.out ?? ((l: string) => process.stdout.write(l + '\n'));
  const host = deps.host ?? os.hostname();
  const store = deps.openStore(job.outputPrefix);
  const tag = `loader-${job.loaderIndex}`;
  if (job.credentials) {
    // fetched before any JVM starts; the values go to the JVMs' environment only
    const env = await credentialEnv(job.credentials, deps.fetchSecret);
    deps = { ...deps, env: { ...deps.env, ...env } };
    log(`[${tag}] credentials from ${job.credentials.secretArn} (${Object.keys(env).join(', ')})`);
  }

  const ownWorkDir = !deps.workDir;
  const workDir =
    deps.workDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), `fleetbench-agent-${job.runId}-`)));
  installExitHook();
  const bindingDir = await fetchBindingJars(job, deps, workDir);
  if (deps.runAs) await fs.chown(workDir, deps.runAs.uid, deps.runAs.gid);
  if (bindingDir) log(`[${tag}] binding ${job.db}: ${job.bindingJars!.length} jar(s) in ${bindingDir}`);

  const ctx: ProgressContext = {
    runId: job.runId,
    cellId: job.cellId,
    loaderIndex: job.loaderIndex,
    phase: job.phase,
    processCount: job.processes.length,
  };
  const emit = (r: ProgressReport): void => {
    out(deps.progressFormat === 'emf' ? formatEmf(ctx, r) : formatPlain(ctx, r));
    if (deps.metrics) {
      const m = progressMetrics(ctx, r);
      deps.metrics
        .put(m.dimensions, m.data)
        .catch((err: unknown) => log(`agent: progress metrics not sent: ${(err as Error).message}`));
    }
  };

  const startAll = Date.now();
  const cpu = new CpuWatch();
  const tracker = new ProgressTracker(startAll);
  const procs: Running[] = [];
  let lastReport = startAll;
  const running = (): number => procs.filter((p) => p.endMs === undefined).length;
  const report = (): void => {
    lastReport = Date.now();
    emit(tracker.take(lastReport, running()));
  };

  for (let j = 0; j < job.processes.length; j++) {
    const dir = path.join(workDir, `proc-${j}`);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    const files = await writeProperties(job, j, dir, bindingDir);
    if (deps.runAs) await fs.chown(dir, deps.runAs.uid, deps.runAs.gid);
    const command = [
      ...job.jvmArgs,
      '-cp',
      deps.classpath,
      YCSB_MAIN_CLASS,
      '-db',
      job.db,
      '-s',
      ...files.flatMap((f) => ['-P', f]),
      job.phase === 'load' ? '-load' : '-t',
    ];
    const started = startProcess(
      j,
      dir,
      deps.java ?? defaultJava(),
      command,
      deps,
      log,
      tag,
      tracker,
      running,
      report,
    );
    procs.push(started);
    if (started.child.pid !== undefined) {
      cpu.track(j, started.child.pid);
      started.child.once('exit', () => cpu.exited(j));
    }
  }
  log(`[${tag}] started ${procs.length} YCSB process(es) for ${job.phase} of ${job.runId}/${job.cellId}`);

  // Progress: a report once every running process has a fresh status line, or after 1.5 intervals.
  const intervalMs = job.statusIntervalSeconds * 1000;
  const ticker = setInterval(
    () => {
      if (Date.now() - lastReport >= intervalMs * 1.5 && tracker.freshCount() > 0) report();
    },
    Math.min(1000, intervalMs / 2),
  );

  // Deadline and abort: SIGTERM every running JVM, SIGKILL after killAfterSeconds.
  const killTimers: NodeJS.Timeout[] = [];
  const killAll = (why: 'deadline' | 'aborted'): void => {
    const victims = procs.filter((p) => p.endMs === undefined);
    if (!victims.length) return;
    log(
      `[${tag}] ${why === 'deadline' ? 'deadline reached' : 'stopping'}: SIGTERM to ${victims.map((p) => `proc-${p.index}`).join(', ')}`,
    );
    for (const p of victims) {
      p.killed ??= why;
      p.child.kill('SIGTERM');
    }
    killTimers.push(
      setTimeout(() => {
        for (const p of victims) {
          if (p.endMs === undefined) {
            log(`[${tag}] proc-${p.index} ignored SIGTERM: SIGKILL`);
            p.child.kill('SIGKILL');
          }
        }
      }, job.killAfterSeconds * 1000),
    );
  };
  const deadlineMs = (job.durationSeconds + job.graceSeconds) * 1000;
  const deadline = setTimeout(() => killAll('deadline'), deadlineMs);
  const onAbort = (): void => killAll('aborted');
  if (deps.signal?.aborted) onAbort();
  deps.signal?.addEventListener('abort', onAbort);

  try {
    await Promise.all(procs.map((p) => p.done));
  } finally {
    clearTimeout(deadline);
    clearInterval(ticker);
    for (const t of killTimers) clearTimeout(t);
    deps.signal?.removeEventListener('abort', onAbort);
    cpu.stop();
  }
  if (tracker.freshCount() > 0) report();

  // Judge and upload each process.
  const manifests: ProcessManifest[] = [];
  for (const p of procs) {
    const cpuOf = cpu.manifestCpu(p.index, (p.endMs ?? Date.now()) - p.startMs);
    manifests.push(await finishProcess(job, p, store, host, cpuOf));
  }
  const failed = manifests
    .filter((m) => m.error)
    .map((m) => ({ process: m.process, reason: m.error as string }));
  for (const f of failed) log(`[${tag}] proc-${f.process} FAILED: ${f.reason}`);
  for (const m of manifests) {
    if (!m.error)
      log(`[${tag}] proc-${m.process} ok: ${m.operations} operations in ${m.endMs - m.startMs} ms`);
  }
  if (ownWorkDir && !deps.keepWorkDir) await fs.rm(workDir, { recursive: true, force: true });
  return { ok: failed.length === 0, outputPrefix: store.uri, failed, manifests };
}

/** Writes the defaults file and the per-process file; returns every -P file in order. */
/**
 * A user's binding: its jars fetched from the store into a directory of their own (the Launcher loads them
 * in their own class loader); undefined when the job runs a built-in binding.
 */
async function fetchBindingJars(job: Job, deps: AgentDeps, workDir: string): Promise<string | undefined> {
  if (!job.bindingJars?.length) return undefined;
  const dir = path.join(workDir, 'binding');
  await fs.mkdir(dir, { recursive: true });
  const stores = new Map<string, ObjectStore>();
  for (const [k, uri] of job.bindingJars.entries()) {
    const { root, key } = splitObjectUri(uri, `job.bindingJars[${k}]`);
    let store = stores.get(root);
    if (!store) stores.set(root, (store = deps.openStore(root)));
    let bytes: Buffer;
    try {
      bytes = await store.get(key);
    } catch (err) {
      throw new Error(`job.bindingJars[${k}]: cannot read ${uri}: ${(err as Error).message}`);
    }
    const expected = job.bindingJarSha256?.[k];
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== expected)
      throw new Error(
        `job.bindingJars[${k}]: ${uri} has SHA-256 ${actual}, the job expects ${expected ?? 'none'}: ` +
          'the jar changed after the run was planned; refusing to run it',
      );
    // a jar per index: two jars of the same name from different places both stay (read-only to the JVMs)
    await fs.writeFile(path.join(dir, `${k}-${path.basename(key)}`), bytes, { mode: 0o444 });
  }
  return dir;
}

async function writeProperties(job: Job, j: number, dir: string, bindingDir?: string): Promise<string[]> {
  const props = job.processes[j];
  const defaults: Record<string, string | number> = {
    workload: 'site.ycsb.workloads.CoreWorkload',
    'measurement.interval': 'both',
  };
  const own: Record<string, string | number | boolean> = { ...props };
  // The AWS SDKs' endpoint variables (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html),
  // which the binding's SDK (2.25) does not read itself: a job that names no endpoint gets this one.
  const sdkEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB || process.env.AWS_ENDPOINT_URL;
  if (sdkEndpoint && !('dynamodb.endpoint' in props)) own['dynamodb.endpoint'] = sdkEndpoint;
  if (job.phase === 'run' && !('maxexecutiontime' in props))
    own.maxexecutiontime = Math.ceil(job.durationSeconds);
  Object.assign(own, {
    measurementtype: 'hdrhistogram',
    'hdrhistogram.fileoutput': true,
    'hdrhistogram.output.path': dir + path.sep,
    exporter: JSON_ARRAY_EXPORTER,
    exportfile: path.join(dir, 'summary.json'),
    'status.interval': job.statusIntervalSeconds,
    ...(bindingDir ? { 'fleetbench.binding.classpath': bindingDir } : {}),
  });
  const defaultsFile = path.join(dir, 'defaults.properties');
  const ownFile = path.join(dir, 'process.properties');
  await fs.writeFile(
    defaultsFile,
    toPropertiesText(defaults, 'fleetbench agent defaults (job property files override)'),
  );
  await fs.writeFile(
    ownFile,
    toPropertiesText(
      own,
      `fleetbench ${job.runId}/${job.cellId} loader-${job.loaderIndex} proc-${j} (${job.phase})`,
    ),
  );
  return [defaultsFile, ...job.propertyFiles, ownFile];
}

function startProcess(
  index: number,
  dir: string,
  java: string,
  command: string[],
  deps: AgentDeps,
  log: (l: string) => void,
  tag: string,
  tracker: ProgressTracker,
  running: () => number,
  report: () => void,
): Running {
  const env: NodeJS.ProcessEnv = { ...process.env, ...deps.env, ...(deps.runAs ? { HOME: dir } : {}) };
  // the secret's key pair without a session token: an inherited token would not belong to it
  if (deps.env?.AWS_ACCESS_KEY_ID && !deps.env.AWS_SESSION_TOKEN) delete env.AWS_SESSION_TOKEN;
  const child = spawn(java, command, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    ...(deps.runAs ? { uid: deps.runAs.uid, gid: deps.runAs.gid } : {}),
  });
  liveChildren.add(child);
  const p: Running = {
    index,
    dir,
    command: [java, ...command],
    child,
    startMs: Date.now(),
    exitCode: null,
    signal: null,
    killed: null,
    done: Promise.resolve(),
  };
  if (child.pid !== undefined) deps.onSpawn?.(index, child.pid);

  const stderrLog = createWriteStream(path.join(dir, 'stderr.log'));
  const stdoutLog = createWriteStream(path.join(dir, 'stdout.log'));
  // Listen now: the logs may finish before the child's 'close' event is handled.
  const logsClosed = Promise.all([stderrLog, stdoutLog].map(closedPromise));
  child.stderr?.pipe(stderrLog);
  child.stdout?.pipe(stdoutLog);
  const prefix = `[${tag}/proc-${index}]`;
  if (child.stderr) {
    readline.createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      const status = parseStatusLine(line);
      if (status) {
        p.workloadStartMs ??= Date.now() - status.elapsedSeconds * 1000;
        log(`${prefix} ${line}`);
        tracker.add(index, status);
        if (tracker.freshCount() >= running()) report();
      } else if (/Exception|Error|error:|Invalid|Could not|Missing property/.test(line)) {
        log(`${prefix} ${line}`);
      }
    });
  }
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      // spawn failure (e.g. java not found); 'close' may or may not follow
      p.startError = `cannot start ${java}: ${err.message}`;
      stderrLog.end(`agent: ${p.startError}\n`);
      stdoutLog.end();
      p.endMs ??= Date.now();
      liveChildren.delete(child);
      resolve();
    });
    child.once('close', (code, signal) => {
      if (p.startError) return resolve();
      p.exitCode = code;
      p.signal = signal;
      p.endMs ??= Date.now();
      liveChildren.delete(child);
      resolve();
    });
  });
  p.done = Promise.all([exited, logsClosed]).then(() => undefined);
  return p;
}

function closedPromise(s: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    s.once('finish', () => resolve());
    s.once('error', () => resolve());
  });
}

async function finishProcess(
  job: Job,
  p: Running,
  store: ObjectStore,
  host: string,
  cpu: ManifestCpu | undefined,
): Promise<ProcessManifest> {
  let summary: YcsbSummary | { error: string };
  try {
    summary = parseSummary(await fs.readFile(path.join(p.dir, 'summary.json'), 'utf8'), 'summary.json');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    summary = { error: e.code === 'ENOENT' ? 'summary.json was not written' : e.message };
  }
  const props = job.processes[p.index];
  const expectedInserts =
    job.phase === 'load' ? Number(props.insertcount ?? props.recordcount ?? Number.NaN) : undefined;
  const error = judgeProcess({
    phase: job.phase,
    exitCode: p.exitCode,
    signal: p.signal,
    killed: p.killed ?? undefined,
    startError: p.startError,
    summary,
    expectedInserts: Number.isFinite(expectedInserts) ? expectedInserts : undefined,
    maxErrorFraction: job.maxErrorFraction,
  });

  const names = (await fs.readdir(p.dir)).sort();
  const uploads = names.filter(
    (n) => n.endsWith('.hdr') || n === 'summary.json' || n === 'stderr.log' || n === 'process.properties',
  );
  if (names.includes('stdout.log') && (await fs.stat(path.join(p.dir, 'stdout.log'))).size > 0)
    uploads.push('stdout.log');
  const prefix = joinKey(`loader-${job.loaderIndex}`, `proc-${p.index}`);
  for (const n of uploads) await store.putFile(joinKey(prefix, n), path.join(p.dir, n));

  const ok = 'error' in summary ? undefined : summary;
  const counts = ok ? returnCounts(ok) : {};
  delete counts.CLEANUP;
  // every field of the schema the results reader parses it with (lib/core/contract/manifest.ts)
  const manifest = {
    runId: job.runId,
    cellId: job.cellId,
    execution: job.execution ?? null,
    loader: job.loaderIndex,
    process: p.index,
    phase: job.phase,
    host,
    pid: p.child.pid ?? null,
    command: p.command,
    exitCode: p.exitCode,
    signal: p.signal,
    killed: p.killed,
    startMs: p.startMs,
    workloadStartMs: p.workloadStartMs ?? null,
    endMs: p.endMs ?? Date.now(),
    counts,
    operations: ok ? opTotals(ok).operations : 0,
    measurements: ok ? operationCounts(ok) : {},
    files: [...uploads, 'manifest.json'],
    error: error ?? null,
    cpu: cpu ?? null,
  } satisfies Required<ProcessManifest>;
  // The manifest goes last: its presence means the process's upload is complete.
  await store.putJson(joinKey(prefix, 'manifest.json'), manifest);
  return manifest;
}
