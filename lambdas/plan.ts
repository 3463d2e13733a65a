import { estimateRunUsd, plan, type PlanInput } from '../lib/core/pipeline';
import { SfnRunRegistry, stateMachineArnOf } from '../lib/aws/sfn-runs';
import { stepHandler } from './shared/handler';

/** `executionArn` ($$.Execution.Id) gives the state machine to ask for overlapping scheduled runs. */
export const handler = stepHandler('Plan', (event: PlanInput & { executionArn?: string }, p) =>
  plan(event, {
    store: p.store,
    clock: p.clock,
    // the budget cap prices the run on AWS (the local mode costs nothing and passes no estimator)
    estimateRunUsd,
    ...(process.env.MAX_RUN_SECONDS ? { maxRunSeconds: Number(process.env.MAX_RUN_SECONDS) } : {}),
    ...(event.executionArn ? { runs: new SfnRunRegistry(stateMachineArnOf(event.executionArn)) } : {}),
  }),
);
