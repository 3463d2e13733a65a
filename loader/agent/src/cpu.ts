/**
 * CPU accounting of a loader, Linux only (/proc), gracefully absent elsewhere: every reader returns null
 * when /proc cannot be read, and the manifest then has no `cpu` field. What the figures mean and how the
 * results use them: lib/core/results/loader-cpu.ts.
 *
 *   machine: /proc/stat's aggregate `cpu` line, jiffies of user nice system idle iowait irq softirq steal;
 *            busy = total − idle − iowait; utilisation over a window = Δbusy ÷ Δtotal (proc(5)). guest and
 *            guest_nice are already inside user and nice and are not added again.
 *   process: /proc/<pid>/stat fields 14 utime and 15 stime, in clock ticks (sysconf(_SC_CLK_TCK), USER_HZ,
 *            100 on every Linux architecture the loaders run on), read after the `)` that ends the command
 *            name (which may hold spaces).
 */
import { readFileSync } from 'node:fs';
import type { ManifestCpu } from '../../../lib/core/results/loader-cpu';

/** USER_HZ: the unit of /proc/<pid>/stat times (proc(5): "sysconf(_SC_CLK_TCK)"; 100 on x86-64 and arm64). */
export const CLOCK_TICKS_PER_SECOND = 100;

export interface MachineSample {
  busy: number;
  total: number;
  cores: number;
}

/** Parses /proc/stat text; null when it holds no aggregate `cpu` line. */
export function parseProcStat(text: string): MachineSample | null {
  const lines = text.split('\n');
  const agg = lines.find((l) => /^cpu\s/.test(l));
  if (!agg) return null;
  const f = agg.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  const cores = lines.filter((l) => /^cpu\d+\s/.test(l)).length;
  return { busy: total - idle - iowait, total, cores: Math.max(1, cores) };
}

/** Utilisation between two samples, % of all CPUs (0..100); null without time between them. */
export function machinePctBetween(a: MachineSample, b: MachineSample): number | null {
  const dt = b.total - a.total;
  if (!(dt > 0)) return null;
  return Math.min(100, Math.max(0, ((b.busy - a.busy) / dt) * 100));
}

/** Parses /proc/<pid>/stat text: user + system CPU time in ms; null when malformed. */
export function parsePidStat(text: string): number | null {
  const end = text.lastIndexOf(')');
  if (end < 0) return null;
  // after ") ": field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12
  const rest = text
    .slice(end + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export function sampleMachine(procRoot = '/proc'): MachineSample | null {
  const t = readOrNull(`${procRoot}/stat`);
  return t === null ? null : parseProcStat(t);
}

export function sampleProcessCpuMs(pid: number, procRoot = '/proc'): number | null {
  const t = readOrNull(`${procRoot}/${pid}/stat`);
  return t === null ? null : parsePidStat(t);
}

/**
 * Watches the CPU of one job: the machine from start() to stop(), and each JVM's CPU time, sampled every
 * `periodMs` while it runs (a process's /proc entry is gone once Node has reaped it, so the last sample is
 * what is known).
 */
export class CpuWatch {
  private readonly start: MachineSample | null;
  private readonly startMs = Date.now();
  private end: MachineSample | null = null;
  private endMs = 0;
  /** running JVMs by process index: pid and last CPU time sample */
  private readonly running = new Map<number, { pid: number; cpuMs: number | null }>();
  /** exited JVMs: last CPU time sample */
  private readonly last = new Map<number, number | null>();
  private readonly timer: NodeJS.Timeout | null;

  constructor(
    periodMs = 500,
    private readonly procRoot = '/proc',
  ) {
    this.start = sampleMachine(procRoot);
    this.timer = this.start ? setInterval(() => this.poll(), periodMs) : null;
    this.timer?.unref();
  }

  /** Whether this machine has /proc to measure with. */
  get available(): boolean {
    return this.start !== null;
  }

  /** A JVM started (index = its process number in the job). */
  track(index: number, pid: number): void {
    if (!this.available) return;
    this.running.set(index, { pid, cpuMs: sampleProcessCpuMs(pid, this.procRoot) });
  }

  /** The JVM has exited: no more samples of it (its pid may be reused). */
  exited(index: number): void {
    const p = this.running.get(index);
    if (!p) return;
    this.running.delete(index);
    this.last.set(index, p.cpuMs);
  }

  private poll(): void {
    for (const p of this.running.values()) {
      const ms = sampleProcessCpuMs(p.pid, this.procRoot);
      if (ms !== null) p.cpuMs = ms;
    }
  }

  /** Takes the machine's end sample and stops polling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.poll();
    this.end = sampleMachine(this.procRoot);
    this.endMs = Date.now();
  }

  /** The manifest's `cpu` field for process `index` that ran `wallMs` (undefined when nothing was measured). */
  manifestCpu(index: number, wallMs: number): ManifestCpu | undefined {
    if (!this.start) return undefined;
    const cpuMs = this.last.get(index) ?? this.running.get(index)?.cpuMs ?? null;
    return {
      cores: this.start.cores,
      windowStartMs: this.startMs,
      windowEndMs: this.endMs || Date.now(),
      machinePct: this.end ? round2(machinePctBetween(this.start, this.end)) : null,
      processCpuMs: cpuMs,
      processPct: cpuMs !== null && wallMs > 0 ? round2((cpuMs / wallMs) * 100) : null,
    };
  }
}

function round2(x: number | null): number | null {
  return x === null ? null : Math.round(x * 100) / 100;
}
