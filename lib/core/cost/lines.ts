/**
 * The run estimate's building blocks, shared by the cost module and each target kind's cost
 * (lib/core/targets/<kind>/cost.ts): a line before pricing, what a target's estimate lines may read of the
 * run, and the line shapes several kinds use (provisioned capacity, request units). A leaf: it imports
 * neither the registry nor the estimate.
 */
import type { RunSpec } from '../spec/schema';
import { PriceBook, usd, type DynamoClassPrices } from './book';
import { Q } from './decimal';
import { CellLike, cellUnitsPerSec, predictedUnits } from './workload-units';
import type { LoadProcessesInput } from '../plan/processes';

/** The assumptions of the run estimate (docs/cost-model.md describes them). */
export const ESTIMATE_ASSUMPTIONS = {
  /** Provisioning, waiting for readiness and teardown, once per run. */
  setupAndTeardownSeconds: 900,
  /** A DAX cluster is billed from its creation (10+ minutes before it is available) to its deletion. */
  daxSetupSeconds: 1800,
  /** Configure + dispatch + aggregate around each cell. */
  perCellOverheadSeconds: 60,
  /** A new on-demand table sustains 4,000 write units/s (AWS docs) and may double every 30 minutes. */
  onDemandInitialWriteUnitsPerSec: 4000,
  onDemandDoublingSeconds: 1800,
  /** Default per-table throughput quota. */
  tableQuotaUnitsPerSec: 40_000,
  /** The state machine polls running work every 30 s (a Wait and a Task: 2 transitions). */
  pollSeconds: 30,
  fixedTransitions: 40,
  transitionsPerCell: 15,
  fixedLambdaInvocations: 20,
  lambdaInvocationsPerCell: 5,
  /** Small handlers: 256 MB for 1 s; the aggregator: 2 GB for 60 s per cell. */
  smallLambdaGbSeconds: 0.25,
  aggregatorGbSecondsPerCell: 120,
  /** EMF metrics per cell (per operation: p50/p99/p99.9/throughput/errors). */
  metricsPerCell: 20,
  /** Objects per YCSB process per cell (HDR log, summary, stdout, stderr) and per cell (rows, manifest...). */
  objectsPerProcess: 4,
  objectsPerCell: 10,
  /** Bytes of HDR log per process per status interval, kept one month. */
  hdrBytesPerInterval: 4096,
  athenaQueriesPerRun: 10,
  /** Athena bills at least 10 MB per query. */
  athenaMinBytesPerQuery: 10 * 1024 * 1024,
} as const;

/** The parts of a plan the estimate reads (structurally lib/core/plan's Plan). */
export interface PlanLike {
  cells: readonly CellLike[];
  load: (LoadProcessesInput & { targets: string[] }) | null;
  fleet: { instanceType: string; loaders: number };
  cellSeconds: number;
}

/** One estimate line before pricing: its quantity × unit price is its cost. */
export interface Line {
  /** What the line is for: loaders, dynamodb-capacity, dynamodb-requests, dynamodb-load, dax, storage, nodes, external, pipeline… */
  kind: string;
  label: string;
  target?: string;
  quantity: Q;
  unit: string;
  unitUsd: Q;
}

/**
 * A target's part of the estimate: AWS charges, charges attributed to it outside AWS, and what the book does
 * not price (each an unpriced line naming the spec field: listed, kept out of the total rather than guessed).
 */
export interface TargetEstimate {
  items?: Line[];
  attributed?: Line[];
  unpriced?: string[];
}

/** What a target's estimate lines need to know of the run. */
export interface RunSpan {
  spec: RunSpec;
  plan: PlanLike;
  book: PriceBook;
  runSeconds: Q;
  runHours: Q;
}

/** What a target kind declares of its run cost (a field of its TargetKind). */
export interface KindRunCost<T> {
  /** The target's estimate lines for the run (`i`: its index in the spec's targets). */
  estimate(t: T, i: number, span: RunSpan): TargetEstimate;
  /**
   * Seconds to load `records` rows at `rate` rows/s (the load fleet's cap); absent: records / rate. A kind whose
   * capacity caps the load (a DynamoDB table) says how.
   */
  loadSeconds?(t: T, spec: RunSpec, records: Q, rate: Q): Q;
}

export function round(q: Q, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(q.toNumber() * f) / f;
}

/** Provisioned capacity held for the run's hours (a DynamoDB or Keyspaces table: WCU and RCU lines). */
export function capacityLines(
  kind: string,
  target: string,
  capacity: { wcu: number; rcu: number },
  prices: DynamoClassPrices,
  runHours: Q,
): Line[] {
  return (['wcu', 'rcu'] as const).map((unit) => ({
    kind,
    label: `${target}: ${capacity[unit].toLocaleString('en-US')} ${unit.toUpperCase()} provisioned for the run`,
    target,
    quantity: runHours.mul(capacity[unit]),
    unit: `${unit.toUpperCase()}-hour`,
    unitUsd: usd(unit === 'wcu' ? prices.wcuHour : prices.rcuHour),
  }));
}

/**
 * On-demand request units over the target's cells: their target throughput × duration, an unpaced cell's by its
 * predicted timeline (predictedUnits).
 */
export function cellRequestUnits(
  plan: PlanLike,
  target: string,
  units: Parameters<typeof cellUnitsPerSec>[1],
) {
  let reads = Q.ZERO;
  let writes = Q.ZERO;
  for (const c of plan.cells) {
    if (c.target !== target) continue;
    const predicted = predictedUnits(c);
    if (predicted) {
      reads = reads.add(predicted.reads);
      writes = writes.add(predicted.writes);
      continue;
    }
    const u = cellUnitsPerSec(c, units);
    reads = reads.add(u.reads.mul(c.durationSeconds));
    writes = writes.add(u.writes.mul(c.durationSeconds));
  }
  return { reads, writes };
}

/** Write and read request-unit lines at on-demand prices. */
export function requestLines(
  kind: string,
  target: string,
  units: { writes: Q; reads: Q },
  labels: { writes: string; reads: string },
  prices: DynamoClassPrices,
): Line[] {
  return [
    {
      kind,
      label: `${target}: ${labels.writes}`,
      target,
      quantity: units.writes,
      unit: 'write request unit',
      unitUsd: usd(prices.wruPerMillion).div(1_000_000),
    },
    {
      kind,
      label: `${target}: ${labels.reads}`,
      target,
      quantity: units.reads,
      unit: 'read request unit',
      unitUsd: usd(prices.rruPerMillion).div(1_000_000),
    },
  ];
}
