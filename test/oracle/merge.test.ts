/**
 * The aggregator against HdrHistogram's own Java implementation (HistogramLogReader + Histogram.add),
 * on real YCSB 0.17.0 output: 2 loaders × 2 processes of a flaky BasicDB, ~9 one-second intervals per
 * log, READ/UPDATE with -FAILED, -THROTTLED and Intended- twins.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCellDir } from '../../lib/local/cell-dir';
import { aggregateCell, CellAggregate } from '../../lib/core/results/aggregate';
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
    let buckets = 0;
    for (const [name, series] of Object.entries(java.series)) {
      for (const [b, s] of Object.entries(series)) {
        if (s.count === 0) continue;
        const bucket = agg.series.find((x) => x.offsetSeconds === Number(b));
        expect(bucket?.ops[name]).toEqual({
          count: s.count,
          opsPerSec: s.count,
          p50: s.percentiles['50'],
          p99: s.percentiles['99'],
          max: s.max,
        });
        buckets++;
      }
    }
    expect(buckets).toBeGreaterThan(50);
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
