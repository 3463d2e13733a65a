/**
 * The local implementation of every Task state: the pipeline's STEPS (what the Lambdas run) over
 * local ports, plus Plan without the AWS budget cap or run registry and Report without a region.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { STEPS, plan, report, type PlanInput, type StepName } from '../core/pipeline';
import type { Ports } from '../core/common/ports';

type Step = (event: never, p: Ports) => Promise<unknown>;

export const LOCAL_STEPS: Record<StepName, Step> = {
  ...STEPS,
  // a local run's binding jars are file:// URIs (lib/local/binding-artifacts.ts)
  plan: (e: PlanInput, p: Ports) =>
    plan(e, { store: p.store, clock: p.clock, ports: p, readJar: (uri) => readFile(fileURLToPath(uri)) }),
  report: (e: { run: unknown }, p: Ports) => report({ run: e.run, region: null }, p),
};
