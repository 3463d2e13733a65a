/**
 * What is checked before a local run starts (`fleetbench run --local`, `demo`; `validate --local` and `plan --local`
 * check the same): nothing here starts a process or writes a file, and nothing here loads the AWS SDK.
 */
import * as path from 'node:path';
import { InputError } from '../core/common/errors';
import { systemClock } from '../core/common/ports';
import { plan } from '../core/pipeline';
import { launchedLoaders, planRun } from '../core/plan';
import type { RunSpec } from '../core/spec';
import { localIssues } from '../core/targets/registry';
import { DryStore } from './dry-store';
import { LOCAL_MAX_LOADERS } from './fleet';
import { FsStore } from './fs-store';
import { localPlanDeps } from './steps';

/**
 * Refuses, before anything starts, a spec the local mode cannot run: a target of a kind it cannot serve (each kind
 * says why), or more loaders at once than this machine runs (LOCAL_MAX_LOADERS: a parallel run's groups together).
 */
export function assertRunnable(spec: RunSpec): void {
  const issues = localIssues(spec.targets);
  const loaders = launchedLoaders(planRun(spec));
  if (loaders > LOCAL_MAX_LOADERS)
    issues.push({
      path: 'loaders.count',
      message:
        `expected at most ${LOCAL_MAX_LOADERS} loaders at once in local mode (each runs its YCSB processes on this ` +
        `machine), found ${loaders}${spec.execution === 'parallel' ? ` (one group per target, side by side: "execution": "parallel")` : ''}`,
    });
  if (issues.length) throw new InputError(issues);
}

/**
 * The checks before a local run starts, in its mode: what the local mode cannot run (assertRunnable), then the Plan
 * step itself, with the local Plan's deps (./steps.ts), over the results directory as the run will see it, its
 * writes kept in memory (./dry-store.ts): whatever Plan would refuse is refused with nothing started or written.
 */
export async function checkLocalRun(a: {
  spec: RunSpec;
  executionName: string;
  resultsDir: string;
}): Promise<void> {
  assertRunnable(a.spec);
  const store = new DryStore(new FsStore(path.resolve(a.resultsDir)));
  await plan({ executionName: a.executionName, spec: a.spec }, localPlanDeps({ store, clock: systemClock }));
}
