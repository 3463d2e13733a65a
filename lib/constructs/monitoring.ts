import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TABLE_PREFIX } from '../core/common/ports';
import { CELL_METRIC_DIMENSIONS, type CellMetricName } from '../core/contract/cell-metrics';

/** Published by DetectRegressions: 1 when a detection found a new confirmed regression, else 0. */
export const REGRESSION_METRIC = 'Regression';

/**
 * The SNS topic for run completion and failure (encrypted, TLS only), the dashboard (every cell metric,
 * plus DynamoDB's own consumed capacity and throttles of the fleetbench-* tables), and the alarm on the
 * Regression metric, whose action publishes to the topic.
 *
 * The topic's key is a customer managed key: CloudWatch alarms cannot publish to a topic encrypted with
 * the AWS managed key alias/aws/sns (its key policy cannot grant cloudwatch.amazonaws.com kms:Decrypt /
 * GenerateDataKey, and the alarm action then fails with "CloudWatch Alarms does not have authorization to
 * access the SNS topic encryption key").
 */
export interface MonitoringProps {
  /** The results bucket: the dashboard links to where the runs' HTML reports are (runs/<runId>/report.html). */
  resultsBucketName?: string;
}

export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly topicKey: kms.Key;
  readonly regressionAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: MonitoringProps = {}) {
    super(scope, id);
    this.topicKey = new kms.Key(this, 'TopicKey', {
      description: 'fleetbench run events topic (SNS) encryption',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.topic = new sns.Topic(this, 'RunEvents', {
      displayName: 'fleetbench runs',
      enforceSSL: true,
      masterKey: this.topicKey,
    });
    this.regressionAlarm = regressionAlarm(this, this.topic);
    allowAlarmsToPublish(this.topic, this.topicKey);
    this.dashboard = runDashboard(this, props.resultsBucketName);
  }
}

/** The alarm on the Regression metric, whose action publishes to the topic. */
function regressionAlarm(scope: Construct, topic: sns.ITopic): cloudwatch.Alarm {
  const stack = Stack.of(scope);
  // Regression alarm: any detection that found a new confirmed regression (Maximum ≥ 1 in 5 minutes);
  // no data (no run ended) is not breaching, so the alarm returns to OK and fires again on the next one.
  const alarmName = `${stack.stackName}-fleetbench-regression`;
  const alarm = new cloudwatch.Alarm(scope, 'RegressionAlarm', {
    alarmName,
    alarmDescription:
      'A scheduled spec regressed: a confirmed change point for the worse in a metric of its history ' +
      '(the SNS message from DetectRegressions names the metric, the cell, the first run and the magnitude; ' +
      '`fleetbench regressions --spec <name>` lists them).',
    metric: new cloudwatch.Metric({
      namespace: 'Fleetbench',
      metricName: REGRESSION_METRIC,
      statistic: 'Maximum',
      period: Duration.minutes(5),
    }),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new cwActions.SnsAction(topic));
  return alarm;
}

/** The topic and key policies that let this account's CloudWatch alarms publish to the encrypted topic. */
function allowAlarmsToPublish(topic: sns.Topic, key: kms.Key): void {
  const stack = Stack.of(topic);
  // CloudWatch alarms of this account and region (this one and the janitor's) may publish to the topic
  // and use its key; aws:SourceArn / aws:SourceAccount guard against the confused deputy
  const alarmArns = stack.formatArn({
    service: 'cloudwatch',
    resource: 'alarm',
    resourceName: '*',
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  const fromAlarms = {
    StringEquals: { 'aws:SourceAccount': stack.account },
    ArnLike: { 'aws:SourceArn': alarmArns },
  };
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AlarmsPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: fromAlarms,
    }),
  );
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      // AWS's documented statement for alarms on an encrypted topic, without conditions: whether
      // aws:SourceArn / aws:SourceAccount reach KMS on the alarm → SNS path is not documented, and a
      // condition that is absent would make every alarm action fail. The topic policy keeps them.
      sid: 'AlarmsEncrypt',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
    }),
  );
}

/** The dashboard: a link to the run reports, every cell metric, DynamoDB's consumed capacity and throttles, regressions. */
function runDashboard(scope: Construct, resultsBucketName: string | undefined): cloudwatch.Dashboard {
  const stack = Stack.of(scope);
  const search = (expr: string, label: string, stat = 'Average') =>
    new cloudwatch.MathExpression({
      expression: `SEARCH('${expr}', '${stat}', 300)`,
      label,
      period: Duration.minutes(5),
      usingMetrics: {},
    });
  // the cell metrics' one dimension set (lib/core/contract/cell-metrics.ts): each series is one cell of one spec, so a
  // 5-minute statistic never mixes two cells (a sweep's steps, two specs' targets) that ended in the same period
  const cellSchema = ['Fleetbench', ...CELL_METRIC_DIMENSIONS].join(',');
  const cell = (name: CellMetricName, stat = 'Average') =>
    search(`{${cellSchema}} MetricName="${name}"`, name, stat);
  const ddb = (name: string, stat = 'Sum') =>
    // unquoted: a partial match on the name's tokens (a quoted value matches the whole name only)
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-examples.html
    search(
      `{AWS/DynamoDB,TableName} MetricName="${name}" TableName=${TABLE_PREFIX.replace(/-$/, '')}`,
      name,
      stat,
    );
  const w = (title: string, metrics: cloudwatch.IMetric[]) =>
    new cloudwatch.GraphWidget({ title, left: metrics, width: 12, height: 6 });
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    dashboardName: `${stack.stackName}-fleetbench`,
    defaultInterval: Duration.days(1),
  });
  if (resultsBucketName) {
    const bucket = resultsBucketName;
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        width: 24,
        height: 2,
        markdown:
          `**Run reports** (HTML, the seeds' charts): \`s3://${bucket}/runs/<runId>/report.html\`, ` +
          `[browse runs/ in the S3 console](https://console.aws.amazon.com/s3/buckets/${bucket}?region=${stack.region}&prefix=runs/). ` +
          "Each run's SNS message and `fleetbench status <runId>` give a presigned link.",
      }),
    );
  }
  dashboard.addWidgets(
    w('Intended P50 (µs)', [cell('IntendedP50')]),
    w('Intended P99 (µs)', [cell('IntendedP99')]),
  );
  dashboard.addWidgets(
    w('Intended P99.9 (µs)', [cell('IntendedP999')]),
    w('Throughput and good throughput (ops/s)', [cell('Throughput'), cell('GoodThroughput')]),
  );
  dashboard.addWidgets(
    w('Attainment (%)', [cell('Attainment')]),
    w('Errors and throttles', [cell('Errors', 'Sum'), cell('Throttles', 'Sum')]),
  );
  dashboard.addWidgets(
    w('Monthly cost (USD) by pricing model', [cell('MonthlyCostProvisioned'), cell('MonthlyCostOnDemand')]),
    w('DynamoDB consumed capacity (fleetbench-* tables)', [
      ddb('ConsumedReadCapacityUnits'),
      ddb('ConsumedWriteCapacityUnits'),
    ]),
  );
  dashboard.addWidgets(
    w('DynamoDB throttled requests', [ddb('ThrottledRequests')]),
    w('Regressions detected (per spec)', [
      search(`{Fleetbench,Spec} MetricName="${REGRESSION_METRIC}"`, REGRESSION_METRIC, 'Maximum'),
    ]),
  );
  return dashboard;
}
