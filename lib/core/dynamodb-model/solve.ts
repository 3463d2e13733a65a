/**
 * The shared core of both modes: given where the operations go (domains with their limits), the
 * table's limit and the loader's client (threads, schedule) with the binding's retries, the rate the client runs at and
 * what it gets. The analytic mode calls it once with the steady-state layout; the simulation calls
 * it every step with the current layout, burst and on-demand ceiling.
 */
import { throttleProbability } from './rules';

/**
 * A throttling domain: one partition, or one isolated item; or `count` identical ones taken together
 * (share and limits are then the group's totals, which gives the same throttle probability).
 */
export interface Domain {
  kind: 'partition' | 'item';
  /** fraction of all operations that land here */
  share: number;
  /** identical domains this one stands for (default 1) */
  count?: number;
  readUnitsPerSec: number;
  writeUnitsPerSec: number;
}

/** The binding's retry policy (loader/ycsb-binding: dynamodb.maxRetries, retryBaseDelayMs, retryMaxDelayMs). */
export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** loader/ycsb-binding/README.md: 3 retries, 50 ms base, 5 s cap, equal jitter. */
export const BINDING_RETRY_DEFAULTS: RetryPolicy = { maxRetries: 3, baseDelayMs: 50, maxDelayMs: 5_000 };

/** `fleetbench.schedule` (loader/ycsb-binding/README.md "Pacing"): the loader's open loop or YCSB's per-thread pacing. */
export type LoaderSchedule = 'open' | 'per-thread';

export interface ClientModel {
  /** YCSB client threads over all processes */
  threads: number;
  /** YCSB processes the threads are spread over (default 1); each has its own open-loop schedule */
  processes?: number;
  /**
   * How the loader paces (default `open`). The steady-state rate below is the same for both: it is
   * the mean-value form of each; the schedule matters to the client simulation (./client-sim.ts),
   * which follows one cell operation by operation.
   */
  schedule?: LoaderSchedule;
  /** service time of one request attempt, ms (throttled attempts take as long) */
  latencyMs: number;
  retry: RetryPolicy;
}

export interface OpMix {
  /** fraction of operations that read (read + read-modify-write) */
  read: number;
  /** fraction that write (update + insert + read-modify-write) */
  write: number;
  readUnits: number;
  writeUnits: number;
}

export type LimitedBy =
  'table-read' | 'table-write' | 'partition-read' | 'partition-write' | 'item' | 'client' | 'none';

export interface SolveResult {
  /** operations started per second (YCSB's rate, good or not) */
  opsPerSec: number;
  goodOpsPerSec: number;
  throttledAttemptsPerOp: number;
  /** throttled attempts / all attempts */
  throttledFraction: number;
  /** mean time one operation takes beyond one attempt's latency (retries and back-off), ms */
  addedLatencyMs: number;
  limitedBy: LimitedBy;
  /** read / write units per second consumed (admitted) */
  consumedReadUnitsPerSec: number;
  consumedWriteUnitsPerSec: number;
  /** per domain: read and write throttle probability per attempt, and demand (units/s) */
  domains: { qRead: number; qWrite: number; readDemand: number; writeDemand: number }[];
}

/**
 * Mean back-off before retry n (0-based) of the binding: min(max, base·2^n), half fixed and half
 * uniformly random ("equal jitter", BindingSupport.backOff), so 3/4 of the cap on average.
 */
export function meanBackoffMs(retry: RetryPolicy, n: number): number {
  return 0.75 * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** n);
}

/** Attempts, throttled attempts, back-off (ms) and success probability of one op at throttle prob q. */
export function retryOutcome(
  q: number,
  retry: RetryPolicy,
): {
  attempts: number;
  throttled: number;
  backoffMs: number;
  success: number;
} {
  let attempts = 0;
  let backoffMs = 0;
  let reach = 1; // probability of making attempt i
  for (let i = 0; i <= retry.maxRetries; i++) {
    attempts += reach;
    if (i < retry.maxRetries) backoffMs += reach * q * meanBackoffMs(retry, i);
    reach *= q;
  }
  return { attempts, throttled: attempts * q, backoffMs, success: 1 - reach };
}

interface TableLimit {
  readUnitsPerSec: number;
  writeUnitsPerSec: number;
}

/** Throttle probabilities of every domain at an operation rate X, including the table's limit. */
function throttlesAt(X: number, domains: Domain[], mix: OpMix, table: TableLimit, retry: RetryPolicy) {
  const m = retry.maxRetries;
  const per = domains.map((d) => {
    const readDemand = X * d.share * mix.read * mix.readUnits;
    const writeDemand = X * d.share * mix.write * mix.writeUnits;
    return {
      readDemand,
      writeDemand,
      qRead: throttleProbability(readDemand, d.readUnitsPerSec, m),
      qWrite: throttleProbability(writeDemand, d.writeUnitsPerSec, m),
    };
  });
  // the table's limit applies to what the partitions admit: one extra throttle probability per
  // direction, chosen so that the table admits at most its limit
  const tableQ = (key: 'read' | 'write', limit: number) => {
    const admitted = (qt: number) =>
      per.reduce((s, p) => {
        const demand = key === 'read' ? p.readDemand : p.writeDemand;
        const q = 1 - (1 - (key === 'read' ? p.qRead : p.qWrite)) * (1 - qt);
        return s + demand * (1 - q ** (m + 1));
      }, 0);
    if (admitted(0) <= limit) return 0;
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (admitted(mid) > limit) lo = mid;
      else hi = mid;
    }
    return hi;
  };
  const qtRead = tableQ('read', table.readUnitsPerSec);
  const qtWrite = tableQ('write', table.writeUnitsPerSec);
  return { per, qtRead, qtWrite };
}

function evaluate(X: number, domains: Domain[], mix: OpMix, table: TableLimit, client: ClientModel) {
  const { per, qtRead, qtWrite } = throttlesAt(X, domains, mix, table, client.retry);
  let time = 0;
  let good = 0;
  let throttled = 0;
  let attempts = 0;
  let readUnits = 0;
  let writeUnits = 0;
  // throttled attempts by cause, to name what limits the cell
  const cause: Record<string, number> = {};
  const add = (k: string, v: number) => (cause[k] = (cause[k] ?? 0) + v);
  domains.forEach((d, i) => {
    const p = per[i]!;
    for (const dir of ['read', 'write'] as const) {
      const frac = dir === 'read' ? mix.read : mix.write;
      if (frac <= 0) continue;
      const qd = dir === 'read' ? p.qRead : p.qWrite;
      const qt = dir === 'read' ? qtRead : qtWrite;
      const q = 1 - (1 - qd) * (1 - qt);
      const o = retryOutcome(q, client.retry);
      const w = d.share * frac;
      time += w * (o.attempts * client.latencyMs + o.backoffMs);
      good += w * o.success;
      attempts += w * o.attempts;
      throttled += w * o.throttled;
      const admittedAttempts = w * o.attempts * (1 - q);
      if (dir === 'read') readUnits += admittedAttempts * mix.readUnits;
      else writeUnits += admittedAttempts * mix.writeUnits;
      if (q > 0) {
        const local = d.kind === 'item' ? 'item' : `partition-${dir}`;
        add(local, (w * o.throttled * qd) / (qd + qt));
        add(`table-${dir}`, (w * o.throttled * qt) / (qd + qt));
      }
    }
  });
  return { per, time, good, throttled, attempts, readUnits, writeUnits, cause, qtRead, qtWrite };
}

/**
 * The rate the loader's client runs at. With either schedule (module comment of ./client-sim.ts) a
 * thread is busy for E[time of one op] per operation (attempts × latency + back-off), so the threads
 * complete at most threads / E operations per second; below that they keep the target (open loop:
 * free threads take every due operation; per-thread: every thread keeps its own slots), above it
 * every thread is busy and operations start late, back to back. So X = min(target, threads / E[T(X)]),
 * an operation whose retries are exhausted is a failed one, and E grows with X (more throttling,
 * more back-off): X is found by bisection. This is the mean of both schedules, not their spread
 * over a short window: the client simulation gives that (docs/dynamodb-model.md, "Local emulation").
 */
export function solve(
  domains: Domain[],
  mix: OpMix,
  table: TableLimit,
  client: ClientModel,
  targetOpsPerSec: number,
): SolveResult {
  const opTimeSec = (X: number) => evaluate(X, domains, mix, table, client).time / 1000;
  let X = targetOpsPerSec;
  if (client.threads / opTimeSec(targetOpsPerSec) < targetOpsPerSec) {
    let lo = 0;
    let hi = targetOpsPerSec;
    for (let i = 0; i < 50; i++) {
      const mid = (lo + hi) / 2;
      if (client.threads / opTimeSec(mid) >= mid) lo = mid;
      else hi = mid;
    }
    X = lo;
  }
  const e = evaluate(X, domains, mix, table, client);
  let limitedBy: LimitedBy = 'none';
  let most = 0;
  for (const [k, v] of Object.entries(e.cause)) {
    if (v > most) {
      most = v;
      limitedBy = k as LimitedBy;
    }
  }
  if (limitedBy === 'none' && X < targetOpsPerSec * 0.999) limitedBy = 'client';
  return {
    opsPerSec: X,
    goodOpsPerSec: X * e.good,
    throttledAttemptsPerOp: e.throttled,
    throttledFraction: e.attempts > 0 ? e.throttled / e.attempts : 0,
    addedLatencyMs: Math.max(0, e.time - client.latencyMs),
    limitedBy,
    consumedReadUnitsPerSec: X * e.readUnits,
    consumedWriteUnitsPerSec: X * e.writeUnits,
    domains: e.per.map((p) => ({
      qRead: 1 - (1 - p.qRead) * (1 - e.qtRead),
      qWrite: 1 - (1 - p.qWrite) * (1 - e.qtWrite),
      readDemand: p.readDemand,
      writeDemand: p.writeDemand,
    })),
  };
}
