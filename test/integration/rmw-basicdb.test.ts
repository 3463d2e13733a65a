/**
 * Workload F counted once per operation: a REAL YCSB 0.17.0 run (the loader agent, fleetbench's Launcher and
 * open-loop schedule, YCSB's CoreWorkload) of read 0.5 / read-modify-write 0.5 against YCSB's own BasicDB (no
 * database), aggregated as a cell. YCSB measures each read-modify-write three times (its READ, its UPDATE and
 * READ-MODIFY-WRITE itself: CoreWorkload.doTransactionReadModifyWrite in
 * https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/workloads/CoreWorkload.java),
 * while its `[OVERALL], Throughput(ops/sec)` counts every transaction once (Client's opsdone): the independent
 * reference the cell's good ops/s must match. Summing the READ and UPDATE samples gives ~1.5 × that.
 * With test/oracle's FlakyDB (BasicDB with failures) the same holds for good + failed operations. About 20 s
 * (two JVMs one after the other, 8 s of load each).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsStore } from '../../lib/local/fs-store';
import { openStore } from '../../lib/open-store';
import { LoaderPaths, ensureLoaderBuilt } from '../../lib/build/maven';
import { runJob } from '../../loader/agent/src/run-job';
import { parseSummary } from '../../lib/core/contract/summary';
import { readCell } from '../../lib/core/results/input';
import { aggregateCell, type CellAggregate } from '../../lib/core/results/aggregate';
import { buildCellRow, buildIntervalRows, type CellMeta } from '../../lib/core/results/rows';
import { seriesOf } from '../../lib/core/report/data';
import { measuredTimeline, warmupClock } from '../../lib/core/results/schedule';
import { classifyName } from '../../lib/core/results/names';
import { ORACLE_DIR, ensureOracleBuilt } from '../oracle/oracle';

jest.setTimeout(15 * 60_000); // the first run may build the loader with Maven

const TARGET = 200;
const DURATION = 8;
const WARMUP = 2;

let paths: LoaderPaths;
let root: string;

/** One YCSB process running workload F for DURATION s, aggregated as a cell; and YCSB's own throughput. */
async function runCell(
  cellId: string,
  db: string,
  classpath: string,
): Promise<{ agg: CellAggregate; reference: number }> {
  const store = new FsStore(path.join(root, 'store'));
  const raw = `runs/rmw/cells/${cellId}/raw`;
  const result = await runJob(
    {
      runId: 'rmw',
      cellId,
      loaderIndex: 0,
      phase: 'run',
      durationSeconds: DURATION,
      statusIntervalSeconds: 1,
      db,
      jvmArgs: ['-Xmx128m'],
      outputPrefix: `file://${path.join(root, 'store')}/${raw}`,
      processes: [
        {
          recordcount: 1000,
          operationcount: 2_000_000_000,
          threadcount: 2,
          target: TARGET,
          // YCSB's workloads/workloadf
          readproportion: 0.5,
          updateproportion: 0,
          scanproportion: 0,
          insertproportion: 0,
          readmodifywriteproportion: 0.5,
          requestdistribution: 'zipfian',
          'basicdb.verbose': false,
        },
      ],
    },
    { classpath, openStore: (uri: string) => openStore(uri), out: () => undefined, log: () => undefined },
  );
  expect(result.failed).toEqual([]);
  const summary = parseSummary(
    (await store.get(`${raw}/loader-0/proc-0/summary.json`)).toString('utf8'),
    'summary.json',
  );
  const agg = await aggregateCell(await readCell(store, raw), {
    warmupSeconds: WARMUP,
    durationSeconds: DURATION,
    targetOpsPerSec: TARGET,
    seriesSeconds: 1,
  });
  return { agg, reference: summary.throughput! };
}

let agg: CellAggregate;
let reference: number;
let flaky: { agg: CellAggregate; reference: number };

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  ensureOracleBuilt();
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-rmw-it-'));
  ({ agg, reference } = await runCell('basic', 'site.ycsb.BasicDB', paths.ycsbClasspath));
  // test/oracle's FlakyDB: BasicDB whose reads and updates fail 6 % of the time each (ERROR, NOT_FOUND, THROTTLED)
  const oracleClasses = path.join(ORACLE_DIR, 'target', 'classes');
  flaky = await runCell(
    'flaky',
    'dev.fleetbench.oracle.FlakyDB',
    `${oracleClasses}${path.delimiter}${paths.ycsbClasspath}`,
  );
});

afterAll(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const meta: CellMeta = {
  runId: 'rmw',
  specName: 'rmw',
  startedAtMs: Date.UTC(2026, 0, 1),
  cellId: 'f',
  targetId: 'basicdb',
  targetKind: 'dynamodb',
  distribution: 'zipfian',
  readProportion: 0.5,
  updateProportion: 0,
};

test('the run really was workload F: READ, UPDATE and READ-MODIFY-WRITE samples', () => {
  const rmw = agg.ops['READ-MODIFY-WRITE']!.count;
  const reads = agg.ops.READ!.count;
  const updates = agg.ops.UPDATE!.count;
  expect(rmw).toBeGreaterThan(300);
  // every read-modify-write is one READ and one UPDATE sample (no other update in workload F)
  expect(Math.abs(updates - rmw)).toBeLessThanOrEqual(2);
  // read 0.5 / rmw 0.5: READ samples ≈ 2 × rmw; the naive sum of base samples is ≈ 1.5 × the operations
  expect(reads / rmw).toBeGreaterThan(1.7);
  expect(reads / rmw).toBeLessThan(2.3);
  expect(reference).toBeGreaterThan(TARGET * 0.9);
});

test("good ops/s is YCSB's own [OVERALL] throughput (one per transaction), attainment ≈ 100 %", () => {
  expect(agg.failedOps).toBe(0);
  expect(agg.errorRate).toBe(0);
  expect(Math.abs(agg.goodOpsPerSec / reference - 1)).toBeLessThan(0.05);
  expect(Math.abs(agg.achievedOpsPerSec / reference - 1)).toBeLessThan(0.05);
  expect(agg.attainment!).toBeGreaterThan(0.95);
  expect(agg.attainment!).toBeLessThan(1.05);
  // fleetbench's open-loop schedule measures SCHEDULE-DELAY once per operation it starts: the same count
  expect(Math.abs(agg.goodOps + agg.failedOps - agg.ops['SCHEDULE-DELAY']!.count)).toBeLessThanOrEqual(2);
  // the row the SLO search and the report read carries the same figures
  const row = buildCellRow(meta, agg);
  expect(row.good_ops_per_sec).toBe(agg.goodOpsPerSec);
  expect(row.attainment).toBe(agg.attainment);
  // the window's buckets (what compare resamples) add up to the same operations
  expect(agg.windowBuckets.reduce((a, b) => a + b.good, 0)).toBe(agg.goodOps);
});

test("the report's throughput series counts each operation once", () => {
  const rows = buildIntervalRows(meta, agg);
  const inWindow = new Set(agg.series.filter((b) => b.inWindow).map((b) => b.offsetSeconds));
  const points = seriesOf(rows).filter((p) => inWindow.has(p.t) && p.opsPerSec !== null);
  expect(points.length).toBeGreaterThanOrEqual(4);
  const mean = points.reduce((a, p) => a + p.opsPerSec!, 0) / points.length;
  expect(Math.abs(mean / reference - 1)).toBeLessThan(0.05);
});

test("a rate schedule's measured timeline serves each operation once", () => {
  const rows = buildIntervalRows(meta, agg).filter((r) => r.in_window === true);
  const timeline = measuredTimeline(rows, [{ t: 0, opsPerSec: TARGET }], warmupClock(WARMUP));
  expect(timeline.length).toBeGreaterThanOrEqual(4);
  const served = timeline.reduce((a, b) => a + b.servedOpsPerSec, 0) / timeline.length;
  expect(Math.abs(served / reference - 1)).toBeLessThan(0.05);
});

describe('with failures (FlakyDB): a read-modify-write whose read or update failed is one failed operation', () => {
  it("good + failed ops/s is YCSB's [OVERALL] throughput; each failed sample is one failed operation", () => {
    const { agg: a, reference: ref } = flaky;
    const failedSamples = Object.entries(a.ops)
      .filter(([name]) => !classifyName(name).intended && classifyName(name).kind === 'failed')
      .reduce((n, [, s]) => n + s.count, 0);
    // the run did fail reads and updates, inside and outside read-modify-writes
    expect(a.ops['READ-FAILED']!.count).toBeGreaterThan(10);
    expect(a.ops['UPDATE-FAILED']!.count).toBeGreaterThan(5);
    expect(a.failedOps).toBe(failedSamples);
    expect(Math.abs(a.achievedOpsPerSec / ref - 1)).toBeLessThan(0.05);
    expect(Math.abs(a.goodOps + a.failedOps - a.ops['SCHEDULE-DELAY']!.count)).toBeLessThanOrEqual(2);
    expect(a.goodOpsPerSec + a.failedOps / a.window.measuredSeconds).toBeCloseTo(a.achievedOpsPerSec, 6);
    // FlakyDB fails 6 % of reads and 6 % of updates: a plain read fails 6 %, a read-modify-write
    // 1 − 0.94² ≈ 11.6 % (12 % as counted: both failing is two failed samples), so ≈ 9 % of all operations
    // (±0.8 % at 1,200 operations); summing samples would give 9 % of 1.5 × the operations ≈ 6 %
    expect(a.errorRate!).toBeGreaterThan(0.065);
    expect(a.errorRate!).toBeLessThan(0.115);
    expect(a.attainment!).toBeGreaterThan(0.85);
    expect(a.attainment!).toBeLessThan(0.97);
  });
});
