/**
 * A cell's rate schedule (`workload.rateSchedule`, docs/rate-schedules.md) as one piecewise-linear curve of
 * (seconds, ops/s) points: the form the loader's open-loop schedule follows (`fleetbench.rateSchedule`, read by
 * loader/ycsb-binding OpenLoopWorkload) and the one the results and the on-demand model read the offered rate from.
 * Two points at the same second are a step; between points the rate moves linearly; after the last it holds.
 */
import type { Issue } from '../common/errors';
import type { RateSegment, RunSpec } from './schema';

/** The YCSB property that carries a process's curve to the loader (OpenLoopWorkload.RATE_SCHEDULE). */
export const RATE_SCHEDULE_PROPERTY = 'fleetbench.rateSchedule';

/** One point of the curve: at `t` seconds from the cell's start the offered rate is `opsPerSec`. */
export interface RatePoint {
  t: number;
  opsPerSec: number;
}

/** A spike of a schedule: where it lies on the cell's clock and its rates. */
export interface Spike {
  startSeconds: number;
  endSeconds: number;
  baseOpsPerSec: number;
  peakOpsPerSec: number;
}

function segmentSeconds(s: RateSegment): number {
  return s.kind === 'steps' ? s.steps.reduce((a, x) => a + x.seconds, 0) : s.seconds;
}

export function scheduleSeconds(segments: readonly RateSegment[]): number {
  return segments.reduce((a, s) => a + segmentSeconds(s), 0);
}

function segmentPoints(s: RateSegment, t0: number): RatePoint[] {
  if (s.kind === 'ramp')
    return [
      { t: t0, opsPerSec: s.fromOpsPerSec },
      { t: t0 + s.seconds, opsPerSec: s.toOpsPerSec },
    ];
  if (s.kind === 'spike') {
    const peak = s.baseOpsPerSec * s.multiple;
    const a = t0 + s.atSeconds;
    const b = a + s.forSeconds;
    return [
      { t: t0, opsPerSec: s.baseOpsPerSec },
      { t: a, opsPerSec: s.baseOpsPerSec },
      { t: a, opsPerSec: peak },
      { t: b, opsPerSec: peak },
      { t: b, opsPerSec: s.baseOpsPerSec },
      { t: t0 + s.seconds, opsPerSec: s.baseOpsPerSec },
    ];
  }
  const out: RatePoint[] = [];
  let t = t0;
  for (const step of s.steps) {
    out.push({ t, opsPerSec: step.opsPerSec }, { t: t + step.seconds, opsPerSec: step.opsPerSec });
    t += step.seconds;
  }
  return out;
}

/** The schedule's curve, redundant points (same second and rate as the one before) dropped. */
export function schedulePoints(segments: readonly RateSegment[]): RatePoint[] {
  const out: RatePoint[] = [];
  let t = 0;
  for (const s of segments) {
    for (const p of segmentPoints(s, t)) {
      const last = out[out.length - 1];
      if (!last || last.t !== p.t || last.opsPerSec !== p.opsPerSec) out.push(p);
    }
    t += segmentSeconds(s);
  }
  return out;
}

export function peakOpsPerSec(segments: readonly RateSegment[]): number {
  return Math.max(...schedulePoints(segments).map((p) => p.opsPerSec));
}

/** Operations the curve offers from 0 to `t` seconds (its integral); after the last point the last rate holds. */
export function offeredOps(points: readonly RatePoint[], t: number): number {
  let n = 0;
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i]!;
    const b = points[i + 1]!;
    if (t <= a.t) return n;
    const end = Math.min(t, b.t);
    const span = b.t - a.t;
    if (span > 0) {
      const rEnd = a.opsPerSec + ((b.opsPerSec - a.opsPerSec) * (end - a.t)) / span;
      n += ((a.opsPerSec + rEnd) / 2) * (end - a.t);
    }
  }
  const last = points[points.length - 1];
  if (last && t > last.t) n += last.opsPerSec * (t - last.t);
  return n;
}

/** The mean offered rate over [from, to) seconds. */
export function offeredRate(points: readonly RatePoint[], from: number, to: number): number {
  const lo = Math.max(0, from);
  if (to <= lo) return 0;
  return (offeredOps(points, to) - offeredOps(points, lo)) / (to - lo);
}

/** The spikes of a schedule, on the cell's clock. */
export function spikesOf(segments: readonly RateSegment[]): Spike[] {
  const out: Spike[] = [];
  let t = 0;
  for (const s of segments) {
    if (s.kind === 'spike')
      out.push({
        startSeconds: t + s.atSeconds,
        endSeconds: t + s.atSeconds + s.forSeconds,
        baseOpsPerSec: s.baseOpsPerSec,
        peakOpsPerSec: s.baseOpsPerSec * s.multiple,
      });
    t += segmentSeconds(s);
  }
  return out;
}

/** A number as the loader property carries it: at most 3 decimals, no exponent. */
const num = (x: number): string => String(Math.round(x * 1000) / 1000);

/**
 * The loader property `fleetbench.rateSchedule` for a process offering `share` of the fleet's rate:
 * `<seconds>:<ops/s>,<seconds>:<ops/s>,...` (OpenLoopWorkload parses it).
 */
export function rateScheduleProperty(points: readonly RatePoint[], share = 1): string {
  return points.map((p) => `${num(p.t)}:${num(p.opsPerSec * share)}`).join(',');
}

/** Parses the property back into points (the processes' plans and the tests read it). */
export function parseRateScheduleProperty(text: string): RatePoint[] {
  return text.split(',').map((pair) => {
    const [t, r] = pair.split(':').map(Number);
    if (!Number.isFinite(t) || !Number.isFinite(r))
      throw new Error(`fleetbench.rateSchedule: bad point '${pair}'`);
    return { t: t!, opsPerSec: r! };
  });
}

/**
 * The rules of a rate schedule that need more than one field: instead of one rate per cell (not with a list of
 * rates, "max" or a search), a duration equal to its length, spikes that fit their segment, some load offered.
 */
export function rateScheduleChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  const segs = w.rateSchedule;
  if (!segs) return;
  if (w.search)
    issues.push({
      path: 'workload.rateSchedule',
      message: 'expected either a rate schedule or an SLO search (workload.search), found both',
    });
  if (w.targetOpsPerSec !== undefined)
    issues.push({
      path: 'workload.targetOpsPerSec',
      message:
        `expected no throughput target with a rate schedule (it sets the rate over time), found ` +
        `${JSON.stringify(w.targetOpsPerSec)}`,
    });
  segs.forEach((s, i) => {
    if (s.kind === 'spike' && s.atSeconds + s.forSeconds > s.seconds)
      issues.push({
        path: `workload.rateSchedule[${i}].seconds`,
        message: `expected at least atSeconds + forSeconds (${s.atSeconds + s.forSeconds}), found ${s.seconds}`,
      });
  });
  const total = scheduleSeconds(segs);
  if (w.durationSeconds !== total)
    issues.push({
      path: 'workload.durationSeconds',
      message: `expected the rate schedule's length, ${total} s (the cell lasts as long as its schedule), found ${w.durationSeconds}`,
    });
  if (peakOpsPerSec(segs) <= 0)
    issues.push({ path: 'workload.rateSchedule', message: 'expected some load: every rate is 0' });
}
