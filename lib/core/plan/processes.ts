/**
 * The YCSB processes of a phase, derived from the plan's compact form: a cell stores the properties its
 * processes share, and each process's own values (its share of the rate, its operationcount, its range
 * of keys to load) follow from the counts. Deterministic: the same cell gives the same processes.
 */
import { YCSB_INT_MAX } from '../contract/job';
import {
  RATE_SCHEDULE_PROPERTY,
  parseRateScheduleProperty,
  rateScheduleProperty,
} from '../spec/rate-schedule';

/** One YCSB process of a phase. */
export interface ProcessPlan {
  loader: number;
  process: number;
  properties: Record<string, string>;
}

export interface LoadProcessPlan extends ProcessPlan {
  insertstart: number;
  insertcount: number;
}

/** Evenly splits `total` over `parts`; the first `total % parts` parts get one more. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const rem = total % parts;
  return Array.from({ length: parts }, (_, i) => base + (i < rem ? 1 : 0));
}

/**
 * operationcount for a run-phase process: enough for the whole duration at its target (with 50%
 * slack and a minimum), so maxexecutiontime ends the run. Not INT_MAX: with inserts in the mix,
 * YCSB 0.17.0's zipfian key chooser widens its key space by operationcount × insertproportion × 2,
 * so an absurd operationcount would make most reads miss.
 */
export function operationCount(targetPerProcess: number, durationSeconds: number): number {
  return Math.min(YCSB_INT_MAX, Math.max(1000, Math.ceil(targetPerProcess * (durationSeconds + 60) * 1.5)));
}

/** What cellProcesses needs of a cell (lib/core/plan's CellPlan). */
export interface CellProcessesInput {
  targetOpsPerSec: number;
  /** unpaced: no `target` property (YCSB without -target); targetOpsPerSec only sizes operationcount */
  unpaced?: boolean;
  durationSeconds: number;
  loaders: number;
  processesPerLoader: number;
  properties: Record<string, string>;
}

/** The load plan's process layout (lib/core/plan's LoadPlan adds the targets). */
export interface LoadProcessesInput {
  recordCount: number;
  /** YCSB processes, `processesPerLoader` per loader; each inserts its share of the key space. */
  processes: number;
  processesPerLoader: number;
  threadsPerProcess: number;
  /** The whole load's insert rate (ops/s), split over the processes; null: as fast as they go. */
  targetOpsPerSec: number | null;
  /** The properties every load process shares (the target's binding and its load properties are added per target, lib/core/pipeline/phase.ts). */
  properties: Record<string, string>;
}

/** The processes of a cell, each with its share of the cell's rate (none when the cell is unpaced). */
export function cellProcesses(cell: CellProcessesInput): ProcessPlan[] {
  const n = cell.loaders * cell.processesPerLoader;
  const split = splitEvenly(cell.targetOpsPerSec, n);
  // a rate schedule (the fleet's curve): each process offers an equal share of it at every moment
  const fleetCurve = cell.properties[RATE_SCHEDULE_PROPERTY];
  const curve = fleetCurve ? rateScheduleProperty(parseRateScheduleProperty(fleetCurve), 1 / n) : null;
  return split.map((perProc, k) => ({
    loader: Math.floor(k / cell.processesPerLoader),
    process: k % cell.processesPerLoader,
    properties: {
      ...cell.properties,
      ...(cell.unpaced ? {} : { target: String(perProc) }),
      // a target > 0 installs the open-loop schedule (the Launcher), which then follows the curve
      ...(curve ? { target: String(Math.max(1, perProc)), [RATE_SCHEDULE_PROPERTY]: curve } : {}),
      operationcount: String(
        cell.unpaced && !(Number(cell.properties.insertproportion) > 0)
          ? UNPACED_OPERATION_COUNT
          : operationCount(perProc, cell.durationSeconds),
      ),
    },
  }));
}

/**
 * operationcount of an unpaced process without inserts: YCSB counts every operation, failed ones too, and an
 * unpaced thread whose requests are throttled (with few or no retries) asks thousands a second, so a count sized
 * by the good rate ran out before maxexecutiontime (examples/local-split-for-heat.json stopped at 34 of 55 s).
 * Without inserts the key chooser does not depend on it (operationCount's caveat), so maxexecutiontime ends the run.
 */
export const UNPACED_OPERATION_COUNT = YCSB_INT_MAX;

/** The processes of the load phase, each with its disjoint range of keys. */
export function loadProcesses(load: LoadProcessesInput): LoadProcessPlan[] {
  const counts = splitEvenly(load.recordCount, load.processes);
  const rates = load.targetOpsPerSec ? splitEvenly(load.targetOpsPerSec, load.processes) : null;
  let start = 0;
  return counts.map((count, k) => {
    const insertstart = start;
    start += count;
    return {
      loader: Math.floor(k / load.processesPerLoader),
      process: k % load.processesPerLoader,
      insertstart,
      insertcount: count,
      properties: {
        ...load.properties,
        insertstart: String(insertstart),
        insertcount: String(count),
        threadcount: String(Math.min(load.threadsPerProcess, count)),
        ...(rates ? { target: String(Math.max(1, rates[k]!)) } : {}),
      },
    };
  });
}
