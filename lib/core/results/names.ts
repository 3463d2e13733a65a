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
/** YCSB's read-modify-write: one operation of the workload, measured after its own READ and UPDATE */
export const READ_MODIFY_WRITE = 'READ-MODIFY-WRITE';
/**
 * The measurement names of the operations the workload issues: the base operations and read-modify-write (VERIFY
 * is a check inside another operation, not an operation of its own). Their latency rows are charted each on its
 * own; a throughput is never their plain sum but tallyOperations' (a read-modify-write counts once).
 */
export const THROUGHPUT_OPS: readonly string[] = [...BASE_OPS, READ_MODIFY_WRITE];
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

/** Operations as the workload issued them (what its target paces), from per-name figures. */
export interface OperationTally {
  /** successful operations */
  good: number;
  /** failed operations */
  failed: number;
  /** throttled attempts (<OP>-THROTTLED: attempts, not operations) */
  throttled: number;
}

/**
 * Good and failed operations from any additive per-measurement-name figure (window counts, a bucket's counts,
 * per-name rates), counting each operation the workload issued once (docs/results-schema.md, "Operations").
 *
 * YCSB 0.17.0's CoreWorkload.doTransactionReadModifyWrite
 * (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/workloads/CoreWorkload.java)
 * calls db.read and then db.update, whatever the read returned; DBWrapper
 * (https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/DBWrapper.java) measures
 * them as READ / READ-FAILED and UPDATE / UPDATE-FAILED; the workload then measures READ-MODIFY-WRITE, with no
 * status. So each read-modify-write is one READ-or-READ-<status> sample, one UPDATE-or-UPDATE-<status> sample
 * and one READ-MODIFY-WRITE sample, and:
 *
 *   issued = Σ base samples (successful + failed) − READ-MODIFY-WRITE samples
 *   failed = min(Σ failed base samples, issued)     a read-modify-write fails when its read or its update did
 *   good   = issued − failed
 *
 * Exact unless a read-modify-write's read AND update both failed: the samples cannot tell which failed read
 * and failed update belong together, so each failed sample counts as a failed operation and such an operation
 * moves one operation from good to failed (good is never overstated). Intended- names are the same operations
 * timed from their intended start: not counted again, and counted instead when they are all there is
 * (measurement.interval=intended). Over a window or a bucket the tally is exact up to a
 * read-modify-write in flight at its edge (its READ sample in one interval, its UPDATE and READ-MODIFY-WRITE in
 * the next: YCSB records them microseconds apart).
 */
export function tallyOperations(entries: Iterable<readonly [string, number]>): OperationTally {
  const service = { ok: 0, failed: 0, rmw: 0, throttled: 0, ops: false, throttles: false };
  const intended = { ...service };
  for (const [name, n] of entries) {
    const info = classifyName(name);
    const t = info.intended ? intended : service;
    if (info.kind === 'throttled') {
      t.throttled += n;
      t.throttles = true;
      continue;
    }
    if (info.kind === 'ok') t.ok += n;
    else if (info.kind === 'failed') t.failed += n;
    else if ((info.intended ? name.slice('Intended-'.length) : name) === READ_MODIFY_WRITE) t.rmw += n;
    else continue;
    t.ops = true;
  }
  // measurement.interval=intended: YCSB records only the Intended- names (Measurements.measure is a no-op)
  const t = service.ops || !intended.ops ? service : intended;
  const issued = Math.max(0, t.ok + t.failed - t.rmw);
  const failed = Math.min(t.failed, issued);
  const throttled = service.throttles || !intended.throttles ? service.throttled : intended.throttled;
  return { good: issued - failed, failed, throttled };
}
