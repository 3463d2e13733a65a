/**
 * The capacity emulator's Query accounting and composite keys against a real DynamoDB Local (issue #28): a Query
 * is charged for the total size of the items it returned, rounded up to 4 KB once, half when eventually
 * consistent, at least 0.5 / 1 unit (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html);
 * a composite-key table's one partition-key value sits on one partition, whose read limit (3,000 × capacityScale
 * units/s, bp-partition-key-design.html) holds its queries, the excess answered as DynamoDB throttles it.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import {
  DYNAMODB_LOCAL_CREDENTIALS,
  startDynamoDbLocal,
  type DynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { startCapacityProxy, type CapacityProxy } from '../../lib/local/capacity-proxy';
import type { TableModel } from '../../lib/core/dynamodb-model';

jest.setTimeout(5 * 60_000);

let ddb: DynamoDbLocal;
let proxy: CapacityProxy;
let client: DynamoDBClient;
const ITEM_BYTES = 1084;
const TIME_SCALE = 60;

const model: TableModel = {
  billing: { mode: 'provisioned', rcu: 100_000, wcu: 100_000 }, // the table far above one partition
  recordCount: 60,
  itemBytes: ITEM_BYTES,
  storedItemBytes: ITEM_BYTES + 100,
  capacityScale: 0.01,
};

beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  proxy = await startCapacityProxy({ upstream: ddb.endpoint, timeScale: TIME_SCALE });
  client = new DynamoDBClient({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
  for (const name of ['account', 'hot']) {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [
          { AttributeName: 'p', AttributeType: 'S' },
          { AttributeName: 's', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'p', KeyType: 'HASH' },
          { AttributeName: 's', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    for (let i = 10; i <= 60; i += 10)
      await client.send(
        new PutItemCommand({
          TableName: name,
          Item: { p: { S: 'pk0' }, s: { S: `user${i}` }, field0: { S: 'x'.repeat(1000) } },
        }),
      );
    proxy.setTable(name, {
      model,
      keyAttribute: 'p',
      compositeKey: { partitionKeyValues: 1, sortKeyAttribute: 's' },
    });
  }
  proxy.arm();
});

afterAll(async () => {
  client?.destroy();
  await proxy?.stop();
  await ddb?.stop();
});

const query = (table: string, upTo: string, limit: number, consistent: boolean) =>
  client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: '#k0 = :k0 AND #k1 <= :k1',
      ExpressionAttributeNames: { '#k0': 'p', '#k1': 's' },
      ExpressionAttributeValues: { ':k0': { S: 'pk0' }, ':k1': { S: upTo } },
      Limit: limit,
      ScanIndexForward: false,
      ConsistentRead: consistent,
    }),
  );

/** The table's read units charged by the next call (the proxy charges a Query when DynamoDB Local has answered). */
async function charged(f: () => Promise<unknown>): Promise<number> {
  const before = proxy.counters('account')!.consumedUnits.read;
  await f();
  await new Promise((r) => setTimeout(r, 50));
  return proxy.counters('account')!.consumedUnits.read - before;
}

describe('capacity proxy: Query', () => {
  it('is answered by DynamoDB Local through the proxy and charged by the total size returned', async () => {
    const r = await query('account', 'user35', 2, false);
    expect(r.Items?.map((i) => i.s?.S)).toEqual(['user30', 'user20']);
    // 3 items × 1,084 B = 3,252 B: one 4 KB block, eventually consistent 0.5 (per item it would be 1.5)
    expect(await charged(() => query('account', 'user60', 3, false))).toBe(0.5);
    // 5 × 1,084 = 5,420 B: two blocks, strongly consistent 2 units
    expect(await charged(() => query('account', 'user60', 5, true))).toBe(2);
    // nothing at or below: still the minimum, 0.5 eventually consistent, 1 strongly consistent
    expect(await charged(() => query('account', 'user00', 1, false))).toBe(0.5);
    expect(await charged(() => query('account', 'user00', 1, true))).toBe(1);
  });

  it("one partition-key value: its partition's 30 units/s (+ 300 s ÷ 60 of burst) hold the queries", async () => {
    // queried until throttled a few times (at least 3 s; a busy machine may need longer to ask for more than
    // the partition's burst and rate), then the admitted count is held against the time it took
    const start = Date.now();
    let ok = 0;
    const errors: DynamoDBServiceException[] = [];
    const more = () => Date.now() - start < 3000 || (errors.length < 5 && Date.now() - start < 30_000);
    const worker = async (w: number) => {
      for (let i = w; more(); i += 4) {
        try {
          await query('hot', `user${10 + (i % 6) * 10}`, 1, true); // 1 unit each
          ok++;
        } catch (e) {
          errors.push(e as DynamoDBServiceException);
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    const seconds = (Date.now() - start) / 1000;
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.name).toBe('ProvisionedThroughputExceededException');
    const partition = 3000 * 0.01;
    const burst = (partition * 300) / TIME_SCALE;
    // charged after the fact: at most one more unit per in-flight query than the buckets held; throttled only
    // once the burst is spent
    expect(ok).toBeLessThanOrEqual(burst + partition * (seconds + 0.5) + 4);
    expect(ok).toBeGreaterThanOrEqual(burst);
    const c = proxy.counters('hot')!;
    expect(c.throttled.partition).toBe(errors.length);
    expect(c.consumedUnits.read).toBe(ok);
  });
});
