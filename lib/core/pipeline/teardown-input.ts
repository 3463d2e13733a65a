/** What Teardown is started with (lib/core/pipeline/teardown.ts; the late-arrivals pass starts it too). */
import { InputError } from '../common/errors';
import type { RunContext } from './context';

/**
 * One iteration of the targets' Map, as it ended (lib/constructs/benchmark-state-machine.ts, TargetDone and
 * TargetTeardownFailed): the target's id, and the error its TeardownTarget still failed with after its retries.
 * The Map collects them in $.targetTeardowns for Report and Teardown.
 */
export interface TargetTeardownOutcome {
  target: string;
  teardownError?: { Error?: string; Cause?: string };
}

export interface TeardownInput {
  /** The run context when Plan succeeded. */
  run?: RunContext | null;
  /** Otherwise the execution name (the run id is derived from it). */
  executionName?: string;
  /** The caught error ({Error, Cause} from Step Functions), or the abort status. */
  error?: { Error?: string; Cause?: string } | null;
  /** FAILED / TIMED_OUT / ABORTED when started by the abort rule. */
  status?: string;
  /** The run's end (Teardown after Report): how each target's own teardown ended. */
  targetTeardowns?: unknown;
}

/**
 * The targets' outcomes of a step's input (`targetTeardowns`; absent: none, as for a run before the Map collected
 * them). Anything else is an InputError naming the field.
 */
export function readTargetTeardowns(value: unknown, field = 'targetTeardowns'): TargetTeardownOutcome[] {
  if (value === undefined || value === null) return [];
  const bad = (path: string, message: string) => new InputError([{ path, message }]);
  if (!Array.isArray(value)) throw bad(field, 'a list of {target, teardownError?} (the targets Map output)');
  return value.map((v: unknown, i) => {
    const o = (v ?? {}) as { target?: unknown; teardownError?: unknown };
    if (typeof o.target !== 'string' || !o.target) throw bad(`${field}[${i}].target`, 'a target id');
    if (o.teardownError === undefined) return { target: o.target };
    const e = o.teardownError as { Error?: unknown; Cause?: unknown } | null;
    if (!e || typeof e !== 'object' || (e.Error !== undefined && typeof e.Error !== 'string'))
      throw bad(`${field}[${i}].teardownError`, 'a Step Functions error {Error, Cause}');
    const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
    return {
      target: o.target,
      teardownError: {
        ...(text(e.Error) !== undefined ? { Error: text(e.Error) } : {}),
        ...(text(e.Cause) !== undefined ? { Cause: text(e.Cause) } : {}),
      },
    };
  });
}

/** A target whose TeardownTarget still failed after its retries (summary.json; the run's cells are reported all the same). */
export interface TargetTeardownFailure {
  target: string;
  /** its error, as one line ("<Error>: <message>") */
  error: string;
  /** what its record (runs/<id>/teardown/<target>.json) says it could not remove; absent when it wrote none */
  left?: string[];
}

/** The notification's and the report's line for a failed target teardown. */
export function targetTeardownLine(f: TargetTeardownFailure): string {
  const left = f.left?.length ? ` It could not remove: ${f.left.join('; ')}.` : '';
  return (
    `Target ${f.target}: its teardown failed (${f.error}).${left} The run's teardown, after the report, removes ` +
    'whatever of the run is left, and says so if it cannot.'
  );
}
