/**
 * KeyspacesApiAdmin through the real SDK client against test/support/keyspaces-twin.ts (no emulator serves the
 * Keyspaces API; see there). What is checked is what the SDK sends and how the adapter reads the documented
 * answers and errors; Keyspaces itself was not run.
 */
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import { keyspaceName } from '../../lib/core/targets/keyspaces/keyspace';
import { ConflictError, TAG_RUN_ID } from '../../lib/core/common/ports';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';

let twin: KeyspacesTwin;
let admin: KeyspacesApiAdmin;

beforeAll(async () => {
  twin = await startKeyspacesTwin();
  admin = new KeyspacesApiAdmin({
    endpoint: twin.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
});
afterAll(async () => twin?.stop());

describe('Keyspaces adapter (Keyspaces API)', () => {
  it('creates a single-region keyspace and the YCSB table (provisioned), waits ACTIVE, deletes both', async () => {
    const ks = keyspaceName('2026-11-23T14-00-00-k1', 'keyspaces');
    await admin.createKeyspace(ks, { [TAG_RUN_ID]: 'k1' });
    // CreateKeyspace is asynchronous: GetKeyspace does not find it at first, and CreateTable in it is refused
    const table1 = {
      keyspace: ks,
      table: 'usertable',
      fieldCount: 10,
      capacity: { mode: 'provisioned' as const, rcu: 3000, wcu: 1000 },
      tags: { [TAG_RUN_ID]: 'k1' },
    };
    await expect(admin.createTable(table1)).rejects.toThrow(/CreateTable .*ResourceNotFoundException/);
    expect(await admin.keyspaceTags(ks)).toBeNull();
    expect(await admin.keyspaceTags(ks)).toBeNull();
    expect(await admin.keyspaceTags(ks)).toEqual({ [TAG_RUN_ID]: 'k1' });
    await admin.createTable({
      keyspace: ks,
      table: 'usertable',
      fieldCount: 10,
      capacity: { mode: 'provisioned', rcu: 3000, wcu: 1000 },
      tags: { [TAG_RUN_ID]: 'k1' },
    });
    const create = twin.calls.find((c) => c.op === 'CreateKeyspace')!.body;
    expect(create).toEqual({
      keyspaceName: ks,
      replicationSpecification: { replicationStrategy: 'SINGLE_REGION' },
      tags: [{ key: TAG_RUN_ID, value: 'k1' }],
    });
    const table = twin.calls.find((c) => c.op === 'CreateTable')!.body;
    // the columns the CQL binding reads and writes: text key y_id, text field0..field9
    expect(table.schemaDefinition).toEqual({
      allColumns: [
        { name: 'y_id', type: 'text' },
        ...Array.from({ length: 10 }, (_, i) => ({ name: `field${i}`, type: 'text' })),
      ],
      partitionKeys: [{ name: 'y_id' }],
    });
    expect(table.capacitySpecification).toEqual({
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 3000,
      writeCapacityUnits: 1000,
    });

    expect((await admin.describeTable(ks, 'usertable')).status).toBe('CREATING');
    // UpdateTable is refused until the table is ACTIVE
    await expect(admin.updateCapacity(ks, 'usertable', { mode: 'on-demand' })).rejects.toThrow(
      /UpdateTable .*ValidationException: .* is CREATING, not ACTIVE/,
    );
    expect((await admin.describeTable(ks, 'usertable')).status).toBe('CREATING');
    expect(await admin.describeTable(ks, 'usertable')).toEqual({
      keyspace: ks,
      table: 'usertable',
      status: 'ACTIVE',
      capacity: { mode: 'provisioned', rcu: 3000, wcu: 1000 },
    });
    expect(await admin.listKeyspaces({ runId: 'k1' })).toEqual([{ name: ks, tags: { [TAG_RUN_ID]: 'k1' } }]);
    expect(await admin.listKeyspaces({ runId: 'other' })).toEqual([]);

    expect(await admin.deleteKeyspace(ks)).toBe(true);
    expect((await admin.describeTable(ks, 'usertable')).status).toBe('MISSING');
    expect(await admin.deleteKeyspace(ks)).toBe(false);
  });

  it('on-demand tables; an existing keyspace or table is a ConflictError; bad names are refused before a call', async () => {
    const ks = keyspaceName('k2', 'ks');
    await admin.createKeyspace(ks, { [TAG_RUN_ID]: 'k2' });
    await expect(admin.createKeyspace(ks, {})).rejects.toBeInstanceOf(ConflictError);
    twin.settle();
    const req = {
      keyspace: ks,
      table: 'usertable',
      fieldCount: 2,
      capacity: { mode: 'on-demand' as const },
      tags: {},
    };
    await admin.createTable(req);
    await expect(admin.createTable(req)).rejects.toBeInstanceOf(ConflictError);
    expect(twin.calls.filter((c) => c.op === 'CreateTable').at(-1)!.body.capacitySpecification).toEqual({
      throughputMode: 'PAY_PER_REQUEST',
    });
    const n = twin.calls.length;
    await expect(admin.createTable({ ...req, table: 'user-table' })).rejects.toThrow(
      /table name 'user-table' must be 1-48 characters/,
    );
    expect(twin.calls.length).toBe(n);
    await admin.deleteKeyspace(ks);
  });
});
