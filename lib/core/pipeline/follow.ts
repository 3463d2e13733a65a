/**
 * Following a pipeline execution from its history: what `fleetbench start` prints state by state and
 * what `fleetbench status` reports. Pure: the events come from lib/aws/sfn-executions.ts (Step
 * Functions' GetExecutionHistory, mapped to the plain shape below).
 */
import { runIdFromExecutionName } from './context';

/** One history event, without the SDK's shapes. */
export interface ExecutionEvent {
  id: number;
  /** Step Functions' event type: ExecutionStarted, TaskStateEntered, WaitStateExited, TaskFailed, ... */
  type: string;
  timestampMs: number;
  /** State name (…StateEntered / …StateExited). */
  state?: string;
  /** State input (entered) or output (exited), as the JSON text Step Functions records. */
  data?: string;
  error?: string;
  cause?: string;
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | string;

export interface ExecutionInfo {
  executionArn: string;
  name: string;
  stateMachineArn: string;
  status: ExecutionStatus;
  startMs: number;
  stopMs?: number;
  error?: string;
  cause?: string;
}

/** The execution input the README tells console users to paste: `{"spec": <the spec file's JSON>}`. */
export function startInput(spec: unknown): string {
  return JSON.stringify({ spec });
}

/** Step Functions' limit on an execution's input (256 KiB of UTF-8). */
export const MAX_INPUT_BYTES = 256 * 1024;

/**
 * The execution names fleetbench gives and takes (`start --name`, `run --local --name`): 1–80 characters, here
 * letters, digits, `-` and `_` only, within Step Functions' rule for StartExecution's `name`
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html).
 */
export const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * A default execution name: `<spec name>-<UTC yyyymmdd-hhmmss>`, already in run-id form (so the run
 * id equals the execution name and `status <runId>` finds it directly).
 */
export function defaultExecutionName(specName: string, nowMs: number): string {
  const d = new Date(nowMs).toISOString(); // 2026-11-22T18:40:01.123Z
  const stamp = `${d.slice(0, 4)}${d.slice(5, 7)}${d.slice(8, 10)}-${d.slice(11, 13)}${d.slice(14, 16)}${d.slice(17, 19)}`;
  const base = specName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 40 - stamp.length - 1)
    .replace(/^-+|-+$/g, '');
  return runIdFromExecutionName(base ? `${base}-${stamp}` : `run-${stamp}`);
}

export const TERMINAL_STATUSES = new Set(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED']);

const CELL_STATES = new Set([
  'ConfigureCell',
  'StartCell',
  'WaitCell',
  'CheckCell',
  'CellDone?',
  'AggregateCell',
]);
const LOAD_STATES = new Set(['StartLoad', 'WaitLoad', 'CheckLoad', 'LoadDone?']);

function parse(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** "cell 2 of 6", "load 1 of 2 (ddb)" or "" from a state's input, when the state is in a loop. */
export function loopPosition(state: string, input: string | undefined): string {
  if (!CELL_STATES.has(state) && !LOAD_STATES.has(state)) return '';
  const doc = parse(input);
  const cursor = doc?.cursor as { index?: unknown } | undefined;
  const run = doc?.run as { cellCount?: unknown; loadCount?: unknown; loadTargets?: unknown } | undefined;
  const index = typeof cursor?.index === 'number' ? cursor.index : undefined;
  if (index === undefined) return '';
  if (CELL_STATES.has(state)) {
    return typeof run?.cellCount === 'number' ? `cell ${index + 1} of ${run.cellCount}` : `cell ${index + 1}`;
  }
  const target = Array.isArray(run?.loadTargets) ? run.loadTargets[index] : undefined;
  const of = typeof run?.loadCount === 'number' ? ` of ${run.loadCount}` : '';
  return `load ${index + 1}${of}${typeof target === 'string' ? ` (${target})` : ''}`;
}

/** Seconds a Wait state will wait, from its input (`job.waitSeconds` / `ready.waitSeconds`). */
function waitSeconds(input: string | undefined): number | undefined {
  const doc = parse(input);
  for (const k of ['job', 'ready']) {
    const w = (doc?.[k] as { waitSeconds?: unknown } | undefined)?.waitSeconds;
    if (typeof w === 'number') return w;
  }
  return undefined;
}

/** States that take no time: one line on entry. */
const ONE_LINE = new Set(['Pass', 'Choice', 'Succeed', 'Fail']);

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/**
 * Turns history events into progress lines, remembering when each state was entered so that a
 * state's exit line carries its duration. Pass, Choice, Succeed and Fail states print one line (on entry).
 */
export class ProgressPrinter {
  private readonly entered = new Map<string, number>();

  lines(events: readonly ExecutionEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      const line = this.line(e);
      if (line !== undefined) out.push(line);
    }
    return out;
  }

  private line(e: ExecutionEvent): string | undefined {
    const at = clock(e.timestampMs);
    const kind = e.type.replace(/State(Entered|Exited)$/, '');
    if (e.type.endsWith('StateEntered') && e.state) {
      const where = loopPosition(e.state, e.data);
      if (ONE_LINE.has(kind)) return `${at}  · ${e.state}${where ? `  ${where}` : ''}`;
      this.entered.set(e.state, e.timestampMs);
      const wait = kind === 'Wait' ? waitSeconds(e.data) : undefined;
      return `${at}  > ${e.state}${where ? `  ${where}` : ''}${wait !== undefined ? `  (waiting ${wait} s)` : ''}`;
    }
    if (e.type.endsWith('StateExited') && e.state) {
      if (ONE_LINE.has(kind)) return undefined;
      const since = this.entered.get(e.state);
      this.entered.delete(e.state);
      return `${at}  < ${e.state}${since !== undefined ? `  ${secs(e.timestampMs - since)}` : ''}`;
    }
    switch (e.type) {
      case 'ExecutionStarted':
        return `${at}  execution started`;
      case 'TaskFailed':
      case 'LambdaFunctionFailed':
      case 'TaskTimedOut':
      case 'LambdaFunctionTimedOut':
      case 'ParallelStateFailed':
      case 'MapStateFailed':
        return e.error || e.cause
          ? `${at}    failed: ${e.error ?? 'error'}${e.cause ? `: ${oneLine(e.cause)}` : ''}`
          : undefined;
      case 'ExecutionSucceeded':
        return `${at}  execution SUCCEEDED`;
      case 'ExecutionFailed':
      case 'ExecutionAborted':
      case 'ExecutionTimedOut': {
        const status = {
          ExecutionFailed: 'FAILED',
          ExecutionAborted: 'ABORTED',
          ExecutionTimedOut: 'TIMED_OUT',
        }[e.type];
        return `${at}  execution ${status}${e.error ? `: ${e.error}` : ''}${e.cause ? `: ${oneLine(e.cause)}` : ''}`;
      }
      default:
        return undefined;
    }
  }
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > 500 ? `${t.slice(0, 497)}...` : t;
}

/**
 * Adaptive polling: back to `minMs` as soon as something new happened, otherwise ×2 up to `maxMs`
 * (a cell that runs for an hour is polled about twice a minute, not every second).
 */
export function nextPollMs(currentMs: number, sawNew: boolean, minMs = 1000, maxMs = 30_000): number {
  if (sawNew) return minMs;
  return Math.min(maxMs, Math.max(minMs, currentMs * 2));
}

export interface ExecutionState {
  /** The state the execution is in now (entered, not yet left), if any. */
  current?: { state: string; sinceMs: number; position: string };
  /** The last state left. */
  last?: { state: string; atMs: number };
  /** The last failure event (TaskFailed, ExecutionFailed, ...). */
  failure?: { error?: string; cause?: string; atMs: number };
}

/** Current/last state from the newest events (any order; only the newest ones matter). */
export function executionState(events: readonly ExecutionEvent[]): ExecutionState {
  const sorted = [...events].sort((a, b) => a.id - b.id);
  const open = new Map<string, ExecutionEvent>();
  const out: ExecutionState = {};
  for (const e of sorted) {
    if (e.type.endsWith('StateEntered') && e.state) open.set(e.state, e);
    else if (e.type.endsWith('StateExited') && e.state) {
      open.delete(e.state);
      out.last = { state: e.state, atMs: e.timestampMs };
    } else if (/Failed$|TimedOut$|Aborted$/.test(e.type) && (e.error || e.cause)) {
      out.failure = { error: e.error, cause: e.cause, atMs: e.timestampMs };
    }
  }
  // the innermost open state is the one entered last (a Parallel stays open around its branches)
  const newest = [...open.values()].sort((a, b) => b.id - a.id)[0];
  if (newest?.state) {
    const kind = newest.type.replace(/StateEntered$/, '');
    if (kind !== 'Fail' && kind !== 'Succeed')
      out.current = {
        state: newest.state,
        sinceMs: newest.timestampMs,
        position: loopPosition(newest.state, newest.data),
      };
  }
  return out;
}
