/**
 * A DynamoDB table's CloudWatch metrics over a cell (issue #28: time in the results on AWS): GetMetricData in
 * namespace AWS/DynamoDB, period 60 s, statistic Sum, for ConsumedReadCapacityUnits, ConsumedWriteCapacityUnits,
 * ReadThrottleEvents, WriteThrottleEvents (dimension TableName) and ThrottledRequests per operation (dimensions
 * TableName and Operation), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html.
 * DynamoDB publishes a metric only for minutes it is non-zero: a missing datapoint is 0.
 * Needs cloudwatch:GetMetricData (granted to AggregateCell in lib/constructs/benchmark-state-machine.ts).
 */
import {
  CloudWatchClient,
  GetMetricDataCommand,
  type CloudWatchClientConfig,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import type { TableMetricsReader, TableMinute } from '../core/common/ports';
import { translate } from './errors';

export const DYNAMODB_NAMESPACE = 'AWS/DynamoDB';

/** The operations whose ThrottledRequests are read (those the YCSB binding and the load send). */
export const THROTTLED_OPERATIONS = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchWriteItem',
  'BatchGetItem',
] as const;

const TABLE_METRICS = {
  consumedReadUnits: 'ConsumedReadCapacityUnits',
  consumedWriteUnits: 'ConsumedWriteCapacityUnits',
  readThrottleEvents: 'ReadThrottleEvents',
  writeThrottleEvents: 'WriteThrottleEvents',
} as const;

const MINUTE_MS = 60_000;

function queries(table: string): MetricDataQuery[] {
  const q = (id: string, name: string, extra: { Name: string; Value: string }[] = []): MetricDataQuery => ({
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: DYNAMODB_NAMESPACE,
        MetricName: name,
        Dimensions: [{ Name: 'TableName', Value: table }, ...extra],
      },
      Period: 60,
      Stat: 'Sum',
    },
    ReturnData: true,
  });
  return [
    ...Object.entries(TABLE_METRICS).map(([key, name]) => q(key, name)),
    ...THROTTLED_OPERATIONS.map((op) =>
      q(`throttled${op}`, 'ThrottledRequests', [{ Name: 'Operation', Value: op }]),
    ),
  ];
}

export class CloudWatchTableMetrics implements TableMetricsReader {
  readonly client: CloudWatchClient;
  constructor(clientOrConfig: CloudWatchClient | CloudWatchClientConfig = {}) {
    this.client =
      clientOrConfig instanceof CloudWatchClient ? clientOrConfig : new CloudWatchClient(clientOrConfig);
  }

  async tableMinutes(table: string, range: { startMs: number; endMs: number }): Promise<TableMinute[]> {
    const start = Math.floor(range.startMs / MINUTE_MS) * MINUTE_MS;
    const end = Math.max(start + MINUTE_MS, Math.ceil(range.endMs / MINUTE_MS) * MINUTE_MS);
    const values = new Map<string, Map<number, number>>();
    let token: string | undefined;
    try {
      do {
        const out = await this.client.send(
          new GetMetricDataCommand({
            StartTime: new Date(start),
            EndTime: new Date(end),
            MetricDataQueries: queries(table),
            ScanBy: 'TimestampAscending',
            ...(token ? { NextToken: token } : {}),
          }),
        );
        for (const r of out.MetricDataResults ?? []) {
          const m = values.get(r.Id!) ?? new Map<number, number>();
          (r.Timestamps ?? []).forEach((ts, i) =>
            m.set(ts.getTime(), (m.get(ts.getTime()) ?? 0) + (r.Values?.[i] ?? 0)),
          );
          values.set(r.Id!, m);
        }
        token = out.NextToken;
      } while (token);
    } catch (err) {
      throw translate('CloudWatch', 'GetMetricData', err);
    }
    const at = (id: string, t: number) => values.get(id)?.get(t) ?? 0;
    const out: TableMinute[] = [];
    for (let t = start; t < end; t += MINUTE_MS) {
      out.push({
        startMs: t,
        consumedReadUnits: at('consumedReadUnits', t),
        consumedWriteUnits: at('consumedWriteUnits', t),
        readThrottleEvents: at('readThrottleEvents', t),
        writeThrottleEvents: at('writeThrottleEvents', t),
        throttledRequests: Object.fromEntries(
          THROTTLED_OPERATIONS.map((op) => [op, at(`throttled${op}`, t)] as const).filter(([, v]) => v > 0),
        ),
      });
    }
    return out;
  }
}
