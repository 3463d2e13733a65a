/**
 * examples/local-spike.json end to end: a rate schedule with a 4× spike, real YCSB on its open-loop schedule,
 * against DynamoDB Local behind the capacity emulator with an on-demand table. Expected figures worked by hand from
 * AWS's on-demand rule (a new table serves up to twice its previous peak at once; 4,000 WCU/s for a new table,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html) at the example's
 * scale 0.025: a ceiling of 100 WCU/s, one WCU per update of a 130-byte item. Offered 40 → 160 → 40 ops/s; served
 * 40, then 100 (60 ops/s throttled, no retries), then 40 again: recovery when the spike ends, 8 s after its
 * start, 480 operations unserved (the emulator's table bucket holds one second of the ceiling: the spike's first
 * second may serve up to 100 more, so the unserved count may fall a fifth short). The ceiling cannot rise in the
 * run (at most once per 30 minutes). About 60 s.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { planRun } from '../../lib/core/plan';
import type { DynamoDbTarget } from '../../lib/core/spec/schema';
import { predictOnDemandResponse } from '../../lib/core/dynamodb-model/on-demand-response';
import { openLocalDb } from '../../lib/local/query';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../examples/local-spike.json'), 'utf8')),
).spec;

/** Hand values (see the header). */
const BASE = 40;
const PEAK = 160;
const CEILING = 4000 * 0.025;
const SPIKE = { start: 6, end: 14 };
const UNSERVED = (160 - 100) * 8;

describe('local spike against on-demand (examples/local-spike.json)', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-spike-'));
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    result = await runLocal({ spec, resultsDir, runName: 'spike-run', out: (l) => lines.push(l) });
  }, 240_000);

  it('the model predicts the hand-worked response', () => {
    const cell = planRun(spec, { runId: 'x' }).cells[0]!;
    const p = predictOnDemandResponse(spec, spec.targets[0] as DynamoDbTarget, cell, {
      points: cell.rateSchedule!,
      durationSeconds: cell.durationSeconds,
      capacityScale: spec.local!.capacityScale,
    })!;
    expect(p.points[5]).toMatchObject({ offeredOpsPerSec: BASE, servedOpsPerSec: BASE });
    expect(p.points[10]).toMatchObject({ offeredOpsPerSec: PEAK, servedOpsPerSec: CEILING });
    expect(p.spikes).toEqual([
      expect.objectContaining({ startSeconds: 6, recoverySeconds: 8, unservedOps: UNSERVED }),
    ]);
  });

  it('offers the schedule, serves up to the ceiling in the spike, throttles the rest and recovers', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    const db = await openLocalDb(resultsDir);
    let rows: Record<string, unknown>[];
    let cellRow: Record<string, unknown> | undefined;
    try {
      [cellRow] = await db.queryJson(
        "SELECT target_ops_per_sec, attainment FROM cells WHERE run_id = 'spike-run'",
      );
      rows = await db.queryJson(
        "SELECT op, offset_seconds, bucket_seconds, count FROM intervals WHERE run_id = 'spike-run'",
      );
    } finally {
      db.close();
    }
    // per 1-s bucket: successful updates, failed ones, throttled attempts (the measurement names YCSB writes)
    const at = new Map<number, { ok: number; failed: number; throttled: number; s: number }>();
    for (const r of rows) {
      const t = Number(r.offset_seconds);
      const b = at.get(t) ?? { ok: 0, failed: 0, throttled: 0, s: Number(r.bucket_seconds) };
      if (r.op === 'UPDATE') b.ok += Number(r.count);
      if (r.op === 'UPDATE-FAILED') b.failed += Number(r.count);
      if (r.op === 'UPDATE-THROTTLED') b.throttled += Number(r.count);
      at.set(t, b);
    }
    const mean = (
      from: number,
      to: number,
      f: (b: { ok: number; failed: number; throttled: number; s: number }) => number,
    ) => {
      const bs = [...at.entries()]
        .filter(([t, b]) => t >= from && t < to && b.s > 0.5)
        .map(([, b]) => f(b) / b.s);
      expect(bs.length).toBeGreaterThan(0);
      return bs.reduce((a, x) => a + x, 0) / bs.length;
    };
    // (from 2 s: the JVM's first second starts behind its schedule and catches up)
    const before = mean(2, SPIKE.start, (b) => b.ok);
    const during = mean(SPIKE.start + 2, SPIKE.end, (b) => b.ok);
    const throttled = mean(SPIKE.start + 2, SPIKE.end, (b) => b.throttled);
    const offeredDuring = mean(SPIKE.start + 2, SPIKE.end, (b) => b.ok + b.failed);
    const after = mean(SPIKE.end + 1, 19, (b) => b.ok);
    console.log(
      `served ${before.toFixed(1)} → ${during.toFixed(1)} → ${after.toFixed(1)} ops/s; ` +
        `issued ${offeredDuring.toFixed(1)} and throttled ${throttled.toFixed(1)}/s in the spike`,
    );
    // a few seconds of 1-s buckets at 40 ops/s on a shared machine: within 15 %
    expect(Math.abs(before - BASE) / BASE).toBeLessThan(0.15);
    expect(Math.abs(offeredDuring - PEAK) / PEAK).toBeLessThan(0.1);
    expect(Math.abs(during - CEILING) / CEILING).toBeLessThan(0.15);
    expect(Math.abs(throttled - (PEAK - CEILING)) / (PEAK - CEILING)).toBeLessThan(0.25);
    expect(Math.abs(after - BASE) / BASE).toBeLessThan(0.15);

    // the cell's row: the target is the schedule's mean over the counted seconds (docs/rate-schedules.md): with no
    // warm-up, from the first operation (within the first second) to the end: between the whole schedule's mean,
    // (40 × 6 + 160 × 8 + 40 × 6) / 20 = 88 ops/s, and that of [1, 20) s, (1,760 − 40) / 19 = 90.53 ops/s; and
    // attainment served ÷ offered, (40 × 6 + 100 × 8 + 40 × 6) / 1,760 = 0.727
    expect(Number(cellRow!.target_ops_per_sec)).toBeGreaterThanOrEqual(88);
    expect(Number(cellRow!.target_ops_per_sec)).toBeLessThanOrEqual(1720 / 19);
    expect(Math.abs(Number(cellRow!.attainment) - 1280 / 1760)).toBeLessThan(0.07);

    // the report: offered over served beside the model, the spike's recovery and unserved operations
    const html = readFileSync(result.reportFile!, 'utf8');
    const id = 'ddb.uniform.r0.sched';
    expect(html).toContain(`data-chart="schedule-${id}"`);
    expect(html).toContain('served (on-demand model)');
    const recovery = Number(/data-measured-recovery="([\d.]+)"/.exec(html)![1]);
    const unserved = Number(/data-measured-unserved="(\d+)"/.exec(html)![1]);
    const throttledAttempts = Number(/data-measured-throttled="(\d+)"/.exec(html)![1]);
    console.log(`recovery ${recovery} s, unserved ${unserved}, throttled attempts ${throttledAttempts}`);
    expect(recovery).toBeGreaterThanOrEqual(7);
    expect(recovery).toBeLessThanOrEqual(10);
    expect(Math.abs(unserved - UNSERVED) / UNSERVED).toBeLessThan(0.3);
    expect(throttledAttempts).toBeGreaterThan(UNSERVED * 0.6);
  });
});
