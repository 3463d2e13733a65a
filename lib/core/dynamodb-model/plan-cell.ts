/**
 * A planned DynamoDB cell as the capacity model sees it: the table from the target, the item from
 * the dataset (as the fleetbench binding writes it), YCSB's key chooser and mix from the cell, the
 * client from the loader sizing and the binding's retry properties.
 */
import type { DynamoDbTarget, RunSpec } from '../spec/schema';
import { dynamoOpUnits } from '../cost/workload-units';
import { STORAGE_OVERHEAD_BYTES_PER_ITEM } from '../cost/capacity';
import { BINDING_RETRY_DEFAULTS, type RetryPolicy } from './solve';
import { predictSteadyState, type CellModel, type Prediction } from './model';
import { keyPopularity, type KeyPopularity } from './ycsb-keys';
import { predictTimeline, type TimelinePoint } from './timeline';
import { placementSpread, type PlacementSpread } from './placement-spread';
import { queryReadUnits } from './rules';
import type { KeyDistribution } from './ycsb-keys';

export { predictTimeline, timelineStepSeconds, type TimelinePoint } from './timeline';

/** What the plan publishes per DynamoDB cell (`fleetbench plan --json`). */
export interface CellPrediction {
  /**
   * good ÷ target; NaN for an unpaced cell (no target: `null` in the plan's JSON), whose figures are
   * goodOpsPerSec and the timeline
   */
  attainment: number;
  goodOpsPerSec: number;
  /** throttled attempts / all attempts */
  throttledFraction: number;
  limitedBy: Prediction['limitedBy'];
  /** share of operations on the busiest partition (or isolated item) */
  hottestPartitionShare: number;
  throttledAttemptsPerOp: number;
  /** mean latency retries and back-off add to one operation, ms */
  addedLatencyMs: number;
  partitions: number;
  /** limits scaled by this factor (local capacity emulation); 1 on AWS */
  capacityScale: number;
  /** why the cell is predicted below 95 % of its target; '' otherwise */
  reason: string;
  /**
   * The cell over time from table creation (the model's simulation: splits for heat, burst, the table's
   * limit), one point per minute of the cell's duration, each the minute's mean (as CloudWatch's
   * one-minute sums / 60).
   */
  timeline: TimelinePoint[];
  /**
   * A local run with `local.timeScale` (the local prediction only): the timeline on the local run's clock, one
   * point per local second, each the mean over that second (timeScale seconds of the model's time), `tSeconds`
   * being local seconds since the cell's start (localTimeline).
   */
  localTimeline?: TimelinePoint[];
  /**
   * With N partition-key values (1 < N < records): the timeline's start, first doubling and end over K seeded random
   * placements of the values (DynamoDB's hash is not published; the timeline is the model's hash, one draw), each
   * as p10 / p50 / p90 (placement-spread.ts)
   */
  placementSpread?: PlacementSpread;
}

/** The planned-cell fields the model reads (structurally lib/core/plan's CellPlan). */
export interface PlannedCell {
  target: string;
  distribution: string;
  proportions: {
    read: number;
    update: number;
    insert: number;
    scan: number;
    readModifyWrite: number;
    query?: number;
  };
  /** for an unpaced cell, the rate its threads could reach (lib/core/plan unpacedOpsPerSec) */
  targetOpsPerSec: number;
  unpaced?: boolean;
  durationSeconds: number;
  loaders: number;
  processesPerLoader: number;
  /** the YCSB properties every process of the cell shares */
  properties: Record<string, string>;
}

function intProp(props: Record<string, string>, name: string, fallback: number): number {
  const v = Number(props[name]);
  return props[name] !== undefined && Number.isFinite(v) && v >= 0 ? v : fallback;
}

/** The binding's retry policy from a process's properties (loader/ycsb-binding/README.md). */
export function retryPolicyOf(props: Record<string, string>): RetryPolicy {
  return {
    maxRetries: intProp(props, 'dynamodb.maxRetries', BINDING_RETRY_DEFAULTS.maxRetries),
    baseDelayMs: intProp(props, 'dynamodb.retryBaseDelayMs', BINDING_RETRY_DEFAULTS.baseDelayMs),
    maxDelayMs: intProp(props, 'dynamodb.retryMaxDelayMs', BINDING_RETRY_DEFAULTS.maxDelayMs),
  };
}

function keyDistributionOf(cell: PlannedCell): KeyDistribution | null {
  const props = cell.properties;
  switch (cell.distribution) {
    case 'uniform':
    case 'zipfian':
    case 'latest':
    case 'sequential':
      return { type: cell.distribution };
    case 'hotspot':
      return {
        type: 'hotspot',
        dataFraction: Number(props.hotspotdatafraction),
        opFraction: Number(props.hotspotopnfraction),
      };
    default:
      return null; // exponential: not modelled
  }
}

function billingOf(t: DynamoDbTarget): CellModel['table']['billing'] {
  if (t.billing.mode === 'provisioned')
    return { mode: 'provisioned', rcu: t.billing.rcu, wcu: t.billing.wcu };
  return {
    mode: 'on-demand',
    ...(t.billing.maxReadRequestUnits ? { maxReadRequestUnits: t.billing.maxReadRequestUnits } : {}),
    ...(t.billing.maxWriteRequestUnits ? { maxWriteRequestUnits: t.billing.maxWriteRequestUnits } : {}),
  };
}

/** The table a DynamoDB target makes with the spec's dataset, every limit × capacityScale. */
export function tableModelOf(spec: RunSpec, target: DynamoDbTarget, capacityScale = 1): CellModel['table'] {
  const units = dynamoOpUnits(spec, target);
  return {
    billing: billingOf(target),
    ...(target.warmThroughput ? { warmThroughput: target.warmThroughput } : {}),
    ...(capacityScale !== 1 ? { capacityScale } : {}),
    recordCount: spec.dataset.recordCount,
    itemBytes: units.itemBytes,
    storedItemBytes: units.itemBytes + STORAGE_OVERHEAD_BYTES_PER_ITEM,
    ...(target.consistentReads ? {} : { eventuallyConsistentReads: true }),
    ...(typeof target.keyDesign?.partitionKeyValues === 'number'
      ? { partitionKeyValues: target.keyDesign.partitionKeyValues }
      : {}),
  };
}

/**
 * Read units per read operation of the mix: reads (and read-modify-write's read) at one item's units,
 * queries at queryReadUnits (the items a Query returns, summed, rounded up to 4 KB), weighted.
 */
function mixReadUnits(spec: RunSpec, target: DynamoDbTarget, p: PlannedCell['proportions']): number {
  const units = dynamoOpUnits(spec, target);
  const query = p.query ?? 0;
  const reads = p.read + p.readModifyWrite;
  if (query <= 0) return units.readUnitsPerRead;
  const q = queryReadUnits({
    itemBytes: units.itemBytes,
    limit: spec.workload.query?.limit ?? 1,
    consistent: target.consistentReads,
  });
  return (reads * units.readUnitsPerRead + query * q) / (reads + query);
}

/**
 * The cell model of a planned DynamoDB cell, or null when it is not modelled (exponential keys,
 * scans). Units per read/write from the dataset's item; threads = loaders × processes × threads;
 * the schedule from `fleetbench.schedule` (the Launcher's default: open).
 */
export function cellModelOf(
  spec: RunSpec,
  target: DynamoDbTarget,
  cell: PlannedCell,
  capacityScale = 1,
): CellModel | null {
  const dist = keyDistributionOf(cell);
  if (!dist || cell.proportions.scan > 0) return null;
  const units = dynamoOpUnits(spec, target);
  const p = cell.proportions;
  const props = cell.properties;
  const threads = cell.loaders * cell.processesPerLoader * intProp(props, 'threadcount', 1);
  const table = tableModelOf(spec, target, capacityScale);
  if (table.partitionKeyValues !== undefined)
    table.keyNaming = {
      ordered: props.insertorder === 'ordered',
      zeroPadding: intProp(props, 'zeropadding', 1),
    };
  return {
    table,
    distribution: dist,
    mix: {
      read: p.read + p.readModifyWrite + (p.query ?? 0),
      write: p.update + p.insert + p.readModifyWrite,
      readUnits: mixReadUnits(spec, target, p),
      writeUnits: units.writeUnitsPerWrite,
    },
    targetOpsPerSec: cell.targetOpsPerSec,
    client: {
      threads,
      processes: Math.max(1, cell.loaders * cell.processesPerLoader),
      schedule: props['fleetbench.schedule'] === 'per-thread' ? 'per-thread' : 'open',
      latencyMs: target.expectedLatencyMs ?? 6,
      retry: retryPolicyOf(props),
    },
  };
}

/** The plan's prediction for a DynamoDB cell (steady state), with every limit × `capacityScale`. */
export function predictPlannedCell(
  spec: RunSpec,
  target: DynamoDbTarget,
  cell: PlannedCell,
  capacityScale = 1,
): CellPrediction | null {
  const model = cellModelOf(spec, target, cell, capacityScale);
  if (!model) return null;
  // YCSB's key popularity once for both modes (a zipfian fold of 200,000 ranks)
  const pop = keyPopularity(model.distribution, model.table.recordCount);
  // unpaced cells only: their result is the curve, and there are few of them (one per mix); 25 more simulations
  // per cell of a paced grid of hundreds would take the Plan step past its time
  const spread = cell.unpaced ? placementSpread(model, cell.durationSeconds, pop) : null;
  return { ...predictionOf(model, cell, pop), ...(spread ? { placementSpread: spread } : {}) };
}

/** The steady state and the timeline of a cell's model (the limits as the model's, × its capacityScale). */
function predictionOf(model: CellModel, cell: PlannedCell, pop: KeyPopularity): CellPrediction {
  const p = predictSteadyState(model, pop);
  return {
    attainment: cell.unpaced ? NaN : p.attainment,
    goodOpsPerSec: p.goodOpsPerSec,
    throttledFraction: p.throttledFraction,
    limitedBy: p.limitedBy,
    hottestPartitionShare: p.hottestPartitionShare,
    throttledAttemptsPerOp: p.throttledAttemptsPerOp,
    addedLatencyMs: p.addedLatencyMs,
    partitions: p.partitions,
    capacityScale: model.table.capacityScale ?? 1,
    reason: cell.unpaced ? '' : p.reason,
    timeline: predictTimeline(model, cell.durationSeconds, pop),
  };
}

/**
 * The plan's prediction for a DynamoDB cell of a local run: every limit × local.capacityScale and, with
 * local.timeScale, the timeline on the local clock (localTimeline) beside the model's. No placement spread: the plan
 * shows the AWS prediction's (the local run's hash is the emulator's own, one draw).
 */
export function predictLocalCell(
  spec: RunSpec,
  target: DynamoDbTarget,
  cell: PlannedCell,
  local: { capacityScale?: number | undefined; timeScale?: number | undefined },
): CellPrediction | null {
  const model = cellModelOf(spec, target, cell, local.capacityScale ?? 1);
  if (!model) return null;
  const pop = keyPopularity(model.distribution, model.table.recordCount);
  const p = predictionOf(model, cell, pop);
  if (local.timeScale === undefined) return p;
  return { ...p, localTimeline: localTimeline(model, cell.durationSeconds, local.timeScale, pop) };
}

/**
 * A cell's predicted timeline on a local run's clock (the capacity emulator with a time scale,
 * lib/core/dynamodb-model/emulator.ts): the emulator runs every duration of the rules timeScale × faster and keeps
 * rates in units per second, so the local run's second t is the model's second t × timeScale (limits as the
 * model's, × its capacityScale). The model simulated over durationSeconds × timeScale, averaged per local second.
 */
export function localTimeline(
  model: CellModel,
  durationSeconds: number,
  timeScale: number,
  pop: KeyPopularity = keyPopularity(model.distribution, model.table.recordCount),
): TimelinePoint[] {
  return predictTimeline(model, durationSeconds * timeScale, pop, timeScale).map((p) => ({
    ...p,
    tSeconds: p.tSeconds / timeScale,
  }));
}
