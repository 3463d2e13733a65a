/**
 * A cell's predicted timeline: the model's simulation (./simulate.ts) averaged per minute, as the plan publishes it
 * (`cells[].prediction.timeline`).
 */
import { simulate } from './simulate';
import type { CellModel } from './model';
import { keyPopularity, type KeyPopularity } from './ycsb-keys';

/** One point of a cell's predicted timeline: the mean over the minute from `tSeconds`. */
export interface TimelinePoint {
  tSeconds: number;
  goodOpsPerSec: number;
  consumedReadUnits: number;
  consumedWriteUnits: number;
  partitions: number;
}

/** Simulation steps of a timeline: 1 s, coarser for long cells (at most 300 steps: a plan of many cells stays fast). */
export function timelineStepSeconds(durationSeconds: number): number {
  return Math.max(1, Math.ceil(durationSeconds / 300));
}

/**
 * The simulation of a cell averaged per minute (per `pointSeconds`; the last point over what remains of the
 * cell), simulated in steps no longer than a point.
 */
export function predictTimeline(
  model: CellModel,
  durationSeconds: number,
  pop: KeyPopularity = keyPopularity(model.distribution, model.table.recordCount),
  pointSeconds = 60,
): TimelinePoint[] {
  const dt = Math.min(timelineStepSeconds(durationSeconds), pointSeconds);
  const steps = simulate(model, { seconds: durationSeconds, stepSeconds: dt }, pop);
  const out: TimelinePoint[] = [];
  for (let start = 0; start < durationSeconds; start += pointSeconds) {
    const inMinute = steps.filter((s) => s.t >= start && s.t < start + pointSeconds);
    if (inMinute.length === 0) continue;
    // to 0.01: the stored plan keeps its size, no figure here is that precise
    const mean = (f: (s: (typeof steps)[number]) => number) =>
      Math.round((inMinute.reduce((a, s) => a + f(s), 0) / inMinute.length) * 100) / 100;
    out.push({
      tSeconds: start,
      goodOpsPerSec: mean((s) => s.goodOpsPerSec),
      consumedReadUnits: mean((s) => s.consumedReadUnitsPerSec),
      consumedWriteUnits: mean((s) => s.consumedWriteUnitsPerSec),
      partitions: inMinute.at(-1)!.partitions,
    });
  }
  return out;
}
