/**
 * Operations counted as the workload issued them (lib/core/results/names.ts tallyOperations). The fixtures are
 * the samples YCSB 0.17.0 records for a known set of operations: CoreWorkload.doTransactionReadModifyWrite calls
 * db.read then db.update whatever the read returned, DBWrapper measures them as READ / READ-FAILED and UPDATE /
 * UPDATE-FAILED, then the workload measures READ-MODIFY-WRITE (no status)
 * (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/workloads/CoreWorkload.java,
 * https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/DBWrapper.java).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tallyOperations } from '../../../lib/core/results/names';
import { aggregateCell } from '../../../lib/core/results/aggregate';
import { readCellDir } from '../../../lib/local/cell-dir';
import { seriesOf } from '../../../lib/core/report/data';
import { measuredTimeline, warmupClock } from '../../../lib/core/results/schedule';
import type { Row } from '../../../lib/core/results/rows';

/** The samples of `plain` reads (`plainFailed` of them failed) and read-modify-writes by outcome. */
function samplesOf(o: {
  plain: number;
  plainFailed: number;
  rmwOk: number;
  rmwReadFailed: number;
  rmwUpdateFailed: number;
  rmwBothFailed: number;
}): [string, number][] {
  const rmw = o.rmwOk + o.rmwReadFailed + o.rmwUpdateFailed + o.rmwBothFailed;
  return [
    ['READ', o.plain - o.plainFailed + o.rmwOk + o.rmwUpdateFailed],
    ['READ-FAILED', o.plainFailed + o.rmwReadFailed + o.rmwBothFailed],
    ['UPDATE', o.rmwOk + o.rmwReadFailed],
    ['UPDATE-FAILED', o.rmwUpdateFailed + o.rmwBothFailed],
    ['READ-MODIFY-WRITE', rmw],
    // the same operations timed from their intended start, and what is not an operation: not counted
    ['Intended-READ', o.plain + rmw],
    ['Intended-READ-MODIFY-WRITE', rmw],
    ['SCHEDULE-DELAY', o.plain + rmw],
    ['VERIFY', rmw],
  ];
}

describe('tallyOperations: a read-modify-write is one operation', () => {
  it('counts 10 reads and 10 read-modify-writes as 20 operations, not 30', () => {
    const t = tallyOperations(
      samplesOf({
        plain: 10,
        plainFailed: 0,
        rmwOk: 10,
        rmwReadFailed: 0,
        rmwUpdateFailed: 0,
        rmwBothFailed: 0,
      }),
    );
    expect(t).toEqual({ good: 20, failed: 0, throttled: 0 });
  });

  it('a read-modify-write whose read or whose update failed is one failed operation', () => {
    // 10 reads (1 failed), 10 read-modify-writes: 7 fine, 2 with a failed read, 1 with a failed update
    const t = tallyOperations(
      samplesOf({
        plain: 10,
        plainFailed: 1,
        rmwOk: 7,
        rmwReadFailed: 2,
        rmwUpdateFailed: 1,
        rmwBothFailed: 0,
      }),
    );
    expect(t).toEqual({ good: 16, failed: 4, throttled: 0 });
  });

  it('one whose read AND update failed is counted as two failed and one good less (good never overstated)', () => {
    // truly: 20 operations, 16 good, 4 failed (1 read, 3 read-modify-writes)
    const t = tallyOperations(
      samplesOf({
        plain: 10,
        plainFailed: 1,
        rmwOk: 7,
        rmwReadFailed: 1,
        rmwUpdateFailed: 1,
        rmwBothFailed: 1,
      }),
    );
    expect(t.good + t.failed).toBe(20);
    expect(t).toEqual({ good: 15, failed: 5, throttled: 0 });
  });

  it('never more failed operations than operations: every read-modify-write failed twice', () => {
    const t = tallyOperations(
      samplesOf({
        plain: 0,
        plainFailed: 0,
        rmwOk: 0,
        rmwReadFailed: 0,
        rmwUpdateFailed: 0,
        rmwBothFailed: 5,
      }),
    );
    expect(t).toEqual({ good: 0, failed: 5, throttled: 0 });
  });

  it('measurement.interval=intended (YCSB records only the Intended- names): the same operations', () => {
    const o = { plain: 10, plainFailed: 1, rmwOk: 7, rmwReadFailed: 2, rmwUpdateFailed: 1, rmwBothFailed: 0 };
    const intendedOnly = samplesOf(o)
      .filter(([name]) => !name.startsWith('Intended-') && name !== 'SCHEDULE-DELAY')
      .map(([name, n]) => [`Intended-${name}`, n] as [string, number]);
    expect(tallyOperations(intendedOnly)).toEqual({ good: 16, failed: 4, throttled: 0 });
  });

  it('other workloads are unchanged: every successful sample is a good operation, every failed one a failure', () => {
    // workload A with per-status names (reportlatencyforeacherror) and the binding's throttled attempts
    const t = tallyOperations([
      ['READ', 480],
      ['READ-NOT_FOUND', 3],
      ['UPDATE', 500],
      ['UPDATE-ERROR', 7],
      ['UPDATE-THROTTLED', 40],
      ['INSERT', 5],
      ['QUERY', 11],
      ['QUERY-FAILED', 2],
      ['Intended-READ', 483],
    ]);
    expect(t).toEqual({ good: 996, failed: 12, throttled: 40 });
  });
});

describe("the report's series and a schedule's timeline tally their buckets the same way", () => {
  const row = (op: string, offset: number, count: number): Row => ({
    op,
    offset_seconds: offset,
    bucket_seconds: 1,
    count,
    ops_per_sec: count,
  });
  // one second of workload F at 100 ops/s: 50 reads and 50 read-modify-writes, 5 of them with a failed read
  const rows: Row[] = [
    row('READ', 0, 95),
    row('READ-FAILED', 0, 5),
    row('UPDATE', 0, 50),
    row('READ-MODIFY-WRITE', 0, 50),
    row('Intended-READ', 0, 100),
    row('READ-THROTTLED', 0, 9),
  ];

  it('seriesOf: good ops/s of the bucket', () => {
    expect(seriesOf(rows).map((p) => p.opsPerSec)).toEqual([95]);
  });

  it('seriesOf with only Intended- rows (measurement.interval=intended): the same', () => {
    const intended = rows
      .filter((r) => !String(r.op).startsWith('Intended-'))
      .map((r) => ({ ...r, op: `Intended-${String(r.op)}` }));
    expect(seriesOf(intended).map((p) => p.opsPerSec)).toEqual([95]);
    const [b] = measuredTimeline(intended, [{ t: 0, opsPerSec: 100 }], warmupClock(0));
    expect(b).toMatchObject({ servedOpsPerSec: 95, failedOpsPerSec: 5, throttledAttemptsPerSec: 9 });
  });

  it('measuredTimeline: served, failed and throttled per second', () => {
    const [b] = measuredTimeline(rows, [{ t: 0, opsPerSec: 100 }], warmupClock(0));
    expect(b).toMatchObject({ servedOpsPerSec: 95, failedOpsPerSec: 5, throttledAttemptsPerSec: 9 });
  });
});

describe('aggregateCell with measurement.interval=intended (only Intended- logs, as YCSB writes them then)', () => {
  const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-intended-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  for (const l of fs.readdirSync(dir))
    for (const p of fs.readdirSync(path.join(dir, l)))
      for (const f of fs.readdirSync(path.join(dir, l, p)))
        // the service-time logs go (the binding records throttled attempts in both forms; this fixture in one)
        if (f.endsWith('.hdr') && !f.startsWith('Intended-') && !f.includes('THROTTLED'))
          fs.rmSync(path.join(dir, l, p, f));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // the whole run (no warm-up): each name's log has its own interval boundaries, so a window edge cuts them apart
  it('counts the same operations as the service-time logs of the same run', async () => {
    const both = await aggregateCell(await readCellDir(FIXTURE), { targetOpsPerSec: 100 });
    const intended = await aggregateCell(await readCellDir(dir), { targetOpsPerSec: 100 });
    expect(both.goodOps).toBeGreaterThan(0);
    expect(intended.goodOps).toBe(both.goodOps);
    expect(intended.failedOps).toBe(both.failedOps);
    // over measured_seconds, which spans each set of logs' own intervals (a few ms apart)
    expect(Math.abs(intended.attainment! / both.attainment! - 1)).toBeLessThan(0.005);
  });
});
