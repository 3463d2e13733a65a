/** runJob's failure paths that need no JVM: a bad job starts nothing; a JVM that cannot start is a failed process. */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { FsStore } from '../../../lib/local/fs-store';
import { runJob } from '../../../loader/agent/src/run-job';
import { parseManifest } from '../../../lib/core/contract/manifest';
import { agentMain, passwdUser } from '../../../loader/agent/src/main';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-runjob-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const job = (over: Record<string, unknown> = {}) => ({
  runId: 'r1',
  cellId: 'c1',
  loaderIndex: 2,
  phase: 'run',
  durationSeconds: 5,
  outputPrefix: `file://${dir}/store/runs/r1/cells/c1/raw`,
  processes: [{ operationcount: 1000 }, { operationcount: 1000 }],
  ...over,
});

test('a bad job is refused before any process starts or anything is written', async () => {
  const spawned: number[] = [];
  const err = await runJob(job({ phase: 'bench', propertyFiles: ['/nonexistent/x.properties'] }), {
    classpath: '/nonexistent/*',
    openStore: (u) => new FsStore(u),
    onSpawn: (j) => spawned.push(j),
    log: () => undefined,
    out: () => undefined,
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  expect((err as InputError).issues.map((i) => i.path)).toEqual(['job.phase', 'job.propertyFiles[0]']);
  expect(spawned).toEqual([]);
  await expect(fs.readdir(dir)).resolves.toEqual([]);
});

test('the CLI exits 2 on a bad job and names the field', async () => {
  const file = path.join(dir, 'job.json');
  const doc: Record<string, unknown> = job();
  delete doc.runId;
  await fs.writeFile(file, JSON.stringify(doc));
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  try {
    expect(await agentMain([file, '--classpath', '/nonexistent/*'])).toBe(2);
  } finally {
    spy.mockRestore();
  }
  expect(chunks.join('')).toContain('job.runId: required: expected string, found nothing');
});

test('a JVM that cannot start is a failed process with an uploaded manifest', async () => {
  const logs: string[] = [];
  const result = await runJob(job(), {
    classpath: '/nonexistent/*',
    java: path.join(dir, 'no-java-here'),
    openStore: (u) => new FsStore(u),
    log: (l) => logs.push(l),
    out: () => undefined,
  });
  expect(result.ok).toBe(false);
  expect(result.failed.map((f) => f.process)).toEqual([0, 1]);
  expect(result.failed[0].reason).toBe(
    `cannot start ${path.join(dir, 'no-java-here')}: spawn ${path.join(dir, 'no-java-here')} ENOENT`,
  );
  const store = new FsStore(path.join(dir, 'store'));
  // even a process that never started leaves a manifest the results reader accepts
  const key = 'runs/r1/cells/c1/raw/loader-2/proc-1/manifest.json';
  const m = parseManifest((await store.get(key)).toString('utf8'), key, { loader: 2, process: 1 });
  expect(m).toMatchObject({ loader: 2, process: 1, phase: 'run', exitCode: null, operations: 0 });
  expect(m.error).toContain('ENOENT');
  expect((await store.get('runs/r1/cells/c1/raw/loader-2/proc-1/stderr.log')).toString()).toContain(
    'cannot start',
  );
  expect(logs.some((l) => l.includes('proc-1 FAILED'))).toBe(true);
});

test('a process that ignores SIGTERM at the deadline is SIGKILLed and not left behind', async () => {
  // A stand-in for a hung JVM: a process that ignores SIGTERM (exec keeps the spawned pid).
  const stubborn = path.join(dir, 'stubborn-java');
  await fs.writeFile(
    stubborn,
    `#!/bin/sh\nexec "${process.execPath}" -e "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"\n`,
    { mode: 0o755 },
  );
  const pids: number[] = [];
  const logs: string[] = [];
  const result = await runJob(job({ durationSeconds: 2, graceSeconds: 0, killAfterSeconds: 1 }), {
    classpath: '/nonexistent/*',
    java: stubborn,
    openStore: (u) => new FsStore(u),
    onSpawn: (_j, pid) => pids.push(pid),
    log: (l) => logs.push(l),
    out: () => undefined,
  });
  expect(pids).toHaveLength(2);
  for (const m of result.manifests) {
    expect(m.killed).toBe('deadline');
    expect(m.signal).toBe('SIGKILL');
  }
  expect(result.failed.map((f) => f.reason)).toEqual([
    'killed at the deadline; no usable summary (summary.json was not written)',
    'killed at the deadline; no usable summary (summary.json was not written)',
  ]);
  expect(logs.filter((l) => /proc-\d ignored SIGTERM: SIGKILL/.test(l))).toHaveLength(2);
  for (const pid of pids) {
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }
});

test('a binding jar whose SHA-256 differs from the job is refused before any JVM starts', async () => {
  const jar = path.join(dir, 'store', 'bindings', 'b.jar');
  await fs.mkdir(path.dirname(jar), { recursive: true });
  await fs.writeFile(jar, 'the jar as planned');
  const planned = createHash('sha256').update('the jar as planned').digest('hex');
  await fs.writeFile(jar, 'the jar swapped after planning');
  const spawned: number[] = [];
  const err = await runJob(
    job({
      db: 'com.example.Db',
      bindingJars: [`file://${jar}`],
      bindingJarSha256: [planned],
    }),
    {
      classpath: '/nonexistent/*',
      java: path.join(dir, 'no-java-here'),
      openStore: (u) => new FsStore(u),
      onSpawn: (j) => spawned.push(j),
      log: () => undefined,
      out: () => undefined,
      workDir: path.join(dir, 'work'),
    },
  ).catch((e: unknown) => e);
  const actual = createHash('sha256').update('the jar swapped after planning').digest('hex');
  expect((err as Error).message).toBe(
    `job.bindingJars[0]: file://${jar} has SHA-256 ${actual}, the job expects ${planned}: ` +
      'the jar changed after the run was planned; refusing to run it',
  );
  expect(spawned).toEqual([]);
  await expect(fs.readdir(path.join(dir, 'work', 'binding'))).resolves.toEqual([]);
});

const rootOnly = process.getuid?.() === 0 ? test : test.skip;
rootOnly('with runAs the JVMs run as that user and can write their outputs', async () => {
  // a stand-in JVM that reports its uid and writes into its working directory (what YCSB's outputs need)
  const java = path.join(dir, 'id-java');
  await fs.writeFile(java, '#!/bin/sh\nid -u\nid -u > whoami.hdr\nexit 0\n', { mode: 0o755 });
  await fs.chmod(dir, 0o755); // the stand-in must be reachable by the user (a real java is)
  const nobody = { uid: 65534, gid: 65534 };
  const result = await runJob(job({ processes: [{ operationcount: 1 }] }), {
    classpath: '/nonexistent/*',
    java,
    runAs: nobody,
    openStore: (u) => new FsStore(u),
    log: () => undefined,
    out: () => undefined,
  });
  const store = new FsStore(path.join(dir, 'store'));
  const key = 'runs/r1/cells/c1/raw/loader-2/proc-0';
  expect((await store.get(`${key}/stdout.log`)).toString('utf8').trim()).toBe('65534');
  expect((await store.get(`${key}/whoami.hdr`)).toString('utf8').trim()).toBe('65534');
  expect(result.manifests[0]!.exitCode).toBe(0);
});

test('--run-as / FLEETBENCH_RUN_AS name a user of /etc/passwd; an unknown one is a bad input', () => {
  const passwd = 'root:x:0:0:root:/root:/bin/bash\nfleetbench-ycsb:x:991:990::/home/f:/sbin/nologin\n';
  expect(passwdUser('fleetbench-ycsb', passwd)).toEqual({ uid: 991, gid: 990 });
  const err = (() => {
    try {
      return passwdUser('nobody-here', passwd, 'FLEETBENCH_RUN_AS');
    } catch (e) {
      return e;
    }
  })() as InputError;
  expect(err).toBeInstanceOf(InputError);
  expect(err.issues).toEqual([
    { path: 'FLEETBENCH_RUN_AS', message: 'no user "nobody-here" in /etc/passwd' },
  ]);
});
