/**
 * One workload per job on a loader. Step Functions retries a StartCell/StartLoad Task whose Lambda call failed in
 * a way where the function may already have run (`Lambda.ClientExecutionTimeoutException`,
 * `Lambda.SdkClientException`: https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html),
 * and the retry sends the same job to the same loader again. Without a guard the loader would then run two
 * agents on one job: twice the load on the target, both writing the same `loader-<i>/proc-<j>` keys.
 *
 * The guard, per job (its output prefix, loader index and phase, and the job document's reference: a cell's retry
 * writes under `retry-<n>/raw`, so it is another job), in a state directory of the loader:
 *   - `<key>.lock.<g>`: generation g of the job's lock, created exclusively (link(2) of a complete file: it
 *     appears whole or not at all) and holding the agent's pid, its start time (/proc/<pid>/stat field 22, so a
 *     reused pid is not taken for the agent) and the pids of the JVMs it started;
 *   - `<key>.done`: the outcome the lock's holder records when it ends (exit code, result, failed processes).
 * An agent that finds a done marker reports that outcome and runs nothing. One that finds a live holder waits for
 * its done marker (a stop signal meanwhile is passed on to the holder, unless the holder is stopping already),
 * then reports it. A lock whose holder is
 * dead without a done marker is stale: the agent kills the JVMs the dead holder left (Linux, where their identity
 * can be checked) and takes generation g+1 exclusively (of two agents taking over at once one wins; the other
 * waits on it), then runs.
 *
 * Node.js only (fs, process.kill(pid, 0), /proc): no system dependency, the same on a loader and in the local mode.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import type { Job } from './job';

/** The state directory's environment variable (the local fleet gives each fleet its own). */
export const STATE_DIR_ENV = 'FLEETBENCH_AGENT_STATE_DIR';

/** Default state directory: per user under the temporary directory (/tmp on a loader, a tmpfs on AL2023). */
export function defaultStateDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `fleetbench-agent-state-${uid}`);
}

/** What a job ended with, as its first agent recorded it; a later agent for the same job reports the same. */
export interface JobOutcome {
  exitCode: number;
  /** the result line's fields (null when the job ended in an error before it had a result) */
  ok: boolean | null;
  outputPrefix: string;
  failed: { process: number; reason: string }[];
  /** the error that ended the job, when it did not end with a result */
  error?: string;
  pid: number;
  finishedMs: number;
}

/** A process, by pid and (Linux) start time in clock ticks since boot. */
export interface ProcessId {
  pid: number;
  startTicks: string | null;
}

interface LockRecord extends ProcessId {
  host: string;
  job: {
    runId: string;
    cellId: string;
    phase: string;
    loaderIndex: number;
    outputPrefix: string;
    ref: string;
  };
  startedMs: number;
  /** the JVMs this holder started */
  children: ProcessId[];
  /** set when the holder got SIGINT/SIGTERM itself: a waiter then does not signal it again (a second signal would
   * make it exit at once, without uploading what its JVMs left) */
  stopping?: boolean;
}

/** The /proc/<pid>/stat start time (field 22) and state (field 3); null without /proc or without the process. */
function procStat(pid: number, procRoot = '/proc'): { state: string; startTicks: string } | null {
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // after the `)` that ends the command name (which may hold spaces): field 3 is index 0, field 22 index 19
  const rest = text
    .slice(text.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  return rest[19] === undefined ? null : { state: rest[0] ?? '', startTicks: rest[19] };
}

/** This process (or another, by pid) as a ProcessId. */
export function processId(pid = process.pid): ProcessId {
  return { pid, startTicks: procStat(pid)?.startTicks ?? null };
}

/**
 * Whether a recorded process still runs: it exists (kill(pid, 0); EPERM means it does, under another user), and
 * where /proc says, it is not a zombie and started when recorded (else its pid was reused).
 */
export function processAlive(p: ProcessId): boolean {
  try {
    process.kill(p.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  const st = procStat(p.pid);
  if (!st || st.state === 'Z') return false;
  return p.startTicks === null || st.startTicks === p.startTicks;
}

/** The key of a job in the state directory: its output location, loader, phase and document reference. */
export function jobKey(
  job: Pick<Job, 'outputPrefix' | 'loaderIndex' | 'phase' | 'execution'>,
  ref: string,
): string {
  return createHash('sha256')
    .update(JSON.stringify([job.outputPrefix, job.loaderIndex, job.phase, ref, job.execution ?? null]))
    .digest('hex')
    .slice(0, 32);
}

/** A job reference as one string whatever way it was given (a relative path becomes absolute). */
export function canonicalRef(ref: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) ? ref : path.resolve(ref);
}

/**
 * Creates the state directory (0700) or checks the one there: a directory of this user that no other user may
 * write to. A done marker planted by another user (a custom binding's JVMs run as one) would otherwise stand in for
 * a job's outcome.
 */
export function ensureStateDir(dir: string, field: string): string {
  const abs = path.resolve(dir);
  const bad = (message: string): InputError =>
    new InputError([{ path: field, message: `${abs} ${message}` }]);
  try {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw bad(`cannot be created: ${(err as Error).message}`);
  }
  const st = lstatSync(abs);
  if (!st.isDirectory()) throw bad('is not a directory (a symbolic link is refused too)');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    throw bad(`belongs to uid ${st.uid}, not to this agent's user (uid ${process.getuid()})`);
  if (st.mode & 0o022) throw bad(`may be written by other users (mode ${(st.mode & 0o777).toString(8)})`);
  return abs;
}

/** How long a stopped waiter leaves the holder to record that it is stopping too, before it passes the stop on. */
const STOP_GRACE_MS = 500;

export interface ClaimOptions {
  stateDir: string;
  job: Pick<Job, 'runId' | 'cellId' | 'phase' | 'loaderIndex' | 'outputPrefix'>;
  /** the job document's reference as the agent was given it */
  ref: string;
  log: (line: string) => void;
  /** aborted (SIGINT/SIGTERM) while waiting: SIGTERM to the holder, then wait for its outcome */
  signal?: AbortSignal;
  pollMs?: number;
  /** who takes the lock (default this process; tests stand in for another) */
  self?: ProcessId;
}

/** The lock this agent holds on its job: record the JVMs it starts, and the outcome when it ends. */
export class JobLock {
  constructor(
    private readonly file: string,
    private readonly doneFile: string,
    private readonly record: LockRecord,
  ) {}

  /** Records a JVM this agent started (a later agent kills it should this one die without an outcome). */
  addChild(pid: number): void {
    this.record.children.push(processId(pid));
    writeAtomic(this.file, this.record);
  }

  /** Records that this agent is stopping (a signal): an agent waiting on it does not pass its own stop on. */
  markStopping(): void {
    this.record.stopping = true;
    writeAtomic(this.file, this.record);
  }

  /** Records the job's outcome: from now on every agent given this job reports it instead of running. */
  finish(outcome: Omit<JobOutcome, 'pid' | 'finishedMs'>): void {
    writeAtomic(this.doneFile, { ...outcome, pid: this.record.pid, finishedMs: Date.now() });
  }
}

/** `run`: this agent runs the job; `outcome`: another agent ran it; `stopped`: stopped while waiting on another. */
export type Claim = { run: JobLock } | { outcome: JobOutcome } | { stopped: true };

/**
 * Takes the job's lock (`run`: this agent runs the workload), or returns the outcome of the agent that ran it or
 * runs it now (waiting for it to end).
 */
export async function claimJob(o: ClaimOptions): Promise<Claim> {
  const key = jobKey(o.job, o.ref);
  const base = path.join(o.stateDir, key);
  const doneFile = `${base}.done`;
  const self = o.self ?? processId();
  const pollMs = o.pollMs ?? 1000;
  const record: LockRecord = {
    ...self,
    host: os.hostname(),
    job: { ...pick(o.job), ref: o.ref },
    startedMs: Date.now(),
    children: [],
  };
  const what = `${o.job.phase} of ${o.job.runId}/${o.job.cellId} loader-${o.job.loaderIndex}`;
  let waitingOn: number | undefined;
  let forwarded = false;
  let abortSeenMs: number | undefined;
  for (;;) {
    const done = readJson<JobOutcome>(doneFile);
    if (done) {
      o.log(
        `agent: the ${what} was run on this loader by pid ${done.pid} (ended ${new Date(done.finishedMs).toISOString()}, ` +
          `exit ${done.exitCode}); reporting its outcome instead of running it again (${doneFile})`,
      );
      return { outcome: done };
    }
    const g = highestGeneration(o.stateDir, key);
    // a lock file appears whole (createExclusive): one that cannot be read is taken for stale
    const holder = g === undefined ? null : readJson<LockRecord>(`${base}.lock.${g}`);
    if (g === undefined || !holder || !processAlive(holder)) {
      // stopped while another agent ran the job: never start it afterwards
      if (o.signal?.aborted) return { stopped: true };
      if (g !== undefined) await takeOver(o.log, what, holder);
      const next = g === undefined ? 0 : g + 1;
      if (createExclusive(`${base}.lock.${next}`, record)) {
        // the holder may have recorded its outcome between the look above and this lock: never run twice
        const late = readJson<JobOutcome>(doneFile);
        if (late) return { outcome: late };
        return { run: new JobLock(`${base}.lock.${next}`, doneFile, record) };
      }
      continue; // another agent took that generation: wait on it
    }
    if (waitingOn !== holder.pid) {
      waitingOn = holder.pid;
      o.log(
        `agent: the ${what} already runs on this loader (pid ${holder.pid}, since ` +
          `${new Date(holder.startedMs).toISOString()}); waiting for it to end, then reporting its outcome`,
      );
    }
    if (o.signal?.aborted && !forwarded) {
      // a stop of both (a process group, a fleet's teardown) reaches the holder itself: give it a moment to say so
      abortSeenMs ??= Date.now();
      if (holder.stopping) forwarded = true;
      else if (Date.now() - abortSeenMs >= STOP_GRACE_MS) {
        forwarded = true;
        o.log(`agent: stopping, so stopping pid ${holder.pid} that runs this job (SIGTERM)`);
        signalProcess(holder, 'SIGTERM');
      }
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export interface EarlierJobsOptions {
  stateDir: string;
  job: Pick<Job, 'runId' | 'phase' | 'loaderIndex' | 'outputPrefix' | 'execution'>;
  /** this job's reference (canonicalRef): its file name names the loader (`<jobPrefix>/<instance id>.json`) */
  ref: string;
  log: (line: string) => void;
  /** how long an earlier job's agent is given to stop, upload and record its outcome before it is killed */
  stopWaitMs: number;
  /** this agent stopped meanwhile: stop waiting */
  signal?: AbortSignal;
  pollMs?: number;
}

/**
 * Before a job starts its JVMs: the run's earlier jobs on this loader that still run are stopped first. The pipeline
 * sends a loader one job at a time and moves on only once the previous one has ended or its command was cancelled
 * (CellFailed, a resumed execution); a cancel can miss a job's agent (a StartCell retried after a client-side
 * timeout sends a second command, and only the newest command's id is kept, so the cancel reaches the waiting second
 * agent while the first runs on). Its JVMs would then load the target beside this job's and distort its figures.
 * A live agent gets SIGTERM (it stops its JVMs, uploads what they left under its own prefix and records its outcome)
 * and is waited for, at most `stopWaitMs`; one still alive then is killed with its JVMs, as are the JVMs a dead agent
 * left. The loader is the job document's name: every job of an AWS loader is `<jobPrefix>/<instance id>.json`, a
 * local loader's `<slot id>.json`; jobs of other runs and other loaders (a local fleet's slots share a state
 * directory) are left alone. Returns the pids stopped.
 */
export async function stopEarlierJobs(o: EarlierJobsOptions): Promise<number[]> {
  const own = jobKey(o.job, o.ref);
  const loader = path.basename(o.ref);
  const pollMs = o.pollMs ?? 200;
  const stopped: number[] = [];
  for (const [key, g] of latestLocks(o.stateDir)) {
    if (key === own || existsSync(path.join(o.stateDir, `${key}.done`))) continue;
    const holder = readJson<LockRecord>(path.join(o.stateDir, `${key}.lock.${g}`));
    if (!holder || holder.job.runId !== o.job.runId || path.basename(holder.job.ref) !== loader) continue;
    const what = `${holder.job.phase} of ${holder.job.runId}/${holder.job.cellId} (${holder.job.outputPrefix})`;
    if (processAlive(holder)) {
      o.log(
        `agent: pid ${holder.pid} still runs the ${what} on this loader, an earlier job the pipeline has moved past ` +
          '(its command was cancelled or superseded); stopping it (SIGTERM) before this job starts',
      );
      if (!holder.stopping) signalProcess(holder, 'SIGTERM');
      const until = Date.now() + o.stopWaitMs;
      while (
        processAlive(holder) &&
        !existsSync(path.join(o.stateDir, `${key}.done`)) &&
        Date.now() < until
      ) {
        if (o.signal?.aborted) return stopped;
        await new Promise((r) => setTimeout(r, pollMs));
      }
      if (processAlive(holder) && !existsSync(path.join(o.stateDir, `${key}.done`))) {
        o.log(
          `agent: pid ${holder.pid} did not stop within ${Math.round(o.stopWaitMs / 1000)} s; killing it`,
        );
        signalProcess(holder, 'SIGKILL');
      }
      stopped.push(holder.pid);
    }
    await killOrphans(o.log, holder);
  }
  return stopped;
}

/** The JVMs an agent recorded that still run once it is gone (only where their identity can be checked). */
async function killOrphans(log: (l: string) => void, holder: LockRecord): Promise<void> {
  const orphans = holder.children.filter(processAlive);
  if (!orphans.length || holder.children.some((c) => c.startTicks === null)) return;
  log(`agent: killing the JVMs agent pid ${holder.pid} left (pids ${orphans.map((c) => c.pid).join(', ')})`);
  for (const c of orphans) signalProcess(c, 'SIGKILL');
  // SIGKILL is not instant: the new workload starts once the old one is gone (at most 10 s)
  for (let t = 0; t < 100 && orphans.some(processAlive); t++) await new Promise((r) => setTimeout(r, 100));
}

/** Each job key in the state directory with its highest lock generation. */
function latestLocks(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of safeReaddir(dir)) {
    const m = /^([0-9a-f]{32})\.lock\.(\d+)$/.exec(name);
    if (m) out.set(m[1]!, Math.max(out.get(m[1]!) ?? 0, Number(m[2])));
  }
  return out;
}

function pick(j: ClaimOptions['job']): Omit<LockRecord['job'], 'ref'> {
  return {
    runId: j.runId,
    cellId: j.cellId,
    phase: j.phase,
    loaderIndex: j.loaderIndex,
    outputPrefix: j.outputPrefix,
  };
}

/** A stale lock: its holder died without an outcome; its JVMs (if still running) would double the load. */
async function takeOver(log: (l: string) => void, what: string, holder: LockRecord | null): Promise<void> {
  if (!holder) {
    log(`agent: the lock of the ${what} cannot be read; taking it over`);
    return;
  }
  const orphans = holder.children.filter(processAlive);
  log(
    `agent: the lock of the ${what} is stale (pid ${holder.pid} is gone without recording an outcome); taking it over` +
      (orphans.length && !verifiable(holder)
        ? `; its JVM pids ${orphans.map((c) => c.pid).join(', ')} cannot be checked here and are left alone`
        : ''),
  );
  await killOrphans(log, holder);
}

/** Whether every JVM the agent recorded can be told from a process that reused its pid (Linux: /proc). */
const verifiable = (holder: LockRecord): boolean => holder.children.every((c) => c.startTicks !== null);

function signalProcess(p: ProcessId, sig: NodeJS.Signals): void {
  if (!processAlive(p)) return;
  try {
    process.kill(p.pid, sig);
  } catch {
    // gone meanwhile, or not ours to signal
  }
}

function highestGeneration(dir: string, key: string): number | undefined {
  let best: number | undefined;
  for (const name of safeReaddir(dir)) {
    const m = name.startsWith(`${key}.lock.`) ? /^\d+$/.exec(name.slice(key.length + 6)) : null;
    if (m) best = Math.max(best ?? 0, Number(m[0]));
  }
  return best;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Writes a complete file under a temporary name, then links it to `file`: false when `file` exists. */
function createExclusive(file: string, value: unknown): boolean {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/** Replaces a file whole (write, then rename): a reader sees the old or the new content, never a part. */
function writeAtomic(file: string, value: unknown): void {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  renameSync(tmp, file);
}
