/**
 * An on-demand table's predicted response to a rate schedule (docs/rate-schedules.md): second by second, the
 * table serves what the schedule offers up to its ceiling, twice the previous peak, and throttles the rest; the
 * previous peak rises to what was consumed at most once per 30 minutes (rules.ts OnDemandCeiling, the emulator's
 * own rule). AWS: "If you need more than double your previous peak on table, DynamoDB automatically allocates
 * more capacity as your traffic volume increases ... However, throttling can occur if you exceed double your
 * previous peak within 30 minutes."
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html
 *
 * The table starts as the emulator makes it: a new table's (or warm throughput's) previous peak, its 30-minute
 * window just begun. Throttled operations are counted once each (no retries: the example sets dynamodb.maxRetries
 * to 0, so a throttled attempt is a failed operation).
 */
import type { DynamoDbTarget, RunSpec } from '../spec/schema';
import { offeredRate, spikesOf, type RatePoint } from '../spec/rate-schedule';
import { spikeOutcome, type SpikeOutcome } from '../results/schedule';
import { cellModelOf, type PlannedCell } from './plan-cell';
import { onDemandCeilings } from './model';

/** One second of the predicted response. */
export interface ResponsePoint {
  /** seconds from the cell's start */
  t: number;
  offeredOpsPerSec: number;
  servedOpsPerSec: number;
  throttledOpsPerSec: number;
  /** the ops/s the ceilings admit at this mix */
  ceilingOpsPerSec: number;
}

export interface OnDemandResponse {
  points: ResponsePoint[];
  /** per spike: the operations throttled (not served) until recovery and the time to recover */
  spikes: SpikeOutcome[];
}

export interface ResponseOptions {
  /** the cell's curve (fleet ops/s) */
  points: readonly RatePoint[];
  durationSeconds: number;
  capacityScale?: number;
  /** local.timeScale: the 30-minute window ÷ this (the emulator's) */
  timeScale?: number;
}

/**
 * The predicted response of an on-demand DynamoDB target to a schedule cell; null when the target is provisioned
 * or the cell is not modelled (scans, exponential keys).
 */
export function predictOnDemandResponse(
  spec: RunSpec,
  target: DynamoDbTarget,
  cell: PlannedCell,
  o: ResponseOptions,
): OnDemandResponse | null {
  if (target.billing.mode !== 'on-demand' || !spec.workload.rateSchedule) return null;
  const model = cellModelOf(spec, target, cell, o.capacityScale ?? 1);
  if (!model) return null;
  const { read, write } = onDemandCeilings(model.table);
  const p = cell.proportions;
  const readOnly = p.read + (p.query ?? 0);
  const writeOnly = p.update + p.insert;
  const both = p.readModifyWrite;
  const { readUnits, writeUnits } = model.mix;
  // timeScale seconds of the window pass per emulated second (emulator.ts)
  const dt = o.timeScale ?? 1;
  const points: ResponsePoint[] = [];
  for (let t = 0; t < o.durationSeconds; t++) {
    const offered = offeredRate(o.points, t, t + 1);
    const readPerOp = (readOnly + both) * readUnits;
    const writePerOp = (writeOnly + both) * writeUnits;
    const readDemand = offered * readPerOp;
    const writeDemand = offered * writePerOp;
    const rServed = Math.min(readDemand, read.ceiling);
    const wServed = Math.min(writeDemand, write.ceiling);
    const rf = readDemand > 0 ? rServed / readDemand : 1;
    const wf = writeDemand > 0 ? wServed / writeDemand : 1;
    const served = offered * (readOnly * rf + writeOnly * wf + both * Math.min(rf, wf));
    const ceilingOps = Math.min(
      readPerOp > 0 ? read.ceiling / readPerOp : Infinity,
      writePerOp > 0 ? write.ceiling / writePerOp : Infinity,
    );
    points.push({
      t,
      offeredOpsPerSec: offered,
      servedOpsPerSec: served,
      throttledOpsPerSec: offered - served,
      ceilingOpsPerSec: ceilingOps,
    });
    read.step(rServed, dt);
    write.step(wServed, dt);
  }
  return { points, spikes: spikesOf(spec.workload.rateSchedule).map((sp) => spikeOutcome(points, sp)) };
}
