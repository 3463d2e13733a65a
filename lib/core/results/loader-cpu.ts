/**
 * Loader CPU utilisation and the "suspect cell" verdict.
 *
 * The loader agent measures, per job (one loader, one phase of one cell), on Linux:
 *   - the whole machine's CPU utilisation over the job: /proc/stat busy ÷ total jiffies between the job's
 *     start (before the first JVM) and its end (after the last JVM exited), 0..100 % of all its CPUs;
 *   - each YCSB JVM's own CPU time: utime + stime from /proc/<pid>/stat, sampled every 500 ms while the
 *     JVM runs (the last sample before it exits: a lower bound by at most one sampling period).
 * and writes both into every process manifest as `cpu` (absent elsewhere than Linux, or when /proc cannot
 * be read). Its shape is the manifest schema's (lib/core/contract/manifest.ts); here: the per-loader figures
 * of a cell and the verdict.
 *
 * A cell is **suspect** when
 *   - any loader's machine CPU utilisation over the phase exceeded LOADER_CPU_SUSPECT_PCT (70 %): a loader
 *     that busy adds its own queueing to the latencies and may not offer the scheduled load (seed 001's
 *     study ran too few loaders); or
 *   - the open-loop schedule fell behind: the p99 of SCHEDULE-DELAY (how late operations started, µs) in the
 *     measured window exceeded SCHEDULE_DELAY_SUSPECT_US (10 ms): more than 1 % of operations waited longer
 *     than a DynamoDB round trip for a free client thread, so the database saw less than the offered load.
 * The verdict is a flag for the reader, not a failure: the numbers are kept.
 */
import type { ManifestCpu } from '../contract/manifest';

/** A loader above this machine CPU utilisation (% of its CPUs, over the phase) makes its cell suspect. */
export const LOADER_CPU_SUSPECT_PCT = 70;
/** An open-loop SCHEDULE-DELAY p99 above this (µs) makes the cell suspect. */
export const SCHEDULE_DELAY_SUSPECT_US = 10_000;

/** The `cpu` field of a process manifest: its schema is the manifest's (lib/core/contract/manifest.ts). */
export type { ManifestCpu };

/** One loader's CPU figures in a cell. */
export interface LoaderCpu {
  loader: number;
  host: string | null;
  cores: number;
  /** machine CPU utilisation over the phase, % of all its CPUs */
  machinePct: number | null;
  /** Σ of its YCSB JVMs' CPU time ÷ (window × cores), % of all its CPUs */
  jvmPct: number | null;
}

export interface CellVerdict {
  loaders: LoaderCpu[];
  /** highest machinePct of any loader (null: no loader measured) */
  maxMachinePct: number | null;
  maxJvmPct: number | null;
  scheduleDelayP99Us: number | null;
  suspect: boolean;
  /** why, "; "-separated; null when not suspect */
  reason: string | null;
}

/** What the verdict needs of each process of a cell. */
export interface ProcessCpuInput {
  loader: number;
  host?: string;
  cpu?: ManifestCpu;
}

/** A CPU percentage as the results keep it: to 0.1 %, rounded once here, so every column showing it agrees. */
export const roundPct = (x: number | null): number | null => (x === null ? null : Math.round(x * 10) / 10);

/**
 * Per-loader CPU figures of a cell (% rounded to 0.1 by `roundPct`), loaders in index order; loaders without
 * any `cpu` are left out. `loader_cpu_max_pct`, `loader_cpu_json` and the verdict all use these figures.
 */
export function loaderCpuOf(processes: readonly ProcessCpuInput[]): LoaderCpu[] {
  const by = new Map<number, ProcessCpuInput[]>();
  for (const p of processes) {
    if (!p.cpu) continue;
    by.set(p.loader, [...(by.get(p.loader) ?? []), p]);
  }
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([loader, ps]) => {
      const cpus = ps.map((p) => p.cpu!);
      const machine = cpus.map((c) => c.machinePct).filter((x): x is number => x !== null);
      const cores = Math.max(...cpus.map((c) => c.cores));
      const from = Math.min(...cpus.map((c) => c.windowStartMs));
      const to = Math.max(...cpus.map((c) => c.windowEndMs));
      const jvmMs = cpus.map((c) => c.processCpuMs);
      const jvmPct =
        to > from && jvmMs.every((x) => x !== null)
          ? (jvmMs.reduce<number>((a, x) => a + x!, 0) / ((to - from) * cores)) * 100
          : null;
      return {
        loader,
        host: ps.find((p) => p.host)?.host ?? null,
        cores,
        machinePct: roundPct(machine.length ? Math.max(...machine) : null),
        jvmPct: roundPct(jvmPct),
      };
    });
}

const maxOf = (xs: (number | null)[]): number | null => {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
};

/** The cell's verdict from its processes' CPU figures and its SCHEDULE-DELAY p99 (µs; null: not measured). */
export function judgeCell(
  processes: readonly ProcessCpuInput[],
  scheduleDelayP99Us: number | null,
): CellVerdict {
  const loaders = loaderCpuOf(processes);
  const reasons: string[] = [];
  for (const l of loaders) {
    if (l.machinePct !== null && l.machinePct > LOADER_CPU_SUSPECT_PCT)
      reasons.push(
        `loader-${l.loader}${l.host ? ` (${l.host})` : ''} CPU ${l.machinePct.toFixed(1)} % > ${LOADER_CPU_SUSPECT_PCT} % of its ${l.cores} CPUs`,
      );
  }
  if (scheduleDelayP99Us !== null && scheduleDelayP99Us > SCHEDULE_DELAY_SUSPECT_US)
    reasons.push(
      `behind the open-loop schedule: SCHEDULE-DELAY p99 ${(scheduleDelayP99Us / 1000).toFixed(1)} ms > ${SCHEDULE_DELAY_SUSPECT_US / 1000} ms`,
    );
  return {
    loaders,
    maxMachinePct: maxOf(loaders.map((l) => l.machinePct)),
    maxJvmPct: maxOf(loaders.map((l) => l.jvmPct)),
    scheduleDelayP99Us,
    suspect: reasons.length > 0,
    reason: reasons.length ? reasons.join('; ') : null,
  };
}

/** The `loader_cpu_json` column: one object per loader, snake_case, to 0.1 % (`roundPct`: a no-op on `loaderCpuOf`'s figures). */
export function loaderCpuJson(loaders: readonly LoaderCpu[]): string | null {
  if (!loaders.length) return null;
  const r = roundPct;
  return JSON.stringify(
    loaders.map((l) => ({
      loader: l.loader,
      host: l.host,
      cores: l.cores,
      machine_pct: r(l.machinePct),
      jvm_pct: r(l.jvmPct),
    })),
  );
}

/** Parses `loader_cpu_json` back (the report); malformed text gives []. */
export function parseLoaderCpuJson(text: unknown): LoaderCpu[] {
  if (typeof text !== 'string') return [];
  try {
    const a = JSON.parse(text) as unknown;
    if (!Array.isArray(a)) return [];
    return a
      .filter((x): x is Record<string, unknown> => !!x && typeof x === 'object')
      .map((x) => ({
        loader: Number(x.loader),
        host: typeof x.host === 'string' ? x.host : null,
        cores: Number(x.cores),
        machinePct: typeof x.machine_pct === 'number' ? x.machine_pct : null,
        jvmPct: typeof x.jvm_pct === 'number' ? x.jvm_pct : null,
      }));
  } catch {
    return [];
  }
}

/** The measurement the open-loop schedule's queueing delay is recorded under (loader/ycsb-binding: Launcher). */
export const SCHEDULE_DELAY = 'SCHEDULE-DELAY';

/** The `cells` columns of the verdict, from a cell's aggregate. */
export function loaderCpuColumns(agg: {
  processes: readonly ProcessCpuInput[];
  ops: Record<string, { count: number; p99: number }>;
}): Record<string, number | string | boolean | null> {
  const delay = agg.ops[SCHEDULE_DELAY];
  const v = judgeCell(agg.processes, delay && delay.count > 0 ? delay.p99 : null);
  return {
    loader_cpu_max_pct: v.maxMachinePct,
    loader_jvm_cpu_max_pct: v.maxJvmPct,
    loader_cpu_json: loaderCpuJson(v.loaders),
    schedule_delay_p99_us: v.scheduleDelayP99Us,
    suspect: v.suspect,
    suspect_reason: v.reason,
  };
}
