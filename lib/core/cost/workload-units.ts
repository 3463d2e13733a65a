/**
 * Capacity units a run-spec cell consumes on a DynamoDB target: the item YCSB writes (from the
 * spec's dataset), read/write units per operation, and units per second at the cell's throughput.
 */
import type { DynamoDbTarget, Proportions, RunSpec } from '../spec/schema';
import { Consistency, READ_UNIT_BYTES, readUnitsPerRead, writeUnitsPerWrite } from './capacity';
import { dynamoItemBytes } from '../targets/dynamodb/item-size';
import { Q } from './decimal';

/** The parts of a planned cell the cost model reads (structurally a lib/core/plan CellPlan). */
export interface CellLike {
  id: string;
  target: string;
  targetOpsPerSec: number;
  durationSeconds: number;
  proportions: Proportions;
  loaders: number;
  processesPerLoader: number;
  /** the YCSB properties every process of the cell shares */
  properties: Record<string, string>;
  /** no target rate: `targetOpsPerSec` is what the threads could reach, not what the table admits */
  unpaced?: boolean;
  /** DynamoDB cells: the capacity model's timeline (each point the mean over the minute from tSeconds) */
  prediction?: { timeline: readonly PredictedMinute[] };
}

/** One point of a predicted timeline as the cost model reads it (lib/core/dynamodb-model/plan-cell.ts TimelinePoint). */
export interface PredictedMinute {
  tSeconds: number;
  consumedReadUnits: number;
  consumedWriteUnits: number;
}

/**
 * The units an unpaced cell consumes by its predicted timeline: each point's mean rate over its span (to the next
 * point, the last to the cell's end). Undefined for a paced cell or one without a timeline: those are priced at their
 * target rate (what the loaders send; throttled requests are not billed, and a paced cell predicted to be throttled
 * is a plan warning, not a cheaper run).
 */
export function predictedUnits(cell: CellLike): { reads: Q; writes: Q } | undefined {
  const t = cell.prediction?.timeline;
  if (!cell.unpaced || !t?.length) return undefined;
  let reads = Q.ZERO;
  let writes = Q.ZERO;
  t.forEach((p, i) => {
    const span = Q.of((t[i + 1]?.tSeconds ?? cell.durationSeconds) - p.tSeconds);
    reads = reads.add(Q.of(p.consumedReadUnits).mul(span));
    writes = writes.add(Q.of(p.consumedWriteUnits).mul(span));
  });
  return { reads, writes };
}

export interface DynamoOpUnits {
  itemBytes: number;
  consistency: Consistency;
  writeUnitsPerWrite: number;
  readUnitsPerRead: number;
}

/** YCSB's default maxscanlength (CoreWorkload). */
export const YCSB_DEFAULT_MAX_SCAN_LENGTH = 1000;

/** The units of one operation on the target's item, as its binding writes it for the key design (item-size.ts). */
export function dynamoOpUnits(spec: RunSpec, target: DynamoDbTarget): DynamoOpUnits {
  const itemBytes = dynamoItemBytes(target, spec.dataset);
  const consistency: Consistency = target.consistentReads ? 'strong' : 'eventual';
  return {
    itemBytes,
    consistency,
    writeUnitsPerWrite: writeUnitsPerWrite(itemBytes),
    readUnitsPerRead: readUnitsPerRead(itemBytes, consistency),
  };
}

/**
 * Read units one YCSB scan consumes: a DynamoDB Scan is charged on the summed size of the items it
 * returns, rounded up per 4 KB. With YCSB's uniform scan length the mean is (1 + maxscanlength) / 2.
 */
export function readUnitsPerScan(units: DynamoOpUnits, maxScanLength: number): number {
  const meanItems = (1 + maxScanLength) / 2;
  const blocks = Math.ceil((meanItems * units.itemBytes) / READ_UNIT_BYTES);
  return units.consistency === 'eventual' ? blocks / 2 : blocks;
}

function maxScanLength(cell: Pick<CellLike, 'properties'>): number {
  const v = Number(cell.properties.maxscanlength);
  return Number.isFinite(v) && v > 0 ? v : YCSB_DEFAULT_MAX_SCAN_LENGTH;
}

/**
 * Units per second a cell asks of the table at its target throughput: reads (read, the read half of
 * read-modify-write, scans) and writes (update, insert, the write half of read-modify-write).
 */
export function cellUnitsPerSec(
  cell: Pick<CellLike, 'proportions' | 'targetOpsPerSec' | 'properties'>,
  units: DynamoOpUnits,
): { reads: Q; writes: Q } {
  const p = cell.proportions;
  const ops = Q.of(cell.targetOpsPerSec);
  const reads = ops
    .mul(Q.of(p.read).add(p.readModifyWrite))
    .mul(units.readUnitsPerRead)
    .add(p.scan > 0 ? ops.mul(p.scan).mul(readUnitsPerScan(units, maxScanLength(cell))) : Q.ZERO)
    // a Query of Limit 1 (the default) returns one item: a read's units (lib/core/dynamodb-model/rules.ts queryReadUnits)
    .add(p.query > 0 ? ops.mul(p.query).mul(units.readUnitsPerRead) : Q.ZERO);
  const writes = ops.mul(Q.of(p.update).add(p.insert).add(p.readModifyWrite)).mul(units.writeUnitsPerWrite);
  return { reads, writes };
}
