/**
 * The aggregator against HdrHistogram's own Java implementation (HistogramLogReader + Histogram.add),
 * on real YCSB 0.17.0 output: 2 loaders × 2 processes of a flaky BasicDB, ~9 one-second intervals per
 * log, READ/UPDATE with -FAILED, -THROTTLED and Intended- twins.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCellDir } from '../../lib/local/cell-dir';
import { aggregateCell, CellAggregate } from '../../lib/core/results/aggregate';
import { parseIntervalLog } from '../../lib/core/hdr/log';
import { oracleMerge, OracleMerge } from './oracle';

const DIR = path.join(__dirname, '../fixtures/ycsb/fleet-small');
const PERCENTILES = [
  '0',
  '0.1',
  ...Array.from({ length: 100 }, (_, i) => String(i + 1)),
  ...Array.from({ length: 9 }, (_, i) => `99.${i + 1}`),
  '99.95',
  '99.99',
  '99.999',
  '33.333333333333336',
];

/** Window computed here from the manifests, independently of the aggregator. */
function manifests(): { startMs: number; endMs: number }[] {
  const out = [];
  for (const l of fs.readdirSync(DIR)) {
    for (const p of fs.readdirSync(path.join(DIR, l))) {
      out.push(JSON.parse(fs.readFileSync(path.join(DIR, l, p, 'manifest.json'), 'utf8')));
    }
  }
  return out;
}

/**
 * Per (1 s bucket, name): the seconds the bucket's intervals cover, recomputed here from the logs' own
 * timestamps: per log, latest end − earliest start of its intervals starting in the bucket, averaged.
 */
function bucketSeconds(windowStartMs: number): Map<string, number> {
  const spans = new Map<string, number[]>();
  for (const l of fs.readdirSync(DIR)) {
    for (const p of fs.readdirSync(path.join(DIR, l))) {
      for (const f of fs.readdirSync(path.join(DIR, l, p)).filter((x) => x.endsWith('.hdr'))) {
        const file = path.join(DIR, l, p, f);
        const perBucket = new Map<number, [number, number]>();
        for (const iv of parseIntervalLog(fs.readFileSync(file, 'utf8'), file).intervals) {
          const b = Math.floor((iv.startMs - windowStartMs) / 1000);
          const s = perBucket.get(b);
          perBucket.set(
            b,
            s ? [Math.min(s[0], iv.startMs), Math.max(s[1], iv.endMs)] : [iv.startMs, iv.endMs],
          );
        }
        for (const [b, [from, to]] of perBucket) {
          const key = `${b}/${f.slice(0, -4)}`;
          spans.set(key, [...(spans.get(key) ?? []), (to - from) / 1000]);
        }
      }
    }
  }
  return new Map([...spans].map(([k, v]) => [k, v.reduce((a, b) => a + b, 0) / v.length]));
}

function compare(agg: CellAggregate, java: OracleMerge): void {
  const names = Object.keys(java.ops);
  expect(Object.keys(agg.ops).sort()).toEqual(names.sort());
  for (const name of names) {
    const j = java.ops[name];
    const t = agg.ops[name];
    const h = agg.histograms![name];
    expect({ name, count: t.count, min: t.min, max: t.max, mean: t.mean }).toEqual({
      name,
      count: j.count,
      min: j.min,
      max: j.max,
      mean: j.mean,
    });
    const ours = h.valuesAtPercentiles(PERCENTILES.map(Number));
    expect(Object.fromEntries(PERCENTILES.map((p, i) => [p, ours[i]]))).toEqual(j.percentiles);
    expect([t.p50, t.p90, t.p95, t.p99, t.p999, t.p9999]).toEqual(
      ['50', '90', '95', '99', '99.9', '99.99'].map((p) => j.percentiles[p]),
    );
  }
  expect(agg.intervalsCounted).toBe(java.inWindow);
  expect(agg.intervalsRead).toBe(java.intervals);
}

describe('merge equals HdrHistogram (Java) on real YCSB output', () => {
  const ms = manifests();
  const cellStart = Math.min(...ms.map((m) => m.startMs));
  const cellEnd = Math.max(...ms.map((m) => m.endMs));

  it('with a 3 s warm-up cut falling between intervals', async () => {
    const agg = await aggregateCell(await readCellDir(DIR), { warmupSeconds: 3, keepHistograms: true });
    expect(agg.window.startMs).toBe(cellStart + 3000);
    expect(agg.window.endMs).toBe(cellEnd);
    const java = oracleMerge(DIR, { fromMs: cellStart + 3000, toMs: cellEnd, percentiles: PERCENTILES });
    // the cut really removes intervals and keeps others
    expect(java.inWindow).toBeGreaterThan(0);
    expect(java.inWindow).toBeLessThan(java.intervals);
    compare(agg, java);
    expect(agg.incomplete).toEqual([]);
  });

  it('with warm-up and cool-down, and the 1 s time series bucket by bucket', async () => {
    const agg = await aggregateCell(await readCellDir(DIR), {
      warmupSeconds: 2.5,
      cooldownSeconds: 2,
      seriesSeconds: 1,
      keepHistograms: true,
    });
    const java = oracleMerge(DIR, {
      fromMs: cellStart + 2500,
      toMs: cellEnd - 2000,
      seriesMs: 1000,
      percentiles: PERCENTILES,
    });
    compare(agg, java);
    const seconds = bucketSeconds(agg.window.startMs);
    let buckets = 0;
    let empty = 0;
    let partial = 0;
    for (const [name, series] of Object.entries(java.series)) {
      for (const [b, s] of Object.entries(series)) {
        const bucket = agg.series.find((x) => x.offsetSeconds === Number(b));
        const sec = seconds.get(`${b}/${name}`)!;
        if (sec < 0.9) partial++;
        if (s.count === 0) {
          // no operations: no latency (null, not 0), and 0 ops/s over the time the logs covered
          expect(bucket?.ops[name]).toEqual({
            count: 0,
            opsPerSec: 0,
            seconds: expect.closeTo(sec, 12),
            p50: null,
            p99: null,
            max: null,
          });
          empty++;
          continue;
        }
        expect(bucket?.ops[name]).toEqual({
          count: s.count,
          opsPerSec: expect.closeTo(s.count / sec, 9),
          seconds: expect.closeTo(sec, 12),
          p50: s.percentiles['50'],
          p99: s.percentiles['99'],
          max: s.max,
        });
        buckets++;
      }
    }
    expect(buckets).toBeGreaterThan(50);
    // the fixture ends with a partial bucket (intervals of 0.047 s and 0.29 s) and holds empty ones
    expect(partial).toBeGreaterThan(0);
    expect(empty).toBeGreaterThan(0);
  });

  it("over the whole run, success + failure samples equal YCSB's own Return= totals", async () => {
    const agg = await aggregateCell(await readCellDir(DIR), {});
    for (const op of ['READ', 'UPDATE']) {
      const returns = Object.values(agg.statuses[op]).reduce((a, b) => a + b, 0);
      expect(agg.ops[op].count + agg.ops[`${op}-FAILED`].count).toBe(returns);
      expect(agg.ops[op].count).toBe(agg.statuses[op].OK);
    }
    expect(agg.goodOps).toBe(agg.statuses.READ.OK + agg.statuses.UPDATE.OK);
  });
});

describe('the drain after the schedule is left out, and what stays equals the Java merge', () => {
  it("cuts every process's intervals that start after its workload start + duration (0.5 s slack)", async () => {
    // a copy of the fixture whose manifests say when each workload began: all at the earliest interval start
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-drain-'));
    fs.cpSync(DIR, dir, { recursive: true });
    let first = Infinity;
    let lastStart = -Infinity;
    for (const l of fs.readdirSync(dir))
      for (const p of fs.readdirSync(path.join(dir, l)))
        for (const f of fs.readdirSync(path.join(dir, l, p)).filter((x) => x.endsWith('.hdr')))
          for (const iv of parseIntervalLog(fs.readFileSync(path.join(dir, l, p, f), 'latin1'), f)
            .intervals) {
            first = Math.min(first, iv.startMs);
            lastStart = Math.max(lastStart, iv.startMs);
          }
    // ... and whose JVMs all started with the earliest (the windows are per process, from its own JVM's start: one
    // start for all makes them one window, the Java merge's)
    const cellStart = Math.min(...manifests().map((m) => m.startMs));
    for (const l of fs.readdirSync(dir))
      for (const p of fs.readdirSync(path.join(dir, l))) {
        const file = path.join(dir, l, p, 'manifest.json');
        fs.writeFileSync(
          file,
          JSON.stringify({
            ...JSON.parse(fs.readFileSync(file, 'utf8')),
            startMs: cellStart,
            workloadStartMs: first,
          }),
        );
      }
    // a schedule that ends 2 s before the last interval starts: the intervals after it are the "drain"
    const durationSeconds = Math.floor((lastStart - first) / 1000) - 2;
    const scheduledEnd = first + durationSeconds * 1000;
    const agg = await aggregateCell(await readCellDir(dir), {
      warmupSeconds: 1,
      durationSeconds,
      keepHistograms: true,
    });
    // the warm-up counts from each process's own start (its JVM's: here the same for all)
    expect(agg.window.startMs).toBe(cellStart + 1000);
    expect(agg.window.endMs).toBe(scheduledEnd);
    const java = oracleMerge(dir, {
      fromMs: cellStart + 1000,
      toMs: scheduledEnd - 500,
      percentiles: PERCENTILES,
    });
    const whole = oracleMerge(dir, {
      fromMs: cellStart + 1000,
      toMs: lastStart + 1,
      percentiles: PERCENTILES,
    });
    // the cut really removes intervals
    expect(java.inWindow).toBeLessThan(whole.inWindow);
    compare(agg, java);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
