/**
 * A rate-schedule cell's measured response (docs/rate-schedules.md): per series bucket the offered rate (the
 * schedule's mean over the bucket), the served rate (successful operations), failed operations and throttled
 * attempts; per spike the operations throttled and the time to recover.
 */
import type { Row } from './rows';
import { READ_MODIFY_WRITE, classifyName, tallyOperations } from './names';
import type { CellAggregate } from './aggregate';
import { offeredOps, offeredRate, type RatePoint, type Spike } from '../spec/rate-schedule';

/** The share of offered load served that counts as recovered (issue #29: "good rate ≥ 95 % of offered"). */
export const RECOVERED_SHARE = 0.95;

/** One bucket of a schedule cell's timeline, on the cell's clock (seconds from the schedule's start). */
export interface ScheduleBucket {
  t: number;
  seconds: number;
  offeredOpsPerSec: number;
  /** successful operations ÷ seconds */
  servedOpsPerSec: number;
  failedOpsPerSec: number;
  throttledAttemptsPerSec: number;
}

/** A spike's outcome on a timeline. */
export interface SpikeOutcome extends Spike {
  /** operations offered but not served from the spike's start until recovery (Σ (offered − served) × seconds) */
  unservedOps: number;
  /** seconds from the spike's start to the start of the first bucket served at ≥ 95 % of offered, held (spikeOutcome); null: never */
  recoverySeconds: number | null;
}

/**
 * Where a cell's counted intervals lie on its rate schedule's clock. Each YCSB process plays its share of the
 * schedule from its own workload start (the manifest's workloadStartMs), so the clock is per process: the seconds
 * from that start where its counted intervals begin and end, and where its intervals of series bucket 0 begin.
 */
export interface ScheduleClock {
  processes: { fromSeconds: number; toSeconds: number; bucketZeroSeconds: number }[];
}

/**
 * The cell's schedule clock from its aggregate. A process without a workload start (an agent that saw no status
 * line) is placed on the cell's start. Series buckets are cut on each process's own window start
 * (lib/core/results/aggregate.ts), so a process's first counted interval is in its bucket 0; its intervals begin
 * at YCSB's status ticks, which its StatusThread paces at whole multiples of the status interval from the
 * workload's start (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/StatusThread.java):
 * bucket 0's start is put on that grid (the measured offset differs from it by the agent's few ms of reading the
 * first status line). null when nothing was counted.
 */
export function scheduleClockOf(
  agg: Pick<CellAggregate, 'window' | 'processes'>,
  seriesSeconds: number,
): ScheduleClock | null {
  const processes: ScheduleClock['processes'] = [];
  for (const p of agg.processes) {
    if (!p.counted) continue;
    const zeroMs = p.counted.workloadStartMs ?? agg.window.cellStartMs;
    const fromSeconds = (p.counted.startMs - zeroMs) / 1000;
    const ticks = Math.round(fromSeconds / seriesSeconds);
    processes.push({
      fromSeconds,
      toSeconds: (p.counted.endMs - zeroMs) / 1000,
      bucketZeroSeconds: ticks * seriesSeconds,
    });
  }
  return processes.length ? { processes } : null;
}

/**
 * The schedule's mean offered rate over exactly what was counted: per process the fleet's schedule over its
 * counted span (each process plays an equal share of it), averaged over the processes, ÷ the seconds every ops/s
 * figure of the cell divides by (lib/core/results/aggregate.ts measuredSeconds): served ÷ this is served operations
 * ÷ offered operations over the same intervals.
 */
export function offeredOverCounted(
  points: readonly RatePoint[],
  clock: ScheduleClock,
  measuredSeconds: number,
): number {
  const ops = clock.processes.map(
    (p) => offeredOps(points, p.toSeconds) - offeredOps(points, Math.max(0, p.fromSeconds)),
  );
  const mean = ops.reduce((a, b) => a + b, 0) / ops.length;
  return measuredSeconds > 0 ? mean / measuredSeconds : 0;
}

/**
 * A rate-schedule cell's aggregate with its target and attainment: the schedule's mean offered rate over exactly
 * the counted intervals (offeredOverCounted), so attainment is served ÷ offered over the same seconds; with nothing
 * counted (no clock), the schedule's mean over the window's nominal seconds [warm-up, duration − cool-down).
 */
export function withScheduleTarget(
  agg: CellAggregate,
  o: { points: readonly RatePoint[]; clock: ScheduleClock | null; nominal: [number, number] },
): CellAggregate {
  const offered = o.clock
    ? offeredOverCounted(o.points, o.clock, agg.window.measuredSeconds)
    : offeredRate(o.points, o.nominal[0], o.nominal[1]);
  return { ...agg, targetOpsPerSec: offered, attainment: offered > 0 ? agg.goodOpsPerSec / offered : null };
}

/** The clock of a cell aggregated without one (no process counted): bucket 0 begins at the warm-up's end. */
export function warmupClock(warmupSeconds: number): ScheduleClock {
  return {
    processes: [{ fromSeconds: warmupSeconds, toSeconds: warmupSeconds, bucketZeroSeconds: warmupSeconds }],
  };
}

/** The bucket-0 start most processes share (the earliest of a tie): where the timeline places its buckets. */
function commonZero(clock: ScheduleClock): number {
  const n = new Map<number, number>();
  for (const p of clock.processes) n.set(p.bucketZeroSeconds, (n.get(p.bucketZeroSeconds) ?? 0) + 1);
  return [...n.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
}

const num = (r: Row, k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null);

/**
 * The measured timeline from a cell's interval rows (warm-up buckets too: the schedule starts with the cell), on
 * the schedule's clock (scheduleClockOf): a bucket is placed where its intervals began, and offered is what the
 * schedule offered over those same seconds (per process, averaged: processes started a status interval apart
 * hold different seconds of the schedule in one bucket).
 */
export function measuredTimeline(
  intervals: readonly Row[],
  points: readonly RatePoint[],
  clock: ScheduleClock,
): ScheduleBucket[] {
  const byT = new Map<number, { seconds: number; rates: [string, number][] }>();
  for (const r of intervals) {
    const op = String(r.op);
    const info = classifyName(op);
    const counted = info.kind === 'ok' || info.kind === 'failed' || info.kind === 'throttled';
    // Intended- names too: tallyOperations counts them when they are all there is (measurement.interval=intended)
    if (!(counted || info.op === READ_MODIFY_WRITE)) continue;
    const seconds = num(r, 'bucket_seconds') ?? 0;
    if (!(seconds > 0)) continue;
    const t = num(r, 'offset_seconds') ?? 0;
    const b = byT.get(t) ?? { seconds: 0, rates: [] };
    b.seconds = Math.max(b.seconds, seconds);
    // each name's rate over its own span (as the series does: names' spans differ by a few ms)
    b.rates.push([op, (num(r, 'count') ?? 0) / seconds]);
    byT.set(t, b);
  }
  const zero = commonZero(clock);
  const offered = (offset: number, seconds: number): number =>
    clock.processes.reduce(
      (a, p) => a + offeredRate(points, p.bucketZeroSeconds + offset, p.bucketZeroSeconds + offset + seconds),
      0,
    ) / clock.processes.length;
  return [...byT.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([offset, b]) => {
      // operations as issued: a read-modify-write once (lib/core/results/names.ts tallyOperations)
      const ops = tallyOperations(b.rates);
      return {
        t: offset + zero,
        seconds: b.seconds,
        offeredOpsPerSec: offered(offset, b.seconds),
        servedOpsPerSec: ops.good,
        failedOpsPerSec: ops.failed,
        throttledAttemptsPerSec: ops.throttled,
      };
    });
}

/**
 * Seconds a recovery must hold: from the recovering interval, the intervals starting within this many seconds serve
 * at least 95 % of what they were offered, together (one-second buckets of a few dozen operations vary by a few %).
 */
export const RECOVERY_HOLD_SECONDS = 5;

type TimelinePoint = { t: number; seconds?: number; offeredOpsPerSec: number; servedOpsPerSec: number };

function recoversAt(timeline: readonly TimelinePoint[], i: number): boolean {
  const x = timeline[i]!;
  if (x.servedOpsPerSec < RECOVERED_SHARE * x.offeredOpsPerSec) return false;
  let served = 0;
  let offered = 0;
  for (let j = i; j < timeline.length && timeline[j]!.t < x.t + RECOVERY_HOLD_SECONDS; j++) {
    const y = timeline[j]!;
    served += y.servedOpsPerSec * (y.seconds ?? 1);
    offered += y.offeredOpsPerSec * (y.seconds ?? 1);
  }
  return served >= RECOVERED_SHARE * offered;
}

/**
 * A spike's unserved operations and recovery time on a timeline (measured buckets, or the model's seconds):
 * recovery is the first interval at or after the spike's start that serves at least 95 % of its offered rate,
 * held over the next RECOVERY_HOLD_SECONDS; the unserved operations are those of the intervals from the spike's
 * start until then.
 */
export function spikeOutcome(timeline: readonly TimelinePoint[], spike: Spike): SpikeOutcome {
  const from = timeline.findIndex((x) => x.t >= spike.startSeconds);
  let recovered: number | null = null;
  for (let i = Math.max(0, from); from >= 0 && i < timeline.length; i++)
    if (recoversAt(timeline, i)) {
      recovered = i;
      break;
    }
  let unserved = 0;
  if (from >= 0)
    for (let i = from; i < (recovered ?? timeline.length); i++) {
      const x = timeline[i]!;
      unserved += Math.max(0, x.offeredOpsPerSec - x.servedOpsPerSec) * (x.seconds ?? 1);
    }
  return {
    ...spike,
    unservedOps: Math.round(unserved),
    recoverySeconds: recovered === null ? null : timeline[recovered]!.t - spike.startSeconds,
  };
}

/** Throttled attempts and failed operations measured from a spike's start until its recovery (or the end). */
export function spikeCounts(
  timeline: readonly ScheduleBucket[],
  outcome: SpikeOutcome,
): { throttledAttempts: number; failedOps: number } {
  const end = outcome.recoverySeconds === null ? Infinity : outcome.startSeconds + outcome.recoverySeconds;
  let throttledAttempts = 0;
  let failedOps = 0;
  for (const b of timeline)
    if (b.t >= outcome.startSeconds && b.t < end) {
      throttledAttempts += b.throttledAttemptsPerSec * b.seconds;
      failedOps += b.failedOpsPerSec * b.seconds;
    }
  return { throttledAttempts: Math.round(throttledAttempts), failedOps: Math.round(failedOps) };
}
