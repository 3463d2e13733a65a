/**
 * A plan sized for fleets (#18): the stored plan is a run index plus one object per cell, so a step
 * reads the index, the spec and at most one cell — for seed 002's staircase (120 cells of 10 loaders × 10
 * processes) as for the smallest example. Sizes are measured on the objects the Plan step really writes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  cellPlanKey,
  estimateRunUsd,
  plan,
  planKey,
  readCellPlan,
  specKey,
} from '../../../lib/core/pipeline';
import { cellProcesses, planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { FsStore } from '../../../lib/local/fs-store';

const root = path.join(__dirname, '..', '..', '..');
const clock = { nowMs: () => Date.UTC(2026, 0, 1) };
const KB = 1024;
const examples = readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json'));
const readExample = (f: string): unknown => JSON.parse(readFileSync(path.join(root, 'examples', f), 'utf8'));

function filesUnder(dir: string): { file: string; bytes: number }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((file) => ({ file, bytes: statSync(file).size }));
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-plan-size-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('seed 002 staircase: `fleetbench plan --json` prints under 2 MB', () => {
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'bin', 'fleetbench.js'), 'plan', 'examples/scylla-vs-cassandra.json', '--json'],
    { encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  expect(r.status).toBe(0);
  const doc = JSON.parse(r.stdout) as { cells: unknown[] };
  expect(doc.cells).toHaveLength(120);
  expect(Buffer.byteLength(r.stdout)).toBeLessThan(2 * 1024 * KB);
});

it.each(examples)('%s: no stored plan object over 200 KB, no step reading over 1 MB', async (file) => {
  const store = new FsStore(dir);
  const run = await plan(
    { executionName: `size-${file.replace(/\W+/g, '-')}`, spec: readExample(file) },
    {
      store,
      clock,
      maxRunSeconds: 8 * 24 * 3600,
      estimateRunUsd,
      // the examples' binding jars (s3://your-bucket/…) are placeholders: a stand-in for their bytes
      readJar: async () => Buffer.from('a jar'),
    },
  );
  const objects = filesUnder(path.join(dir, 'runs', run.runId));
  // the index, the spec, the context and one object per cell
  expect(objects.filter((o) => o.file.includes(`${path.sep}plan${path.sep}cell-`))).toHaveLength(
    run.cellCount,
  );
  const largest = Math.max(...objects.map((o) => o.bytes));
  expect(largest).toBeLessThan(200 * KB);
  // StartCell, the heaviest reader: the run index, the spec and its one cell
  const size = (key: string) => statSync(path.join(dir, key)).size;
  const cells = Array.from({ length: run.cellCount }, (_, i) => size(cellPlanKey(run.runId, i)));
  expect(size(planKey(run.runId)) + size(specKey(run.runId)) + Math.max(...cells)).toBeLessThan(1024 * KB);
});

it('a stored cell holds what the planner planned, and its processes derive the same as from the plan', async () => {
  const store = new FsStore(dir);
  const spec = readExample('scylla-vs-cassandra.json');
  const run = await plan(
    { executionName: 'size-derive', spec },
    { store, clock, maxRunSeconds: 8 * 24 * 3600, estimateRunUsd },
  );
  const planned = planRun(validateSpec(spec).spec, { runId: run.runId });
  const stored = await readCellPlan(store, run.runId, 77);
  expect(stored).toEqual(planned.cells[77]);
  const procs = cellProcesses(stored);
  expect(procs).toHaveLength(10 * 10);
  // cell 77 is the Cassandra staircase's 18th step: 180,000 ops/s over 100 processes
  expect(stored.targetOpsPerSec).toBe(180_000);
  expect(procs.reduce((s, p) => s + Number(p.properties.target), 0)).toBe(180_000);
  expect(new Set(procs.map((p) => p.properties.target))).toEqual(new Set(['1800']));
  expect(procs[99]).toMatchObject({ loader: 9, process: 9 });
});
