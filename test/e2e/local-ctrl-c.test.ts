/**
 * Ctrl-C during `fleetbench run --local`: a terminal sends SIGINT to its whole foreground process group. The run
 * must end through its teardown (the run's tables deleted through DynamoDB Local, which therefore must not die with
 * the CLI's group), be recorded ABORTED, and be resumable: a resume needs the teardown's record. The CLI runs as its
 * own process group here and the signal goes to the group, as a terminal's does.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { runLocal } from '../../lib/local/runner';

jest.setTimeout(5 * 60_000);

const root = mkdtempSync(path.join(tmpdir(), 'fleetbench-ctrlc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const spec = {
  name: 'ctrlc',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.5], targetOpsPerSec: [50], durationSeconds: 15 },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
};

it('one Ctrl-C: the run is torn down (tables deleted), recorded ABORTED, and can be resumed', async () => {
  const specFile = path.join(root, 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const results = path.join(root, 'results');
  const cli = spawn(
    process.execPath,
    [
      path.resolve('bin/fleetbench.js'),
      'run',
      '--local',
      specFile,
      '--results',
      results,
      '--name',
      'ctrlc-1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let stdout = '';
  let stderr = '';
  cli.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  cli.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => cli.once('close', (code) => r(code)));
  // once the first cell's loader job is written, its workload runs: then the terminal's Ctrl-C
  const cells = path.join(results, 'runs', 'ctrlc-1', 'cells');
  const cellRunning = () =>
    existsSync(cells) && readdirSync(cells).some((c) => existsSync(path.join(cells, c, 'jobs')));
  for (let t = 0; t < 1800 && !cellRunning() && cli.exitCode === null; t++)
    await new Promise((r) => setTimeout(r, 100));
  expect(cellRunning()).toBe(true);
  await new Promise((r) => setTimeout(r, 2000));
  process.kill(-cli.pid!, 'SIGINT');
  const code = await exited;

  expect(stderr).toContain('stopping: tearing down');
  expect(stderr).not.toContain('stopping at once');
  expect(code).toBe(1);
  const run = path.join(results, 'runs', 'ctrlc-1');
  const result = JSON.parse(readFileSync(path.join(run, 'local-result.json'), 'utf8'));
  expect(result.status).toBe('ABORTED');
  // the teardown reached DynamoDB Local: the run's table deleted, nothing failed
  const teardown = JSON.parse(readFileSync(path.join(run, 'teardown.json'), 'utf8'));
  expect(teardown.deletedTables).toHaveLength(1);
  expect(teardown.deletedTables[0]).toMatch(/ctrlc-1$/);
  expect(teardown.terminated).toHaveLength(1);
  expect(stdout + stderr).not.toMatch(/ECONNREFUSED|teardown after aborted failed|teardown incomplete/);

  // the resume is accepted (refused without the teardown's record) and measures the aborted cell
  const resume = spawn(
    process.execPath,
    [path.resolve('bin/fleetbench.js'), 'resume', 'ctrlc-1', '--local', '--results', results],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let rout = '';
  resume.stdout!.on('data', (b: Buffer) => (rout += b.toString()));
  resume.stderr!.on('data', (b: Buffer) => (rout += b.toString()));
  const rcode = await new Promise<number | null>((r) => resume.once('close', (c) => r(c)));
  expect(rout).not.toMatch(/has not been torn down/);
  expect(rcode).toBe(0);
  expect(rout).toMatch(/SUCCEEDED/);
});

it('a Ctrl-C while the local services start: the run stops there (ABORTED, torn down), no cell runs', async () => {
  const stop = new AbortController();
  stop.abort();
  const results = path.join(root, 'early');
  const lines: string[] = [];
  const r = await runLocal({
    spec: validateSpec(spec).spec,
    resultsDir: results,
    runName: 'ctrlc-early',
    signal: stop.signal,
    out: (l) => lines.push(l),
  });
  expect(r.status).toBe('ABORTED');
  const run = path.join(results, 'runs', 'ctrlc-early');
  expect(existsSync(path.join(run, 'teardown.json'))).toBe(true);
  expect(existsSync(path.join(run, 'cells'))).toBe(false);
});
