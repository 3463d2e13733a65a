/**
 * What is checked before a local run starts (`fleetbench run --local`, `demo`; `validate --local` and `plan --local`
 * check the same): nothing here starts a process or writes a file, and nothing here loads the AWS SDK.
 */
import * as path from 'node:path';
import { InputError } from '../core/common/errors';
import { systemClock } from '../core/common/ports';
import { plan } from '../core/pipeline';
import type { JarReader } from '../core/pipeline/binding-digests';
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
  const deps = localPlanDeps({ store, clock: systemClock });
  await plan(
    { executionName: a.executionName, spec: withMavenStandIns(a.spec) },
    { ...deps, readJar: standInReader(deps.readJar!) },
  );
}

/** Where the stand-ins of resolved Maven coordinates point (read as empty jars by standInReader). */
const MAVEN_STAND_IN = 'file:///fleetbench-check/maven/';

/**
 * The spec as the CLI hands it to Plan once a user's binding's Maven coordinates are resolved into jars (`start` and
 * `run --local` resolve them first, ./binding-artifacts.ts, which runs Maven): one stand-in jar per coordinate, so a
 * check that starts nothing sees what Plan will see rather than a binding without jars, which Plan refuses.
 */
export function withMavenStandIns<T>(spec: T): T {
  const targets = (spec as { targets?: unknown }).targets;
  if (!Array.isArray(targets)) return spec;
  return {
    ...spec,
    targets: targets.map((t: unknown) => {
      const b = (t as { binding?: { jars?: unknown; maven?: unknown } } | null)?.binding;
      if (!b || !Array.isArray(b.maven) || !b.maven.length) return t;
      const jars = Array.isArray(b.jars) ? (b.jars as unknown[]) : [];
      const standIns = b.maven.map((c: unknown) => `${MAVEN_STAND_IN}${encodeURIComponent(String(c))}.jar`);
      return { ...(t as object), binding: { ...b, jars: [...jars, ...standIns] } };
    }),
  };
}

/** Reads jars as `read` does, the stand-ins of Maven coordinates as empty. */
export function standInReader(read: JarReader): JarReader {
  return async (uri) => (uri.startsWith(MAVEN_STAND_IN) ? Buffer.alloc(0) : read(uri));
}
