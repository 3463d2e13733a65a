/**
 * The report's section for rate-schedule cells (issue #29 item 4, docs/rate-schedules.md): per cell the offered
 * rate over the served one (and throttled attempts) over time, beside the on-demand model's predicted response
 * for DynamoDB on-demand targets; per spike the operations throttled and the time to recover, measured and
 * predicted.
 */
import type { RunSpec } from '../spec/schema';
import { spikesOf, type RatePoint } from '../spec/rate-schedule';
import {
  measuredTimeline,
  spikeCounts,
  spikeOutcome,
  warmupClock,
  type ScheduleBucket,
  type ScheduleClock,
  type SpikeOutcome,
} from '../results/schedule';
import type { OnDemandResponse } from '../dynamodb-model/on-demand-response';
import { kindOf } from '../targets/registry';
import type { PlannedCell } from '../dynamodb-model/plan-cell';
import type { Row } from '../results/rows';
import { chartOrTable, escapeXml, fmtNum, type Series } from './svg';

/** One measured spike with its counts, beside the model's. */
export interface ReportSpike extends SpikeOutcome {
  throttledAttempts: number;
  failedOps: number;
  predicted: SpikeOutcome | null;
}

export interface ReportSchedule {
  cellId: string;
  target: string;
  measured: ScheduleBucket[];
  /** the model's per-second response (on-demand DynamoDB targets), else null */
  predicted: OnDemandResponse | null;
  spikes: ReportSpike[];
}

/** A planned schedule cell, as the report reads it (lib/core/plan's CellPlan). */
export interface ScheduleCellInput extends Omit<PlannedCell, 'properties'> {
  /** the run index's cells have none (the model reads none of them) */
  properties?: Record<string, string>;
  id: string;
  warmupSeconds: number;
  rateSchedule?: RatePoint[];
  /** where the cell's counted intervals lie on the schedule (its result.json); none: bucket 0 at the warm-up's end */
  scheduleClock?: ScheduleClock | undefined;
}

/**
 * A schedule cell's report data from its interval rows; the prediction with the limits the run met (locally the
 * emulator's scale and time scale).
 */
export function scheduleReportOf(
  spec: RunSpec | null,
  cell: ScheduleCellInput,
  intervals: readonly Row[],
  limits: { capacityScale: number; timeScale?: number },
): ReportSchedule | null {
  if (!cell.rateSchedule || !spec?.workload.rateSchedule) return null;
  const clock = cell.scheduleClock?.processes.length ? cell.scheduleClock : warmupClock(cell.warmupSeconds);
  const measured = measuredTimeline(intervals, cell.rateSchedule, clock);
  const target = spec.targets.find((t) => t.id === cell.target);
  // the target's kind predicts its response (DynamoDB on-demand: twice the previous peak at once, then the ceiling)
  const predicted = target
    ? (kindOf(target).rateResponse?.(
        spec,
        target as never,
        { ...cell, properties: cell.properties ?? {} },
        { points: cell.rateSchedule, durationSeconds: cell.durationSeconds, ...limits },
      ) ?? null)
    : null;
  const spikes = spikesOf(spec.workload.rateSchedule).map((sp, i): ReportSpike => {
    const outcome = spikeOutcome(measured, sp);
    return { ...outcome, ...spikeCounts(measured, outcome), predicted: predicted?.spikes[i] ?? null };
  });
  return { cellId: cell.id, target: cell.target, measured, predicted, spikes };
}

const secs = (x: number | null): string => (x === null ? 'not recovered' : `${fmtNum(x)} s`);

function spikeTable(s: ReportSchedule): string {
  if (!s.spikes.length) return '';
  const rows = s.spikes.map(
    (k) =>
      `<tr><td>${fmtNum(k.startSeconds)}–${fmtNum(k.endSeconds)} s</td><td>${fmtNum(k.baseOpsPerSec)} → ${fmtNum(k.peakOpsPerSec)}</td>` +
      `<td data-measured-recovery="${k.recoverySeconds ?? ''}">${secs(k.recoverySeconds)}</td>` +
      `<td>${k.predicted ? secs(k.predicted.recoverySeconds) : '–'}</td>` +
      `<td data-measured-unserved="${k.unservedOps}">${fmtNum(k.unservedOps)}</td>` +
      `<td>${k.predicted ? fmtNum(k.predicted.unservedOps) : '–'}</td>` +
      `<td data-measured-throttled="${k.throttledAttempts}">${fmtNum(k.throttledAttempts)}</td><td>${fmtNum(k.failedOps)}</td></tr>`,
  );
  return (
    `<div class="scroll"><table data-table="spikes-${escapeXml(s.cellId)}"><tr><th>spike</th><th>ops/s</th>` +
    '<th>time to recover (measured)</th><th>predicted</th><th>unserved ops (measured)</th><th>predicted</th>' +
    `<th>throttled attempts</th><th>failed ops</th></tr>${rows.join('')}</table></div>`
  );
}

function scheduleChart(s: ReportSchedule): string {
  const m = s.measured;
  const series: Series[] = [
    { name: 'offered (schedule)', points: m.map((b) => [b.t, b.offeredOpsPerSec]) },
    { name: 'served (measured)', points: m.map((b) => [b.t, b.servedOpsPerSec]) },
    {
      name: 'throttled attempts/s (measured)',
      points: m.map((b) => [b.t, b.throttledAttemptsPerSec]),
      dashed: true,
    },
  ];
  if (s.predicted)
    series.push({
      name: 'served (on-demand model)',
      points: s.predicted.points.map((p) => [p.t, p.servedOpsPerSec]),
      dashed: true,
      colorIndex: 1,
    });
  return chartOrTable({
    id: `schedule-${s.cellId}`,
    title: `${s.cellId}: offered and served over time`,
    xLabel: 'seconds from the cell start',
    yLabel: 'ops/s',
    yUnit: 'ops/s',
    series,
    width: 720,
    height: 280,
  });
}

/** The section: nothing when the run has no schedule cell. */
export function scheduleSections(schedules: readonly ReportSchedule[] | undefined): string[] {
  if (!schedules?.length) return [];
  return [
    '<h2>Load over time (rate schedules)</h2>',
    '<p>The offered rate is the schedule (what the open-loop loaders offered, each operation timed from its slot); ' +
      'served counts successful operations per interval. A spike has recovered at the first interval from its start ' +
      'whose served rate is at least 95 % of offered, held over the next 5 s. For on-demand DynamoDB the model serves up to ' +
      'twice the previous peak at once, the peak rising at most once per 30 minutes (docs/rate-schedules.md).</p>',
    ...schedules.map(
      (s) => `<div data-schedule="${escapeXml(s.cellId)}">${scheduleChart(s)}${spikeTable(s)}</div>`,
    ),
  ];
}
