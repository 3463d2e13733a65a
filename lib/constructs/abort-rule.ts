import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

export interface AbortRuleProps {
  readonly stateMachine: sfn.IStateMachine;
  /** The teardown handler for status-change events (lambdas/on-abort.ts). */
  readonly handler: lambda.IFunction;
  /** Where the alarms go (the run-events topic). */
  readonly topic: sns.ITopic;
}

/**
 * Catch does not run when an execution is aborted or times out: this rule runs teardown for every
 * execution of the state machine that ends FAILED, TIMED_OUT or ABORTED (teardown is idempotent, so
 * a failure already handled by Catch is harmless).
 *
 * The handler is invoked asynchronously: an event it still fails on after Lambda's retries, and one
 * EventBridge could not deliver, lands in the failed-teardowns queue (Lambda's on-failure destination,
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html, and the target's
 * dead-letter queue, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html), kept 14
 * days, with the execution named; an alarm fires on any message there and on any error of the handler.
 * The janitor's second pass tears such a run down again 15 minutes on (lib/core/pipeline/late-arrivals.ts).
 */
export class AbortRule extends Construct {
  readonly rule: events.Rule;
  readonly failedTeardowns: sqs.Queue;
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: AbortRuleProps) {
    super(scope, id);
    this.failedTeardowns = new sqs.Queue(this, 'FailedTeardowns', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    props.handler.configureAsyncInvoke({
      onFailure: new destinations.SqsDestination(this.failedTeardowns),
      retryAttempts: 2,
    });
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
      targets: [
        new targets.LambdaFunction(props.handler, {
          retryAttempts: 4,
          deadLetterQueue: this.failedTeardowns,
        }),
      ],
    });
    const queued = new cloudwatch.Alarm(this, 'FailedTeardownQueued', {
      metric: this.failedTeardowns.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'A fleetbench abort teardown failed for good (its event is in the failed-teardowns queue): the run may have left loaders, nodes, tables or DAX clusters',
    });
    const failing = new cloudwatch.Alarm(this, 'OnAbortFailing', {
      metric: props.handler.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'The fleetbench abort teardown (OnAbort) failed; Lambda retries it, then queues the event',
    });
    this.alarms = [queued, failing];
    for (const a of this.alarms) a.addAlarmAction(new cwActions.SnsAction(props.topic));
  }
}
