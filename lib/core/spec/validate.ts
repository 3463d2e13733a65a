/**
 * Validation of a run spec: structure (zod), then rules that need the whole document. Every
 * problem is reported at once as `<json path>: <expected, found>`; warnings do not stop a run.
 */
import { InputError, type Issue } from '../common/errors';
import { MANAGED_PROPERTIES, YCSB_INT_MAX, sizeTarget } from '../plan';
import { cellGrid } from '../plan/grid';
import { capacityChecks } from '../cost/capacity-check';
import { RunSpecSchema, type RunSpec } from './schema';
import { cellLimitChecks } from './grid-size';
import { searchChecks } from './search-checks';
import { rateScheduleChecks } from './rate-schedule';
import { tagChecks } from './tags';
import { scheduleChecks } from './schedule-expression';
import { targetSpecFindings, withKindDefaults } from '../targets/registry';
import { extraPropertyChecks, secretChecks } from './properties';
import { keyDesignAndQueryChecks } from './key-design';
import { unpacedOpsPerSec } from '../plan/sizing';
import { jsonPath, toIssues } from './errors';
import {
  PROPORTION_SUM_TOLERANCE,
  distributionInfo,
  distributionsOf,
  isUnpaced,
  operationMixes,
  otherProportions,
  proportionSum,
  throughputSteps,
} from './workload';

export interface Validated {
  spec: RunSpec;
  warnings: string[];
}

/** Parses JSON text; a syntax error names the line and column. */
export function parseSpecText(text: string, source = 'spec'): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const msg = (err as Error).message;
    const m = /position (\d+)/.exec(msg);
    if (m) {
      const pos = Number(m[1]);
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const col = pos - before.lastIndexOf('\n');
      throw new InputError([{ path: `${source}:${line}:${col}`, message: `not valid JSON: ${msg}` }]);
    }
    throw new InputError([{ path: source, message: `not valid JSON: ${msg}` }]);
  }
}

/** Validates a parsed spec document; throws InputError listing every problem. */
export function validateSpec(data: unknown): Validated {
  const parsed = RunSpecSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    throw new InputError(toIssues(parsed.error.issues, RunSpecSchema, data));
  }
  const spec = normalise(parsed.data);
  const issues: Issue[] = [];
  const warnings: string[] = [];
  // first: the grid's size is counted before semanticChecks' capacity check expands it
  for (const check of SPEC_CHECKS) check(spec, issues, warnings);
  semanticChecks(spec, issues, warnings);
  if (issues.length) throw new InputError(issues);
  return { spec, warnings };
}

/**
 * Rules with a module of their own, run before semanticChecks: the grid's size, what AWS and the loader agent would
 * refuse later (tags, property names), secrets in plain text. Each kind's own rules (a user's binding, transport)
 * run with the targets in semanticChecks.
 */
const SPEC_CHECKS: ((spec: RunSpec, issues: Issue[], warnings: string[]) => void)[] = [
  searchChecks,
  rateScheduleChecks,
  cellLimitChecks,
  tagChecks,
  extraPropertyChecks,
  secretChecks,
  scheduleChecks,
];

function normalise(spec: RunSpec): RunSpec {
  return { ...spec, targets: spec.targets.map(withKindDefaults) };
}

const fmt = (x: number) => x.toLocaleString('en-US');

/** The whole document's rules, in order; the sizing checks run only when the others found nothing. */
function semanticChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  targetChecks(spec, issues, warnings);
  timeWindowChecks(spec, issues, warnings);
  proportionChecks(spec, issues);
  throughputChecks(spec, issues);
  keyDesignAndQueryChecks(spec, issues, warnings);
  propertyAndRangeChecks(spec, issues);
  if (issues.length === 0) sizingChecks(spec, issues, warnings);
}

/** Unique target ids, then each kind's rules (lib/core/targets/<kind>/kind.ts). */
function targetChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  const seen = new Map<string, number>();
  spec.targets.forEach((t, i) => {
    const prev = seen.get(t.id);
    if (prev !== undefined)
      issues.push({
        path: `targets[${i}].id`,
        message: `duplicate target id "${t.id}" (already used by targets[${prev}])`,
      });
    else seen.set(t.id, i);
  });

  const kinds = targetSpecFindings(spec);
  issues.push(...kinds.issues);
  warnings.push(...kinds.warnings);
}

function timeWindowChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  const w = spec.workload;
  if (w.warmupSeconds + w.cooldownSeconds >= w.durationSeconds) {
    const path = w.cooldownSeconds > 0 ? 'workload.cooldownSeconds' : 'workload.warmupSeconds';
    issues.push({
      path,
      message:
        `expected warmupSeconds${w.cooldownSeconds > 0 ? ' + cooldownSeconds' : ''} to be less than durationSeconds ` +
        `(${w.durationSeconds}), found ${w.warmupSeconds + w.cooldownSeconds}`,
    });
  } else if (
    w.warmupSeconds > 0 &&
    w.statusIntervalSeconds > w.durationSeconds - w.warmupSeconds - w.cooldownSeconds
  ) {
    // YCSB closes an HDR interval at each status tick: with one tick per status interval, the measured
    // window (after warm-up, before cool-down) may hold no interval at all, and the cell would measure nothing
    warnings.push(
      `workload.statusIntervalSeconds: ${w.statusIntervalSeconds} s is longer than the measured window ` +
        `(${w.durationSeconds - w.warmupSeconds - w.cooldownSeconds} s after warm-up and cool-down): YCSB writes an ` +
        `HDR interval per status tick, so the window may hold none and the cell measure no operation`,
    );
  }
}

function proportionChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  // with a sweep, each cell's read proportion is the sweep's and its update proportion what remains: proportions'
  // own read and update would be silently replaced (its insert, scan, readModifyWrite and query are kept)
  if (w.proportions && w.readProportions)
    for (const op of ['read', 'update'] as const)
      if (w.proportions[op] > 0)
        issues.push({
          path: `workload.proportions.${op}`,
          message:
            `${w.proportions[op]} would be replaced in every cell by workload.readProportions (each cell's read ` +
            `proportion is the sweep's, its update proportion what remains): leave ${op} out of proportions, which ` +
            `with a sweep gives insert, scan, readModifyWrite and query only`,
        });
  if (w.proportions && !w.readProportions) {
    const sum = proportionSum(w.proportions);
    if (Math.abs(sum - 1) > PROPORTION_SUM_TOLERANCE)
      issues.push({
        path: 'workload.proportions',
        message: `expected proportions summing to 1 (±1e-9), found ${+sum.toFixed(12)}`,
      });
  }
  if (w.readProportions) {
    operationMixes(w).forEach((m) => {
      const p = m.proportions;
      const others = otherProportions(p);
      if (p.update < -PROPORTION_SUM_TOLERANCE) {
        issues.push({
          path: `workload.readProportions[${m.sweepIndex}]`,
          message:
            `expected a read proportion of at most ${+(1 - others).toFixed(12)} (insert + scan + readModifyWrite + query ` +
            `take ${+others.toFixed(12)}), found ${p.read}; the cell's proportions would not sum to 1`,
        });
      } else if (Math.abs(proportionSum(p) - 1) > PROPORTION_SUM_TOLERANCE) {
        issues.push({
          path: `workload.readProportions[${m.sweepIndex}]`,
          message: `expected the cell's proportions to sum to 1 (±1e-9), found ${proportionSum(p)}`,
        });
      }
    });
    const dup = firstDuplicate(w.readProportions);
    if (dup !== null)
      issues.push({
        path: `workload.readProportions[${dup}]`,
        message: `duplicate read proportion ${w.readProportions[dup]}`,
      });
  }
}

function throughputChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  const t = w.targetOpsPerSec;
  if (t === 'max') return;
  if (!t) return; // a search: lib/core/spec/search-checks.ts
  if (!Array.isArray(t) && t.stop < t.start)
    issues.push({
      path: 'workload.targetOpsPerSec.stop',
      message: `expected at least start (${fmt(t.start)}), found ${fmt(t.stop)}`,
    });
  if (!Array.isArray(t) && (t.stop - t.start) / t.step + 1 > 1000)
    issues.push({
      path: 'workload.targetOpsPerSec.step',
      message: `expected at most 1,000 steps, found ${fmt(Math.floor((t.stop - t.start) / t.step) + 1)}`,
    });
  if (Array.isArray(t)) {
    const dup = firstDuplicate(t);
    if (dup !== null)
      issues.push({
        path: `workload.targetOpsPerSec[${dup}]`,
        message: `duplicate throughput target ${String(t[dup])}`,
      });
  }
}

function propertyAndRangeChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  // distributions must give distinct cells
  const labels = distributionsOf(w).map((d) => distributionInfo(d).label);
  const dupDist = firstDuplicate(labels);
  if (dupDist !== null)
    issues.push({
      path: `workload.distributions[${dupDist}]`,
      message: `duplicate distribution ${labels[dupDist]}`,
    });

  // extra properties may not override managed ones
  for (const key of Object.keys(w.extraProperties ?? {})) {
    if ((MANAGED_PROPERTIES as readonly string[]).includes(key))
      issues.push({
        path: jsonPath(['workload', 'extraProperties', key]),
        message: `"${key}" is set by fleetbench from the spec; use the spec field instead`,
      });
  }

  // YCSB's int range
  const rc = spec.dataset.recordCount;
  if (rc > YCSB_INT_MAX)
    issues.push({
      path: 'dataset.recordCount',
      message: `expected at most ${fmt(YCSB_INT_MAX)}: YCSB 0.17.0 parses insertcount (which defaults to recordcount in the run phase) as a 32-bit int, found ${fmt(rc)}`,
    });
}

/** Checks that size the run (loaders per target, provisioned capacity, load processes). */
function sizingChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  const w = spec.workload;
  const t = w.targetOpsPerSec;
  const rc = spec.dataset.recordCount;
  const steps = throughputSteps(w);
  const unpaced = isUnpaced(w);
  let maxProcesses = 0;
  spec.targets.forEach((target, i) => {
    // an unpaced cell is sized by the spec's loaders (validated numeric); its rate is what they can reach
    const maxOps = unpaced ? unpacedOpsPerSec(spec, target) : Math.max(...steps);
    const minOps = unpaced ? Infinity : Math.min(...steps);
    const s = sizeTarget(spec, target, maxOps);
    maxProcesses = Math.max(maxProcesses, s.totalProcesses);
    if (minOps < s.totalProcesses)
      issues.push({
        path: !t
          ? 'workload.search.startOpsPerSec'
          : Array.isArray(t)
            ? `workload.targetOpsPerSec[${t.indexOf(minOps)}]`
            : 'workload.targetOpsPerSec.start',
        message:
          `expected at least one op/s per YCSB process: ${fmt(minOps)} ops/s cannot be split over the ` +
          `${s.totalProcesses} processes of target "${target.id}" (a process with target 0 runs unthrottled)`,
      });
    if (s.loaders > 200)
      warnings.push(
        `targets[${i}]: ${s.loaders} loaders needed for ${fmt(maxOps)} ops/s; check expectedLatencyMs and loaders.threadsPerProcess`,
      );
  });
  // provisioned DynamoDB capacity must serve every cell (or the target opts in to overdriving); the cells
  // come from the spec's grid, not from planning the run (the Plan step plans once)
  if (issues.length === 0) {
    // a search probes past the capacity by design (its answer is where the table stops keeping up)
    const capacity = capacityChecks(spec, w.search ? [] : cellGrid(spec));
    issues.push(...capacity.issues);
    warnings.push(...capacity.warnings);
  }
  if (spec.dataset.load) {
    const loadProcesses = Math.max(1, maxProcesses);
    const perProcess = Math.ceil(rc / loadProcesses);
    if (perProcess > YCSB_INT_MAX)
      issues.push({
        path: 'dataset.recordCount',
        message: `expected at most ${fmt(YCSB_INT_MAX)} records per load process (YCSB's int range), found ${fmt(perProcess)} over ${loadProcesses} processes`,
      });
  }
}

function firstDuplicate<T>(xs: readonly T[]): number | null {
  const seen = new Set<T>();
  for (let i = 0; i < xs.length; i++) {
    if (seen.has(xs[i]!)) return i;
    seen.add(xs[i]!);
  }
  return null;
}
