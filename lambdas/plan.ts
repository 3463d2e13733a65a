import { estimateRunUsd, plan, type PlanInput } from '../lib/core/pipeline';
import { SfnRunRegistry } from '../lib/aws/sfn-runs';
import { stepHandler } from './shared/handler';

/**
 * `stateMachineArn` ($$.StateMachine.Id, from the execution's context object: no environment
 * variable, which would make the function depend on the state machine that depends on it) is the
 * state machine asked for overlapping scheduled runs.
 */
const isNetwork = (v: string | undefined): v is 'public' | 'private' | 'existing' =>
  v === 'public' || v === 'private' || v === 'existing';

export const handler = stepHandler('Plan', (event: PlanInput & { stateMachineArn?: string }, p) =>
  plan(event, {
    store: p.store,
    clock: p.clock,
    // a resume checks what the failed execution's teardown may not have finished removing (DAX, the kinds' services)
    ports: p,
    // the budget cap prices the run on AWS (the local mode costs nothing and passes no estimator)
    estimateRunUsd,
    // the spec's region is checked against this function's (the stack's); quotas before provisioning
    ...(process.env.AWS_REGION ? { region: process.env.AWS_REGION } : {}),
    ...(p.quotas ? { quotas: p.quotas } : {}),
    ...(process.env.LOADER_AZ_COUNT ? { availabilityZones: Number(process.env.LOADER_AZ_COUNT) } : {}),
    ...(process.env.MAX_RUN_SECONDS ? { maxRunSeconds: Number(process.env.MAX_RUN_SECONDS) } : {}),
    ...(isNetwork(process.env.LOADER_NETWORK) ? { network: process.env.LOADER_NETWORK } : {}),
    ...(event.stateMachineArn ? { runs: new SfnRunRegistry(event.stateMachineArn) } : {}),
    // the stack's account, from the state machine's ARN (arn:aws:states:<region>:<account>:stateMachine:<name>)
    ...(event.stateMachineArn?.split(':')[4] ? { account: event.stateMachineArn.split(':')[4] } : {}),
  }),
);
