/**
 * When each target's resources exist (docs/cost-model.md, "Schedules"). A target lives from its provisioning,
 * through its load and its cells, to its teardown: `setupAndTeardownSeconds` + its load + its cells with their
 * overhead. Sequential execution runs the lives one after another (the next target is provisioned once the
 * previous is torn down), so the run takes their sum; parallel execution runs them side by side, so the run takes
 * the longest. A leaf: it reads the plan's cells, not the registry.
 */
import type { Execution, RunSpec } from '../spec/schema';
import { Q } from './decimal';
import { ESTIMATE_ASSUMPTIONS as A, type PlanLike } from './lines';

export interface TargetLife {
  target: string;
  /** Provisioning to teardown. */
  seconds: Q;
  loadSeconds: Q;
  /** Of `seconds`, the stand-by the plan holds beyond its cells (see targetLives). */
  standbySeconds: number;
  /** Loader instances its phases use (its own group in a parallel run: groupLoaders). */
  loaders: number;
}

export interface RunSchedule {
  execution: Execution;
  lives: TargetLife[];
  /** Wall-clock seconds of the run. */
  runSeconds: Q;
}

/**
 * Each target's life. Time the plan holds beyond its cells' durations (the failure policy's worst case: loaders
 * waited on while the run stands by) may fall in any target's life: each target is charged it (an over-count at
 * worst), the run's wall time once.
 */
export function targetLives(spec: RunSpec, plan: PlanLike, loadSeconds: (target: string) => Q): TargetLife[] {
  const measured = plan.cells.reduce((s, c) => s + c.durationSeconds, 0);
  const standby = Math.max(0, plan.cellSeconds - measured);
  return spec.targets.map((t) => {
    const cells = plan.cells.filter((c) => c.target === t.id);
    const cellSeconds = cells.reduce((s, c) => s + c.durationSeconds + A.perCellOverheadSeconds, 0);
    const load = loadSeconds(t.id);
    return {
      target: t.id,
      seconds: Q.of(A.setupAndTeardownSeconds + cellSeconds + standby).add(load),
      loadSeconds: load,
      standbySeconds: standby,
      loaders: groupLoaders(plan, t.id),
    };
  });
}

/**
 * The loaders a target's own phases use: the most any of its cells uses and, when the run loads it, the loaders its
 * load runs on (the plan's load processes, `processesPerLoader` to a loader). In a parallel run this is the size of
 * its loader group, which ProvisionFleet launches for it and its TeardownTarget terminates.
 */
export function groupLoaders(plan: PlanLike, target: string): number {
  const cells = plan.cells.filter((c) => c.target === target).reduce((m, c) => Math.max(m, c.loaders), 0);
  const load =
    plan.load && plan.load.targets.includes(target)
      ? Math.ceil(plan.load.processes / plan.load.processesPerLoader)
      : 0;
  return Math.max(cells, load) || plan.fleet.loaders;
}

/** The run's wall time under an execution: the lives in sequence (their sum) or side by side (the longest). */
export function runSchedule(execution: Execution, lives: TargetLife[]): RunSchedule {
  const runSeconds =
    execution === 'sequential'
      ? lives.reduce((s, l) => s.add(l.seconds).sub(l.standbySeconds), Q.of(lives[0]?.standbySeconds ?? 0))
      : lives.reduce((m, l) => m.max(l.seconds), Q.ZERO);
  return { execution, lives, runSeconds };
}
