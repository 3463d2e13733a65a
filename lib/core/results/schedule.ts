/**
 * A rate-schedule cell's measured response (docs/rate-schedules.md): per series bucket the offered rate (the
 * schedule's mean over the bucket), the served rate (successful operations), failed operations and throttled
 * attempts; per spike the operations throttled and the time to recover.
 */
import type { Row } from './rows';
import { READ_MODIFY_WRITE, classifyName, tallyOperations } from './names';
import { offeredRate, type RatePoint, type Spike } from '../spec/rate-schedule';

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

const num = (r: Row, k: string): number | null => (typeof r[k] === 'number' ? (r[k] as number) : null);

/**
 * The measured timeline from a cell's interval rows (warm-up buckets too: the schedule starts with the cell).
 * A bucket's clock time is its offset from the window start plus the warm-up.
 */
export function measuredTimeline(
  intervals: readonly Row[],
  points: readonly RatePoint[],
  warmupSeconds: number,
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
    const t = (num(r, 'offset_seconds') ?? 0) + warmupSeconds;
    const b = byT.get(t) ?? { seconds: 0, rates: [] };
    b.seconds = Math.max(b.seconds, seconds);
    // each name's rate over its own span (as the series does: names' spans differ by a few ms)
    b.rates.push([op, (num(r, 'count') ?? 0) / seconds]);
    byT.set(t, b);
  }
  return [...byT.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, b]) => {
      // operations as issued: a read-modify-write once (lib/core/results/names.ts tallyOperations)
      const ops = tallyOperations(b.rates);
      return {
        t,
        seconds: b.seconds,
        offeredOpsPerSec: offeredRate(points, t, t + b.seconds),
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
