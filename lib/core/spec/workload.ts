/**
 * YCSB core workloads a-f (as shipped in YCSB's `workloads/` directory) and the expansion of a
 * spec's workload into operation mixes, distributions and throughput steps.
 */
import { UNPACED, YCSB_HOTSPOT_DEFAULTS, type Distribution, type Proportions, type RunSpec } from './schema';
import { worstCaseProbes } from '../search/probe';
import { peakOpsPerSec } from './rate-schedule';

export interface BaseWorkload {
  proportions: Proportions;
  distribution: 'uniform' | 'zipfian' | 'latest';
  /** Extra YCSB properties the base workload file sets. */
  properties: Record<string, string>;
}

const mix = (p: Partial<Proportions>): Proportions => ({
  read: 0,
  update: 0,
  insert: 0,
  scan: 0,
  readModifyWrite: 0,
  query: 0,
  ...p,
});

/** YCSB 0.17.0 `workloads/workload{a..f}`. */
export const BASE_WORKLOADS: Record<RunSpec['workload']['base'], BaseWorkload> = {
  a: { proportions: mix({ read: 0.5, update: 0.5 }), distribution: 'zipfian', properties: {} },
  b: { proportions: mix({ read: 0.95, update: 0.05 }), distribution: 'zipfian', properties: {} },
  c: { proportions: mix({ read: 1 }), distribution: 'zipfian', properties: {} },
  d: { proportions: mix({ read: 0.95, insert: 0.05 }), distribution: 'latest', properties: {} },
  e: {
    proportions: mix({ scan: 0.95, insert: 0.05 }),
    distribution: 'zipfian',
    properties: { maxscanlength: '100', scanlengthdistribution: 'uniform' },
  },
  f: { proportions: mix({ read: 0.5, readModifyWrite: 0.5 }), distribution: 'zipfian', properties: {} },
};

export const PROPORTION_SUM_TOLERANCE = 1e-9;

export function proportionSum(p: Proportions): number {
  return p.read + p.update + p.insert + p.scan + p.readModifyWrite + p.query;
}

/** What a read-proportion sweep leaves to the operations other than read and update. */
export function otherProportions(p: Proportions): number {
  return p.insert + p.scan + p.readModifyWrite + p.query;
}

/** Rounds away binary noise (0.1 + 0.2) so proportions print and compare cleanly. */
export function clean(x: number): number {
  return Math.round(x * 1e12) / 1e12;
}

export interface MixStep {
  /** Index in `workload.readProportions`, or null when the workload has no sweep. */
  sweepIndex: number | null;
  proportions: Proportions;
}

/**
 * The operation mixes of a workload: the base (or explicit) proportions, or, with a
 * `readProportions` sweep, one mix per read proportion whose update proportion is what remains
 * after reads and the other (insert, scan, read-modify-write) proportions.
 */
export function operationMixes(w: RunSpec['workload']): MixStep[] {
  const base = w.proportions ?? BASE_WORKLOADS[w.base].proportions;
  if (!w.readProportions) return [{ sweepIndex: null, proportions: base }];
  return w.readProportions.map((r, i) => {
    const others = otherProportions(base);
    return {
      sweepIndex: i,
      proportions: { ...base, read: r, update: clean(1 - r - others) },
    };
  });
}

export function distributionsOf(w: RunSpec['workload']): Distribution[] {
  return w.distributions ?? [BASE_WORKLOADS[w.base].distribution];
}

/** Normalised view of a distribution. */
export function distributionInfo(d: Distribution): {
  type: string;
  label: string;
  properties: Record<string, string>;
} {
  const obj =
    d === 'hotspot'
      ? { type: 'hotspot' as const, ...YCSB_HOTSPOT_DEFAULTS }
      : typeof d === 'string'
        ? { type: d }
        : d;
  if (obj.type === 'hotspot') {
    const h = obj as { type: 'hotspot'; dataFraction: number; opFraction: number };
    return {
      type: 'hotspot',
      label: `hotspot(${h.dataFraction}, ${h.opFraction})`,
      properties: {
        requestdistribution: 'hotspot',
        hotspotdatafraction: String(h.dataFraction),
        hotspotopnfraction: String(h.opFraction),
      },
    };
  }
  return { type: obj.type, label: obj.type, properties: { requestdistribution: obj.type } };
}

/** A cell's throughput target: ops/s, or "max" (unpaced: YCSB without -target). */
export type ThroughputTarget = number | typeof UNPACED;

/** True when the workload's one cell per mix runs unpaced (`targetOpsPerSec: "max"`). */
export function isUnpaced(w: RunSpec['workload']): boolean {
  return w.targetOpsPerSec === UNPACED;
}

/** The throughput targets of the grid: the paced steps, or ["max"]. */
export function throughputTargets(w: RunSpec['workload']): ThroughputTarget[] {
  return isUnpaced(w) ? [UNPACED] : throughputSteps(w);
}

/**
 * The paced throughput targets: the list, or the staircase start, start+step, ... up to stop; for an SLO search
 * the range its probes span (start and upper bound); none for an unpaced workload ("max" is refused inside a list
 * by validation).
 */
export function throughputSteps(w: RunSpec['workload']): number[] {
  const t = w.targetOpsPerSec;
  // a rate schedule's cell is sized and priced at its peak (docs/rate-schedules.md)
  if (!t && w.rateSchedule) return [peakOpsPerSec(w.rateSchedule)];
  if (!t) return w.search ? [w.search.startOpsPerSec, w.search.maxOpsPerSec] : [];
  if (t === UNPACED) return [];
  if (Array.isArray(t)) return t.filter((x): x is number => typeof x === 'number');
  const out: number[] = [];
  for (let v = t.start; v <= t.stop; v += t.step) out.push(v);
  return out;
}

/** One step of the rate dimension of the grid: a fixed rate, or the k-th probe of an SLO search. */
export interface RateStep {
  /** the cell id's part: `t<ops>` or `probe<k>` */
  slug: string;
  /**
   * the cell's planned rate: "max" for an unpaced cell; a probe is planned at the search's upper bound (its worst
   * case; decided at run time)
   */
  opsPerSec: ThroughputTarget;
  /** the probe's number (1, 2, ...) within its search */
  probe?: number;
}

/** The rate steps of a workload: one per throughput target, or the worst-case number of probes of its search. */
export function rateSteps(w: RunSpec['workload']): RateStep[] {
  if (w.search) {
    const n = worstCaseProbes(w.search);
    const ops = w.search.maxOpsPerSec;
    return Array.from({ length: n }, (_, i) => ({ slug: `probe${i + 1}`, opsPerSec: ops, probe: i + 1 }));
  }
  // a rate schedule: one cell, planned (sized, priced) at the schedule's peak
  if (w.rateSchedule && !w.targetOpsPerSec)
    return [{ slug: 'sched', opsPerSec: peakOpsPerSec(w.rateSchedule) }];
  // "t5000", or "tmax" for an unpaced cell
  return throughputTargets(w).map((ops) => ({ slug: `t${ops}`, opsPerSec: ops }));
}
