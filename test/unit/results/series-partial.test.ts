/**
 * Issue #31: the time series ends where the offered load ends. A process's last interval that runs past the
 * end of its schedule covers only its part before that end (no false dip from dividing by the drain too), the
 * intervals of the drain are not in the series, and the window's buckets (what `compare` resamples) add up to
 * the cell's own totals.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCellDir } from '../../../lib/local/cell-dir';
import { aggregateCell } from '../../../lib/core/results/aggregate';
import { parseIntervalLog } from '../../../lib/core/hdr/log';
import { Histogram } from '../../../lib/core/hdr/histogram';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');

/** A copy of the fixture whose manifests say every workload began at the earliest interval start. */
function withWorkloadStart(): { dir: string; first: number; starts: number[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-partial-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const starts: number[] = [];
  for (const l of fs.readdirSync(dir))
    for (const p of fs.readdirSync(path.join(dir, l)))
      for (const f of fs.readdirSync(path.join(dir, l, p)).filter((x) => x.endsWith('.hdr')))
        for (const iv of parseIntervalLog(fs.readFileSync(path.join(dir, l, p, f), 'latin1'), f).intervals)
          starts.push(iv.startMs);
  const first = Math.min(...starts);
  for (const l of fs.readdirSync(dir))
    for (const p of fs.readdirSync(path.join(dir, l))) {
      const file = path.join(dir, l, p, 'manifest.json');
      const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify({ ...m, workloadStartMs: first }));
    }
  return { dir, first, starts: [...new Set(starts)].sort((a, b) => a - b) };
}

describe('the series ends with the schedule (no partial-interval dip)', () => {
  const { dir, first, starts } = withWorkloadStart();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  // an interval that starts 600 ms before the schedule ends: counted, but 400 ms of it are the drain
  const straddling = starts.find((s) => s - first > 5000)!;
  const scheduledEnd = straddling + 600;
  const durationSeconds = (scheduledEnd - first) / 1000;

  it('cuts the last interval at the end of the schedule, in the totals and in the series', async () => {
    const agg = await aggregateCell(await readCellDir(dir), {
      warmupSeconds: 1,
      durationSeconds,
      seriesSeconds: 1,
    });
    expect(agg.window.measuredEndMs).toBe(scheduledEnd);
    for (const b of agg.series)
      for (const [name, p] of Object.entries(b.ops)) {
        // a bucket's intervals start in it and end by the schedule's end at the latest
        expect({ name, b: b.offsetSeconds, ok: b.startMs + p.seconds * 1000 <= scheduledEnd + 1 }).toEqual({
          name,
          b: b.offsetSeconds,
          ok: true,
        });
      }
    // nothing of the drain (intervals starting within 0.5 s of the end or later) is in the series
    const lastBucketStart = Math.max(...agg.series.map((b) => b.startMs));
    expect(lastBucketStart).toBeLessThan(scheduledEnd - 500);
  });

  it("the window's buckets hold exactly the cell's operations and intended latencies", async () => {
    const agg = await aggregateCell(await readCellDir(dir), {
      warmupSeconds: 1,
      durationSeconds,
      seriesSeconds: 1,
    });
    const good = agg.windowBuckets.reduce((a, b) => a + b.good, 0);
    const failed = agg.windowBuckets.reduce((a, b) => a + b.failed, 0);
    expect(good).toBe(agg.goodOps);
    expect(failed).toBe(agg.failedOps);
    const merged = new Histogram();
    for (const b of agg.windowBuckets) if (b.intended) merged.addSparseCopy(b.intended);
    expect(merged.totalCount).toBe(agg.families.ALL!.intended.count);
    expect(merged.valuesAtPercentiles([50, 99, 99.9])).toEqual([
      agg.families.ALL!.intended.p50,
      agg.families.ALL!.intended.p99,
      agg.families.ALL!.intended.p999,
    ]);
  });

  it('the spectrum is the merged histogram by percentile, rising, ending at the maximum', async () => {
    const agg = await aggregateCell(await readCellDir(dir), { warmupSeconds: 1 });
    const s = agg.families.ALL!.spectrum.intended;
    const at = (p: number) => s.find(([q]) => q === p)?.[1];
    expect(at(50)).toBe(agg.families.ALL!.intended.p50);
    expect(at(99)).toBe(agg.families.ALL!.intended.p99);
    expect(at(100)).toBe(agg.families.ALL!.intended.max);
    for (let i = 1; i < s.length; i++) expect(s[i]![1]).toBeGreaterThanOrEqual(s[i - 1]![1]);
    // a percentile the count cannot resolve is left out: 1 − p/100 of the count is under one operation
    const n = agg.families.ALL!.intended.count;
    for (const [p] of s) if (p !== 100) expect((1 - p / 100) * n).toBeGreaterThanOrEqual(1);
  });
});
