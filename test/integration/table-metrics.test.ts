/**
 * CloudWatchTableMetrics (lib/aws/table-metrics.ts) against moto server: a table's AWS/DynamoDB metrics put for
 * two minutes (and another table's, which must not mix in) read back per minute with GetMetricData, Sum at 60 s,
 * a minute without datapoints as 0; then as `capacity` rows (source cloudwatch, units per second = Sum ÷ 60).
 */
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CloudWatchTableMetrics, DYNAMODB_NAMESPACE } from '../../lib/aws/table-metrics';
import { cloudWatchCapacityRows } from '../../lib/core/results/capacity';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(60_000);

let moto: MotoServer;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});

describe('CloudWatchTableMetrics', () => {
  it("reads a table's consumed units, throttle events and throttled requests per operation, one row a minute", async () => {
    const cw = new CloudWatchClient(moto.clientConfig);
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000;
    const put = (table: string, name: string, value: number, at: number, op?: string) =>
      cw.send(
        new PutMetricDataCommand({
          Namespace: DYNAMODB_NAMESPACE,
          MetricData: [
            {
              MetricName: name,
              Value: value,
              Timestamp: new Date(at),
              Unit: 'Count',
              Dimensions: [
                { Name: 'TableName', Value: table },
                ...(op ? [{ Name: 'Operation', Value: op }] : []),
              ],
            },
          ],
        }),
      );
    // minute 0: 270,000 read units in two datapoints (DynamoDB sends several per minute), 12 read throttle events,
    // 12 throttled Query requests; minute 2: 6,000 write units, 3 throttled PutItem; minute 1: nothing
    await put('t1', 'ConsumedReadCapacityUnits', 200_000, minute + 5_000);
    await put('t1', 'ConsumedReadCapacityUnits', 70_000, minute + 35_000);
    await put('t1', 'ReadThrottleEvents', 12, minute + 10_000);
    await put('t1', 'ThrottledRequests', 12, minute + 10_000, 'Query');
    await put('t1', 'ConsumedWriteCapacityUnits', 6_000, minute + 130_000);
    await put('t1', 'WriteThrottleEvents', 3, minute + 130_000);
    await put('t1', 'ThrottledRequests', 3, minute + 130_000, 'PutItem');
    await put('other', 'ConsumedReadCapacityUnits', 999, minute + 5_000);

    const reader = new CloudWatchTableMetrics(moto.clientConfig);
    const minutes = await reader.tableMinutes('t1', { startMs: minute + 1_000, endMs: minute + 150_000 });
    expect(minutes).toEqual([
      {
        startMs: minute,
        consumedReadUnits: 270_000,
        consumedWriteUnits: 0,
        readThrottleEvents: 12,
        writeThrottleEvents: 0,
        throttledRequests: { Query: 12 },
      },
      {
        startMs: minute + 60_000,
        consumedReadUnits: 0,
        consumedWriteUnits: 0,
        readThrottleEvents: 0,
        writeThrottleEvents: 0,
        throttledRequests: {},
      },
      {
        startMs: minute + 120_000,
        consumedReadUnits: 0,
        consumedWriteUnits: 6_000,
        readThrottleEvents: 0,
        writeThrottleEvents: 3,
        throttledRequests: { PutItem: 3 },
      },
    ]);

    const rows = cloudWatchCapacityRows(
      { runId: 'r', specName: 's', startedAtMs: minute, cellId: 'c' },
      { name: 't1', minutes },
    );
    expect(rows[0]).toMatchObject({
      source: 'cloudwatch',
      bucket_seconds: 60,
      consumed_read_units: 4_500, // 270,000 units in a minute: 4,500 per second
      throttled_requests: 12,
      read_throttle_events: 12,
      throttled_requests_json: '{"Query":12}',
      partitions: null,
    });
    expect(rows[2]).toMatchObject({ consumed_write_units: 100, throttled_requests: 3 });
  });
});
