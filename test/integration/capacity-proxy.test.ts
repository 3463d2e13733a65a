/**
 * The capacity emulator against a real DynamoDB Local: throttles answered as DynamoDB answers them
 * (HTTP 400, the SDK sees ProvisionedThroughputExceededException / ThrottlingException with
 * DynamoDB's message), admitted requests reach DynamoDB Local (ConsumedCapacity is its own), and an
 * item admits what the model says: 1,000 WCU × scale per second.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type DynamoDBServiceException,
} from '@aws-sdk/client-dynamodb';
import {
  DYNAMODB_LOCAL_CREDENTIALS,
  startDynamoDbLocal,
  type DynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { startCapacityProxy, type CapacityProxy } from '../../lib/local/capacity-proxy';
import { THROTTLE_MESSAGES, type TableModel } from '../../lib/core/dynamodb-model';

jest.setTimeout(5 * 60_000);

let ddb: DynamoDbLocal;
let proxy: CapacityProxy;
let client: DynamoDBClient;

const model = (billing: TableModel['billing']): TableModel => ({
  billing,
  recordCount: 100,
  itemBytes: 1084,
  storedItemBytes: 1184,
  capacityScale: 0.01,
});

beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  proxy = await startCapacityProxy({ upstream: ddb.endpoint });
  client = new DynamoDBClient({
    endpoint: proxy.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
    maxAttempts: 1, // no SDK retries: every throttle is seen
  });
  for (const [name, mode] of [
    ['prov', 'PROVISIONED'],
    ['ondemand', 'PAY_PER_REQUEST'],
  ] as const) {
    await client.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
        BillingMode: mode,
        ...(mode === 'PROVISIONED'
          ? { ProvisionedThroughput: { ReadCapacityUnits: 1000, WriteCapacityUnits: 1000 } }
          : {}),
      }),
    );
  }
  const item = { p: { S: 'user1' }, field0: { S: 'x'.repeat(1000) } };
  await client.send(new PutItemCommand({ TableName: 'prov', Item: item }));
  await client.send(new PutItemCommand({ TableName: 'ondemand', Item: item }));
  // provisioned 1,000 RCU / 1,000 WCU × 0.01: one item admits 10 WCU/s = 5 writes/s of a 2-WCU item
  proxy.setTable('prov', { model: model({ mode: 'provisioned', rcu: 1000, wcu: 1000 }), keyAttribute: 'p' });
  proxy.setTable('ondemand', { model: model({ mode: 'on-demand' }), keyAttribute: 'p' });
  proxy.arm();
});

afterAll(async () => {
  client?.destroy();
  await proxy?.stop();
  await ddb?.stop();
});

async function hammer(
  table: string,
  seconds: number,
): Promise<{ ok: number; errors: DynamoDBServiceException[] }> {
  const end = Date.now() + seconds * 1000;
  let ok = 0;
  const errors: DynamoDBServiceException[] = [];
  let i = 0;
  while (Date.now() < end) {
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { p: { S: 'user1' } },
          UpdateExpression: 'SET field1 = :v',
          ExpressionAttributeValues: { ':v': { S: String(i++) } },
        }),
      );
      ok++;
    } catch (e) {
      errors.push(e as DynamoDBServiceException);
    }
  }
  return { ok, errors };
}

describe('capacity proxy in front of DynamoDB Local', () => {
  it('provisioned: a hot item gets 10 WCU/s (5 two-unit writes/s); the rest is ProvisionedThroughputExceededException', async () => {
    const { ok, errors } = await hammer('prov', 4);
    expect(errors.length).toBeGreaterThan(ok);
    const e = errors[0]!;
    expect(e.name).toBe('ProvisionedThroughputExceededException');
    expect(e.$metadata.httpStatusCode).toBe(400);
    expect(e.message).toBe(THROTTLE_MESSAGES.ProvisionedThroughputExceededException);
    expect(errors.every((x) => x.name === 'ProvisionedThroughputExceededException')).toBe(true);
    // one second's tokens at the start + 5 writes per second (writes are charged after the fact)
    expect(ok).toBeGreaterThanOrEqual(4 * 5);
    expect(ok).toBeLessThanOrEqual(4 * 5 + 7);
    expect(proxy.counters('prov')!.throttled.item).toBe(errors.length);
  });

  it('on-demand: ThrottlingException with its message', async () => {
    const { errors } = await hammer('ondemand', 1.5);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.name).toBe('ThrottlingException');
    expect(errors[0]!.$metadata.httpStatusCode).toBe(400);
    expect(errors[0]!.message).toBe(THROTTLE_MESSAGES.ThrottlingException);
  });

  it('admitted requests reach DynamoDB Local, with its ConsumedCapacity when asked', async () => {
    await new Promise((r) => setTimeout(r, 1200)); // let the item's bucket refill
    const r = await client.send(
      new GetItemCommand({
        TableName: 'prov',
        Key: { p: { S: 'user1' } },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(r.Item?.field0?.S).toBe('x'.repeat(1000));
    expect(r.ConsumedCapacity?.TableName).toBe('prov');
    expect(r.ConsumedCapacity?.CapacityUnits).toBe(1);
  });
});
