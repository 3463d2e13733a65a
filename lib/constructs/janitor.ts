import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { grant } from './grants';
import { TABLE_PREFIX, TAG_ROLE } from '../core/ports';
import { BenchmarkFunction } from './benchmark-function';

export interface JanitorProps {
  readonly topic: sns.ITopic;
  /** @default Duration.hours(1) */
  readonly every?: Duration;
}

/**
 * The scheduled janitor: terminates loaders and deletes fleetbench-* tables whose expires-at tag
 * has passed, whatever became of their run; an alarm when it fails (missing data counts as failing).
 */
export class Janitor extends Construct {
  readonly fn: BenchmarkFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: JanitorProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.fn = new BenchmarkFunction(this, 'JanitorFn', { entry: 'janitor.ts', timeout: Duration.minutes(5) });
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
