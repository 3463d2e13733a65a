/**
 * The size of a spec's cell grid, counted without expanding it: targets × distributions × read proportions ×
 * throughput steps × A/A repeats (the planner's order, lib/core/plan/grid.ts). A grid above MAX_CELLS is refused
 * before anything expands it: validation's capacity check and the planner build one object per cell, and a
 * 12-million-cell grid took 5.3 s and 2.3 GB, more than the Plan Lambda's 512 MB.
 *
 * The limit: the AWS pipeline runs far fewer cells in one execution (Plan refuses a run whose worst case exceeds
 * its Step Functions history budget, lib/core/pipeline/timing.ts: 20,000 of the 25,000 events an execution may
 * have, https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html, at 71 events a cell, about 275
 * cells); `fleetbench run --local` keeps that budget, though aws-local-stepfunctions has none: it executes the same
 * definition and the same Plan step, so a spec that runs locally fits one AWS execution. 10,000 cells keeps every run
 * the pipeline or the local mode can reasonably make (a 1,000-step staircase over a few targets and distributions) while validation and planning
 * stay well under a second and a few tens of MB.
 */
import type { Issue } from '../common/errors';
import type { RunSpec } from './schema';
import { worstCaseProbes } from '../search/probe';

export const MAX_CELLS = 10_000;

/** How many throughput steps a workload has (a staircase counted, not listed). */
export function throughputStepCount(w: RunSpec['workload']): number {
  const t = w.targetOpsPerSec;
  if (t === 'max') return 1;
  // a search: its worst-case probes (counted by walking its outcomes, not by listing cells)
  if (!t) return w.search ? worstCaseProbes(w.search) : 0;
  if (Array.isArray(t)) return t.length;
  return t.stop < t.start ? 0 : Math.floor((t.stop - t.start) / t.step) + 1;
}

/** The grid's dimensions, each with the field it comes from, and their product. */
export function gridDimensions(spec: RunSpec): { field: string; size: number }[] {
  const w = spec.workload;
  return [
    { field: 'targets', size: spec.targets.length },
    { field: 'workload.distributions', size: w.distributions?.length ?? 1 },
    { field: 'workload.readProportions', size: w.readProportions?.length ?? 1 },
    { field: w.search ? 'workload.search' : 'workload.targetOpsPerSec', size: throughputStepCount(w) },
    { field: 'workload.repeats', size: w.repeats },
  ];
}

export function cellCount(spec: RunSpec): number {
  return gridDimensions(spec).reduce((n, d) => n * d.size, 1);
}

export function cellLimitChecks(spec: RunSpec, issues: Issue[]): void {
  const dims = gridDimensions(spec);
  const cells = dims.reduce((n, d) => n * d.size, 1);
  if (cells <= MAX_CELLS) return;
  const largest = dims.reduce((a, b) => (b.size > a.size ? b : a));
  const fmt = (x: number): string => x.toLocaleString('en-US');
  issues.push({
    path: largest.field,
    message:
      `expected a grid of at most ${fmt(MAX_CELLS)} cells, found ${fmt(cells)} (` +
      dims.map((d) => `${d.field} ${fmt(d.size)}`).join(' × ') +
      `): split the spec into smaller runs (README, "Rules checked before anything is paid for")`,
  });
}
