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
 * - Plan refuses plans whose worst case exceeds the history limit (lib/core/plan/history.ts counts the events).
 */
import type { Plan } from '../plan';
import type { RunSpec } from '../spec';
import { LOADER_REPLACEMENT_LIMITS, POLLS_AFTER_END, runReadyLimits } from '../plan/history';

/** JVM start, connection set-up and output upload around YCSB's own maxexecutiontime. */
export const STARTUP_SECONDS = 30;
/** The agent's grace after the job's duration, then SIGTERM→SIGKILL, plus a margin for uploads. */
export const GRACE_SECONDS = 60;
export const KILL_AFTER_SECONDS = 10;
export const DEADLINE_MARGIN_SECONDS = 60;
export const MIN_POLL_SECONDS = 10;
export { DAX_READY_POLL_SECONDS, DAX_READY_TIMEOUT_SECONDS } from '../targets/dynamodb/ready';
/** Assumed rate of one unthrottled YCSB load process (only sets the load phase's deadline). */
export const ASSUMED_LOAD_OPS_PER_PROCESS = 1000;

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

/**
 * The longest the run can take: each target's ready wait (to its own kind's deadline), load and cells to their
 * deadlines, one target after another ("sequential": their sum) or side by side ("parallel": the longest), and each
 * retry the plan allows (the longest cell again, after replacement loaders waited on to their deadline).
 */
export function phaseTimes(
  plan: Pick<Plan, 'load' | 'cells' | 'onCellFailure'>,
  spec: RunSpec,
): { worstCaseSeconds: number } {
  const load = plan.load ? loadTimes(plan, spec).deadline : 0;
  const deadlines = plan.cells.map((c) => cellTimes(c.durationSeconds).deadline);
  const lives = spec.targets.map(
    (t) =>
      runReadyLimits({ targets: [t] }).timeoutSeconds +
      (plan.load?.targets.includes(t.id) ? load : 0) +
      plan.cells.reduce((s, c, i) => s + (c.target === t.id ? deadlines[i]! : 0), 0),
  );
  const f = plan.onCellFailure;
  const retries =
    f.retries * Math.max(0, ...deadlines) + f.replacements * LOADER_REPLACEMENT_LIMITS.timeoutSeconds;
  const targets = spec.execution === 'parallel' ? Math.max(0, ...lives) : lives.reduce((s, l) => s + l, 0);
  return { worstCaseSeconds: targets + retries };
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
