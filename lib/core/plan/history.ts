/**
 * The execution history a run can write, counted before it starts: Step Functions stops a Standard execution at
 * 25,000 events (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html), and this pipeline keeps
 * every run under HISTORY_EVENT_LIMIT without child executions. The Plan step refuses a grid whose worst case is
 * above it, and a failed cell is retried only while the retries still fit (./cell-failure.ts).
 */
import type { ReadyLimits } from '../targets/kind';
import type { Target } from '../spec/schema';
import { TARGET_KINDS, kindOf } from '../targets/registry';

export const HISTORY_EVENT_LIMIT = 20_000;
/** Checks of a started phase after its expected end, at most (lib/core/pipeline/timing.ts nextWaitSeconds). */
export const POLLS_AFTER_END = 4;
export const READY_POLL_SECONDS = 30;
export const READY_TIMEOUT_SECONDS = 15 * 60;

/** WaitReady's limits when no target needs longer. */
export const DEFAULT_READY_LIMITS: ReadyLimits = {
  timeoutSeconds: READY_TIMEOUT_SECONDS,
  pollSeconds: READY_POLL_SECONDS,
};

/**
 * How long a retry waits for replacement loaders to come online in SSM (a fresh EC2 loader boots, installs Java and
 * fetches the bundle: minutes): a first look after `firstWaitSeconds`, then one every `pollSeconds` until the deadline.
 */
export const LOADER_REPLACEMENT_LIMITS = { timeoutSeconds: 15 * 60, pollSeconds: 60, firstWaitSeconds: 120 };

/** Loader replacements a run may make at most (each is a wait loop in the history, and a sign of a sick fleet). */
export const MAX_LOADER_REPLACEMENTS = 3;

/** The most ready checks a run can make (under any kind's limits): what the history budget counts. */
export function maxReadyChecks(): number {
  const limits = [
    DEFAULT_READY_LIMITS,
    ...Object.values(TARGET_KINDS).flatMap((k) => k.slowReady?.limits ?? []),
  ];
  return Math.max(...limits.map((l) => Math.ceil(l.timeoutSeconds / l.pollSeconds)));
}

/**
 * WaitReady's deadline and poll interval for a run's targets: the longest any of them needs (each kind says; a DAX
 * cluster takes 10+ minutes). The one place they are chosen, for the step, the plan's worst case and the history.
 */
export function runReadyLimits(spec: { targets: readonly Target[] }): ReadyLimits {
  const slow = spec.targets.flatMap((t) => {
    const s = kindOf(t).slowReady;
    return s?.applies(t) ? [s.limits] : [];
  });
  return [DEFAULT_READY_LIMITS, ...slow].reduce((a, b) => (b.timeoutSeconds > a.timeoutSeconds ? b : a));
}

/** The ready checks of each target's WaitReady (one target at a time, by its own limits), summed over the targets. */
export function readyChecksOf(targets: readonly Target[]): number {
  return targets.reduce((sum, t) => {
    const l = runReadyLimits({ targets: [t] });
    return sum + Math.ceil(l.timeoutSeconds / l.pollSeconds);
  }, 0);
}

/** Events one Lambda Task state adds (Entered, Scheduled, Started, Succeeded, Exited). */
const TASK = 5;
const CHOICE = 2;
const WAIT = 2;
const PASS = 2;

/** The worst-case events of one phase: start, first wait, checks, (configure, its choice and aggregate for cells). */
export function eventsPerPhase(kind: 'load' | 'run'): number {
  const polls = 1 + POLLS_AFTER_END + 1;
  const base = TASK + polls * (WAIT + TASK + CHOICE) + CHOICE;
  return kind === 'run' ? base + 2 * TASK + CHOICE : base;
}

/** The events a retried cell adds: CellFailed and its choice, the cursor, one loader check and its choice, the cell again. */
export function eventsPerRetry(): number {
  return TASK + CHOICE + PASS + TASK + CHOICE + eventsPerPhase('run');
}

/** The events waiting for replacement loaders adds at worst: every check to the deadline, each with its wait. */
export function eventsPerReplacement(): number {
  const l = LOADER_REPLACEMENT_LIMITS;
  const checks = 1 + Math.ceil((l.timeoutSeconds - l.firstWaitSeconds) / l.pollSeconds);
  return checks * (TASK + CHOICE + WAIT);
}

/**
 * The targets' Map's own events (MapStateEntered, MapStateStarted, MapStateSucceeded, MapStateExited) and each
 * iteration's (MapIterationStarted, MapIterationSucceeded): the event types of an inline Map,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html
 */
const MAP = 4;
const MAP_ITERATION = 2;

export function fixedEvents(): number {
  // start/end, Plan, the passes (Init, KeepRunOnly), ProvisionFleet, the targets' Map, Report,
  // DetectRegressions, Teardown, Succeed
  return 2 + TASK + 2 * PASS + TASK + MAP + 3 * TASK + 2;
}

/**
 * The events of one target's lifecycle (an iteration of the targets' Map, whether the iterations run one after
 * another or side by side: the history holds them all) but its ready checks: the iteration's start and end, its
 * span, its ProvisionTarget, the load and cell loops' entry and last choice, its TeardownTarget and the pass that
 * ends the iteration (TargetDone, or TargetTeardownFailed).
 */
export function eventsPerTarget(): number {
  return MAP_ITERATION + PASS + TASK + 2 * (PASS + CHOICE) + TASK + PASS;
}

/** Events of one ready check (WaitReady, its choice, the wait before the next). */
export const EVENTS_PER_READY_CHECK = TASK + CHOICE + WAIT;

/** What the history budget counts: cells, loaded targets, targets (default one) and their ready checks in all. */
export interface HistoryCounts {
  cells: number;
  loads: number;
  targets?: number;
  /** Default: the slowest kind's, for each target (readyChecksOf gives a spec's). */
  readyChecks?: number;
}

/** The worst-case history events of a run (the plan's counts, or counted). */
export function historyBudget(counts: HistoryCounts): {
  events: number;
  perCell: number;
  limit: number;
} {
  const perCell = eventsPerPhase('run');
  return {
    events:
      fixedEvents() +
      (counts.targets ?? 1) * eventsPerTarget() +
      (counts.readyChecks ?? (counts.targets ?? 1) * maxReadyChecks()) * EVENTS_PER_READY_CHECK +
      counts.loads * eventsPerPhase('load') +
      counts.cells * perCell,
    perCell,
    limit: HISTORY_EVENT_LIMIT,
  };
}

/**
 * Retries and loader replacements the history leaves room for, at their worst: replacements first (as many as fit
 * with their retry, at most MAX_LOADER_REPLACEMENTS), then retries (at most one per cell). A cell failing when no
 * retry is left is recorded incomplete at once; a loader lost when no replacement is left stops the run.
 */
export function retryRoom(counts: HistoryCounts): {
  retries: number;
  replacements: number;
} {
  const b = historyBudget(counts);
  const room = Math.max(0, b.limit - b.events);
  const replacements = Math.min(
    MAX_LOADER_REPLACEMENTS,
    counts.cells,
    Math.floor(room / (eventsPerRetry() + eventsPerReplacement())),
  );
  const retries = Math.min(
    counts.cells,
    Math.floor((room - replacements * eventsPerReplacement()) / eventsPerRetry()),
  );
  return { retries, replacements };
}
