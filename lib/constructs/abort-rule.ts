import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export interface AbortRuleProps {
  readonly stateMachine: sfn.IStateMachine;
  /** The teardown handler for status-change events (lambdas/on-abort.ts). */
  readonly handler: lambda.IFunction;
}

/**
 * Catch does not run when an execution is aborted or times out: this rule runs teardown for every
 * execution of the state machine that ends FAILED, TIMED_OUT or ABORTED (teardown is idempotent, so
 * a failure already handled by Catch is harmless).
 */
export class AbortRule extends Construct {
  readonly rule: events.Rule;
  constructor(scope: Construct, id: string, props: AbortRuleProps) {
    super(scope, id);
    this.rule = new events.Rule(this, 'Rule', {
      description: 'fleetbench: teardown when a run ends FAILED, TIMED_OUT or ABORTED',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
          stateMachineArn: [props.stateMachine.stateMachineArn],
        },
      },
      targets: [new targets.LambdaFunction(props.handler, { retryAttempts: 4 })],
    });
  }
}
