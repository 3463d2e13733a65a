/**
 * The spread a cell's timeline owes to where the hash puts its partition-key values (docs/dynamodb-model.md,
 * "The placement's spread"). DynamoDB's hash is not published: the model's placement (simulate.ts
 * collectionPartition) is one draw of it. With N partition-key values the hottest partition at creation holds
 * whichever values the hash gave it, and a client held at that partition runs at its limit over that share; so the
 * same cell is simulated again on K seeded uniform placements (every value on any of the partitions at creation with
 * equal chance, independently), and each of three minutes of the timeline is summarised by its p10, p50 and p90.
 * Deterministic: a fixed seed, the same draws for every plan.
 */
import { initialPartitions, type CellModel } from './model';
import { collectionPartition } from './simulate';
import { predictTimeline, type TimelinePoint } from './timeline';
import { seededRandom, type KeyPopularity } from './ycsb-keys';
import { partitionKeyValueName } from '../targets/dynamodb/key-design';

/** Placements drawn per cell (each a 90-minute cell simulated again: about 35 ms; 25 keep a plan of seed 003 within 2 s of its time without them). */
export const PLACEMENT_DRAWS = 25;
/** The draws' seed (any fixed number: the spread is the same on every plan). */
export const PLACEMENT_SEED = 28;

export interface Percentiles {
  p10: number;
  p50: number;
  p90: number;
}

/** One minute of the timeline over the placements. */
export interface SpreadPoint {
  /** the minute's start, s (the same for every placement at the start and the end) */
  tSeconds: Percentiles;
  goodOpsPerSec: Percentiles;
  consumedReadUnits: Percentiles;
}

/** `cells[].prediction.placementSpread`: the timeline's spread over random placements of the key values. */
export interface PlacementSpread {
  /** placements simulated (PLACEMENT_DRAWS) and their seed */
  placements: number;
  seed: number;
  /** partitions at creation the values are placed on */
  partitions: number;
  /** the first minute */
  start: SpreadPoint;
  /**
   * the first minute whose consumed read units exceed the start's by more than 20 % (the first split's effect),
   * over the placements that have one; null when fewer than half do
   */
  afterFirstDoubling: SpreadPoint | null;
  /** the cell's last minute */
  final: SpreadPoint;
  /** values on the hottest partition at creation, over the placements */
  hottestValues: Percentiles;
  /** values on the hottest partition under the model's own hash */
  modelHottestValues: number;
  /** the fraction of placements whose hottest partition holds modelHottestValues values */
  modelHottestFraction: number;
}

/** Nearest-rank percentile (the smallest value with at least p % of the values at or below it). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function percentiles(values: readonly number[]): Percentiles {
  return {
    p10: round2(percentile(values, 10)),
    p50: round2(percentile(values, 50)),
    p90: round2(percentile(values, 90)),
  };
}

function spreadPoint(points: readonly TimelinePoint[]): SpreadPoint {
  return {
    tSeconds: percentiles(points.map((p) => p.tSeconds)),
    goodOpsPerSec: percentiles(points.map((p) => p.goodOpsPerSec)),
    consumedReadUnits: percentiles(points.map((p) => p.consumedReadUnits)),
  };
}

/** The first minute whose consumed read units exceed the first's by more than 20 %. */
function firstDoubling(t: readonly TimelinePoint[]): TimelinePoint | undefined {
  return t.find((p) => p.consumedReadUnits > 1.2 * t[0]!.consumedReadUnits);
}

function hottest(placement: readonly number[], partitions: number): number {
  const count = new Array<number>(partitions).fill(0);
  for (const p of placement) count[p]! += 1;
  return Math.max(...count);
}

/** Whether a cell's table has a placement to draw: N partition-key values, 1 < N < its records. */
export function hasPlacementSpread(model: CellModel): boolean {
  const n = model.table.partitionKeyValues;
  return n !== undefined && n > 1 && n < model.table.recordCount;
}

/**
 * The cell's timeline on `draws` seeded uniform placements of its partition-key values (null for a table with one
 * value, or one per item: nothing to place), summarised at the start, after the first doubling and at the end.
 */
export function placementSpread(
  model: CellModel,
  durationSeconds: number,
  pop: KeyPopularity,
  draws = PLACEMENT_DRAWS,
): PlacementSpread | null {
  if (!hasPlacementSpread(model)) return null;
  const values = model.table.partitionKeyValues!;
  const n0 = initialPartitions(model.table);
  const own = Array.from({ length: values }, (_, j) => collectionPartition(partitionKeyValueName(j), n0));
  const modelHottestValues = hottest(own, n0);
  const random = seededRandom(PLACEMENT_SEED);
  const timelines: TimelinePoint[][] = [];
  const hottestCounts: number[] = [];
  for (let k = 0; k < draws; k++) {
    const placement = Array.from({ length: values }, () => Math.floor(random() * n0));
    hottestCounts.push(hottest(placement, n0));
    timelines.push(predictTimeline({ ...model, table: { ...model.table, placement } }, durationSeconds, pop));
  }
  const doubled = timelines.map(firstDoubling).filter((p): p is TimelinePoint => p !== undefined);
  return {
    placements: draws,
    seed: PLACEMENT_SEED,
    partitions: n0,
    start: spreadPoint(timelines.map((t) => t[0]!)),
    afterFirstDoubling: doubled.length >= draws / 2 ? spreadPoint(doubled) : null,
    final: spreadPoint(timelines.map((t) => t.at(-1)!)),
    hottestValues: percentiles(hottestCounts),
    modelHottestValues,
    modelHottestFraction: round2(hottestCounts.filter((h) => h === modelHottestValues).length / draws),
  };
}
