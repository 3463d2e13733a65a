/**
 * A job delivered twice to one loader runs once (loader/agent/src/job-lock.ts): Step Functions retries StartCell
 * and StartLoad after Lambda errors where the function may already have sent its command, and the retry sends the
 * same job again. Real agents (the esbuild bundle, as on a loader) started as child processes on the same job, with
 * YCSB's own BasicDB (no database needed): one workload, and both agents end with its real outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FsStore } from '../../lib/local/fs-store';
import { LocalFleet } from '../../lib/local/fleet';
import { LoaderPaths, ensureLoaderBuilt } from '../../lib/build/maven';
import { parseManifest } from '../../lib/core/contract/manifest';
import { buildAgent } from '../../loader/agent/build';
import { processAlive, processId } from '../../loader/agent/src/job-lock';

jest.setTimeout(5 * 60_000);

let paths: LoaderPaths;
let root: string;
let agentJs: string;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-agent-once-'));
  agentJs = await buildAgent(path.join(root, 'agent.js'));
});
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

interface Agent {
  child: ChildProcess;
  stderr: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startAgent(jobFile: string): Agent {
  const child = spawn(process.execPath, [agentJs, jobFile, '--classpath', paths.ycsbClasspath], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FLEETBENCH_AGENT_STATE_DIR: path.join(root, 'state') },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, stderr: () => stderr, done };
}

/** The JVM pids an agent reports starting (`agent: proc-<j> pid <n>`). */
const jvmPids = (stderr: string): number[] =>
  [...stderr.matchAll(/proc-\d+ pid (\d+)/g)].map((m) => Number(m[1]));

const basic = { recordcount: 1000, operationcount: 2_000_000_000, target: 100, 'basicdb.verbose': false };
async function writeJob(cell: string, over: Record<string, unknown> = {}, attempt = 0): Promise<string> {
  const raw = attempt ? `retry-${attempt}/raw` : 'raw';
  const doc = {
    runId: 'once',
    cellId: cell,
    loaderIndex: 0,
    phase: 'run',
    durationSeconds: 2,
    statusIntervalSeconds: 1,
    db: 'site.ycsb.BasicDB',
    jvmArgs: ['-Xmx96m'],
    outputPrefix: `file://${root}/store/runs/once/cells/${cell}/${raw}`,
    processes: [basic, basic],
    ...over,
  };
  // the pipeline's layout: one job file per loader, rewritten by a retried StartCell (<cell>/jobs/<instance>.json)
  const file = path.join(root, 'jobs', `${cell}${attempt ? `-a${attempt}` : ''}`, 'i-0.json');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(doc));
  return file;
}

async function manifests(cell: string, raw = 'raw') {
  const store = new FsStore(path.join(root, 'store'));
  const keys = (await store.list(`runs/once/cells/${cell}/${raw}/`)).filter((k) =>
    k.endsWith('manifest.json'),
  );
  return Promise.all(keys.sort().map(async (k) => parseManifest((await store.get(k)).toString(), k)));
}

test('two agents given one job at once: one workload, both exit 0 with its result; a retry attempt runs', async () => {
  const file = await writeJob('ok');
  const retry = await writeJob('ok', {}, 1);
  const [a, b] = [startAgent(file), startAgent(file)];
  const [ra, rb] = await Promise.all([a.done, b.done]);
  // the pipeline retries a cell once its first attempt has ended
  const rc = await startAgent(retry).done;
  expect([ra.code, rb.code, rc.code]).toEqual([0, 0, 0]);
  // exactly one of the two started JVMs (P = 2); the other waited for it
  const [runner, waiter] = jvmPids(ra.stderr).length ? [ra, rb] : [rb, ra];
  expect(jvmPids(runner.stderr)).toHaveLength(2);
  expect(jvmPids(waiter.stderr)).toEqual([]);
  expect(waiter.stderr).toMatch(/already runs on this loader \(pid \d+|was run on this loader by pid \d+/);
  // the same result line
  const last = (s: string) => JSON.parse(s.trim().split('\n').pop()!) as { ok: boolean };
  expect(last(waiter.stdout)).toEqual(last(runner.stdout));
  expect(last(runner.stdout).ok).toBe(true);
  // one set of outputs: a manifest per process, written by the runner's JVMs
  const ms = await manifests('ok');
  expect(ms.map((m) => m.process)).toEqual([0, 1]);
  expect(ms.map((m) => m.pid).sort()).toEqual(jvmPids(runner.stderr).sort());
  expect(ms.every((m) => m.error === null && (m.operations ?? 0) > 0)).toBe(true);
  // the retry (attempt 1, its own output prefix) is another job: it ran its own JVMs
  expect(jvmPids(rc.stderr)).toHaveLength(2);
  expect((await manifests('ok', 'retry-1/raw')).map((m) => m.pid).sort()).toEqual(jvmPids(rc.stderr).sort());

  // a delivery after the end: the recorded outcome at once, nothing run
  const later = await startAgent(file).done;
  expect(later.code).toBe(0);
  expect(jvmPids(later.stderr)).toEqual([]);
  expect(later.stderr).toMatch(/was run on this loader by pid \d+ .*exit 0/);
  expect(last(later.stdout)).toEqual(last(runner.stdout));
});

test('two agents given one failing job at once: one workload, both exit 1 naming the failed process', async () => {
  // YCSB cannot load an unknown DB class: it executes no operation (the agent fails the process)
  const file = await writeJob('fail', {
    db: 'dev.fleetbench.NoSuchDb',
    processes: [{ ...basic, target: 0 }],
  });
  const [ra, rb] = await Promise.all([startAgent(file).done, startAgent(file).done]);
  expect([ra.code, rb.code]).toEqual([1, 1]);
  expect(jvmPids(ra.stderr).length + jvmPids(rb.stderr).length).toBe(1);
  for (const r of [ra, rb])
    expect(r.stderr).toMatch(/agent: failed processes: proc-0 \(no database calls were executed\)/);
  expect(await manifests('fail')).toHaveLength(1);
});

test('a lock whose agent died (SIGKILL) without an outcome is taken over: its JVMs are stopped, the job runs', async () => {
  const file = await writeJob('stale', { durationSeconds: 3 });
  const first = startAgent(file);
  // wait until the first agent runs both JVMs, then kill it the way nothing can catch
  for (let t = 0; t < 300 && jvmPids(first.stderr()).length < 2; t++)
    await new Promise((r) => setTimeout(r, 50));
  const orphans = jvmPids(first.stderr()).map((pid) => processId(pid));
  expect(orphans).toHaveLength(2);
  first.child.kill('SIGKILL');
  await first.done;
  // its JVMs outlive it (they would end only at their maxexecutiontime)
  expect(orphans.every(processAlive)).toBe(true);

  const second = await startAgent(file).done;
  expect(second.code).toBe(0);
  expect(second.stderr).toMatch(/is stale \(pid \d+ is gone without recording an outcome\); taking it over/);
  const own = jvmPids(second.stderr);
  expect(own).toHaveLength(2);
  if (orphans.every((o) => o.startTicks !== null)) {
    // Linux: the dead agent's JVMs were stopped before the new ones started, not left to double the load
    expect(second.stderr).toMatch(/killing the JVMs agent pid \d+ left/);
    expect(orphans.some(processAlive)).toBe(false);
  }
  const ms = await manifests('stale');
  expect(ms.map((m) => m.pid).sort()).toEqual(own.sort());
  expect(ms.every((m) => m.error === null)).toBe(true);
});

test('a retry attempt while the earlier attempt still runs (its cancel missed it): the earlier one is stopped first', async () => {
  const file = await writeJob('superseded', { durationSeconds: 60 });
  const retry = await writeJob('superseded', { durationSeconds: 1 }, 1);
  const first = startAgent(file);
  for (let t = 0; t < 300 && jvmPids(first.stderr()).length < 2; t++)
    await new Promise((r) => setTimeout(r, 50));
  const earlier = jvmPids(first.stderr()).map((pid) => processId(pid));
  expect(earlier).toHaveLength(2);
  let firstEndedMs = 0;
  first.child.once('exit', () => (firstEndedMs = Date.now()));
  const second = startAgent(retry);
  let retryJvmSeenMs = 0;
  const watch = setInterval(() => {
    if (!retryJvmSeenMs && jvmPids(second.stderr()).length) retryJvmSeenMs = Date.now();
  }, 10);
  const [r1, r2] = await Promise.all([first.done, second.done]);
  clearInterval(watch);
  // the earlier attempt was stopped as a SIGTERM stops an agent (its JVMs stopped, its outputs uploaded)
  expect(r1.code).toBe(143);
  expect(r2.code).toBe(0);
  expect(r2.stderr).toMatch(/still runs the run of once\/superseded .*stopping it \(SIGTERM\)/);
  expect(earlier.some(processAlive)).toBe(false);
  // ... before the retry's JVMs started: never two workloads on the loader at once
  expect(firstEndedMs).toBeGreaterThan(0);
  expect(retryJvmSeenMs).toBeGreaterThanOrEqual(firstEndedMs);
  const own = jvmPids(r2.stderr);
  expect(own).toHaveLength(2);
  expect((await manifests('superseded', 'retry-1/raw')).map((m) => m.pid).sort()).toEqual(own.sort());
});

test('local mode: a command sent twice to one slot runs one workload, both end Success; a new fleet runs it again', async () => {
  const file = await writeJob('local', { durationSeconds: 1 });
  const jobPrefix = pathToFileURL(path.dirname(file)).href;
  const logDir = path.join(root, 'local-agents');
  const fleetOf = () =>
    new LocalFleet({ bundleDir: path.dirname(paths.bundleLibDir), endpoint: 'http://127.0.0.1:9', logDir });
  const settle = async (fleet: LocalFleet, ids: string[]) => {
    for (let t = 0; t < 600; t++) {
      const inv = await fleet.status(ids);
      if (inv.every((i) => i.status !== 'InProgress' && i.status !== 'Pending')) return inv;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the local agents did not end');
  };
  const send = (fleet: LocalFleet) => fleet.send({ instanceIds: ['i-0'], jobPrefix, timeoutSeconds: 60 });
  const logs = async () => (await fs.readdir(logDir)).filter((f) => f.endsWith('.log')).sort();
  const pidsIn = async (names: string[]) =>
    (await Promise.all(names.map((n) => fs.readFile(path.join(logDir, n), 'utf8')))).map(jvmPids);

  // a retried StartCell: the same job file, a second command to the same loader while the first runs
  const fleet = fleetOf();
  const sent = [...(await send(fleet)), ...(await send(fleet))];
  const inv = await settle(fleet, sent);
  expect(inv.map((i) => i.status)).toEqual(['Success', 'Success']);
  const [p1, p2] = await pidsIn(await logs());
  expect([p1!.length, p2!.length].sort()).toEqual([0, 2]);

  // a resumed run's fleet (same slot id, same job): its own state, so the job runs again
  const again = fleetOf();
  const inv2 = await settle(again, await send(again));
  expect(inv2.map((i) => i.status)).toEqual(['Success']);
  // its command's log (the new fleet numbers its commands from 1 again: cmd-1-i-0.log is its own now)
  const [p3] = await pidsIn([`${inv2[0]!.commandId}-i-0.log`]);
  expect(p3).toHaveLength(2);
  expect((await manifests('local')).map((m) => m.pid).sort()).toEqual([...p3!].sort());
});
