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
  isUnpaced,
  operationMixes,
  rateSteps,
  throughputSteps,
} from '../spec/workload';
import { planSearches, type ProbeMark, type SearchPlan } from './searches';
import { sizeTarget, unpacedOpsPerSec, type TargetSizing } from './sizing';
import { aaCellId } from '../regression/noise';
import { distributionSlug, pct } from './grid';
import { loadPriceBook, type PriceBook } from '../cost/book';
import { TABLE_PREFIX } from '../common/ports';
import { YCSB_INT_MAX } from '../contract/job';
import { targetBinding, type TargetBinding } from './targets';
import { kindOf, loadsData } from '../targets/registry';
import { estimateRunCost, estimateSchedules, type RunEstimate, type Schedules } from '../cost/estimate';
import { groupLoaders } from '../cost/schedule';
import { planCellFailure, type CellFailurePlan } from './cell-failure';
import type { CellPrediction } from '../dynamodb-model/plan-cell';
import {
  RATE_SCHEDULE_PROPERTY,
  rateScheduleProperty,
  schedulePoints,
  type RatePoint,
} from '../spec/rate-schedule';

export {
  requiredConcurrency,
  sizeTarget,
  expectedLatencyMs,
  unpacedOpsPerSec,
  type TargetSizing,
} from './sizing';
export { targetBinding, runtimeEndpointProperties, type TargetBinding } from './targets';
export { YCSB_INT_MAX };
export {
  cellProcesses,
  loadProcesses,
  operationCount,
  splitEvenly,
  type LoadProcessPlan,
  type ProcessPlan,
} from './processes';
import type { LoadProcessesInput } from './processes';

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
  /**
   * ops/s the cell is paced at; for an unpaced cell (`unpaced`), the rate its threads could reach at the
   * expected latency (unpacedOpsPerSec), which prices and splits it but is no target: no attainment.
   */
  targetOpsPerSec: number;
  /** `targetOpsPerSec: "max"`: YCSB runs without -target, as fast as the threads go */
  unpaced?: boolean;
  durationSeconds: number;
  warmupSeconds: number;
  cooldownSeconds: number;
  loaders: number;
  processesPerLoader: number;
  /**
   * The YCSB properties every process of the cell runs with: the base workload, the spec's extra
   * properties, the target's binding properties, the distribution and the mix, threads and duration.
   * Per process only `target` (the cell's rate split evenly) and `operationcount` differ: cellProcesses.
   */
  properties: Record<string, string>;
  /** DynamoDB cells: the capacity model's steady-state prediction on AWS (docs/dynamodb-model.md) */
  prediction?: CellPrediction;
  /** DynamoDB cells of a spec with `local.capacityScale` ≠ 1: the prediction with the scaled limits */
  localPrediction?: CellPrediction;
  /**
   * A probe of an SLO search (docs/slo-search.md): planned at the search's upper bound (`targetOpsPerSec`, the
   * worst case), its rate decided when it starts (lib/core/pipeline/probe.ts)
   */
  probe?: ProbeMark;
  /**
   * A rate-schedule cell (`workload.rateSchedule`, docs/rate-schedules.md): the fleet's offered rate over the
   * cell's clock; `targetOpsPerSec` is its peak (what sizes and prices the cell)
   */
  rateSchedule?: RatePoint[];
}

/** The load phase: its processes are derived by loadProcesses (lib/core/plan/processes.ts, which documents the fields). */
export interface LoadPlan extends LoadProcessesInput {
  /** Targets that are loaded (a target with `existingTable` is not). */
  targets: string[];
}

/** A parallel run's loaders for one target: launched for it, tagged with it, used by its phases only. */
export interface LoaderGroup {
  target: string;
  loaders: number;
}

/** The loaders a run launches: its targets' groups in all (parallel), or the one shared fleet (sequential). */
export function launchedLoaders(plan: Pick<Plan, 'fleet' | 'loaderGroups'>): number {
  return plan.loaderGroups ? plan.loaderGroups.reduce((n, g) => n + g.loaders, 0) : plan.fleet.loaders;
}

export interface Plan {
  specName: string;
  runId: string;
  cells: CellPlan[];
  load: LoadPlan | null;
  sizing: Record<string, TargetSizing>;
  /**
   * The loaders of a sequential run: the most any target needs, shared by the targets one after another. A parallel
   * run launches `loaderGroups` instead.
   */
  fleet: { instanceType: string; loaders: number; processesPerLoader: number; threadsPerProcess: number };
  /**
   * `"execution": "parallel"` only: each target's own loader group, sized for its own phases (its cells and its
   * load: lib/core/cost/schedule.ts groupLoaders), in the spec's order; the run launches their sum.
   */
  loaderGroups?: LoaderGroup[];
  tables: Record<string, string>;
  /** Per target: the YCSB binding, its properties and credentials reference (its kind's declaration, read by lib/core/plan/targets.ts). */
  bindings: Record<string, TargetBinding>;
  warnings: string[];
  /** Seconds of benchmark time (cells only, excluding load and provisioning). */
  cellSeconds: number;
  /** What the run itself will cost on AWS under the spec's `execution`, itemised (lib/core/cost/estimate.ts). */
  estimate: RunEstimate;
  /** Both executions' cost, wall time and node-hours per target (lib/core/cost/schedule.ts). */
  schedules: Schedules;
  /** What a failed cell does, and what retries can cost at worst (./cell-failure.ts). */
  onCellFailure: CellFailurePlan;
  /** The SLO searches (`workload.search`), each with its probe cells and predicted limit; absent without one. */
  searches?: SearchPlan[];
}

/** A prediction as the run index lists it: without its timeline (in the cell's own object). */
export type PredictionSummary = Omit<CellPrediction, 'timeline' | 'localTimeline'>;

/**
 * A cell as the run index lists it: everything but its YCSB properties and its predicted timelines
 * (those are in its own object: a 90-point timeline per cell would make a staircase's index large).
 */
export type CellSummary = Omit<CellPlan, 'properties' | 'prediction' | 'localPrediction'> & {
  prediction?: PredictionSummary;
  localPrediction?: PredictionSummary;
};

/**
 * The stored plan's run index (`runs/<id>/plan.json`): the plan with cells as summaries. Each cell's
 * full plan is its own object (`runs/<id>/plan/cell-<index>.json`), read by the one step that needs it,
 * so no step reads the whole plan of a large staircase.
 */
export interface PlanIndex extends Omit<Plan, 'cells'> {
  cells: CellSummary[];
}

const withoutTimeline = (p: CellPrediction | undefined): { prediction?: PredictionSummary } =>
  p ? { prediction: (({ timeline: _t, localTimeline: _l, ...rest }) => rest)(p) } : {};

export function planIndex(plan: Plan): PlanIndex {
  return {
    ...plan,
    cells: plan.cells.map(({ properties: _p, prediction, localPrediction, ...summary }) => ({
      ...summary,
      ...withoutTimeline(prediction),
      ...(localPrediction ? { localPrediction: withoutTimeline(localPrediction).prediction } : {}),
    })),
  };
}

export interface PlanOptions {
  runId?: string;
  /** Price book (id or one already read) for the estimate; default: the newest built-in book. */
  priceBook?: string | PriceBook;
}

export { MANAGED_PROPERTIES } from './managed-properties';
export { searchStartPrediction, type ProbeMark, type SearchPlan } from './searches';

export function tableName(spec: RunSpec, target: Target, runId: string): string {
  // `.` separates the parts: no spec name, target id or run id holds one, so two runs never share a name
  return kindOf(target).tableName(target, `${TABLE_PREFIX}${spec.name}.${target.id}.${runId}`);
}

/** Properties every run-phase process of the spec shares (the binding's come from its target). */
function runProperties(spec: RunSpec): Record<string, string> {
  return {
    workload: 'site.ycsb.workloads.CoreWorkload',
    recordcount: String(spec.dataset.recordCount),
    fieldcount: String(spec.dataset.fieldCount),
    fieldlength: String(spec.dataset.fieldLength),
    'measurement.interval': spec.workload.measurement,
    'hdrhistogram.percentiles': '50,90,95,99,99.9,99.99',
  };
}

/** One line per DynamoDB cell the capacity model predicts below 95 % of its target, with why. */
export function predictionWarnings(cells: CellPlan[]): string[] {
  const f = (x: number) => Math.round(x).toLocaleString('en-US');
  return cells.flatMap((c) => {
    const p = c.prediction;
    if (!p || c.unpaced || !(p.attainment < 0.95)) return [];
    return [
      `cell "${c.id}": predicted ${(p.attainment * 100).toFixed(1)}% of target (${f(p.goodOpsPerSec)} of ` +
        `${f(c.targetOpsPerSec)} ops/s, limited by ${p.limitedBy}): ${p.reason}`,
    ];
  });
}

export function planRun(spec: RunSpec, options: PlanOptions = {}): Plan {
  const runId = options.runId ?? 'plan';
  const w = spec.workload;
  const sizing: Record<string, TargetSizing> = {};
  const tables: Record<string, string> = {};
  const bindings: Record<string, TargetBinding> = {};
  for (const t of spec.targets) {
    // an unpaced cell is sized by the spec's loaders: its rate is what they reach
    const maxOps = isUnpaced(w) ? unpacedOpsPerSec(spec, t) : Math.max(...throughputSteps(w));
    sizing[t.id] = sizeTarget(spec, t, maxOps, loadPriceBook(options.priceBook));
    tables[t.id] = tableName(spec, t, runId);
    bindings[t.id] = targetBinding(spec, t, tables[t.id]!, { runId, sizing: sizing[t.id] });
  }
  const fleetLoaders = Math.max(...Object.values(sizing).map((s) => s.loaders));
  const cells = spec.targets.flatMap((t) => targetCells(spec, t, sizing[t.id]!, bindings[t.id]!));
  cells.forEach((c, i) => (c.index = i));
  // a probe's planned rate is its search's upper bound, not what it runs: the searches carry the predictions
  const warnings = [
    ...Object.values(sizing).flatMap((s) => s.warnings),
    ...predictionWarnings(cells.filter((c) => !c.probe)),
  ];
  const searches = planSearches(spec, cells);
  const maxProc = Math.max(...Object.values(sizing).map((s) => s.totalProcesses));
  if (operationMixes(w).some((m) => m.proportions.insert > 0) && maxProc > 1) {
    warnings.push(
      `workload: inserts in the run phase with ${maxProc} YCSB processes: every process numbers its new keys ` +
        `from recordcount, so processes insert (overwrite) the same keys; the insert count is right, the table grows less`,
    );
  }
  const plan: Omit<Plan, 'estimate' | 'onCellFailure' | 'schedules'> = {
    specName: spec.name,
    runId,
    cells,
    load: loadPlan(spec, fleetLoaders),
    sizing,
    fleet: {
      instanceType: spec.loaders.instanceType,
      loaders: fleetLoaders,
      processesPerLoader: spec.loaders.processesPerLoader,
      threadsPerProcess: spec.loaders.threadsPerProcess,
    },
    tables,
    bindings,
    warnings,
    cellSeconds: cells.length * w.durationSeconds,
    ...(searches.length ? { searches } : {}),
  };
  if (spec.execution === 'parallel')
    plan.loaderGroups = spec.targets.map((t) => ({ target: t.id, loaders: groupLoaders(plan, t.id) }));
  const book = loadPriceBook(options.priceBook);
  const estimate = estimateRunCost(spec, plan, book);
  warnings.push(...estimate.unpriced);
  const onCellFailure = planCellFailure(spec, plan, book, estimate);
  if (spec.budget && estimate.totalUsd + onCellFailure.worstCase.extraUsd > spec.budget.maxUsd)
    warnings.push(
      `onCellFailure: retrying every cell once would add up to $${onCellFailure.worstCase.extraUsd.toFixed(2)}, ` +
        `taking the run over budget.maxUsd ($${spec.budget.maxUsd}) at worst; set "onCellFailure": "stop" to cap it`,
    );
  return { ...plan, estimate, schedules: estimateSchedules(spec, plan, book, estimate), onCellFailure };
}

/** A target's cells: every distribution × operation mix × throughput step (× A/A repeats), in that order. */
function targetCells(spec: RunSpec, t: Target, s: TargetSizing, binding: TargetBinding): CellPlan[] {
  const w = spec.workload;
  const base = BASE_WORKLOADS[w.base];
  const shared = runProperties(spec);
  const schedule = w.rateSchedule ? schedulePoints(w.rateSchedule) : null;
  const cells: CellPlan[] = [];
  for (const d of distributionsOf(w)) {
    const info = distributionInfo(d);
    for (const m of operationMixes(w)) {
      for (const step of rateSteps(w)) {
        const ops = step.opsPerSec === 'max' ? unpacedOpsPerSec(spec, t) : step.opsPerSec;
        const properties: Record<string, string> = {
          ...base.properties,
          ...w.extraProperties,
          ...shared,
          ...binding.properties,
          ...info.properties,
          readproportion: String(m.proportions.read),
          updateproportion: String(m.proportions.update),
          insertproportion: String(m.proportions.insert),
          scanproportion: String(m.proportions.scan),
          readmodifywriteproportion: String(m.proportions.readModifyWrite),
          // the binding's Query operation (issue #28's contract), only when the mix has one
          ...(m.proportions.query > 0 ? { queryproportion: String(m.proportions.query) } : {}),
          threadcount: String(s.threadsPerProcess),
          maxexecutiontime: String(w.durationSeconds),
          // the fleet's curve; cellProcesses gives each process its share
          ...(schedule ? { [RATE_SCHEDULE_PROPERTY]: rateScheduleProperty(schedule) } : {}),
        };
        const searchId = `${t.id}.${distributionSlug(info)}.r${pct(m.proportions.read)}`;
        const cellId = `${searchId}.${step.slug}`;
        const cell: CellPlan = {
          id: cellId,
          index: 0,
          target: t.id,
          targetKind: t.kind,
          distribution: info.type,
          distributionLabel: info.label,
          readProportion: m.proportions.read,
          updateProportion: m.proportions.update,
          proportions: m.proportions,
          targetOpsPerSec: ops,
          ...(step.opsPerSec === 'max' ? { unpaced: true } : {}),
          durationSeconds: w.durationSeconds,
          warmupSeconds: w.warmupSeconds,
          cooldownSeconds: w.cooldownSeconds,
          loaders: s.loaders,
          processesPerLoader: s.processesPerLoader,
          properties,
          ...(step.probe ? { probe: { search: searchId, index: step.probe } } : {}),
          ...(schedule ? { rateSchedule: schedule } : {}),
        };
        // the repeats of a cell are the same cell: predicted once, then shared
        // (a probe's planned rate is not the one it runs: its search carries the model's limit instead)
        // (a schedule's cell has no steady state: the on-demand response model predicts it, docs/rate-schedules.md)
        if (!step.probe && !schedule) Object.assign(cell, kindOf(t).predict?.(spec, t, cell));
        // A/A mode: the same cell `repeats` times in a row
        if (w.repeats === 1) cells.push(cell);
        else
          for (let k = 1; k <= w.repeats; k++)
            cells.push({ ...cell, id: aaCellId(cellId, k), properties: { ...properties } });
      }
    }
  }
  return cells;
}

/** The load phase: every target the run loads, by the fleet's processes. */
function loadPlan(spec: RunSpec, fleetLoaders: number): LoadPlan | null {
  const loadTargets = spec.targets.filter(loadsData).map((t) => t.id);
  if (!spec.dataset.load || loadTargets.length === 0) return null;
  const perLoader = spec.loaders.processesPerLoader;
  return {
    targets: loadTargets,
    recordCount: spec.dataset.recordCount,
    processes: Math.min(fleetLoaders * perLoader, spec.dataset.recordCount),
    processesPerLoader: perLoader,
    threadsPerProcess: spec.loaders.threadsPerProcess,
    targetOpsPerSec: spec.dataset.loadTargetOpsPerSec ?? null,
    properties: {
      workload: 'site.ycsb.workloads.CoreWorkload',
      recordcount: String(spec.dataset.recordCount),
      fieldcount: String(spec.dataset.fieldCount),
      fieldlength: String(spec.dataset.fieldLength),
      'measurement.interval': 'op',
      'hdrhistogram.percentiles': '50,90,95,99,99.9,99.99',
      // insert failures are retried instead of leaving holes in the key space
      core_workload_insertion_retry_limit: '10',
    },
  };
}
