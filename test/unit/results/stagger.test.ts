/**
 * Staggered process starts: each process is measured from its own workload start + warm-up to its own end, and
 * the cell's ops/s is the sum of the processes' own rates. The fixture is real YCSB 0.17.0 output
 * (test/fixtures/ycsb/fleet-small: 2 loaders × 2 processes at ~250 ops/s each); a copy with loader-1 started 1 s
 * later (every timestamp of its logs and manifests moved) served the same load, so it must measure the same.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCellDir } from '../../../lib/local/cell-dir';
import { aggregateCell, type AggregateOptions } from '../../../lib/core/results/aggregate';
import { parseIntervalLog } from '../../../lib/core/hdr/log';
import { parseSummary } from '../../../lib/core/contract/summary';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');

/** A copy of the fixture, each workload start its first interval, loader-1's timestamps moved by `shiftMs`. */
function shiftedCopy(shiftMs: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `fleetbench-stagger-${shiftMs}-`));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  for (const loader of fs.readdirSync(dir)) {
    const shift = loader === 'loader-1' ? shiftMs : 0;
    for (const proc of fs.readdirSync(path.join(dir, loader))) {
      const d = path.join(dir, loader, proc);
      let first = Infinity;
      for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.hdr'))) {
        const text = fs
          .readFileSync(path.join(d, f), 'latin1')
          .replace(/^#\[StartTime: (\d+\.\d+)/m, (_, sec: string) => {
            return `#[StartTime: ${((Math.round(Number(sec) * 1000) + shift) / 1000).toFixed(3)}`;
          });
        fs.writeFileSync(path.join(d, f), text, 'latin1');
        for (const iv of parseIntervalLog(text, f).intervals) first = Math.min(first, iv.startMs);
      }
      const file = path.join(d, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { startMs: number; endMs: number };
      const moved = { ...m, startMs: m.startMs + shift, endMs: m.endMs + shift, workloadStartMs: first };
      fs.writeFileSync(file, JSON.stringify(moved));
    }
  }
  return dir;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function measure(shiftMs: number, options: AggregateOptions) {
  const dir = shiftedCopy(shiftMs);
  dirs.push(dir);
  return aggregateCell(await readCellDir(dir), options);
}

describe('a loader that started late is measured over its own window', () => {
  const cases: [string, AggregateOptions][] = [
    ['a run phase of 7 s, 1 s warm-up', { warmupSeconds: 1, durationSeconds: 7, targetOpsPerSec: 1000 }],
    ['2 s warm-up, 1 s cool-down', { warmupSeconds: 2, cooldownSeconds: 1, targetOpsPerSec: 1000 }],
  ];
  it.each(cases)(
    '%s: same good ops/s and attainment (within 0.5 %%) as all started together',
    async (_, o) => {
      const together = await measure(0, o);
      const late = await measure(1000, o);
      expect(together.goodOpsPerSec).toBeGreaterThan(900);
      expect(late.goodOpsPerSec / together.goodOpsPerSec).toBeCloseTo(1, 2);
      expect(Math.abs(late.goodOpsPerSec / together.goodOpsPerSec - 1)).toBeLessThan(0.005);
      expect(Math.abs(late.attainment! / together.attainment! - 1)).toBeLessThan(0.005);
      expect(Math.abs(late.achievedOpsPerSec / together.achievedOpsPerSec - 1)).toBeLessThan(0.005);
      // the same intervals counted, so the same operations and the same merged percentiles
      expect(late.goodOps).toBe(together.goodOps);
      expect(late.families.ALL.intended.p99).toBe(together.families.ALL.intended.p99);
      expect(late.incomplete).toEqual([]);
      // the series: bucket k holds each process's k-th bucket of its own window, so the in-window buckets agree
      const inWindow = (a: typeof late) =>
        a.series.filter((b) => b.inWindow).map((b) => [b.offsetSeconds, b.ops.READ?.count]);
      expect(inWindow(late)).toEqual(inWindow(together));
      expect(late.windowBuckets.map((b) => b.good)).toEqual(together.windowBuckets.map((b) => b.good));
    },
  );

  it('sums the processes’ own rates: each process’s operations ÷ its own span', async () => {
    const agg = await measure(1000, { warmupSeconds: 1, durationSeconds: 7, targetOpsPerSec: 1000 });
    // achieved ops/s × measured_seconds is the attempted operations (what the throttle-rate metric relies on)
    expect(agg.achievedOpsPerSec * agg.window.measuredSeconds).toBeCloseTo(agg.goodOps + agg.failedOps, 6);
    // each process counted its own window: from its JVM's start + the 1-s warm-up to its 7-s schedule's end (its
    // workload began a fraction of a second after its JVM); from the first counted interval to the last is ~1 s
    // more, loader-1 having started 1 s later: no rate is divided by that
    expect(agg.window.measuredSeconds).toBeGreaterThan(5);
    expect(agg.window.measuredSeconds).toBeLessThan(7);
    const spanMs = agg.window.measuredEndMs! - agg.window.measuredStartMs!;
    expect(spanMs - agg.window.measuredSeconds * 1000).toBeGreaterThan(900);
  });
});

describe('the sum of per-process rates against YCSB’s own throughput', () => {
  it('the fixture as recorded: achieved ops/s within 0.5 % of Σ YCSB Throughput(ops/sec) over a steady window', async () => {
    // YCSB's [OVERALL] Throughput(ops/sec) per process (successful + failed operations ÷ its own run time)
    let ycsb = 0;
    for (const loader of fs.readdirSync(FIXTURE))
      for (const proc of fs.readdirSync(path.join(FIXTURE, loader))) {
        const d = path.join(FIXTURE, loader, proc);
        const file = fs.existsSync(path.join(d, 'summary.json')) ? 'summary.json' : 'summary.txt';
        ycsb += parseSummary(fs.readFileSync(path.join(d, file), 'utf8'), file).throughput!;
      }
    expect(ycsb).toBeCloseTo(1192.7, 1);
    // the steady state: the first 2.5 s (ramp) and the last 2 s (the end's partial intervals) left out
    const agg = await aggregateCell(await readCellDir(FIXTURE), { warmupSeconds: 2.5, cooldownSeconds: 2 });
    expect(Math.abs(agg.achievedOpsPerSec / ycsb - 1)).toBeLessThan(0.005);
  });
});

describe('a process whose own window is empty', () => {
  it('makes the cell incomplete, naming it; every window empty is an error', async () => {
    // manifests: loader-0/proc-0 ran 8.979 s, loader-0/proc-1 8.780 s (JVM start to exit)
    const agg = await aggregateCell(await readCellDir(FIXTURE), { warmupSeconds: 8.5, cooldownSeconds: 0.3 });
    expect(agg.incomplete).toContain(
      'loader-0/proc-1: ran 8.78 s, within warm-up 8.5 s + cool-down 0.3 s: nothing of it measured',
    );
    expect(agg.incomplete).not.toContainEqual(expect.stringMatching(/^loader-0\/proc-0/));
    await expect(aggregateCell(await readCellDir(FIXTURE), { warmupSeconds: 9 })).rejects.toThrow(
      /warm-up 9 s and cool-down 0 s leave no measured window \(the longest process ran 8\.979 s\)/,
    );
  });
});
