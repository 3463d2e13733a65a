/**
 * The local implementation of every Task state: the pipeline's STEPS (what the Lambdas run) over
 * local ports, plus Plan without the AWS budget cap or run registry and Report without a region.
 */
import { STEPS, plan, report, type PlanInput, type StepName } from '../core/pipeline';
import type { Ports } from '../core/ports';

type Step = (event: never, p: Ports) => Promise<unknown>;

export const LOCAL_STEPS: Record<StepName, Step> = {
  ...STEPS,
  plan: (e: PlanInput, p: Ports) => plan(e, { store: p.store, clock: p.clock }),
  report: (e: { run: unknown }, p: Ports) => report({ run: e.run, region: null }, p),
};
