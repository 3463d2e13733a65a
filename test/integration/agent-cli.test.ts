/**
 * The bundled agent (esbuild, as on a loader) run as a child process: exit codes, and SIGTERM to the
 * agent itself stops every JVM it started. Uses YCSB's own BasicDB (no database needed).
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsStore } from '../../lib/local/fs-store';
import { LoaderPaths, ensureLoaderBuilt } from '../../lib/build/maven';
import { buildAgent } from '../../loader/agent/build';
import { ProcessManifest } from '../../loader/agent/src/run-job';

jest.setTimeout(15 * 60_000);

let paths: LoaderPaths;
let root: string;
let agentJs: string;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-agent-cli-'));
  agentJs = await buildAgent(path.join(root, 'agent.js'));
});
afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runAgent(
  args: string[],
  onStderr?: (text: string, child: ReturnType<typeof spawn>) => void,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [agentJs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function writeJob(name: string, doc: Record<string, unknown>): Promise<string> {
  const file = path.join(root, `${name}.json`);
  await fs.writeFile(file, JSON.stringify(doc));
  return file;
}

const basicProps = { recordcount: 1000, operationcount: 2_000_000_000, target: 50, 'basicdb.verbose': false };
const jobDoc = (cell: string, over: Record<string, unknown> = {}) => ({
  runId: 'cli',
  cellId: cell,
  loaderIndex: 0,
  phase: 'run',
  durationSeconds: 600,
  statusIntervalSeconds: 1,
  db: 'site.ycsb.BasicDB',
  jvmArgs: ['-Xmx128m'],
  outputPrefix: `file://${root}/store/runs/cli/cells/${cell}/raw`,
  processes: [basicProps, basicProps],
  ...over,
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

test('a bad job exits 2 naming the fields, before any JVM starts', async () => {
  const file = await writeJob('bad', {
    ...jobDoc('bad'),
    phase: 'both',
    propertyFiles: ['missing.properties'],
  });
  const run = await runAgent([file, '--classpath', paths.ycsbClasspath]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('job.phase:');
  expect(run.stderr).toContain(
    `job.propertyFiles[0]: property file not found: ${path.join(root, 'missing.properties')}`,
  );
  expect(run.stderr).not.toMatch(/pid \d+/);
});

test('a missing bundle is an input error (exit 2)', async () => {
  const file = await writeJob('nobundle', jobDoc('nobundle'));
  const run = await runAgent([file, '--bundle', path.join(root, 'no-bundle')]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('--bundle:');
});

test('a failing process makes the agent exit 1 naming it', async () => {
  // YCSB cannot load an unknown DB class; it still exits 0 with an empty summary: the agent must notice.
  const file = await writeJob('fail', {
    ...jobDoc('fail', { durationSeconds: 30 }),
    db: 'dev.fleetbench.NoSuchDb',
    processes: [{ ...basicProps, operationcount: 200, target: 0 }],
  });
  const run = await runAgent([file, '--bundle', path.dirname(paths.bundleLibDir)]);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/agent: failed processes: proc-0 \(/);
  const result = JSON.parse(run.stdout.trim().split('\n').pop() as string);
  expect(result.ok).toBe(false);
  expect(result.failed).toEqual([{ process: 0, reason: 'no database calls were executed' }]);
});

test('SIGTERM to the agent stops every JVM, uploads what they left, exits 143', async () => {
  const file = await writeJob('sigterm', jobDoc('sigterm'));
  const pids: number[] = [];
  let sent = false;
  const run = await runAgent([file, '--classpath', paths.ycsbClasspath], (text, child) => {
    pids.splice(0, pids.length, ...[...text.matchAll(/proc-\d+ pid (\d+)/g)].map((m) => Number(m[1])));
    // wait until both JVMs run and report status, then stop the agent
    if (!sent && pids.length === 2 && (text.match(/ sec: \d+ operations;/g) ?? []).length >= 4) {
      sent = true;
      child.kill('SIGTERM');
    }
  });
  expect(sent).toBe(true);
  expect(run.code).toBe(143);
  expect(run.stderr).toContain('SIGTERM received');
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
  const store = new FsStore(path.join(root, 'store'));
  for (const j of [0, 1]) {
    const m = (await store.getJson(
      `runs/cli/cells/sigterm/raw/loader-0/proc-${j}/manifest.json`,
    )) as ProcessManifest;
    expect(m.killed).toBe('aborted');
    expect(m.error).toMatch(/^killed: the agent was stopped/);
  }
});
