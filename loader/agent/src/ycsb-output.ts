/**
 * Reading what YCSB 0.17.0 writes: the `-s` status lines (stderr; `StatusThread` in
 * https://github.com/brianfrankcooper/YCSB/blob/0.17.0/core/src/main/java/site/ycsb/Client.java), and
 * judging from the end-of-run summary (parsed by lib/core/contract/summary.ts, the one parser) whether a
 * process succeeded (YCSB exits 0 on many failures, so the exit code alone proves nothing).
 */
import type { YcsbSummary } from '../../../lib/core/contract/summary';
import { READ_MODIFY_WRITE, tallyOperations } from '../../../lib/core/results/names';

/** One op's interval-only figures from a status line fragment `[READ: Count=.., Max=.., ...]`. */
export interface StatusOp {
  count: number;
  maxUs?: number;
  minUs?: number;
  avgUs?: number;
  p90Us?: number;
  p99Us?: number;
  p999Us?: number;
  p9999Us?: number;
}

export interface StatusLine {
  /** Seconds since the status thread started (YCSB prints whole seconds). */
  elapsedSeconds: number;
  totalOps: number;
  /** ops/s over the last interval; Infinity for YCSB's first line (`∞`); undefined when YCSB omitted it. */
  currentOpsPerSec?: number;
  ops: Record<string, StatusOp>;
}

const STATUS_RE =
  /(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}) (\d+) sec: (\d+) operations; (?:(\S+) current ops\/sec; )?(.*)$/;
const FRAGMENT_RE = /\[([^\s:\]]+): ([^\]]*)\]/g;
const FIELD_KEYS: Record<string, keyof StatusOp> = {
  Count: 'count',
  Max: 'maxUs',
  Min: 'minUs',
  Avg: 'avgUs',
  '90': 'p90Us',
  '99': 'p99Us',
  '99.9': 'p999Us',
  '99.99': 'p9999Us',
};

function parseDecimal(s: string): number {
  if (s === '∞') return Infinity;
  if (s === '-∞') return -Infinity;
  // DecimalFormat("#.##") in the JVM's locale: a comma decimal separator is possible.
  const n = Number(s.replace(',', '.'));
  return Number.isNaN(n) ? NaN : n;
}

/** Parses one `-s` status line (HDR measurement fragments); undefined when the line is not one. */
export function parseStatusLine(line: string): StatusLine | undefined {
  const m = STATUS_RE.exec(line);
  if (!m) return undefined;
  const ops: Record<string, StatusOp> = {};
  for (const f of m[5].matchAll(FRAGMENT_RE)) {
    const op: StatusOp = { count: 0 };
    for (const pair of f[2].split(', ')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const key = FIELD_KEYS[pair.slice(0, eq)];
      if (key) op[key] = parseDecimal(pair.slice(eq + 1));
    }
    ops[f[1]] = op;
  }
  return {
    elapsedSeconds: Number(m[2]),
    totalOps: Number(m[3]),
    currentOpsPerSec: m[4] === undefined ? undefined : parseDecimal(m[4]),
    ops,
  };
}

/** Statuses that are outcomes of a healthy measurement, not errors of the process. */
const NON_ERROR_STATUSES = new Set(['OK', 'BATCHED_OK', 'NOT_FOUND', 'THROTTLED']);
/** Blocks that are not database operations. */
const NOT_OPS = /^(CLEANUP|THREAD_COUNT|USED_MEM_MB|SYS_LOAD_AVG|GCS|GCS_TIME|VERIFY)$/;

export interface OpTotals {
  /** requests: Σ of the Return= lines (a read-modify-write's read and update are two) */
  total: number;
  /**
   * operations the workload issued, a read-modify-write once (YCSB 0.17.0 records its read and update through
   * DBWrapper, each with a Return= line, and the read-modify-write itself without one): the aggregator's rule,
   * lib/core/results/names.ts tallyOperations, over the summary's counts
   */
  operations: number;
  ok: number;
  errors: number;
  byStatus: Record<string, number>;
}

/** Totals over every database operation of a summary (Σ of Return= lines). */
export function opTotals(summary: YcsbSummary): OpTotals {
  const t: OpTotals = { total: 0, operations: 0, ok: 0, errors: 0, byStatus: {} };
  // per measurement name as the HDR logs name them: a successful sample under <OP>, any other status <OP>-FAILED
  const samples: [string, number][] = [[READ_MODIFY_WRITE, summary.ops[READ_MODIFY_WRITE]?.operations ?? 0]];
  for (const [op, { returns }] of Object.entries(summary.ops)) {
    if (NOT_OPS.test(op)) continue;
    for (const [status, n] of Object.entries(returns)) {
      t.total += n;
      t.byStatus[status] = (t.byStatus[status] ?? 0) + n;
      if (status === 'OK' || status === 'BATCHED_OK') t.ok += n;
      if (!NON_ERROR_STATUSES.has(status)) t.errors += n;
      samples.push([status === 'OK' || status === 'BATCHED_OK' ? op : `${op}-FAILED`, n]);
    }
  }
  const issued = tallyOperations(samples);
  t.operations = issued.good + issued.failed;
  return t;
}

export interface Verdict {
  phase: 'load' | 'run';
  exitCode: number | null;
  signal: string | null;
  /** The agent killed the process at the deadline (or on abort). */
  killed?: 'deadline' | 'aborted';
  /** The JVM could not be started at all. */
  startError?: string;
  /** The summary, or why it could not be read. */
  summary: YcsbSummary | { error: string };
  /** Expected inserts for a load process (insertcount, else recordcount). */
  expectedInserts?: number;
  maxErrorFraction: number;
}

/** Why the process failed, or undefined when it succeeded. Judged by exit code AND by the summary. */
export function judgeProcess(v: Verdict): string | undefined {
  if (v.startError) return v.startError;
  const reasons: string[] = [];
  if (v.killed === 'deadline') reasons.push('killed at the deadline');
  if (v.killed === 'aborted') reasons.push('killed: the agent was stopped');
  if (v.signal && !v.killed) reasons.push(`terminated by ${v.signal}`);
  if (v.exitCode !== null && v.exitCode !== 0) reasons.push(`exit code ${v.exitCode}`);
  if ('error' in v.summary) {
    reasons.push(`no usable summary (${v.summary.error})`);
    return reasons.join('; ');
  }
  const t = opTotals(v.summary);
  if (t.total === 0) {
    reasons.push('no database calls were executed');
  } else if (t.ok === 0) {
    reasons.push(`all ${t.total} database calls failed (${formatStatuses(t.byStatus)})`);
  } else if (t.errors / t.total > v.maxErrorFraction) {
    reasons.push(
      `${t.errors} of ${t.total} database calls returned an error (${formatStatuses(t.byStatus)}), more than ${
        v.maxErrorFraction * 100
      }%`,
    );
  }
  if (v.phase === 'load' && v.expectedInserts !== undefined) {
    // BATCHED_OK: an insert the binding sent in a BatchWriteItem (dynamodb.batchInserts)
    const insert = v.summary.ops.INSERT?.returns;
    const inserted = (insert?.OK ?? 0) + (insert?.BATCHED_OK ?? 0);
    if (inserted < v.expectedInserts) reasons.push(`inserted ${inserted} of ${v.expectedInserts} records`);
  }
  return reasons.length ? reasons.join('; ') : undefined;
}

function formatStatuses(byStatus: Record<string, number>): string {
  return Object.entries(byStatus)
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${s}=${n}`)
    .join(', ');
}
