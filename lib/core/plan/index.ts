/**
 * The planner: a validated run spec becomes cells (target × distribution × read proportion ×
 * throughput target), per-process YCSB properties, a load phase and a loader fleet. Deterministic:
 * the same spec and run id give the same plan.
 */
import type { Proportions, RunSpec, Target } from '../spec/schema';
import {
  BASE_WORKLOADS,
  distributionInfo,
  distributionsOf,
  operationMixes,
  throughputSteps,
} from '../spec/workload';
import { sizeTarget, type TargetSizing } from './sizing';
import { aaCellId } from '../regression/noise';
import { distributionSlug, pct } from './grid';
import { loadPriceBook } from '../cost/book';
import { CQL_TABLE, externalJobProperties } from '../cluster';
import { estimateRunCost, type RunEstimate } from '../cost/estimate';
import { predictPlannedCell, type CellPrediction } from '../dynamodb-model/plan-cell';

export { requiredConcurrency, sizeTarget, expectedLatencyMs, type TargetSizing } from './sizing';

/** YCSB 0.17.0 parses operationcount, insertcount and threadcount as Java ints. */
export const YCSB_INT_MAX = 2_147_483_647;
/** The binding every run-phase process uses unless the target says otherwise. */
export const DYNAMODB_BINDING_CLASS = 'dev.fleetbench.ycsb.DynamoDbClient';

export interface ProcessPlan {
  loader: number;
  process: number;
  properties: Record<string, string>;
}

export interface CellPlan {
  id: string;
  index: number;
  target: string;
  targetKind: Target['kind'];
  distribution: string;
  distributionLabel: string;
  readProportion: number;
  updateProportion: number;
  proportions: Proportions;
  targetOpsPerSec: number;
  durationSeconds: number;
  warmupSeconds: number;
  cooldownSeconds: number;
  loaders: number;
  processes: ProcessPlan[];
  /** DynamoDB cells: the capacity model's steady-state prediction on AWS (docs/dynamodb-model.md) */
  prediction?: CellPrediction;
  /** DynamoDB cells of a spec with `local.capacityScale` ≠ 1: the prediction with the scaled limits */
  localPrediction?: CellPrediction;
}

export interface LoadProcessPlan extends ProcessPlan {
  insertstart: number;
  insertcount: number;
}

export interface LoadPlan {
  /** Targets that are loaded (a target with `existingTable` is not). */
  targets: string[];
  recordCount: number;
  processes: LoadProcessPlan[];
}

export interface Plan {
  specName: string;
  runId: string;
  cells: CellPlan[];
  load: LoadPlan | null;
  sizing: Record<string, TargetSizing>;
  /** Loader instances to launch: the most any target needs. */
  fleet: { instanceType: string; loaders: number; processesPerLoader: number; threadsPerProcess: number };
  tables: Record<string, string>;
  warnings: string[];
  /** Seconds of benchmark time (cells only, excluding load and provisioning). */
  cellSeconds: number;
  /** What the run itself will cost on AWS, itemised (lib/core/cost/estimate.ts). */
  estimate: RunEstimate;
}

export interface PlanOptions {
  runId?: string;
  /** Price book id or file for the estimate; default: the newest built-in book. */
  priceBook?: string;
}

/** Properties managed by the planner; `workload.extraProperties` may not override them. */
export const MANAGED_PROPERTIES = [
  'workload',
  'recordcount',
  'operationcount',
  'maxexecutiontime',
  'threadcount',
  'target',
  'insertstart',
  'insertcount',
  'readproportion',
  'updateproportion',
  'insertproportion',
  'scanproportion',
  'readmodifywriteproportion',
  'requestdistribution',
  'hotspotdatafraction',
  'hotspotopnfraction',
  'fieldcount',
  'fieldlength',
  'measurementtype',
  'measurement.interval',
  'hdrhistogram.fileoutput',
  'hdrhistogram.output.path',
  'status.interval',
  'exporter',
  'exportfile',
  'table',
] as const;

/** Evenly splits `total` over `parts`; the first `total % parts` parts get one more. */
export function splitEvenly(total: number, parts: number): number[] {
  const base = Math.floor(total / parts);
  const rem = total % parts;
  return Array.from({ length: parts }, (_, i) => base + (i < rem ? 1 : 0));
}

export function tableName(spec: RunSpec, target: Target, runId: string): string {
  if (target.kind === 'dynamodb' && target.existingTable) return target.existingTable;
  if (target.kind === 'external' && target.table) return target.table;
  // CQL identifiers are at most 48 letters, digits and "_": the seeds' usertable (one cluster per run)
  if (
    (target.kind === 'scylla-ec2' && target.api === 'cql') ||
    target.kind === 'cassandra-ec2' ||
    (target.kind === 'external' && target.protocol === 'cql')
  )
    return CQL_TABLE;
  return `fleetbench-${spec.name}-${target.id}-${runId}`.slice(0, 255);
}

function commonProperties(spec: RunSpec, target: Target, table: string): Record<string, string> {
  const p: Record<string, string> = {
    workload: 'site.ycsb.workloads.CoreWorkload',
    recordcount: String(spec.dataset.recordCount),
    fieldcount: String(spec.dataset.fieldCount),
    fieldlength: String(spec.dataset.fieldLength),
    table,
    measurementtype: 'hdrhistogram',
    'measurement.interval': spec.workload.measurement,
    'hdrhistogram.fileoutput': 'true',
    'hdrhistogram.percentiles': '50,90,95,99,99.9,99.99',
    'status.interval': String(spec.workload.statusIntervalSeconds),
    exporter: 'site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter',
  };
  if (target.kind === 'dynamodb') {
    p['dynamodb.region'] = spec.region;
    p['dynamodb.keyAttribute'] = target.keyAttribute;
    p['dynamodb.consistentReads'] = String(target.consistentReads);
  } else if (target.kind === 'scylla-ec2' && target.api === 'alternator') {
    p['dynamodb.region'] = spec.region;
    p['dynamodb.keyAttribute'] = 'p';
    p['dynamodb.consistentReads'] = String(target.alternator?.consistentReads ?? true);
  } else if (target.kind === 'external' && target.protocol === 'dynamodb') {
    p['dynamodb.region'] = target.region ?? spec.region;
    p['dynamodb.keyAttribute'] = 'p';
  }
  if (target.kind === 'external') Object.assign(p, externalJobProperties(target));
  return p;
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

/** The capacity model's predictions for a DynamoDB cell (none for what it does not model). */
function addPredictions(spec: RunSpec, t: Extract<Target, { kind: 'dynamodb' }>, cell: CellPlan): void {
  const aws = predictPlannedCell(spec, t, cell);
  if (aws) cell.prediction = aws;
  const scale = spec.local?.capacityScale ?? 1;
  const local = scale !== 1 ? predictPlannedCell(spec, t, cell, scale) : null;
  if (local) cell.localPrediction = local;
}

/** One line per DynamoDB cell the capacity model predicts below 95 % of its target, with why. */
export function predictionWarnings(cells: CellPlan[]): string[] {
  const f = (x: number) => Math.round(x).toLocaleString('en-US');
  return cells.flatMap((c) => {
    const p = c.prediction;
    if (!p || p.attainment >= 0.95) return [];
    return [
      `cell "${c.id}": predicted ${(p.attainment * 100).toFixed(1)}% of target (${f(p.goodOpsPerSec)} of ` +
        `${f(c.targetOpsPerSec)} ops/s, limited by ${p.limitedBy}): ${p.reason}`,
    ];
  });
}

export function planRun(spec: RunSpec, options: PlanOptions = {}): Plan {
  const runId = options.runId ?? 'plan';
  const w = spec.workload;
  const steps = throughputSteps(w);
  const maxOps = Math.max(...steps);
  const mixes = operationMixes(w);
  const dists = distributionsOf(w);
  const base = BASE_WORKLOADS[w.base];

  const sizing: Record<string, TargetSizing> = {};
  const tables: Record<string, string> = {};
  for (const t of spec.targets) {
    sizing[t.id] = sizeTarget(spec, t, maxOps);
    tables[t.id] = tableName(spec, t, runId);
  }
  const fleetLoaders = Math.max(...Object.values(sizing).map((s) => s.loaders));

  const cells: CellPlan[] = [];
  for (const t of spec.targets) {
    const s = sizing[t.id]!;
    const common = commonProperties(spec, t, tables[t.id]!);
    for (const d of dists) {
      const info = distributionInfo(d);
      for (const m of mixes) {
        for (const ops of steps) {
          const nProc = s.loaders * s.processesPerLoader;
          const split = splitEvenly(ops, nProc);
          const processes: ProcessPlan[] = split.map((perProc, k) => ({
            loader: Math.floor(k / s.processesPerLoader),
            process: k % s.processesPerLoader,
            properties: {
              ...base.properties,
              ...w.extraProperties,
              ...common,
              ...info.properties,
              readproportion: String(m.proportions.read),
              updateproportion: String(m.proportions.update),
              insertproportion: String(m.proportions.insert),
              scanproportion: String(m.proportions.scan),
              readmodifywriteproportion: String(m.proportions.readModifyWrite),
              threadcount: String(s.threadsPerProcess),
              target: String(perProc),
              operationcount: String(operationCount(perProc, w.durationSeconds)),
              maxexecutiontime: String(w.durationSeconds),
            },
          }));
          const cellId = `${t.id}.${distributionSlug(info)}.r${pct(m.proportions.read)}.t${ops}`;
          // A/A mode: the same cell `repeats` times in a row
          for (let k = 1; k <= w.repeats; k++) {
            cells.push({
              id: w.repeats > 1 ? aaCellId(cellId, k) : cellId,
              index: cells.length,
              target: t.id,
              targetKind: t.kind,
              distribution: info.type,
              distributionLabel: info.label,
              readProportion: m.proportions.read,
              updateProportion: m.proportions.update,
              proportions: m.proportions,
              targetOpsPerSec: ops,
              durationSeconds: w.durationSeconds,
              warmupSeconds: w.warmupSeconds,
              cooldownSeconds: w.cooldownSeconds,
              loaders: s.loaders,
              processes,
            });
            const cell = cells[cells.length - 1]!;
            // the repeats of a cell are the same cell: predicted once, then shared
            if (t.kind === 'dynamodb') {
              const first = k === 1 ? null : cells[cells.length - k]!;
              if (first) {
                if (first.prediction) cell.prediction = first.prediction;
                if (first.localPrediction) cell.localPrediction = first.localPrediction;
              } else addPredictions(spec, t, cell);
            }
          }
        }
      }
    }
  }

  let load: LoadPlan | null = null;
  const loadTargets = spec.targets
    .filter((t) => !(t.kind === 'dynamodb' && t.existingTable))
    .map((t) => t.id);
  if (spec.dataset.load && loadTargets.length > 0) {
    const perLoader = spec.loaders.processesPerLoader;
    const nProc = Math.min(fleetLoaders * perLoader, spec.dataset.recordCount);
    const counts = splitEvenly(spec.dataset.recordCount, nProc);
    const targets = spec.dataset.loadTargetOpsPerSec
      ? splitEvenly(spec.dataset.loadTargetOpsPerSec, nProc)
      : null;
    let start = 0;
    const processes: LoadProcessPlan[] = counts.map((count, k) => {
      const insertstart = start;
      start += count;
      const properties: Record<string, string> = {
        workload: 'site.ycsb.workloads.CoreWorkload',
        recordcount: String(spec.dataset.recordCount),
        insertstart: String(insertstart),
        insertcount: String(count),
        fieldcount: String(spec.dataset.fieldCount),
        fieldlength: String(spec.dataset.fieldLength),
        threadcount: String(Math.min(spec.loaders.threadsPerProcess, count)),
        measurementtype: 'hdrhistogram',
        'measurement.interval': 'op',
        'hdrhistogram.fileoutput': 'true',
        'hdrhistogram.percentiles': '50,90,95,99,99.9,99.99',
        'status.interval': String(w.statusIntervalSeconds),
        exporter: 'site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter',
        // insert failures are retried instead of leaving holes in the key space
        core_workload_insertion_retry_limit: '10',
        // DynamoDB-API targets load with BatchWriteItem, 25 items a request (the CQL binding ignores it)
        'dynamodb.batchInserts': '25',
      };
      if (targets) properties.target = String(Math.max(1, targets[k]!));
      return {
        loader: Math.floor(k / perLoader),
        process: k % perLoader,
        insertstart,
        insertcount: count,
        properties,
      };
    });
    load = { targets: loadTargets, recordCount: spec.dataset.recordCount, processes };
  }

  const warnings = Object.values(sizing).flatMap((s) => s.warnings);
  warnings.push(...predictionWarnings(cells));
  const maxProc = Math.max(...Object.values(sizing).map((s) => s.totalProcesses));
  if (mixes.some((m) => m.proportions.insert > 0) && maxProc > 1) {
    warnings.push(
      `workload: inserts in the run phase with ${maxProc} YCSB processes: every process numbers its new keys ` +
        `from recordcount, so processes insert (overwrite) the same keys; the insert count is right, the table grows less`,
    );
  }
  const plan: Omit<Plan, 'estimate'> = {
    specName: spec.name,
    runId,
    cells,
    load,
    sizing,
    fleet: {
      instanceType: spec.loaders.instanceType,
      loaders: fleetLoaders,
      processesPerLoader: spec.loaders.processesPerLoader,
      threadsPerProcess: spec.loaders.threadsPerProcess,
    },
    tables,
    warnings,
    cellSeconds: cells.length * w.durationSeconds,
  };
  const estimate = estimateRunCost(spec, plan, loadPriceBook(options.priceBook));
  warnings.push(...estimate.unpriced);
  return { ...plan, estimate };
}
