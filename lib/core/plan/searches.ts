/**
 * The plan of a run's SLO searches (docs/slo-search.md): one per target × distribution × read proportion, its
 * probe cells (planned at the upper bound, the worst case), and, where the target's kind has a capacity model
 * (DynamoDB), the model's predicted limit: the highest rate in the searched range at which the model predicts
 * the cell still attains the search's share (bisected on the model itself). The search starts its ramp there.
 */
import type { RunSpec, SloSearch, Target } from '../spec/schema';
import { kindOf } from '../targets/registry';
import type { PlannedCell, CellPrediction } from '../dynamodb-model/plan-cell';
import { worstCaseProbes } from '../search/probe';

/** A probe cell's mark: which search it belongs to and its number (1, 2, ...) in it. */
export interface ProbeMark {
  search: string;
  index: number;
}

export interface SearchPlan {
  /** `<target>.<distribution>.r<read>`: the probe cells' ids without `.probe<k>` */
  id: string;
  target: string;
  distributionLabel: string;
  readProportion: number;
  /** the probe cells' indexes, in probe order */
  cells: number[];
  /** the most probes the search can take (= cells.length) */
  worstCaseProbes: number;
  /** the capacity model's limit on AWS (null: the kind has no model, or the cell is not modelled) */
  predictedLimitOpsPerSec: number | null;
  /** the same with the local emulator's scaled limits (`local.capacityScale` ≠ 1); null otherwise */
  localPredictedLimitOpsPerSec: number | null;
}

/** The cell fields planning a search reads (structurally lib/core/plan's CellPlan). */
interface SearchCell extends PlannedCell {
  id: string;
  index: number;
  distributionLabel: string;
  readProportion: number;
  probe?: ProbeMark;
}

type Predict = (cell: PlannedCell) => { prediction?: CellPrediction; localPrediction?: CellPrediction };

/**
 * The highest whole rate in [start, max] whose predicted attainment is at least the search's share (the model's
 * attainment falls as the rate rises past a limit); `start` when even it falls short, `max` when it does not.
 */
export function predictedLimit(
  s: SloSearch,
  attainmentAt: (opsPerSec: number) => number | null,
): number | null {
  const ok = (r: number): boolean | null => {
    const a = attainmentAt(r);
    return a === null ? null : a >= s.minAttainment;
  };
  const top = ok(s.maxOpsPerSec);
  if (top === null) return null;
  if (top) return s.maxOpsPerSec;
  if (!ok(s.startOpsPerSec)) return s.startOpsPerSec;
  let lo = s.startOpsPerSec;
  let hi = s.maxOpsPerSec;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The searches of a planned run (empty without `workload.search`), from its probe cells. */
export function planSearches(spec: RunSpec, cells: readonly SearchCell[]): SearchPlan[] {
  const s = spec.workload.search;
  if (!s) return [];
  const byId = new Map<string, SearchCell[]>();
  for (const c of cells) {
    if (!c.probe) continue;
    byId.set(c.probe.search, [...(byId.get(c.probe.search) ?? []), c]);
  }
  return [...byId.entries()].map(([id, probes]) => {
    const first = probes[0]!;
    const target = spec.targets.find((t) => t.id === first.target)!;
    const predict = predictorOf(spec, target);
    const at = (which: 'prediction' | 'localPrediction') => (r: number) =>
      predict?.({ ...first, targetOpsPerSec: r })[which]?.attainment ?? null;
    return {
      id,
      target: first.target,
      distributionLabel: first.distributionLabel,
      readProportion: first.readProportion,
      cells: probes.map((c) => c.index),
      worstCaseProbes: worstCaseProbes(s),
      predictedLimitOpsPerSec: predict ? predictedLimit(s, at('prediction')) : null,
      localPredictedLimitOpsPerSec: predict ? predictedLimit(s, at('localPrediction')) : null,
    };
  });
}

function predictorOf(spec: RunSpec, target: Target): Predict | null {
  const kind = kindOf(target);
  if (!kind.predict) return null;
  return (cell) => kind.predict!(spec, target as never, cell);
}

/**
 * The prediction that starts a search's ramp: on AWS the model's limit; locally the emulator's (scaled) one, none
 * when the run does not emulate capacity (DynamoDB Local alone does not throttle).
 */
export function searchStartPrediction(
  search: SearchPlan,
  mode: 'aws' | 'local-emulated' | 'local',
): number | null {
  if (mode === 'aws') return search.predictedLimitOpsPerSec;
  if (mode === 'local') return null;
  return search.localPredictedLimitOpsPerSec ?? search.predictedLimitOpsPerSec;
}
