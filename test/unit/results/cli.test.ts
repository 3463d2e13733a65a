import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

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

  it('exits 2 with a clear message for missing input and bad flags', () => {
    const r = run(path.join(ROOT, 'test/fixtures/ycsb/nope'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nope: no such directory/);
    const f = run(path.join(ROOT, 'test/fixtures/ycsb/fleet-small'), '--warmup-seconds', '-1');
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/--warmup-seconds: expected a number >= 0/);
  });
});
