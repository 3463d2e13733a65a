/**
 * YCSB measurement names and what each one counts (reference: YCSB 0.17.0 DBWrapper / Measurements).
 *
 *   READ, UPDATE, INSERT, SCAN, DELETE,      latency of successful operations (Status OK / BATCHED_OK)
 *   QUERY                                    (QUERY: fleetbench's QueryWorkload, the DynamoDB binding's Query)
 *   <OP>-FAILED, <OP>-<STATUS>               latency of failed operations (default name -FAILED;
 *                                            -<STATUS> with reportlatencyforeacherror/latencytrackederrors)
 *   <OP>-THROTTLED                           one sample per throttled attempt (fleetbench's binding)
 *   READ-MODIFY-WRITE, VERIFY                composite / integrity checks (inner ops measured separately)
 *   Intended-<any of the above>              the same operations timed from their intended start
 *   SCHEDULE-DELAY                           fleetbench's open-loop schedule: how late each operation started
 *                                            (µs); kept as a measurement of its own ('other'), not an operation
 *   CLEANUP, THREAD_COUNT, USED_MEM_MB, ...  not operations: ignored
 */

export const BASE_OPS = ['READ', 'UPDATE', 'INSERT', 'SCAN', 'DELETE', 'QUERY'] as const;
export const COMPOSITE_OPS = ['READ-MODIFY-WRITE', 'VERIFY'] as const;
/**
 * The measurement names whose interval rows the report sums into a bucket's throughput: the base operations and
 * read-modify-write (VERIFY is a check inside another operation, not an operation of its own).
 */
export const THROUGHPUT_OPS: readonly string[] = [...BASE_OPS, 'READ-MODIFY-WRITE'];
const KNOWN_OPS: readonly string[] = [...COMPOSITE_OPS, ...BASE_OPS]; // longest prefixes first

const IGNORED = /^(Intended-)?(CLEANUP(-.*)?|THREAD_COUNT|USED_MEM_MB|SYS_LOAD_AVG|GCS|GCS_TIME)$/;

export type NameKind = 'ok' | 'failed' | 'throttled' | 'composite' | 'other';

export interface NameInfo {
  name: string;
  intended: boolean;
  /** the operation (READ, UPDATE, ..., READ-MODIFY-WRITE), or the whole name for unknown names */
  op: string;
  kind: NameKind;
}

export function isIgnoredName(name: string): boolean {
  return IGNORED.test(name);
}

export function classifyName(name: string): NameInfo {
  const intended = name.startsWith('Intended-');
  const bare = intended ? name.slice('Intended-'.length) : name;
  for (const op of KNOWN_OPS) {
    if (bare === op) {
      const kind: NameKind = (COMPOSITE_OPS as readonly string[]).includes(op) ? 'composite' : 'ok';
      return { name, intended, op, kind };
    }
    if (bare.startsWith(op + '-')) {
      const suffix = bare.slice(op.length + 1);
      if ((COMPOSITE_OPS as readonly string[]).includes(op)) return { name, intended, op, kind: 'composite' };
      return { name, intended, op, kind: suffix === 'THROTTLED' ? 'throttled' : 'failed' };
    }
  }
  return { name, intended, op: bare, kind: 'other' };
}
