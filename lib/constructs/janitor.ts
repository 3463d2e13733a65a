import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { grant } from './grants';
import { TABLE_PREFIX, TAG_ROLE } from '../core/common/ports';
import { BenchmarkFunction } from './benchmark-function';

export interface JanitorProps {
  readonly topic: sns.ITopic;
  /** The results bucket: the second pass reads runs' teardown/failure records and re-runs their teardown. */
  readonly resultsBucket: s3.IBucket;
  /** @default Duration.hours(1) */
  readonly every?: Duration;
}

/**
 * The scheduled janitor: terminates loaders and deletes fleetbench-* tables whose expires-at tag
 * has passed, whatever became of their run; then its second pass tears down again every run that still
 * owns resources 15 minutes after its teardown or failure record (lib/core/pipeline/late-arrivals.ts: it
 * reads and writes the run's records under runs/); an alarm when it fails.
 */
export class Janitor extends Construct {
  readonly fn: BenchmarkFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: JanitorProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.fn = new BenchmarkFunction(this, 'JanitorFn', {
      entry: 'janitor.ts',
      timeout: Duration.minutes(5),
      environment: { RESULTS_BUCKET: props.resultsBucket.bucketName },
    });
    // the second pass: the runs' teardown/failure records and contexts, and teardown's own record
    props.resultsBucket.grantRead(this.fn, 'runs/*');
    props.resultsBucket.grantPut(this.fn, 'runs/*');
    const tableArn = stack.formatArn({
      service: 'dynamodb',
      resource: 'table',
      resourceName: `${TABLE_PREFIX}*`,
    });
    const add = (sid: string, actions: string[], resources: string[], conditions?: Record<string, unknown>) =>
      grant(this.fn, sid, actions, resources, conditions);
    add('DescribeLoaders', ['ec2:DescribeInstances'], ['*']);
    add(
      'TerminateExpired',
      ['ec2:TerminateInstances'],
      [stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
      {
        StringEquals: { [`aws:ResourceTag/${TAG_ROLE}`]: 'loader' },
      },
    );
    add('ListTables', ['dynamodb:ListTables'], ['*']);
    add(
      'DeleteExpired',
      ['dynamodb:DescribeTable', 'dynamodb:ListTagsOfResource', 'dynamodb:DeleteTable'],
      [tableArn],
    );
    this.rule = new events.Rule(this, 'Schedule', {
      schedule: events.Schedule.rate(props.every ?? Duration.hours(1)),
      targets: [new targets.LambdaFunction(this.fn, { retryAttempts: 2 })],
    });
    const alarm = new cloudwatch.Alarm(this, 'JanitorFailing', {
      metric: this.fn.metricErrors({ period: Duration.hours(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'The fleetbench janitor failed: loaders or tables of expired runs may be left running',
    });
    alarm.addAlarmAction(new cwActions.SnsAction(props.topic));
  }
}
