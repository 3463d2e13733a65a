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
    // the spec's region is checked against this function's (the stack's); quotas before provisioning
    ...(process.env.AWS_REGION ? { region: process.env.AWS_REGION } : {}),
    ...(p.quotas ? { quotas: p.quotas } : {}),
    ...(process.env.LOADER_AZ_COUNT ? { availabilityZones: Number(process.env.LOADER_AZ_COUNT) } : {}),
    ...(process.env.MAX_RUN_SECONDS ? { maxRunSeconds: Number(process.env.MAX_RUN_SECONDS) } : {}),
    ...(event.executionArn ? { runs: new SfnRunRegistry(stateMachineArnOf(event.executionArn)) } : {}),
  }),
);
