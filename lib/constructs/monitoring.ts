import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { TABLE_PREFIX } from '../core/ports';

/** The per-cell metrics (namespace Fleetbench, dimensions Target, Distribution, ReadRatio). */
export const CELL_METRICS = [
  'IntendedP50',
  'IntendedP99',
  'IntendedP999',
  'Throughput',
  'GoodThroughput',
  'Attainment',
  'Errors',
  'Throttles',
  'MonthlyCostProvisioned',
  'MonthlyCostOnDemand',
] as const;

/**
 * The SNS topic for run completion and failure (encrypted, TLS only) and the dashboard: every cell
 * metric, plus DynamoDB's own consumed capacity and throttles of the fleetbench-* tables.
 */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const stack = Stack.of(this);
    this.topic = new sns.Topic(this, 'RunEvents', {
      displayName: 'fleetbench runs',
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    const search = (expr: string, label: string, stat = 'Average') =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('${expr}', '${stat}', 300)`,
        label,
        period: Duration.minutes(5),
        usingMetrics: {},
      });
    const cell = (name: string, stat = 'Average') =>
      search(`{Fleetbench,Distribution,ReadRatio,Target} MetricName="${name}"`, name, stat);
    const ddb = (name: string, stat = 'Sum') =>
      search(`{AWS/DynamoDB,TableName} MetricName="${name}" TableName="${TABLE_PREFIX}"`, name, stat);
    const w = (title: string, metrics: cloudwatch.IMetric[]) =>
      new cloudwatch.GraphWidget({ title, left: metrics, width: 12, height: 6 });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${stack.stackName}-fleetbench`,
      defaultInterval: Duration.days(1),
    });
    this.dashboard.addWidgets(
      w('Intended P50 (µs)', [cell('IntendedP50')]),
      w('Intended P99 (µs)', [cell('IntendedP99')]),
    );
    this.dashboard.addWidgets(
      w('Intended P99.9 (µs)', [cell('IntendedP999')]),
      w('Throughput and good throughput (ops/s)', [cell('Throughput'), cell('GoodThroughput')]),
    );
    this.dashboard.addWidgets(
      w('Attainment (%)', [cell('Attainment')]),
      w('Errors and throttles', [cell('Errors', 'Sum'), cell('Throttles', 'Sum')]),
    );
    this.dashboard.addWidgets(
      w('Monthly cost (USD) by pricing model', [cell('MonthlyCostProvisioned'), cell('MonthlyCostOnDemand')]),
      w('DynamoDB consumed capacity (fleetbench-* tables)', [
        ddb('ConsumedReadCapacityUnits'),
        ddb('ConsumedWriteCapacityUnits'),
      ]),
    );
    this.dashboard.addWidgets(w('DynamoDB throttled requests', [ddb('ThrottledRequests')]));
  }
}
