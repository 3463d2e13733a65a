/**
 * The step behind each Task state, as `(event, ports) => result`: the Lambdas (lambdas/*.ts) and the
 * local mode (lib/local/steps.ts) both call these, so a Task does the same thing in both places.
 * Plan and Report take deployment-specific options and are wired where they run.
 */
import type { Ports } from '../common/ports';
import { aggregateCellStep } from './aggregate';
import type { PhaseJob } from './context';
import { checkPhase, configureCell, startPhase, type StartInput } from './phase';
import { detectRegressions } from './regressions';
import { provisionFleet, provisionTarget, waitReady, type ReadyState } from './provision';
import { teardown, teardownTarget, type TeardownInput } from './teardown';
import { cellFailed, waitLoaders, type CellFailedInput } from './cell-failure';

export const STEPS = {
  provisionTarget: (e: { run: unknown; target?: number }, p: Ports) => provisionTarget(e.run, p, e.target),
  provisionFleet: (e: { run: unknown }, p: Ports) => provisionFleet(e.run, p),
  waitReady: (e: { run: unknown; ready?: Partial<ReadyState> | null; target?: number }, p: Ports) =>
    waitReady(e, p),
  startLoad: (e: StartInput, p: Ports) => startPhase('load', e, p),
  checkLoad: (e: { job: PhaseJob }, p: Ports) => checkPhase(e.job, p),
  configureCell: (e: { run: unknown; index: number; attempt?: number }, p: Ports) => configureCell(e, p),
  startCell: (e: StartInput, p: Ports) => startPhase('run', e, p),
  checkCell: (e: { job: PhaseJob }, p: Ports) => checkPhase(e.job, p),
  aggregateCell: (e: { run: unknown; index: number; attempt?: number }, p: Ports) => aggregateCellStep(e, p),
  cellFailed: (e: CellFailedInput, p: Ports) => cellFailed(e, p),
  waitLoaders: (e: Parameters<typeof waitLoaders>[0], p: Ports) => waitLoaders(e, p),
  teardown: (e: TeardownInput, p: Ports) => teardown(e, p),
  teardownTarget: (e: { run: unknown; target: number }, p: Ports) => teardownTarget(e, p),
  detectRegressions: (e: { run: unknown }, p: Ports) => detectRegressions(e, p),
};
