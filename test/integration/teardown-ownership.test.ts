/**
 * Issue #26 (1): a run deletes only what it owns. The collisions the review reproduced, each through Plan,
 * ProvisionTarget and Teardown with the real adapters (DynamoDB on moto server, Keyspaces on
 * test/support/keyspaces-twin.ts): the names differ now, and a context forced onto another run's name (or a
 * preloaded table) still deletes nothing that does not carry the run's tag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import { plan, provisionTarget, teardown, type RunContext } from '../../lib/core/pipeline';
import { TAG_RUN_ID, type FleetAdmin, type DynamoDbAdmin } from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';
import { startMoto, type MotoServer } from '../support/moto';
import { keyspaceOf, tableOf, withRenamed } from '../support/run-resources';
import { TABLE_ENTRY } from '../../lib/core/targets/dynamodb/entries';
import { KEYSPACE_ENTRY } from '../../lib/core/targets/keyspaces/entries';

jest.setTimeout(60_000);

let moto: MotoServer;
let ksTwin: KeyspacesTwin;
let tables: DynamoDbTableAdmin;
let keyspaces: KeyspacesApiAdmin;
let dir: string;
let store: FsStore;
const clock = { nowMs: () => Date.UTC(2026, 10, 26, 12) };
const noFleet = { list: async () => [], terminate: async () => undefined } as unknown as FleetAdmin;
const failure = { Error: 'StepFailedError', Cause: 'ProvisionTarget failed' };

function ddbSpec(name: string, target: Record<string, unknown>) {
  return {
    name,
    targets: [{ kind: 'dynamodb', billing: { mode: 'on-demand' }, ...target }],
    dataset: { recordCount: 1000, fieldCount: 4 },
    workload: { targetOpsPerSec: [100], durationSeconds: 60 },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
  };
}

function ksSpec(targetId: string) {
  return {
    name: 'ks-own',
    targets: [{ id: targetId, kind: 'keyspaces', capacity: { mode: 'on-demand' } }],
    dataset: { recordCount: 1000, fieldCount: 4 },
    workload: { targetOpsPerSec: [100], durationSeconds: 60 },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
  };
}

const planned = (spec: unknown, executionName: string): Promise<RunContext> =>
  plan({ spec, executionName }, { store, clock });

beforeAll(async () => {
  moto = await startMoto();
  ksTwin = await startKeyspacesTwin();
  tables = new DynamoDbTableAdmin(moto.clientConfig);
  keyspaces = new KeyspacesApiAdmin({
    endpoint: ksTwin.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
});
afterAll(async () => {
  await ksTwin?.stop();
  await moto?.stop();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'teardown-own-'));
  store = new FsStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('teardown deletes only what carries the run tag', () => {
  it("spec shop: (target ddb-x, run nightly) and (target ddb, run x-nightly) get different tables; forced onto A's name, B deletes nothing of A's", async () => {
    const a = await planned(ddbSpec('shop', { id: 'ddb-x' }), 'nightly');
    const b = await planned(ddbSpec('shop', { id: 'ddb' }), 'x-nightly');
    const tableA = tableOf(a);
    expect(tableA).toBe('fleetbench-shop.ddb-x.nightly');
    expect(tableOf(b)).toBe('fleetbench-shop.ddb.x-nightly');
    await provisionTarget(a, { store, tables });
    // both runs side by side: each teardown removes its own table only
    await provisionTarget(b, { store, tables });
    expect(await teardown({ run: b }, { store, tables, fleet: noFleet, clock })).toMatchObject({
      deletedTables: [tableOf(b)],
    });
    expect((await tables.describeTable(tableA)).status).toBe('ACTIVE');

    // B's context forced onto A's name (as the old naming made it): ProvisionTarget refuses, Teardown keeps it
    const forced = withRenamed(b, TABLE_ENTRY.shape.type.value, tableA);
    await expect(provisionTarget(forced, { store, tables })).rejects.toThrow(
      `table ${tableA} already exists and is not this run's`,
    );
    const r = await teardown({ run: forced, error: failure }, { store, tables, fleet: noFleet, clock });
    expect(r).toMatchObject({ deletedTables: [], keptTables: [tableA] });
    expect((await tables.describeTable(tableA)).status).toBe('ACTIVE');
    expect(await store.getJson(`runs/x-nightly/teardown.json`)).toMatchObject({ keptTables: [tableA] });
    await teardown({ run: a }, { store, tables, fleet: noFleet, clock });
    expect((await tables.describeTable(tableA)).status).toBe('MISSING');
  });

  it('a preloaded fleetbench-orders-copy-v2 survives run v2 of spec orders, target copy, and its use as existingTable', async () => {
    const preloaded = 'fleetbench-orders-copy-v2';
    await tables.createTable({
      name: preloaded,
      keyAttribute: 'p',
      billing: { mode: 'on-demand' },
      tableClass: 'STANDARD',
      tags: { owner: 'data-team' },
    });
    const run = await planned(ddbSpec('orders', { id: 'copy' }), 'v2');
    expect(tableOf(run)).not.toBe(preloaded);
    await provisionTarget(run, { store, tables });
    expect((await teardown({ run }, { store, tables, fleet: noFleet, clock })).deletedTables).toEqual([
      tableOf(run),
    ]);
    expect((await tables.describeTable(preloaded)).status).toBe('ACTIVE');

    // the old name forced into the context: refused, and kept (it has no run tag)
    const forced = withRenamed(run, TABLE_ENTRY.shape.type.value, preloaded);
    await expect(provisionTarget(forced, { store, tables })).rejects.toThrow(/is not this run's/);
    expect(
      await teardown({ run: forced, error: failure }, { store, tables, fleet: noFleet, clock }),
    ).toMatchObject({ deletedTables: [], keptTables: [preloaded] });
    expect((await tables.describeTable(preloaded)).status).toBe('ACTIVE');

    // given as existingTable: never deleted, even when it carries the run's tag
    const reuse = await planned(ddbSpec('orders', { id: 'copy', existingTable: preloaded }), 'v3');
    await tables.tagTable(preloaded, { [TAG_RUN_ID]: 'v3' });
    expect((await provisionTarget(reuse, { store, tables })).existing).toEqual([preloaded]);
    expect(await teardown({ run: reuse }, { store, tables, fleet: noFleet, clock })).toMatchObject({
      deletedTables: [],
      keptTables: [preloaded],
    });
    expect((await tables.describeTable(preloaded)).status).toBe('ACTIVE');
  });

  it("keyspaces: (run x, target nightly-ks) and (run x-nightly, target ks) differ; neither teardown deletes the other's", async () => {
    const noTables = { tableTags: async () => null } as unknown as DynamoDbAdmin;
    const a = await planned(ksSpec('nightly-ks'), 'x');
    const b = await planned(ksSpec('ks'), 'x-nightly');
    const ksA = keyspaceOf(a);
    const ksB = keyspaceOf(b);
    expect(ksA).not.toBe(ksB);
    const deps = { store, tables: noTables, keyspaces, sleep: async () => undefined };
    await provisionTarget(a, deps);
    await provisionTarget(b, deps);
    const td = { store, tables: noTables, fleet: noFleet, clock, keyspaces };
    expect((await teardown({ run: b }, td)).deletedKeyspaces).toEqual([ksB]);
    expect(ksTwin.keyspaces.has(ksA)).toBe(true);

    // B's context forced onto A's keyspace: ProvisionTarget refuses it, Teardown keeps it
    const forced = withRenamed(b, KEYSPACE_ENTRY.shape.type.value, ksA);
    await expect(provisionTarget(forced, deps)).rejects.toThrow(
      `keyspace ${ksA} already exists and is not this run's`,
    );
    expect(await teardown({ run: forced, error: failure }, td)).toMatchObject({
      deletedKeyspaces: [],
      keptKeyspaces: [ksA],
    });
    expect(ksTwin.keyspaces.has(ksA)).toBe(true);
    expect((await teardown({ run: a }, td)).deletedKeyspaces).toEqual([ksA]);
  });
});

describe("teardown's SNS message", () => {
  it('names every kind it removed (a teardown that deleted only keyspaces says so) and the teardown errors', async () => {
    const run = await planned(ksSpec('ks'), 'sns-1');
    const noTables = { tableTags: async () => null } as unknown as DynamoDbAdmin;
    await provisionTarget(run, { store, tables: noTables, keyspaces, sleep: async () => undefined });
    const messages: { subject: string; message: string }[] = [];
    const notifier = {
      publish: async (subject: string, message: string) => void messages.push({ subject, message }),
    };
    const brokenFleet = {
      list: async () => {
        throw new Error('EC2 DescribeInstances: RequestLimitExceeded');
      },
    } as unknown as FleetAdmin;
    const e = await teardown(
      { run, error: failure },
      { store, tables: noTables, fleet: brokenFleet, clock, keyspaces, notifier },
    ).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/terminating loaders: EC2 DescribeInstances: RequestLimitExceeded/);
    expect(messages).toHaveLength(1);
    const ks = keyspaceOf(run);
    expect(messages[0]!.subject).toBe('fleetbench run sns-1: FAILED, teardown incomplete');
    expect(messages[0]!.message).toContain(`deleted 1 Keyspaces keyspace (${ks})`);
    expect(messages[0]!.message).toContain(
      '- terminating loaders: EC2 DescribeInstances: RequestLimitExceeded',
    );
  });

  it('a run that succeeded but whose teardown failed is reported too', async () => {
    const run = await planned(ksSpec('ks'), 'sns-2');
    const messages: string[] = [];
    const notifier = { publish: async (_s: string, message: string) => void messages.push(message) };
    // the keyspace is named in the context; Keyspaces is not reachable from this teardown
    await teardown({ run }, { store, tables: {} as DynamoDbAdmin, fleet: noFleet, clock, notifier }).catch(
      () => undefined,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/Run sns-2 ended SUCCEEDED\.\nTeardown removed nothing\./);
    expect(messages[0]).toContain(`no Keyspaces port to delete ${keyspaceOf(run)}`);
  });
});
