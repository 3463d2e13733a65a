/**
 * The pipeline's Keyspaces steps (lib/core/targets/keyspaces/lifecycle.ts, hooked into Plan, ProvisionTarget, WaitReady,
 * Teardown and the Janitor) through the real adapter and SDK client against test/support/keyspaces-twin.ts: the
 * run's keyspace and table are created with the run's tags, a retry reuses them, a keyspace of another run is
 * refused, WaitReady waits for ACTIVE, Teardown deletes the keyspace (from the context, or by the run tag when
 * Plan's context is missing) and the Janitor deletes expired ones only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import { keyspaceName } from '../../lib/core/targets/keyspaces/keyspace';
import { KEYSPACE_POLL_MS, KEYSPACE_READY_POLLS } from '../../lib/core/targets/keyspaces/lifecycle';
import {
  configureCell,
  janitor,
  plan,
  provisionTarget,
  teardown,
  waitReady,
  type RunContext,
} from '../../lib/core/pipeline';
import {
  StepFailedError,
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type CommandRunner,
  type FleetAdmin,
  type DynamoDbAdmin,
} from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';

/** The keyspace Plan names for the spec's target `ks` in that run. */
const ksOf = (runId: string): string => keyspaceName(runId, 'ks');

let twin: KeyspacesTwin;
let admin: KeyspacesApiAdmin;
let dir: string;
let store: FsStore;
const clock = { nowMs: () => Date.UTC(2026, 10, 23, 12) };
const noFleet = { list: async () => [], terminate: async () => undefined } as unknown as FleetAdmin;
const noTables = {
  listTables: async () => [],
  describeTable: async () => ({ status: 'MISSING' }),
  deleteTable: async () => false,
} as unknown as DynamoDbAdmin;
const commands = { online: async () => [] } as unknown as CommandRunner;
/** ProvisionTarget's waits for the keyspace: the twin counts polls, not time. */
const noSleep = async (): Promise<void> => undefined;

const spec = {
  name: 'ks-pipeline',
  targets: [{ id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 100, wcu: 50 } }],
  dataset: { recordCount: 1000, fieldCount: 4 },
  workload: { targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
};

beforeAll(async () => {
  twin = await startKeyspacesTwin();
  admin = new KeyspacesApiAdmin({
    endpoint: twin.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
});
afterAll(async () => twin?.stop());
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ks-pipeline-'));
  store = new FsStore(dir);
  twin.keyspaces.clear();
  twin.calls.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function planned(runId: string): Promise<RunContext> {
  return plan({ spec, executionName: runId }, { store, clock });
}

describe('Keyspaces targets in the pipeline', () => {
  it('Plan records the keyspace; ProvisionTarget creates it and its table, tagged; a retry reuses them', async () => {
    const run = await planned('ksp-1');
    // the keyspace only: no DynamoDB table
    expect(run.resources).toEqual([
      { type: 'keyspace', targetId: 'ks', name: ksOf('ksp-1'), table: 'usertable' },
    ]);
    const deps = { store, tables: noTables, keyspaces: admin, sleep: noSleep };
    expect((await provisionTarget(run, deps)).created).toEqual([`${ksOf('ksp-1')}.usertable`]);
    const ks = twin.keyspaces.get(ksOf('ksp-1'))!;
    expect(Object.fromEntries(ks.tags.map((t) => [t.key, t.value]))).toMatchObject({
      [TAG_RUN_ID]: 'ksp-1',
      [TAG_EXPIRES_AT]: String(run.expiresAt),
    });
    const table = ks.tables.get('usertable')!.request;
    expect(table.capacitySpecification).toEqual({
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 100,
      writeCapacityUnits: 50,
    });
    expect((table.schemaDefinition as { allColumns: unknown[] }).allColumns).toHaveLength(5); // y_id + field0..3
    // a retry after a partial success: both exist and are this run's
    expect((await provisionTarget(run, deps)).created).toEqual([`${ksOf('ksp-1')}.usertable`]);
    expect(twin.calls.filter((c) => c.op === 'CreateKeyspace')).toHaveLength(2);
  });

  it('Plan refuses a keyspaces target on a stack whose private network cannot reach it, and writes nothing', async () => {
    const e = await plan({ spec, executionName: 'ksp-private' }, { store, clock, network: 'private' }).catch(
      (x: unknown) => x,
    );
    expect((e as { issues?: unknown }).issues).toEqual([
      {
        path: 'targets[0].kind',
        message: expect.stringMatching(
          /^a keyspaces target needs the loaders to reach cassandra\.us-east-1\.amazonaws\.com:9142, and this stack's private network has no route there/,
        ),
      },
    ]);
    expect(await store.list('runs/ksp-private/')).toEqual([]);
    // the public network (the default) and an existing VPC plan it
    for (const network of ['public', 'existing'] as const)
      expect(
        (await plan({ spec, executionName: `ksp-${network}` }, { store, clock, network })).resources,
      ).toHaveLength(1);
  });

  it("refuses a keyspace of that name that is not the run's", async () => {
    const run = await planned('ksp-2');
    await admin.createKeyspace(ksOf('ksp-2'), { [TAG_RUN_ID]: 'someone-else' });
    await expect(
      provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep }),
    ).rejects.toThrow(/keyspace fb_ksp_2_ks_[0-9a-f]{8} already exists and is not this run's/);
    expect(twin.keyspaces.get(ksOf('ksp-2'))!.tables.size).toBe(0);
  });

  it('fails ProvisionTarget naming the missing port (a run with a Keyspaces target and no Keyspaces adapter)', async () => {
    const run = await planned('ksp-3');
    const e = await provisionTarget(run, { store, tables: noTables }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StepFailedError);
    expect((e as Error).message).toMatch(/Amazon Keyspaces targets and no Keyspaces port/);
  });

  it('ProvisionTarget waits for the new keyspace (GetKeyspace) before CreateTable, within a deadline', async () => {
    const run = await planned('ksp-wait');
    const slept: number[] = [];
    const sleep = async (ms: number) => void slept.push(ms);
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep });
    const ops = twin.calls.map((c) => c.op);
    // CreateKeyspace is asynchronous: the twin does not find the keyspace for two GetKeyspace calls
    expect(ops.slice(0, ops.indexOf('CreateTable') + 1)).toEqual([
      'CreateKeyspace',
      'GetKeyspace',
      'GetKeyspace',
      'GetKeyspace',
      'ListTagsForResource',
      'CreateTable',
    ]);
    expect(slept).toEqual([KEYSPACE_POLL_MS, KEYSPACE_POLL_MS]);
    // a keyspace that never appears: the step fails at the deadline naming it, and no table is created
    const never = Object.assign(Object.create(admin) as KeyspacesApiAdmin, {
      keyspaceTags: async () => null,
    });
    const run2 = await planned('ksp-never');
    await expect(
      provisionTarget(run2, { store, tables: noTables, keyspaces: never, sleep: noSleep }),
    ).rejects.toThrow(
      `keyspace ${ksOf('ksp-never')}: GetKeyspace still finds no keyspace ` +
        `${((KEYSPACE_READY_POLLS - 1) * KEYSPACE_POLL_MS) / 1000} s after CreateKeyspace`,
    );
    expect(twin.keyspaces.get(ksOf('ksp-never'))!.tables.size).toBe(0);
  });

  it('WaitReady waits until the table is ACTIVE', async () => {
    const run = { ...(await planned('ksp-4')), loaders: 0 };
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep });
    const deps = { store, tables: noTables, fleet: noFleet, commands, clock, keyspaces: admin };
    // the twin answers CREATING to the first two GetTable calls, ACTIVE afterwards
    expect((await waitReady({ run }, deps)).ready).toBe(false);
    expect((await waitReady({ run }, deps)).ready).toBe(false);
    expect((await waitReady({ run }, deps)).ready).toBe(true);
  });

  it('Teardown deletes the keyspace from the context, and by the run tag when there is no context', async () => {
    const run = await planned('ksp-5');
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep });
    const deps = { store, tables: noTables, fleet: noFleet, clock, keyspaces: admin };
    const r = await teardown({ run }, deps);
    expect(r.deletedKeyspaces).toEqual([ksOf('ksp-5')]);
    expect(twin.keyspaces.has(ksOf('ksp-5'))).toBe(false);

    // Plan's context missing (not written): found by the run tag; another run's keyspace stays
    await admin.createKeyspace('fb_ksp_6_ks', { [TAG_RUN_ID]: 'ksp-6' });
    await admin.createKeyspace('fb_other_ks', { [TAG_RUN_ID]: 'other' });
    twin.settle();
    const byTag = await teardown({ executionName: 'ksp-6', status: 'ABORTED' }, deps);
    expect(byTag.deletedKeyspaces).toEqual(['fb_ksp_6_ks']);
    expect([...twin.keyspaces.keys()]).toEqual(['fb_other_ks']);
  });

  it("a ProvisionTarget failing after the keyspace exists: the failure path's teardown deletes it", async () => {
    const run = await planned('ksp-8');
    // CreateTable refused (a quota): the keyspace was created, the step fails
    const failing = Object.assign(Object.create(admin) as KeyspacesApiAdmin, {
      createTable: async () => {
        throw new Error('Keyspaces CreateTable: ServiceQuotaExceededException');
      },
    });
    await expect(
      provisionTarget(run, { store, tables: noTables, keyspaces: failing, sleep: noSleep }),
    ).rejects.toThrow(/ServiceQuotaExceeded/);
    expect(twin.keyspaces.has(ksOf('ksp-8'))).toBe(true);
    const r = await teardown(
      { run, error: { Error: 'Error', Cause: 'ServiceQuotaExceededException' } },
      { store, tables: noTables, fleet: noFleet, clock, keyspaces: admin },
    );
    expect(r).toMatchObject({ deletedKeyspaces: [ksOf('ksp-8')], failed: true });
    expect(twin.keyspaces.has(ksOf('ksp-8'))).toBe(false);
  });

  it('Teardown of a run without Keyspaces targets makes no Keyspaces call', async () => {
    const run = { ...(await planned('ksp-7')), resources: [] };
    await admin.createKeyspace('fb_ksp_7_ks', { [TAG_RUN_ID]: 'ksp-7' }); // would be found by tag if asked
    const before = twin.calls.length;
    const r = await teardown({ run }, { store, tables: noTables, fleet: noFleet, clock, keyspaces: admin });
    expect(r.deletedKeyspaces).toEqual([]);
    expect(twin.calls.length).toBe(before);
  });

  it('the Janitor deletes keyspaces whose expiry passed, and no others', async () => {
    const now = clock.nowMs() / 1000;
    await admin.createKeyspace('fb_old_ks', { [TAG_RUN_ID]: 'old', [TAG_EXPIRES_AT]: String(now - 1) });
    await admin.createKeyspace('fb_new_ks', { [TAG_RUN_ID]: 'new', [TAG_EXPIRES_AT]: String(now + 3600) });
    twin.settle();
    const r = await janitor({ tables: noTables, fleet: noFleet, clock, keyspaces: admin });
    expect(r.deletedKeyspaces).toEqual(['fb_old_ks']);
    expect([...twin.keyspaces.keys()]).toEqual(['fb_new_ks']);
  });

  it('ConfigureCell gives a provisioned table the spec capacity again (UpdateTable) when it has drifted', async () => {
    const run = await planned('ksp-cc');
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep });
    const deps = { store, tables: noTables, keyspaces: admin, sleep: noSleep };
    twin.settle(); // WaitReady saw it ACTIVE
    const table = () => twin.keyspaces.get(ksOf('ksp-cc'))!.tables.get('usertable')!;
    const updates = () => twin.calls.filter((c) => c.op === 'UpdateTable');
    // as created: nothing to do
    expect(await configureCell({ run, index: 0 }, deps)).toEqual({
      index: 0,
      cellId: expect.any(String),
      changed: false,
      skip: false,
    });
    expect(updates()).toEqual([]);
    // changed by hand (or by scaling outside fleetbench): set back to the spec's 100 RCU / 50 WCU
    await admin.updateCapacity(ksOf('ksp-cc'), 'usertable', { mode: 'provisioned', rcu: 5, wcu: 5 });
    twin.settle();
    expect((await configureCell({ run, index: 0 }, deps)).changed).toBe(true);
    twin.settle();
    expect(updates().at(-1)!.body).toEqual({
      keyspaceName: ksOf('ksp-cc'),
      tableName: 'usertable',
      capacitySpecification: {
        throughputMode: 'PROVISIONED',
        readCapacityUnits: 100,
        writeCapacityUnits: 50,
      },
    });
    expect(table().request.capacitySpecification).toEqual({
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 100,
      writeCapacityUnits: 50,
    });
    // switched to on-demand by hand: back to provisioned
    await admin.updateCapacity(ksOf('ksp-cc'), 'usertable', { mode: 'on-demand' });
    twin.settle();
    expect((await configureCell({ run, index: 0 }, deps)).changed).toBe(true);
    expect(updates()).toHaveLength(4);
    expect((await configureCell({ run, index: 0 }, deps)).changed).toBe(false);
    expect(updates()).toHaveLength(4);
  });

  it('ConfigureCell waits for a table still UPDATING from a change made by hand before it sets the capacity', async () => {
    const run = await planned('ksp-upd');
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep });
    twin.settle();
    // changed by hand a moment ago: UPDATING for a few GetTable calls, and UpdateTable is refused until ACTIVE
    await admin.updateCapacity(ksOf('ksp-upd'), 'usertable', { mode: 'provisioned', rcu: 5, wcu: 5 });
    const table = () => twin.keyspaces.get(ksOf('ksp-upd'))!.tables.get('usertable')!;
    expect(table().status).toBe('UPDATING');
    const deps = { store, tables: noTables, keyspaces: admin, sleep: noSleep };
    expect((await configureCell({ run, index: 0 }, deps)).changed).toBe(true);
    twin.settle();
    expect(table().request.capacitySpecification).toEqual({
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 100,
      writeCapacityUnits: 50,
    });
  });

  it('ConfigureCell leaves an on-demand table alone, and fails on a missing table or without the port', async () => {
    const onDemand = { ...spec, targets: [{ id: 'ks', kind: 'keyspaces', capacity: { mode: 'on-demand' } }] };
    const run = await plan({ spec: onDemand, executionName: 'ksp-od' }, { store, clock });
    await provisionTarget(run, { store, tables: noTables, keyspaces: admin, sleep: noSleep });
    expect(
      (await configureCell({ run, index: 0 }, { store, tables: noTables, keyspaces: admin })).changed,
    ).toBe(false);
    expect(twin.calls.filter((c) => c.op === 'UpdateTable')).toEqual([]);
    const gone = await planned('ksp-gone');
    await expect(
      configureCell({ run: gone, index: 0 }, { store, tables: noTables, keyspaces: admin }),
    ).rejects.toThrow(
      new StepFailedError('ConfigureCell', `Keyspaces table ${ksOf('ksp-gone')}.usertable is MISSING`),
    );
    await expect(configureCell({ run: gone, index: 0 }, { store, tables: noTables })).rejects.toThrow(
      new StepFailedError(
        'ConfigureCell',
        'the run has Amazon Keyspaces targets and no Keyspaces port is configured',
      ),
    );
  });
});
