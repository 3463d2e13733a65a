/**
 * The SLO verdict bounds the percentile of successful AND failed operations. Worked example (the fixture
 * test/fixtures/ycsb/slo-timeouts, written by HdrHistogram's own HistogramLogWriter: test/oracle/gen-slo-timeouts.sh):
 * 100,000 reads, 500 of them failed after a 2-s timeout (error rate 0.5 %, under the default 1 %), the successful
 * ones' P99.9 8 ms. Over every operation the P99.9 (the 99,900th of 100,000) is one of the timeouts: 2,000 ms, so
 * "intended P99.9 ≤ 10 ms" is not met, although the successful operations alone meet it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCellDir } from '../../../lib/local/cell-dir';
import { aggregateCell, percentilesAmong } from '../../../lib/core/results/aggregate';
import { buildCellRow, type CellMeta } from '../../../lib/core/results/rows';
import { probeVerdict, sloColumn, sloText } from '../../../lib/core/search/verdict';
import { SLO_PERCENTILES, type SloSearch } from '../../../lib/core/spec/schema';
import { tableDef } from '../../../lib/core/results/schema';
import { Histogram } from '../../../lib/core/hdr/histogram';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/slo-timeouts');
const meta: CellMeta = {
  runId: 'r',
  specName: 's',
  startedAtMs: 1795400000000,
  cellId: 'c',
  targetId: 't',
  targetKind: 'external',
  distribution: 'uniform',
  readProportion: 1,
  updateProportion: 0,
};
const search = (percentile: SloSearch['slo']['percentile'], latency: 'intended' | 'service' = 'intended') =>
  ({
    slo: { percentile, maxMs: 10, operations: 'all', latency },
    minAttainment: 0.95,
    maxErrorRate: 0.01,
  }) as SloSearch;

async function rowOf(dir: string) {
  // 10 intervals of 10,000 reads each at 10,000 ops/s
  const agg = await aggregateCell(await readCellDir(dir), { targetOpsPerSec: 10_000 });
  return buildCellRow(meta, agg);
}

describe('SLO verdict over successful and failed operations', () => {
  it('fails "intended P99.9 ≤ 10 ms" when the P99.9 lies among 2-s timeouts (error rate 0.5 %)', async () => {
    const row = await rowOf(FIXTURE);
    expect(row.errors).toBe(500);
    expect(row.error_rate).toBe(0.005);
    expect(row.attainment).toBeCloseTo(0.995, 6);
    // the successful operations alone: P99.9 = 8 ms (HDR 3 digits: within 0.1 %); the column keeps that meaning
    expect(row.all_intended_p999_us).toBeGreaterThanOrEqual(8000);
    expect(row.all_intended_p999_us).toBeLessThan(8008);
    // every operation: the 99,900th of 100,000 is a 2,000 ms timeout
    expect(row.all_intended_incl_failed_p999_us).toBeGreaterThanOrEqual(2_000_000);
    expect(row.all_intended_incl_failed_p999_us).toBeLessThan(2_002_000);
    // the 99,000th is still a success (98,500 at 2 ms, then 1,000 at 8 ms)
    expect(row.all_intended_incl_failed_p99_us).toBeGreaterThanOrEqual(8000);
    expect(row.all_intended_incl_failed_p99_us).toBeLessThan(8008);
    const v = probeVerdict(search(99.9), row);
    expect(v.pass).toBe(false);
    expect(v.latencyUs).toBe(row.all_intended_incl_failed_p999_us);
    expect(v.reasons).toEqual([
      expect.stringMatching(
        /^intended P99\.9 of all operations \(failed ones included\) ≤ 10 ms missed: 200\d\.\d\d ms$/,
      ),
    ]);
    // P99 ≤ 10 ms holds over every operation too: the verdict still passes what really passes
    expect(probeVerdict(search(99), row)).toMatchObject({ pass: true, reasons: [] });
  });

  it('fails closed when failed operations carry no intended time (only their service time was logged)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-slo-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    fs.rmSync(path.join(dir, 'loader-0/proc-0/Intended-READ-FAILED.hdr'));
    try {
      const row = await rowOf(dir);
      // 500 failed operations are known (READ-FAILED), without an intended time: slower than any bound
      expect(row.errors).toBe(500);
      expect(row.all_intended_incl_failed_p999_us).toBeNull();
      expect(row.all_intended_incl_failed_p99_us).toBeGreaterThanOrEqual(8000);
      const v = probeVerdict(search(99.9), row);
      expect(v.pass).toBe(false);
      expect(v.reasons[0]).toMatch(/^no all_intended_incl_failed_p999_us: .*failed operations/);
      // the service timing has them all
      expect(row.all_service_incl_failed_p999_us).toBeGreaterThanOrEqual(2_000_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a cells column for every SLO percentile the spec allows', () => {
    const columns = tableDef('cells').columns.map((c) => c.name);
    for (const percentile of SLO_PERCENTILES)
      for (const latency of ['intended', 'service'] as const)
        for (const operations of ['all', 'read', 'update'] as const)
          expect(columns).toContain(sloColumn({ percentile, maxMs: 1, operations, latency }));
    expect(sloText(search(99).slo)).toBe('intended P99 of all operations (failed ones included) ≤ 10 ms');
  });
});

describe('percentilesAmong', () => {
  it("is HdrHistogram's getValueAtPercentile when every operation is timed", () => {
    const h = new Histogram();
    for (let v = 1; v <= 10_000; v++) h.recordValue(v * 37);
    const ps = [0, 25, 50, 90, 99, 99.9, 99.99, 100];
    expect(percentilesAmong(h, h.totalCount, ps)).toEqual(h.valuesAtPercentiles(ps));
  });

  it('is null where the rank falls among the untimed operations (slower than any timed one)', () => {
    const h = new Histogram();
    h.recordValue(1000, 990);
    // 10 more operations without a time: 1,000 in all; the 990th is timed, the 991st is not
    expect(percentilesAmong(h, 1000, [99, 99.1, 100])).toEqual([h.valueAtPercentile(100), null, null]);
    expect(percentilesAmong(null, 0, [50])).toEqual([null]);
  });
});

describe('a suspect probe', () => {
  const row = {
    all_intended_incl_failed_p99_us: 4000,
    attainment: 0.99,
    error_rate: 0,
    incomplete: false,
    suspect: true,
    suspect_reason: 'loader-0 (ip-10-0-0-1) CPU 93.0 % > 70 % of its 2 CPUs',
  };
  it('records "loader CPU suspect" and still passes (a note, not a failure)', () => {
    expect(probeVerdict(search(99), row)).toMatchObject({
      pass: true,
      reasons: [],
      suspect: 'loader CPU suspect: loader-0 (ip-10-0-0-1) CPU 93.0 % > 70 % of its 2 CPUs',
    });
  });
  it('names a schedule-delay suspect a loader suspect, and a failing probe keeps its note', () => {
    const late = {
      ...row,
      suspect_reason: 'behind the open-loop schedule: SCHEDULE-DELAY p99 25.0 ms > 10 ms',
    };
    expect(probeVerdict(search(99), late).suspect).toBe(
      'loader suspect: behind the open-loop schedule: SCHEDULE-DELAY p99 25.0 ms > 10 ms',
    );
    const failing = probeVerdict(search(99), { ...row, attainment: 0.5 });
    expect(failing.pass).toBe(false);
    expect(failing.suspect).toMatch(/^loader CPU suspect: /);
    expect(probeVerdict(search(99), { ...row, suspect: false }).suspect).toBeNull();
  });
});
