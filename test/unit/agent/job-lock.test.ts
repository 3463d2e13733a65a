/**
 * The per-job lock of the loader agent (loader/agent/src/job-lock.ts) without a JVM: who runs a job, who waits for
 * whom, a stale lock, a retry attempt, and a state directory other users could write to. The agents' processes here
 * are real ones (this test's own, a child that has exited); the end-to-end check with two real agents and YCSB is
 * test/integration/agent-once.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import {
  canonicalRef,
  claimJob,
  ensureStateDir,
  jobKey,
  processAlive,
  processId,
  stopEarlierJobs,
  type ClaimOptions,
} from '../../../loader/agent/src/job-lock';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-joblock-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const job = (attempt = 0, loaderIndex = 0) => ({
  runId: 'r1',
  cellId: 'c1',
  phase: 'run' as const,
  loaderIndex,
  outputPrefix: `file:///store/runs/r1/cells/c1/${attempt ? `retry-${attempt}/` : ''}raw`,
});
const opts = (over: Partial<ClaimOptions> = {}): ClaimOptions & { lines: string[] } => {
  const lines: string[] = [];
  return {
    stateDir: dir,
    job: job(),
    ref: 's3://b/jobs/i-1.json',
    log: (l) => lines.push(l),
    pollMs: 20,
    lines,
    ...over,
  };
};
/** A pid that existed and is gone (a child that exited and was reaped). */
const deadPid = (): number => spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
const outcome = {
  exitCode: 1,
  ok: false,
  outputPrefix: 'file:///o',
  failed: [{ process: 1, reason: 'exited 1' }],
};

test('the first agent runs the job; one given the job while it runs waits, then reports its outcome', async () => {
  const first = await claimJob(opts());
  expect('run' in first).toBe(true);
  const second = opts();
  let settled = false;
  const waiting = claimJob(second).then((c) => {
    settled = true;
    return c;
  });
  await new Promise((r) => setTimeout(r, 200));
  // the holder (this process) is alive and has no outcome yet: the second neither runs nor returns
  expect(settled).toBe(false);
  expect(second.lines.join('\n')).toMatch(/already runs on this loader \(pid \d+/);
  if ('run' in first) first.run.finish(outcome);
  const got = await waiting;
  expect('outcome' in got && got.outcome).toMatchObject({ ...outcome, pid: process.pid });
  // a third delivery after the end: the recorded outcome at once
  const third = await claimJob(opts());
  expect('outcome' in third && third.outcome.exitCode).toBe(1);
});

test('of eight agents claiming one job at once exactly one runs it; the others report its outcome', async () => {
  const claims = Array.from({ length: 8 }, () => claimJob(opts()));
  const first = await Promise.race(claims);
  expect('run' in first).toBe(true);
  if ('run' in first) first.run.finish({ ...outcome, exitCode: 0, ok: true, failed: [] });
  const all = await Promise.all(claims);
  expect(all.filter((c) => 'run' in c)).toHaveLength(1);
  expect(all.filter((c) => 'outcome' in c && c.outcome.exitCode === 0)).toHaveLength(7);
});

test('an agent stopped while another runs the job passes the stop on and never runs it', async () => {
  // the holder: a real process that exits on SIGTERM
  const { spawn } = await import('node:child_process');
  const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((r) => holder.once('exit', (_c, sig) => r(sig)));
  await claimJob(opts({ self: processId(holder.pid!) }));
  const stop = new AbortController();
  const waiter = opts({ signal: stop.signal });
  const claim = claimJob(waiter);
  await new Promise((r) => setTimeout(r, 100));
  stop.abort();
  expect(await exited).toBe('SIGTERM');
  // the holder is gone without an outcome: a stopped agent does not take its lock over
  expect(await claim).toEqual({ stopped: true });
  expect(waiter.lines.join('\n')).toMatch(new RegExp(`stopping pid ${holder.pid} that runs this job`));
});

test('a waiter stopped together with the holder does not signal it again (it would exit without uploading)', async () => {
  const { spawn } = await import('node:child_process');
  const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    const held = await claimJob(opts({ self: processId(holder.pid!) }));
    if (!('run' in held)) throw new Error('the holder did not get the lock');
    held.run.markStopping();
    const stop = new AbortController();
    const waiter = opts({ signal: stop.signal });
    const claim = claimJob(waiter);
    stop.abort();
    await new Promise((r) => setTimeout(r, 800));
    expect(holder.exitCode).toBeNull();
    expect(holder.signalCode).toBeNull();
    held.run.finish({ ...outcome, exitCode: 143 });
    expect(await claim).toMatchObject({ outcome: { exitCode: 143 } });
    expect(waiter.lines.join('\n')).not.toMatch(/stopping pid/);
  } finally {
    holder.kill('SIGKILL');
  }
});

test('a stale lock (holder gone, no outcome) is taken over; a live one is not', async () => {
  const gone = { pid: deadPid(), startTicks: null };
  expect(processAlive(gone)).toBe(false);
  expect(processAlive(processId())).toBe(true);
  const dead = await claimJob(opts({ self: gone }));
  expect('run' in dead).toBe(true);
  const next = opts();
  const taken = await claimJob(next);
  expect('run' in taken).toBe(true);
  expect(next.lines.join('\n')).toMatch(new RegExp(`is stale \\(pid ${gone.pid} is gone`));
  // two generations of the lock, one outcome file to come
  const files = (await fs.readdir(dir)).sort();
  expect(files.map((f) => f.replace(/^[0-9a-f]{32}/, 'K'))).toEqual(['K.lock.0', 'K.lock.1']);
});

test('a pid reused by another process is not taken for the holder (Linux: start time)', async () => {
  const me = processId();
  if (me.startTicks === null) return; // no /proc here
  expect(processAlive({ pid: process.pid, startTicks: String(Number(me.startTicks) + 1) })).toBe(false);
});

test('a retry attempt, another loader or another job file is another job', () => {
  const ref = 's3://b/jobs/i-1.json';
  expect(jobKey(job(0), ref)).toBe(jobKey(job(0), ref));
  expect(jobKey(job(1), ref)).not.toBe(jobKey(job(0), ref));
  expect(jobKey(job(0, 1), ref)).not.toBe(jobKey(job(0), ref));
  expect(jobKey(job(0), 's3://b/jobs/i-2.json')).not.toBe(jobKey(job(0), ref));
  // a resumed run's execution (the same outputs, the same job file): its own job
  expect(jobKey({ ...job(0), execution: 'r1-resume-1' }, ref)).not.toBe(
    jobKey({ ...job(0), execution: 'r1' }, ref),
  );
  expect(canonicalRef('x/job.json')).toBe(path.resolve('x/job.json'));
  expect(canonicalRef('file:///a/job.json')).toBe('file:///a/job.json');
});

test('a state directory other users may write to, or a symbolic link, is refused with the field named', async () => {
  const open = path.join(dir, 'open');
  await fs.mkdir(open);
  await fs.chmod(open, 0o777);
  expect(() => ensureStateDir(open, '--state-dir')).toThrow(InputError);
  expect(() => ensureStateDir(open, '--state-dir')).toThrow(/--state-dir: .*may be written by other users/);
  const link = path.join(dir, 'link');
  await fs.symlink(dir, link);
  expect(() => ensureStateDir(link, 'FLEETBENCH_AGENT_STATE_DIR')).toThrow(/is not a directory/);
  const fresh = ensureStateDir(path.join(dir, 'a', 'b'), '--state-dir');
  expect((await fs.stat(fresh)).mode & 0o777).toBe(0o700);
});

describe('an earlier job of the run that still runs on this loader (its cancel missed it)', () => {
  /** A stand-in agent: a real process that exits on SIGTERM, or ignores it. */
  const agentProcess = async (ignoreTerm = false) => {
    const { spawn } = await import('node:child_process');
    const code = ignoreTerm
      ? "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"
      : 'setInterval(() => {}, 1000)';
    const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_c, sig) => r(sig)));
    await new Promise((r) => setTimeout(r, ignoreTerm ? 300 : 50)); // its handler is in place
    return { child, exited };
  };
  const earlier = async (holderPid: number, over: Partial<ClaimOptions> = {}) => {
    const held = await claimJob(opts({ self: processId(holderPid), ...over }));
    if (!('run' in held)) throw new Error('the earlier job did not get its lock');
    return held.run;
  };
  const later = (over: { ref?: string; runId?: string } = {}) => {
    const lines: string[] = [];
    return {
      lines,
      o: {
        stateDir: dir,
        job: { ...job(1), ...(over.runId ? { runId: over.runId } : {}) },
        ref: over.ref ?? 's3://b/jobs/i-1.json',
        log: (l: string) => lines.push(l),
        stopWaitMs: 2_000,
        pollMs: 20,
      },
    };
  };

  test('is stopped with SIGTERM and waited for before the new job starts', async () => {
    const { child, exited } = await agentProcess();
    try {
      await earlier(child.pid!);
      const next = later();
      expect(await stopEarlierJobs(next.o)).toEqual([child.pid]);
      expect(await exited).toBe('SIGTERM');
      expect(next.lines.join('\n')).toMatch(
        new RegExp(`pid ${child.pid} still runs the run of r1/c1 .*stopping it \\(SIGTERM\\)`),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('one that ignores SIGTERM is killed once the wait is over', async () => {
    const { child, exited } = await agentProcess(true);
    try {
      await earlier(child.pid!);
      const next = later();
      next.o.stopWaitMs = 400;
      await stopEarlierJobs(next.o);
      expect(await exited).toBe('SIGKILL');
      expect(next.lines.join('\n')).toMatch(/did not stop within 0 s; killing it/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test("another loader's job, another run's job and a job that has ended are left alone", async () => {
    const { child } = await agentProcess();
    try {
      const lock = await earlier(child.pid!);
      expect(await stopEarlierJobs(later({ ref: 's3://b/jobs/i-2.json' }).o)).toEqual([]);
      expect(await stopEarlierJobs(later({ runId: 'r2' }).o)).toEqual([]);
      lock.finish(outcome);
      expect(await stopEarlierJobs(later().o)).toEqual([]);
      expect(child.exitCode).toBeNull();
      expect(child.signalCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('the JVMs a dead earlier agent left are killed (Linux)', async () => {
    if (processId().startTicks === null) return; // no /proc here
    const { child: jvm, exited } = await agentProcess();
    try {
      const lock = await earlier(deadPid());
      lock.addChild(jvm.pid!);
      const next = later();
      expect(await stopEarlierJobs(next.o)).toEqual([]);
      expect(await exited).toBe('SIGKILL');
      expect(next.lines.join('\n')).toMatch(
        new RegExp(`killing the JVMs agent pid \\d+ left \\(pids ${jvm.pid}\\)`),
      );
    } finally {
      jvm.kill('SIGKILL');
    }
  });
});
