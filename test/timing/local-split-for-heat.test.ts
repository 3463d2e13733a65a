/**
 * examples/local-split-for-heat.json end to end (issue #28's local half; about 90 s): real YCSB queries one
 * partition-key value unpaced through the capacity emulator with a time scale, in front of DynamoDB Local. The
 * measured throughput (YCSB's 1-s intervals) doubles at least twice as the hot partition splits for heat, each
 * doubling within 20 % of the time the plan's local timeline predicts (the model's split delay for a provisioned
 * table, 15 min, ÷ local.timeScale 60: 15 s, 30 s, 45 s); the emulator's capacity rows are stored with the cell;
 * the report draws measured against predicted.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { planRun } from '../../lib/core/plan';
import { validateSpec } from '../../lib/core/spec';
import { openLocalDb } from '../../lib/local/query';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../examples/local-split-for-heat.json'), 'utf8')),
).spec;

/** The times (s) where a timeline's throughput at least doubles from the point before. */
function predictedDoublings(points: { tSeconds: number; goodOpsPerSec: number }[]): number[] {
  return points
    .filter((p, i) => i > 0 && p.goodOpsPerSec >= 1.9 * points[i - 1]!.goodOpsPerSec)
    .map((p) => p.tSeconds);
}

/**
 * The measured steps up, found without the predicted times: from `from` on, the first second whose throughput, and
 * its mean with the next second's, are at least 1.5 × the median of the 6 seconds before it (a step that stays,
 * against the level before it: the median ignores the first seconds' burst and single noisy seconds; the two
 * seconds' mean, the bunching of a loaded machine: a second in which the loader asked less saves the partitions'
 * unused capacity as burst, spent the second after, e.g. 589 then 1,103 admitted queries where 720 is the level);
 * each search starts 3 s after the step before. -1 when missing.
 */
function measuredSteps(series: Map<number, number>, from: number, count: number): number[] {
  const at = (s: number) => series.get(s) ?? 0;
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const out: number[] = [];
  let after = from;
  for (let k = 0; k < count; k++) {
    let found = -1;
    for (let s = after; series.has(s + 1); s++) {
      const before = median([1, 2, 3, 4, 5, 6].map((d) => at(s - d)));
      if (at(s) >= 1.5 * before && (at(s) + at(s + 1)) / 2 >= 1.5 * before) {
        found = s;
        break;
      }
    }
    out.push(found);
    if (found < 0) break;
    after = found + 3;
  }
  return out;
}

describe('split for heat on this machine (examples/local-split-for-heat.json)', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-split-'));
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    result = await runLocal({ spec, resultsDir, runName: 'split-run', out: (l) => lines.push(l) });
  }, 600_000);

  it('doubles the measured throughput at the predicted (scaled) times, and stores the emulator seconds', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    const cell = planRun(spec, { runId: 'split-run' }).cells[0]!;
    const timeline = cell.localPrediction!.localTimeline!;
    const predicted = predictedDoublings(timeline);
    // the plan's staircase: a step every 15 s (SPLIT_FOR_HEAT_SECONDS provisioned 900 s ÷ timeScale 60)
    expect(predicted.slice(0, 3)).toEqual([15, 30, 45]);
    const db = await openLocalDb(resultsDir);
    try {
      const rows = await db.query(
        "SELECT offset_seconds, ops_per_sec FROM intervals WHERE run_id = 'split-run' AND op = 'QUERY' ORDER BY offset_seconds",
      );
      // seconds since the first operation (the model's clock starts with the demand; the JVMs take a second or two
      // after the processes' start before they send anything, longer on a busy machine)
      const first = Math.min(
        ...rows.filter((r) => Number(r.ops_per_sec) > 0).map((r) => Number(r.offset_seconds)),
      );
      const series = new Map(rows.map((r) => [Number(r.offset_seconds) - first, Number(r.ops_per_sec)]));
      const steps = measuredSteps(series, 6, predicted.length);
      const capacity = await db.query(
        "SELECT table_age_seconds, consumed_read_units, throttled_partition, partitions, splits FROM capacity WHERE run_id = 'split-run' ORDER BY table_age_seconds",
      );
      const figures =
        `measured ops/s per second: ${[...series].map(([t, v]) => `${t}:${Math.round(v)}`).join(' ')}\n` +
        `predicted doublings ${predicted.join(', ')} s (${timeline
          .map((p) => p.goodOpsPerSec)
          .filter((v, i, a) => a.indexOf(v) === i)
          .join(' → ')} ops/s); ` +
        `measured ${steps.join(', ')} s; emulator splits ${capacity.at(-1)?.splits}, partitions ${capacity.at(-1)?.partitions}`;
      console.log(figures); // the figures docs/dynamodb-model.md quotes
      // at least two doublings, each within 20 % of its predicted time
      const within = predicted.map(
        (p, k) => steps[k] !== undefined && steps[k]! >= 0 && Math.abs(steps[k]! - p) <= 0.2 * p,
      );
      expect({
        figures,
        twoOrMore: within.filter(Boolean).length >= 2,
        firstTwo: within.slice(0, 2),
      }).toEqual({
        figures,
        twoOrMore: true,
        firstTwo: [true, true],
      });
      // the emulator's seconds are stored with the cell: read units consumed, partition throttles, splits
      expect(capacity.length).toBeGreaterThan(40);
      expect(Number(capacity.at(-1)!.splits)).toBeGreaterThanOrEqual(2);
      expect(capacity.some((r) => Number(r.throttled_partition) > 0)).toBe(true);
    } finally {
      db.close();
    }
    // the report draws measured against predicted for the cell
    const html = readFileSync(result.reportFile!, 'utf8');
    expect(html).toContain(`data-chart="timeline-ops-${cell.id}"`);
    expect(html).toContain(`data-chart="timeline-capacity-${cell.id}"`);
    expect(html).toMatch(/data-series="predicted ops\/s"/);
  });
});
