/**
 * AggregateCell reads each DynamoDB cell's table metrics from CloudWatch (lib/aws/table-metrics.ts): GetMetricData
 * has no resource-level permissions ("*" only,
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html), so the statement
 * names the action alone. To be called by the state machine's grants for f.aggregateCell.
 */
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { grant } from './grants';

export function grantTableMetricsRead(fn: lambda.Function): void {
  grant(fn, 'ReadTableMetrics', ['cloudwatch:GetMetricData'], ['*']);
}
