/**
 * The local mode's tables (lib/local/local-tables.ts) on DynamoDB Local, which has no tagging: Teardown's
 * ownership check still works there (it deletes the run's table), and a table the run did not create is kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { plan, provisionTarget, teardown, type RunContext } from '../../lib/core/pipeline';
import type { FleetAdmin } from '../../lib/core/common/ports';
import {
  DYNAMODB_LOCAL_CREDENTIALS,
  startDynamoDbLocal,
  type DynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { FsStore } from '../../lib/local/fs-store';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { LocalTableAdmin } from '../../lib/local/local-tables';

jest.setTimeout(5 * 60_000);

let ddb: DynamoDbLocal;
let dir: string;
beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  dir = mkdtempSync(path.join(tmpdir(), 'local-tables-'));
});
afterAll(async () => {
  await ddb?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("Plan, ProvisionTarget and Teardown on DynamoDB Local: the run's table goes, a table it did not create stays", async () => {
  const tables = new LocalTableAdmin({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  });
  const store = new FsStore(dir);
  const clock = { nowMs: () => Date.UTC(2026, 10, 26) };
  const fleet = { list: async () => [], terminate: async () => undefined } as unknown as FleetAdmin;
  const spec = {
    name: 'local',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
    dataset: { recordCount: 100, fieldCount: 2 },
    workload: { targetOpsPerSec: [10], durationSeconds: 10 },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 1 },
  };
  const run = await plan({ spec, executionName: 'local-1' }, { store, clock });
  await provisionTarget(run, { store, tables });
  // a second process (another run, a preload) made this one: no tags known here
  await new LocalTableAdmin({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  }).createTable({
    name: 'fleetbench-preloaded',
    keyAttribute: 'p',
    billing: { mode: 'on-demand' },
    tableClass: 'STANDARD',
    tags: {},
  });
  const table = run.resources.find((r) => r.type === 'dynamodb-table')!;
  const forced: RunContext = {
    ...run,
    resources: [...run.resources, { ...table, name: 'fleetbench-preloaded' }],
  };
  const r = await teardown({ run: forced }, { store, tables, fleet, clock });
  expect(r).toMatchObject({ deletedTables: [table.name], keptTables: ['fleetbench-preloaded'] });
  expect((await tables.describeTable('fleetbench-preloaded')).status).toBe('ACTIVE');
});

it('a composite-key table (keyDesign with N partition-key values) is created HASH + RANGE, both S', async () => {
  const tables = new LocalTableAdmin({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  });
  await tables.createTable({
    name: 'fleetbench-composite',
    keyAttribute: 'p',
    sortKeyAttribute: 's',
    billing: { mode: 'on-demand' },
    tableClass: 'STANDARD',
    tags: {},
  });
  const d = await tables.client.send(new DescribeTableCommand({ TableName: 'fleetbench-composite' }));
  expect(d.Table?.KeySchema).toEqual([
    { AttributeName: 'p', KeyType: 'HASH' },
    { AttributeName: 's', KeyType: 'RANGE' },
  ]);
  expect(d.Table?.AttributeDefinitions).toEqual(
    expect.arrayContaining([
      { AttributeName: 'p', AttributeType: 'S' },
      { AttributeName: 's', AttributeType: 'S' },
    ]),
  );
});
