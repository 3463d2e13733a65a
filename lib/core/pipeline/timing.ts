/**
 * Time budgets and adaptive polling, chosen so a run stays under Step Functions' 25,000-event
 * execution history limit without child executions:
 *
 * - a started phase (the load of one target, or one cell) is first waited on until its expected end
 *   in ONE Wait state, then checked at most POLLS_AFTER_END more times before its deadline, so a cell
 *   costs a bounded number of events however long it runs (an hour-long cell costs the same as a
 *   one-minute one);
 * - WaitReady polls every READY_POLL_SECONDS for at most READY_TIMEOUT_SECONDS (a run with a DAX cluster: every
 *   DAX_READY_POLL_SECONDS for at most DAX_READY_TIMEOUT_SECONDS), as readyLimits decides for both the step and
 *   the plan's worst case;
 * - Plan refuses plans whose worst case exceeds HISTORY_EVENT_LIMIT (80% of 25,000).
 */
import type { Plan } from '../plan';
import type { RunSpec } from '../spec';
import { TARGET_KINDS, kindOf } from '../targets/registry';
import type { ReadyLimits } from '../targets/kind';

export const HISTORY_EVENT_LIMIT = 20_000;
/** JVM start, connection set-up and output upload around YCSB's own maxexecutiontime. */
export const STARTUP_SECONDS = 30;
/** The agent's grace after the job's duration, then SIGTERM→SIGKILL, plus a margin for uploads. */
export const GRACE_SECONDS = 60;
export const KILL_AFTER_SECONDS = 10;
export const DEADLINE_MARGIN_SECONDS = 60;
/** Checks after the expected end, at most. */
export const POLLS_AFTER_END = 4;
export const MIN_POLL_SECONDS = 10;
export const READY_POLL_SECONDS = 20;
export const READY_TIMEOUT_SECONDS = 15 * 60;
export { DAX_READY_POLL_SECONDS, DAX_READY_TIMEOUT_SECONDS } from '../targets/dynamodb/ready';
/** Assumed rate of one unthrottled YCSB load process (only sets the load phase's deadline). */
export const ASSUMED_LOAD_OPS_PER_PROCESS = 1000;

/** WaitReady's limits when no target needs longer. */
export const DEFAULT_READY_LIMITS: ReadyLimits = {
  timeoutSeconds: READY_TIMEOUT_SECONDS,
  pollSeconds: READY_POLL_SECONDS,
};

/**
 * WaitReady's deadline and poll interval for a run: the longest any of its targets needs (each kind says; a DAX
 * cluster takes 10+ minutes). The one place they are chosen, for the step and for the plan's worst case.
 */
export function runReadyLimits(spec: Pick<RunSpec, 'targets'>): ReadyLimits {
  const slow = spec.targets.flatMap((t) => {
    const s = kindOf(t).slowReady;
    return s?.applies(t) ? [s.limits] : [];
  });
  return [DEFAULT_READY_LIMITS, ...slow].reduce((a, b) => (b.timeoutSeconds > a.timeoutSeconds ? b : a));
}

/** The most ready checks a run can make (under any kind's limits): what the history budget counts. */
export function maxReadyChecks(): number {
  const limits = [
    DEFAULT_READY_LIMITS,
    ...Object.values(TARGET_KINDS).flatMap((k) => k.slowReady?.limits ?? []),
  ];
  return Math.max(...limits.map((l) => Math.ceil(l.timeoutSeconds / l.pollSeconds)));
}

/** Events one Lambda Task state adds (Entered, Scheduled, Started, Succeeded, Exited). */
const TASK = 5;
const CHOICE = 2;
const WAIT = 2;

/** The worst-case events of one phase: start, first wait, checks, (configure and aggregate for cells). */
export function eventsPerPhase(kind: 'load' | 'run'): number {
  const polls = 1 + POLLS_AFTER_END + 1;
  const base = TASK + polls * (WAIT + TASK + CHOICE) + CHOICE;
  return kind === 'run' ? base + 2 * TASK : base;
}

export function fixedEvents(): number {
  const ready = maxReadyChecks() * (TASK + CHOICE + WAIT);
  // start/end, Plan, Parallel with two branches, passes, Report, DetectRegressions, Teardown, Succeed
  return 2 + TASK + (4 + 2 * TASK) + 3 * 2 + ready + 3 * TASK + 2;
}

/** The worst-case history events of a run of `cells` cells and `loads` loaded targets (the plan's, or counted). */
export function historyBudget(counts: { cells: number; loads: number }): {
  events: number;
  perCell: number;
  limit: number;
} {
  const perCell = eventsPerPhase('run');
  return {
    events: fixedEvents() + counts.loads * eventsPerPhase('load') + counts.cells * perCell,
    perCell,
    limit: HISTORY_EVENT_LIMIT,
  };
}

/** Expected and deadline seconds of a run phase. */
export function cellTimes(durationSeconds: number): { expected: number; deadline: number } {
  const expected = durationSeconds + STARTUP_SECONDS;
  return { expected, deadline: expected + GRACE_SECONDS + KILL_AFTER_SECONDS + DEADLINE_MARGIN_SECONDS };
}

/** Expected and deadline seconds of loading one target. */
export function loadTimes(plan: Pick<Plan, 'load'>, spec: RunSpec): { expected: number; deadline: number } {
  if (!plan.load) return { expected: 0, deadline: 0 };
  const rate = spec.dataset.loadTargetOpsPerSec ?? plan.load.processes * ASSUMED_LOAD_OPS_PER_PROCESS;
  const expected = Math.ceil(plan.load.recordCount / rate) + STARTUP_SECONDS;
  return { expected, deadline: expected * 4 + 300 };
}

export function phaseTimes(plan: Pick<Plan, 'load' | 'cells'>, spec: RunSpec): { worstCaseSeconds: number } {
  const loads = plan.load ? plan.load.targets.length * loadTimes(plan, spec).deadline : 0;
  const cells = plan.cells.reduce((s, c) => s + cellTimes(c.durationSeconds).deadline, 0);
  const ready = runReadyLimits(spec).timeoutSeconds;
  return { worstCaseSeconds: ready + loads + cells };
}

/**
 * Seconds to wait before the next check: until the expected end, then evenly spaced so that at most
 * POLLS_AFTER_END checks fall between the expected end and the deadline.
 */
export function nextWaitSeconds(nowMs: number, expectedEndMs: number, deadlineMs: number): number {
  if (nowMs < expectedEndMs) return Math.max(MIN_POLL_SECONDS, Math.ceil((expectedEndMs - nowMs) / 1000));
  const spacing = Math.ceil((deadlineMs - expectedEndMs) / 1000 / POLLS_AFTER_END);
  const left = Math.ceil((deadlineMs - nowMs) / 1000);
  return Math.max(MIN_POLL_SECONDS, Math.min(spacing, Math.max(left, MIN_POLL_SECONDS)));
}
