/**
 * The rules of an SLO search (`workload.search`, docs/slo-search.md) that need more than one field: a search or
 * fixed rates (exactly one), bounds in order, a resolution inside the range, an SLO on a latency the cells record,
 * on operations the mix has.
 */
import type { Issue } from '../common/errors';
import type { RunSpec } from './schema';
import { operationMixes } from './workload';
import { worstCaseProbes } from '../search/probe';

const fmt = (x: number): string => x.toLocaleString('en-US');

/** Probes one search may take at most: more is a range too wide for its resolution. */
export const MAX_PROBES_PER_SEARCH = 40;

export function searchChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  const w = spec.workload;
  const s = w.search;
  if (!s) {
    if (!w.targetOpsPerSec && !w.rateSchedule)
      issues.push({
        path: 'workload.targetOpsPerSec',
        message:
          'expected throughput targets (a list or a staircase), an SLO search (workload.search) or a rate schedule (workload.rateSchedule), found none',
      });
    return;
  }
  if (w.targetOpsPerSec)
    issues.push({
      path: 'workload.search',
      message:
        'expected either an SLO search or fixed throughput targets (workload.targetOpsPerSec), found both: ' +
        "the search decides its probes' rates",
    });
  if (s.maxOpsPerSec <= s.startOpsPerSec)
    issues.push({
      path: 'workload.search.maxOpsPerSec',
      message: `expected an upper bound above startOpsPerSec (${fmt(s.startOpsPerSec)}), found ${fmt(s.maxOpsPerSec)}`,
    });
  else if (s.resolutionOpsPerSec >= s.maxOpsPerSec - s.startOpsPerSec)
    issues.push({
      path: 'workload.search.resolutionOpsPerSec',
      message:
        `expected a resolution below the searched range (maxOpsPerSec − startOpsPerSec = ` +
        `${fmt(s.maxOpsPerSec - s.startOpsPerSec)}), found ${fmt(s.resolutionOpsPerSec)}`,
    });
  else {
    const n = worstCaseProbes(s);
    if (n > MAX_PROBES_PER_SEARCH)
      issues.push({
        path: 'workload.search.resolutionOpsPerSec',
        message: `expected a search of at most ${MAX_PROBES_PER_SEARCH} probes, found up to ${n}: a coarser resolution or a narrower range`,
      });
  }
  const recorded =
    w.measurement === 'both' || w.measurement === (s.slo.latency === 'intended' ? 'intended' : 'op');
  if (!recorded)
    issues.push({
      path: 'workload.search.slo.latency',
      message: `expected a latency the cells record: workload.measurement "${w.measurement}" does not record ${s.slo.latency} time`,
    });
  if (s.slo.operations !== 'all') {
    const op = s.slo.operations;
    const missing = operationMixes(w).find((m) => m.proportions[op] === 0);
    if (missing)
      issues.push({
        path: 'workload.search.slo.operations',
        message: `expected operations the mix has: a cell with ${op} proportion 0 would measure no ${op} latency`,
      });
  }
  if (w.repeats > 1)
    issues.push({
      path: 'workload.repeats',
      message: 'expected 1 with an SLO search (each probe runs once)',
    });
  const req = s.requiredOpsPerSec;
  if (req !== undefined && (req < s.startOpsPerSec || req > s.maxOpsPerSec))
    warnings.push(
      `workload.search.requiredOpsPerSec: ${fmt(req)} ops/s lies outside the searched range ` +
        `(${fmt(s.startOpsPerSec)}–${fmt(s.maxOpsPerSec)}): no probe can show a target meets it`,
    );
}
