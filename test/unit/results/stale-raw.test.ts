/**
 * A resumed run's cell writes its first attempt where the failed execution's did (runs/<id>/cells/<cell>/raw/): the
 * objects that execution left and the new attempt does not write again (a READ-ERROR.hdr when the new attempt had
 * no errors) stay under the prefix. The reader takes a process's files from its manifest (`files`, what the agent
 * uploaded: test/integration/agent-s3.test.ts checks the list against the objects), so they are not merged in: the
 * cell aggregates exactly as the same outputs without the leftovers (the real-YCSB fixture, read as it always was).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FsStore } from '../../../lib/local/fs-store';
import { readCell } from '../../../lib/core/results/input';
import { aggregateCell } from '../../../lib/core/results/aggregate';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'ycsb', 'fleet-small');
const opts = { warmupSeconds: 1, cooldownSeconds: 1, seriesSeconds: 1 };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-stale-raw-'));
  cpSync(FIXTURE, path.join(dir, 'raw'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const procDirs = () =>
  readdirSync(path.join(dir, 'raw')).flatMap((l) =>
    readdirSync(path.join(dir, 'raw', l)).map((p) => path.join(dir, 'raw', l, p)),
  );

/** Each manifest lists the objects of its directory, as the agent writes it (loader/agent/src/run-job.ts). */
function listFiles(): void {
  for (const d of procDirs()) {
    const file = path.join(d, 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...m, files: readdirSync(d).sort() }));
  }
}

/** The failed execution's leftovers: an error log two hours before the cell, and a text summary. */
function leaveStaleObjects(): void {
  const proc = path.join(dir, 'raw', 'loader-0', 'proc-0');
  const old = readFileSync(path.join(proc, 'READ-FAILED.hdr'), 'utf8')
    .replace(/StartTime: (\d+)\.(\d+)/, (_, s: string, f: string) => `StartTime: ${Number(s) - 7200}.${f}`)
    .replace('Logging for: READ-FAILED', 'Logging for: READ-ERROR');
  writeFileSync(path.join(proc, 'READ-ERROR.hdr'), old);
  writeFileSync(path.join(proc, 'summary.txt'), '[OVERALL], RunTime(ms), 1\n');
}

const view = (a: Awaited<ReturnType<typeof aggregateCell>>) => ({
  first: a.series[0]!.offsetSeconds,
  last: a.series.at(-1)!.offsetSeconds,
  buckets: a.series.length,
  failedOps: a.failedOps,
  p99: a.families.ALL!.intended.p99,
  ops: a.families.ALL!.intended.count,
});

it("a process's objects that its manifest does not list are not read: the cell aggregates as without them", async () => {
  const store = new FsStore(dir);
  const clean = view(await aggregateCell(await readCell(store, 'raw'), opts));
  listFiles();
  leaveStaleObjects();
  const input = await readCell(store, 'raw');
  expect(input.processes.flatMap((p) => p.problems)).toEqual([]);
  expect(input.processes[0]!.logs.map((l) => l.name)).not.toContain('READ-ERROR');
  expect(view(await aggregateCell(input, opts))).toEqual(clean);
  // the reader's view before the manifests listed their files: the leftover stretches the timeline by two hours
  expect(clean.first).toBeGreaterThan(-60);
});

it('without the list (older manifests, the fixture generator) every object of the directory is read', async () => {
  leaveStaleObjects();
  const input = await readCell(new FsStore(dir), 'raw');
  expect(input.processes[0]!.logs.map((l) => l.name)).toContain('READ-ERROR');
  const stretched = view(await aggregateCell(input, opts));
  expect(stretched.first).toBeLessThanOrEqual(-7000);
});

it('a file the manifest lists that is not in the store makes the cell incomplete, naming it', async () => {
  listFiles();
  rmSync(path.join(dir, 'raw', 'loader-1', 'proc-0', 'UPDATE.hdr'));
  const input = await readCell(new FsStore(dir), 'raw');
  expect(input.processes.flatMap((p) => p.problems)).toEqual([
    'loader-1/proc-0: manifest.json lists UPDATE.hdr, which is not in the store',
  ]);
});

it("a process slot holding only an earlier execution's output is missing for this execution, not read as its own", async () => {
  // the resumed execution's loader-1 uploaded nothing (lost); loader-0's processes wrote again over their slots
  for (const d of procDirs()) {
    const file = path.join(d, 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const execution = d.includes(`${path.sep}loader-1${path.sep}`) ? 'r1' : 'r1-resume';
    writeFileSync(file, JSON.stringify({ ...m, execution }));
  }
  const store = new FsStore(dir);
  const input = await readCell(store, 'raw', { execution: 'r1-resume' });
  const missing = input.processes.filter((p) => p.problems.length);
  expect(missing.map((p) => p.label).sort()).toEqual(
    procDirs()
      .filter((d) => d.includes(`${path.sep}loader-1${path.sep}`))
      .map((d) => path.relative(path.join(dir, 'raw'), d).split(path.sep).join('/'))
      .sort(),
  );
  expect(missing[0]!.problems[0]).toMatch(
    /no output of execution r1-resume \(the objects there are execution r1's/,
  );
  expect(missing.every((p) => p.logs.length === 0 && p.manifest === null)).toBe(true);
  // the cell is incomplete, naming the slot; the first execution itself reads all of them
  expect((await aggregateCell(input, opts)).incomplete.join('\n')).toMatch(/loader-1\/proc-0/);
  expect(
    (await readCell(store, 'raw', { execution: 'r1' })).processes.filter((p) => p.problems.length),
  ).toHaveLength(procDirs().length - missing.length);
  // a reader that expects no execution (the aggregate CLI over a directory) reads every process
  expect((await readCell(store, 'raw')).processes.flatMap((p) => p.problems)).toEqual([]);
});
