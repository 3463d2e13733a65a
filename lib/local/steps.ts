/**
 * The local implementation of every Task state: the same pipeline functions the Lambdas call
 * (lambdas/*.ts), over local ports. Only Plan differs: no AWS budget cap and no run registry.
 */
import {
  aggregateCellStep,
  checkPhase,
  configureCell,
  plan,
  provisionFleet,
  provisionTarget,
  report,
  startPhase,
  teardown,
  waitReady,
  type StepName,
} from '../core/pipeline';
import type { Ports } from '../core/ports';

/* eslint-disable @typescript-eslint/no-explicit-any -- events are the state machine's JSON */
export const LOCAL_STEPS: Record<StepName, (event: any, p: Ports) => Promise<unknown>> = {
  plan: (e, p) => plan(e, { store: p.store, clock: p.clock }),
  provisionTarget: (e, p) => provisionTarget(e.run, p),
  provisionFleet: (e, p) => provisionFleet(e.run, p),
  waitReady: (e, p) => waitReady(e, p),
  startLoad: (e, p) => startPhase('load', e, p),
  checkLoad: (e, p) => checkPhase(e.job, p),
  configureCell: (e, p) => configureCell(e, p),
  startCell: (e, p) => startPhase('run', e, p),
  checkCell: (e, p) => checkPhase(e.job, p),
  aggregateCell: (e, p) => aggregateCellStep(e, p),
  report: (e, p) => report({ run: e.run, region: null }, p),
  teardown: (e, p) => teardown(e, p),
};
/* eslint-enable @typescript-eslint/no-explicit-any */
