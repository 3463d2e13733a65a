/**
 * The small JSON the state machine carries between steps, and the object-store layout of a run.
 * Payloads stay small: everything large (the spec, the plan, job documents, raw outputs, rows) lives
 * in the object store and the state only holds the run id, counts and pointers.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../common/errors';
import { planIndex, type CellPlan, type Plan, type PlanIndex } from '../plan';
import type { RunSpec } from '../spec';
import type { ObjectStore } from '../common/store';
import { readRunContext, type RunContext } from './run-context';

export { runTags, readRunContext, type RunContext } from './run-context';

/** A command in flight (load phase or one cell), as StartLoad/StartCell return it. */
export interface PhaseJob {
  phase: 'load' | 'run';
  /** load: index into run.loadTargets; run: cell index */
  index: number;
  commandIds: string[];
  instances: number;
  startedAtMs: number;
  /** When the phase should end if all goes well. */
  expectedEndMs: number;
  /** After this the command is cancelled and the step fails. */
  deadlineMs: number;
  /** How long the state machine waits before the next check (Wait.secondsPath). */
  waitSeconds: number;
  done: boolean;
}

export {
  runKey,
  specKey,
  planKey,
  cellPlanKey,
  contextKey,
  teardownKey,
  failureKey,
  resumeKey,
  resumesKey,
  summaryKey,
  reportKey,
  cellKey,
  cellRawKey,
  cellFailureKey,
  loadKey,
  readOptional,
} from './keys';
import { cellPlanKey, planKey, specKey } from './keys';

/**
 * A run id from an execution name: lower-case letters, digits and '-', at most 40 characters, so it
 * fits table names (`fleetbench-<spec>.<target>.<runId>`), tags and object keys. A name that is
 * already such an id is its own run id; any other (too long, upper case, '_') is shortened to 31
 * characters plus '-' and 8 hex digits of its SHA-256, so two execution names never share a run id —
 * which would make one run's teardown remove the other's loaders, nodes and tables.
 */
export function runIdFromExecutionName(name: string): string {
  if (/^[a-z0-9][a-z0-9-]{0,39}$/.test(name) && !name.endsWith('-')) return name;
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 31)
    .replace(/-+$/, '');
  if (!/^[a-z0-9]/.test(base)) {
    throw new InputError([
      { path: 'executionName', message: `"${name}" gives no usable run id (needs letters or digits)` },
    ]);
  }
  return `${base}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** Stores a plan: the run index and one object per cell. */
export async function writePlan(store: ObjectStore, plan: Plan): Promise<void> {
  await Promise.all(plan.cells.map((c) => store.putJson(cellPlanKey(plan.runId, c.index), c)));
  // the index last: a run index names only cells whose plans are stored
  await store.putJson(planKey(plan.runId), planIndex(plan));
}

/** The run index of a stored plan (cells as summaries). */
export async function readPlan(store: ObjectStore, runId: string): Promise<PlanIndex> {
  return (await store.getJson(planKey(runId))) as PlanIndex;
}

/** One cell's full plan. */
export async function readCellPlan(store: ObjectStore, runId: string, index: number): Promise<CellPlan> {
  if (!Number.isInteger(index) || index < 0)
    throw new InputError([
      { path: 'cell.index', message: `must be a cell index (integer >= 0), got ${index}` },
    ]);
  return (await store.getJson(cellPlanKey(runId, index))) as CellPlan;
}

export async function readSpec(store: ObjectStore, runId: string): Promise<RunSpec> {
  return (await store.getJson(specKey(runId))) as RunSpec;
}

/** Validates the `run` object a step received (it comes from the state machine's state), or a stored context. */
export function checkRun(run: unknown, field = 'run'): RunContext {
  return readRunContext(run, field);
}
