import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { aggregateCell } from '../../../lib/core/results/aggregate';
import { readCellDir } from '../../../lib/local/cell-dir';
import { aggregateDocument } from '../../../lib/cli/commands/aggregate';

const ROOT = path.join(__dirname, '../../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'bin/fleetbench.js'), 'aggregate', ...args], {
    encoding: 'utf8',
  });

describe('fleetbench aggregate', () => {
  it('prints the JSON document for a cell', () => {
    const r = run(
      path.join(ROOT, 'test/fixtures/ycsb/fleet-small'),
      '--warmup-seconds',
      '3',
      '--target-ops',
      '1200',
      '--json',
    );
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc.ops)).toContain('Intended-UPDATE-FAILED');
    expect(Object.keys(doc.ops.READ).sort()).toEqual(
      ['count', 'max', 'mean', 'min', 'p50', 'p90', 'p95', 'p99', 'p999', 'p9999', 'throughput'].sort(),
    );
    expect(doc.statuses.READ.OK).toBeGreaterThan(0);
    expect(doc.attainment).toBeCloseTo(doc.goodOpsPerSec / 1200, 12);
    expect(doc.incomplete).toEqual([]);
  });

  it("ends each process's window where its schedule ended, as AggregateCell does (the drain left out)", async () => {
    const fixture = path.join(ROOT, 'test/fixtures/ycsb/fleet-small');
    // the pipeline's own figures: the plan's run phase of 7 s (test/unit/results/stagger.test.ts)
    const pipeline = aggregateDocument(
      await aggregateCell(await readCellDir(fixture), { warmupSeconds: 3, durationSeconds: 7 }),
    );
    const given = JSON.parse(
      run(fixture, '--warmup-seconds', '3', '--duration-seconds', '7', '--json').stdout,
    );
    expect(given).toEqual(JSON.parse(JSON.stringify(pipeline)));
    // the agent uploads each process's properties: maxexecutiontime gives the length
    const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-agg-'));
    try {
      cpSync(fixture, dir, { recursive: true });
      for (const l of readdirSync(dir))
        for (const p of readdirSync(path.join(dir, l)))
          writeFileSync(path.join(dir, l, p, 'process.properties'), 'threadcount=4\nmaxexecutiontime=7\n');
      const read = run(dir, '--warmup-seconds', '3', '--json');
      expect(read.stderr).toBe('');
      expect(JSON.parse(read.stdout)).toEqual(given);
      // without either, the windows run to the last intervals (a drain after the schedule would count): said so
      const without = run(fixture, '--warmup-seconds', '3', '--json');
      expect(without.stderr).toMatch(/no run-phase length .*the drain after its schedule included/);
      // processes that disagree: the length is asked for
      writeFileSync(path.join(dir, 'loader-0', 'proc-0', 'process.properties'), 'maxexecutiontime=9\n');
      const disagree = run(dir, '--json');
      expect(disagree.status).toBe(2);
      expect(disagree.stderr).toMatch(/--duration-seconds: the processes' maxexecutiontime differ/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 with a clear message for missing input and bad flags', () => {
    const r = run(path.join(ROOT, 'test/fixtures/ycsb/nope'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nope: no such directory/);
    const f = run(path.join(ROOT, 'test/fixtures/ycsb/fleet-small'), '--warmup-seconds', '-1');
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/--warmup-seconds: expected a number >= 0/);
  });
});
