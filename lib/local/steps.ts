/**
 * The local implementation of every Task state: the pipeline's STEPS (what the Lambdas run) over
 * local ports, plus Plan without the AWS budget cap or run registry and Report without a region.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { STEPS, plan, report, type PlanDeps, type PlanInput, type StepName } from '../core/pipeline';
import type { Ports } from '../core/common/ports';

/**
 * What the local Plan step is given: no budget cap, run registry or stack region; a local run's binding jars are
 * file:// URIs (lib/local/binding-artifacts.ts). The check before a local run starts plans with the same.
 */
export function localPlanDeps(p: Pick<Ports, 'store' | 'clock'>): PlanDeps {
  return { store: p.store, clock: p.clock, readJar: (uri) => readFile(fileURLToPath(uri)) };
}

type Step = (event: never, p: Ports) => Promise<unknown>;

export const LOCAL_STEPS: Record<StepName, Step> = {
  ...STEPS,
  // Plan's ports: a resume's checks look at the failed execution's resources (lib/core/pipeline/resume.ts)
  plan: (e: PlanInput, p: Ports) => plan(e, { ...localPlanDeps(p), ports: p }),
  report: (e: { run: unknown; targetTeardowns?: unknown }, p: Ports) =>
    report({ run: e.run, targetTeardowns: e.targetTeardowns, region: null }, p),
};
