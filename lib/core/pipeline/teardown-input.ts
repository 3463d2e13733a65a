/** What Teardown is started with (lib/core/pipeline/teardown.ts; the late-arrivals pass starts it too). */
import type { RunContext } from './context';

export interface TeardownInput {
  /** The run context when Plan succeeded. */
  run?: RunContext | null;
  /** Otherwise the execution name (the run id is derived from it). */
  executionName?: string;
  /** The caught error ({Error, Cause} from Step Functions), or the abort status. */
  error?: { Error?: string; Cause?: string } | null;
  /** FAILED / TIMED_OUT / ABORTED when started by the abort rule. */
  status?: string;
}
