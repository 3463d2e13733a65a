/**
 * Plan's checks of what the loaders will be given, before anything is provisioned:
 *
 * the loader agent's own job check (parseJob, lib/core/contract/job.ts: what the agent runs on every job before
 *   YCSB) on the first loader's job of every cell and of every load, built as StartCell/StartLoad build them
 *   (buildJobs), so whatever the agent would refuse fails here and not at StartLoad after nodes and loaders were
 *   launched. Node targets' addresses are known only once their nodes run: stand-ins (TEST-NET-1, RFC 5737) here.
 */
import type { Issue } from '../common/errors';
import { clientPort, isDbNodeTarget } from '../targets/nodes/cluster';
import { parseJob } from '../contract/job';
import { runtimeEndpointProperties, type Plan } from '../plan';
import type { RunSpec } from '../spec';
import { jsonPath } from '../spec/errors';
import type { RunContext } from './context';
import { buildJobs } from './phase';
import { kindOf } from '../targets/registry';

/** Stand-in endpoint properties of every node target (the nodes' addresses are known once they run). */
function standInEndpoints(spec: RunSpec): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const t of spec.targets) {
    if (!isDbNodeTarget(t)) continue;
    const nodes = Array.from({ length: t.nodes }, (_, n) => ({
      host: `192.0.2.${(n % 254) + 1}`,
      port: clientPort(t),
    }));
    out[t.id] = runtimeEndpointProperties(t, nodes);
  }
  return out;
}

/** A job issue's path in the spec when it comes from one field of it (a property, a duration), else in the job. */
function specPath(spec: RunSpec, phase: 'load' | 'run', targetId: string, jobPath: string): string {
  // a load's deadline follows from its rate: slow loads run past the agent's 7-day limit on a job
  if (jobPath === 'job.durationSeconds')
    return phase === 'load' ? 'dataset.loadTargetOpsPerSec' : 'workload.durationSeconds';
  const m = /\.processes\[\d+\]\.(.+)$/.exec(jobPath);
  const name = m?.[1];
  if (name === undefined) return jobPath;
  if (spec.workload.extraProperties && Object.hasOwn(spec.workload.extraProperties, name))
    return jsonPath(['workload', 'extraProperties', name]);
  const i = spec.targets.findIndex((t) => t.id === targetId);
  const t = spec.targets[i];
  const own = t ? kindOf(t).userBinding?.(t) : undefined;
  if (own && Object.hasOwn(own.properties, name))
    return jsonPath(['targets', i, 'binding', 'properties', name]);
  return jobPath;
}

/** The agent's job check on one job per cell and per load target; every problem, with where it comes from. */
export function plannedJobIssues(run: RunContext, plan: Plan, spec: RunSpec): Issue[] {
  const endpoints = standInEndpoints(spec);
  const common = { run, plan, spec, storeUri: run.storeUri, endpoints };
  const phases: { phase: 'load' | 'run'; index: number; target: string }[] = [
    ...run.loadTargets.map((target, index) => ({ phase: 'load' as const, index, target })),
    ...plan.cells.map((c) => ({ phase: 'run' as const, index: c.index, target: c.target })),
  ];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  for (const p of phases) {
    const cell = p.phase === 'run' ? plan.cells[p.index] : undefined;
    const { name, jobs } = buildJobs({
      ...common,
      phase: p.phase,
      index: p.index,
      ...(cell ? { cell } : {}),
    });
    if (!jobs[0]) continue;
    for (const issue of parseJob(jobs[0], 'job').issues) {
      const path = specPath(spec, p.phase, p.target, issue.path);
      // one line per problem, not one per cell
      if (seen.has(`${path}\u0000${issue.message}`)) continue;
      seen.add(`${path}\u0000${issue.message}`);
      const of = p.phase === 'run' ? `cell "${name}"` : `"${name}"`;
      const hint =
        issue.path === 'job.durationSeconds' && p.phase === 'load'
          ? ' (the load deadline follows from recordCount and loadTargetOpsPerSec: raise the rate or load fewer records)'
          : '';
      issues.push({
        path,
        message: `the loader agent would refuse the job of ${of}: ${issue.path}: ${issue.message}${hint}`,
      });
    }
  }
  return issues;
}
