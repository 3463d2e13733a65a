/**
 * The loader's client, operation by operation in simulated time, against the local capacity
 * emulator's own engine (./emulator.ts, TableCapacity): what one finite cell of a local run should
 * measure, and how much that varies from run to run. It checks the analytic solver (./solve.ts),
 * whose rate X = min(target, threads / E[time of one op]) is the mean-value form of both schedules
 * below, and it tells how long a measured window must be for a comparison to mean something.
 *
 * The client is the one the loader runs (loader/ycsb-binding):
 * - `open` (the default, Launcher + OpenLoopWorkload): each process has one schedule, operation k
 *   due at k / (target / processes) (constant arrivals); a free thread takes the next due operation,
 *   waits until it is due and runs it; when every thread is busy, due operations start late, back to
 *   back; nothing is dropped.
 * - `per-thread` (`fleetbench.schedule=per-thread`, YCSB's own ClientThread pacing): thread i's
 *   operation j is due at j · threads / target; a thread that is late runs back to back.
 * - every attempt takes `latencyMs`; a throttled attempt is retried after the binding's equal-jitter
 *   back-off (BindingSupport.backOff: cap = min(max, base · 2^n), cap/2 + U[0, cap/2] ms), which holds
 *   its thread; after `maxRetries` retries the operation fails (Return=THROTTLED).
 * - keys: YCSB's key chooser (./ycsb-keys.ts) and key names, as the capacity proxy sees them.
 * Counted two ways: operations that complete inside [warm-up, duration) (`attainment`, the steady
 * state the plan predicts), and as the results pipeline counts today (`attainmentWithDrain`): YCSB
 * starts nothing after the duration but lets every thread finish its operation, retries and
 * back-offs included, and the measured window runs to the process's end (lib/core/results/aggregate.ts:
 * cellEnd = the manifest's endMs), so a cell whose threads sit in multi-second back-offs gets seconds
 * of window in which almost nothing completes.
 * Pure: no clock, no I/O; seeded. Meant for local-scale cells (thousands of operations per second
 * at most): every attempt is one event.
 */
import { TableCapacity } from './emulator';
import type { CellModel, TableModel } from './model';
import type { LoaderSchedule, OpMix, RetryPolicy } from './solve';
import { keySampler, seededRandom, ycsbKeyName, type KeyDistribution } from './ycsb-keys';

export interface ClientSimulation {
  table: TableModel;
  distribution: KeyDistribution;
  /** only `read`, `write`, `readUnits`, `writeUnits`; an operation is a read with probability read / (read + write) */
  mix: OpMix;
  targetOpsPerSec: number;
  processes: number;
  threadsPerProcess: number;
  schedule: LoaderSchedule;
  /** time of one attempt, ms */
  latencyMs: number;
  retry: RetryPolicy;
  durationSeconds: number;
  warmupSeconds: number;
  seed: number;
}

export interface ClientSimResult {
  /** good operations per second in [warm-up, duration) ÷ target */
  attainment: number;
  /** good operations per second in [warm-up, end of the last operation) ÷ target, as the results pipeline counts */
  attainmentWithDrain: number;
  /** seconds the threads ran past the duration to finish their operations */
  drainSeconds: number;
  goodOps: number;
  /** operations whose retries were exhausted, in the window */
  failedOps: number;
  /** throttled attempts in the window */
  throttledAttempts: number;
  measuredSeconds: number;
}

interface Op {
  key: string;
  read: boolean;
  /** retries made so far */
  retries: number;
}

interface Worker {
  /** process index (open) or thread index (per-thread): whose schedule it takes slots from */
  schedule: number;
  /** next event, ms */
  at: number;
  op: Op | null;
  seq: number;
}

/** A binary min-heap of workers by (time, seq), so equal times run in a fixed order. */
class Agenda {
  private readonly h: Worker[] = [];
  private static less(a: Worker, b: Worker): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
  get size(): number {
    return this.h.length;
  }
  push(w: Worker): void {
    const h = this.h;
    h.push(w);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!Agenda.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  pop(): Worker {
    const h = this.h;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && Agenda.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && Agenda.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

function validate(o: ClientSimulation): void {
  const bad = (field: string, want: string, got: unknown) => {
    throw new Error(`client simulation: ${field} must be ${want} (got ${String(got)})`);
  };
  const positive: (keyof ClientSimulation)[] = ['targetOpsPerSec', 'durationSeconds', 'latencyMs'];
  for (const f of positive) if (!(Number(o[f]) > 0)) bad(f, 'a positive number', o[f]);
  for (const f of ['processes', 'threadsPerProcess'] as const)
    if (!Number.isInteger(o[f]) || o[f] < 1) bad(f, 'an integer ≥ 1', o[f]);
  if (!(o.warmupSeconds >= 0 && o.warmupSeconds < o.durationSeconds))
    bad('warmupSeconds', 'in [0, durationSeconds)', o.warmupSeconds);
  if (!(o.mix.read + o.mix.write > 0)) bad('mix', 'a mix with reads or writes', JSON.stringify(o.mix));
}

/** One cell of the loader's client against the emulator's engine (see the module comment). */
export function simulateClient(o: ClientSimulation): ClientSimResult {
  validate(o);
  const rnd = seededRandom(o.seed);
  const nextKey = keySampler(o.distribution, o.table.recordCount, rnd);
  const capacity = new TableCapacity(o.table, 0);
  const endMs = o.durationSeconds * 1000;
  const windowStartMs = o.warmupSeconds * 1000;
  const threads = o.processes * o.threadsPerProcess;
  const readShare = o.mix.read / (o.mix.read + o.mix.write);
  // open: one slot counter per process; per-thread: one per thread
  const interval =
    o.schedule === 'open' ? (1000 * o.processes) / o.targetOpsPerSec : (1000 * threads) / o.targetOpsPerSec;
  const slots = new Array<number>(o.schedule === 'open' ? o.processes : threads).fill(0);
  const agenda = new Agenda();
  for (let t = 0; t < threads; t++)
    agenda.push({
      schedule: o.schedule === 'open' ? Math.floor(t / o.threadsPerProcess) : t,
      at: 0,
      op: null,
      seq: t,
    });
  const inWindow = (ms: number) => ms >= windowStartMs && ms < endMs;
  let goodOps = 0;
  let drainGoodOps = 0;
  let lastMs = endMs;
  let failedOps = 0;
  let throttledAttempts = 0;
  let seq = threads;

  while (agenda.size > 0) {
    const w = agenda.pop();
    w.seq = seq++;
    if (!w.op) {
      // a free thread takes its schedule's next slot and waits until it is due
      const due = slots[w.schedule]!++ * interval;
      const start = Math.max(w.at, due);
      if (start >= endMs) continue; // the cell is over: YCSB starts nothing more
      // CoreWorkload draws the key for the operation, as the capacity proxy sees it ({"S": "user…"})
      w.op = { key: JSON.stringify({ S: ycsbKeyName(nextKey()) }), read: rnd() < readShare, retries: 0 };
      w.at = start;
      agenda.push(w);
      continue;
    }
    const op = w.op;
    const throttle = capacity.request(
      op.key,
      op.read ? 'read' : 'write',
      op.read ? o.mix.readUnits : o.mix.writeUnits,
      w.at,
    );
    const done = w.at + o.latencyMs;
    if (done > lastMs) lastMs = done;
    if (!throttle) {
      if (inWindow(done)) goodOps++;
      else if (done >= endMs) drainGoodOps++;
      w.op = null;
      w.at = done;
    } else {
      if (inWindow(done)) throttledAttempts++;
      if (op.retries < o.retry.maxRetries) {
        const cap = Math.min(o.retry.maxDelayMs, o.retry.baseDelayMs * 2 ** op.retries);
        op.retries++;
        w.at = done + cap / 2 + rnd() * (cap / 2);
      } else {
        if (inWindow(done)) failedOps++;
        w.op = null;
        w.at = done;
      }
    }
    agenda.push(w);
  }
  const measuredSeconds = o.durationSeconds - o.warmupSeconds;
  const drainSeconds = (lastMs - endMs) / 1000;
  return {
    attainment: goodOps / measuredSeconds / o.targetOpsPerSec,
    attainmentWithDrain: (goodOps + drainGoodOps) / (measuredSeconds + drainSeconds) / o.targetOpsPerSec,
    drainSeconds,
    goodOps,
    failedOps,
    throttledAttempts,
    measuredSeconds,
  };
}

/**
 * Attainment over `runs` seeds (seed, seed + 1, …): mean, standard deviation, min and max; `withDrain`
 * counts as the results pipeline does (see ClientSimResult.attainmentWithDrain).
 */
export function simulateClientRuns(
  o: ClientSimulation,
  runs: number,
  withDrain = false,
): { mean: number; sd: number; min: number; max: number; runs: number[] } {
  const a = Array.from({ length: runs }, (_, i) => {
    const r = simulateClient({ ...o, seed: o.seed + i });
    return withDrain ? r.attainmentWithDrain : r.attainment;
  });
  const mean = a.reduce((s, x) => s + x, 0) / runs;
  const sd = Math.sqrt(a.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, runs - 1));
  return { mean, sd, min: Math.min(...a), max: Math.max(...a), runs: a };
}

/** The client simulation of a modelled cell (./plan-cell.ts cellModelOf) over a cell's window. */
export function clientSimulationOf(
  cell: CellModel,
  o: { durationSeconds: number; warmupSeconds: number; seed: number },
): ClientSimulation {
  const processes = cell.client.processes ?? 1;
  return {
    table: cell.table,
    distribution: cell.distribution,
    mix: cell.mix,
    targetOpsPerSec: cell.targetOpsPerSec,
    processes,
    threadsPerProcess: Math.max(1, Math.round(cell.client.threads / processes)),
    schedule: cell.client.schedule ?? 'open',
    latencyMs: cell.client.latencyMs,
    retry: cell.client.retry,
    ...o,
  };
}
