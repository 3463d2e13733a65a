/**
 * The run context's resource list (lib/core/resources/run-resource.ts) and its one reader
 * (lib/core/pipeline/run-context.ts readRunContext). The legacy fixture (test/fixtures/run-context/legacy-context.json)
 * is the context Plan wrote before the resource list, produced by that code (commit 5853d13) for LEGACY_SPEC below
 * (only its storeUri was set to an S3 one): teardown of that old context, given or stored, removes exactly what
 * teardown of the same run planned today removes, and nothing of another run's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { TAG_RUN_ID, type Tags } from '../../../lib/core/common/ports';
import { contextKey, plan, readRunContext, teardown, type RunContext } from '../../../lib/core/pipeline';
import {
  entriesOf,
  entryOf,
  resourcesByTarget,
  targetResources,
} from '../../../lib/core/resources/run-resource';
import { RESOURCE_TYPES, resourceTypeOf } from '../../../lib/core/targets/registry';
import { TABLE_ENTRY } from '../../../lib/core/targets/dynamodb/entries';
import { FsStore } from '../../../lib/local/fs-store';
import { memoryDbResourceName } from '../../../lib/core/targets/memorydb/names';

const LEGACY = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'run-context', 'legacy-context.json'), 'utf8'),
) as Record<string, unknown>;

const LEGACY_SPEC = {
  name: 'legacy',
  targets: [
    { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } },
    {
      id: 'cached',
      kind: 'dynamodb',
      billing: { mode: 'on-demand' },
      dax: { nodeType: 'dax.r5.large', nodes: 3 },
    },
    {
      id: 'given',
      kind: 'dynamodb',
      billing: { mode: 'on-demand' },
      existingTable: 'fleetbench-orders-copy',
    },
    { id: 'alt', kind: 'scylla-ec2', nodes: 3, api: 'alternator' },
    { id: 'cass', kind: 'cassandra-ec2', nodes: 3, replicationFactor: 3 },
    { id: 'ks', kind: 'keyspaces', capacity: { mode: 'on-demand' } },
  ],
  dataset: { recordCount: 1000, load: false },
  workload: { readProportions: [0.5], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1 },
};

const RUN = 'legacy-run-1';
const clock = { nowMs: () => Date.UTC(2026, 10, 1) };

let dir: string;
let store: FsStore;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'run-context-'));
  store = new FsStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readRunContext', () => {
  it('turns the per-kind fields of an older run into the resource list, entry by entry', () => {
    const run = readRunContext(LEGACY);
    expect(run.resources).toEqual([
      { type: 'dynamodb-table', targetId: 'ddb', name: 'fleetbench-legacy.ddb.legacy-run-1', owned: true },
      {
        type: 'dynamodb-table',
        targetId: 'cached',
        name: 'fleetbench-legacy.cached.legacy-run-1',
        owned: true,
      },
      { type: 'dynamodb-table', targetId: 'given', name: 'fleetbench-orders-copy', owned: false },
      { type: 'dax-cluster', targetId: 'cached', name: 'fb-cc5cc0cb' },
      {
        type: 'database-node',
        targetId: 'alt',
        nodes: 3,
        api: 'alternator',
        table: 'fleetbench-legacy.alt.legacy-run-1',
      },
      // the old login type named a secret for every node cluster (and deleted it only when tagged with the run)
      { type: 'login-secret', targetId: 'alt', name: 'fleetbench/legacy-run-1/alt-cql' },
      { type: 'database-node', targetId: 'cass', nodes: 3, api: 'cql', table: 'usertable' },
      { type: 'login-secret', targetId: 'cass', name: 'fleetbench/legacy-run-1/cass-cql' },
      { type: 'keyspace', targetId: 'ks', name: 'fb_legacy_run_1_ks_bc2bd033', table: 'usertable' },
    ]);
    // the old fields are gone, the rest is kept
    for (const k of ['tables', 'clusters', 'keyspaces', 'dax']) expect(run).not.toHaveProperty(k);
    expect(run).toMatchObject({
      runId: RUN,
      specName: 'legacy',
      cellCount: 6,
      loaders: 1,
      expiresAt: 1793500380,
    });
  });

  it('names resource types the registry has (a renamed type id would orphan old runs)', () => {
    const ids = RESOURCE_TYPES.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of readRunContext(LEGACY).resources) expect(resourceTypeOf(r)?.id).toBe(r.type);
    expect(resourceTypeOf({ type: 'no-such-type' })).toBeUndefined();
  });

  it("lists what Plan lists today for the same spec, but the old login guess for scylla-ec2's cluster", async () => {
    const now = await plan({ executionName: RUN, spec: LEGACY_SPEC }, { store, clock });
    const old = readRunContext(LEGACY).resources.filter(
      (r) => !(r.type === 'login-secret' && r.targetId === 'alt'),
    );
    const key = (r: { type: string; targetId: string }) => `${r.targetId}/${r.type}`;
    expect([...now.resources].sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      [...old].sort((a, b) => key(a).localeCompare(key(b))),
    );
    // a stored context of today reads back as it was written
    expect(readRunContext(await store.getJson(contextKey(RUN)))).toEqual(now);
  });

  it('gives the resources of one target and of the whole run by target', async () => {
    const run = await plan({ executionName: RUN, spec: LEGACY_SPEC }, { store, clock });
    expect(targetResources(run, 'cached').map((r) => r.type)).toEqual(['dynamodb-table', 'dax-cluster']);
    expect(targetResources(run, 'cass').map((r) => r.type)).toEqual(['database-node', 'login-secret']);
    expect(targetResources(run, 'nope')).toEqual([]);
    const byTarget = resourcesByTarget(run);
    expect([...byTarget.keys()]).toEqual(['ddb', 'cached', 'given', 'alt', 'cass', 'ks']);
    expect([...byTarget.values()].flat()).toHaveLength(run.resources.length);
    expect(entryOf(run, TABLE_ENTRY, 'given')).toEqual({
      type: 'dynamodb-table',
      targetId: 'given',
      name: 'fleetbench-orders-copy',
      owned: false,
    });
  });

  it('refuses a context without resources, or with a malformed entry, naming the field', () => {
    const bare = Object.fromEntries(
      Object.entries(LEGACY).filter(([k]) => !['tables', 'clusters', 'keyspaces', 'dax'].includes(k)),
    );
    const issuesOf = (run: unknown) => {
      try {
        readRunContext(run);
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        return (e as InputError).issues.map((q) => q.path);
      }
      throw new Error('accepted');
    };
    expect(issuesOf(bare)).toEqual(['run.resources']);
    expect(issuesOf({ ...bare, resources: [{ type: 'dax-cluster', name: 'fb-1' }] })).toEqual([
      'run.resources.0.targetId',
    ]);
    expect(issuesOf({ ...LEGACY, tables: [{ target: 'ddb', name: 'x' }] })).toEqual(['run.tables.0.owned']);
    expect(issuesOf({ ...bare, runId: '', resources: [] })).toEqual(['run.runId']);
    expect(issuesOf(null)).toEqual(['run']);
    // a type's own fields are checked where the type reads them
    const run = readRunContext({
      ...bare,
      resources: [{ type: 'dynamodb-table', targetId: 'ddb', name: 't' }],
    });
    expect(() => entriesOf(run, TABLE_ENTRY)).toThrow(/run\.resources\[0\] \(dynamodb-table\): owned: /);
  });
});

/**
 * An account holding the run's resources (as ProvisionTarget made them) and another run's, in memory. `blind`:
 * listing DAX clusters and keyspaces by the run tag finds nothing (only the context's names lead to them).
 */
function account(blind = false) {
  const mine: Tags = { [TAG_RUN_ID]: RUN };
  const other: Tags = { [TAG_RUN_ID]: 'other-run' };
  const tables = new Map<string, Tags>([
    ['fleetbench-legacy.ddb.legacy-run-1', mine],
    ['fleetbench-legacy.cached.legacy-run-1', mine],
    ['fleetbench-orders-copy', { owner: 'data-team' }],
    ['fleetbench-legacy.ddb.other-run', other],
  ]);
  const daxClusters = new Map<string, Tags>([
    ['fb-cc5cc0cb', mine],
    ['fb-0ther000', other],
  ]);
  const daxGroups = new Map<string, Tags>([...daxClusters]);
  const keyspaces = new Map<string, Tags>([
    ['fb_legacy_run_1_ks_bc2bd033', mine],
    ['fb_other_run_ks_00000000', other],
  ]);
  const secrets = new Map<string, Tags>([
    ['fleetbench/legacy-run-1/cass-cql', mine],
    ['fleetbench/other-run/cass-cql', other],
  ]);
  const instances = (prefix: string, n: number, tags: Tags) =>
    Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, state: 'running', tags }));
  const nodes = [
    ...instances('i-node-alt-', 3, mine),
    ...instances('i-node-cass-', 3, mine),
    ...instances('i-node-x-', 1, other),
  ];
  const loaders = [...instances('i-loader-', 1, mine), ...instances('i-loader-x-', 1, other)];
  const has = (m: Map<string, Tags>) => (runId?: string) =>
    [...m]
      .filter(([, t]) => !runId || (!blind && t[TAG_RUN_ID] === runId))
      .map(([name, tags]) => ({ name, tags }));
  const fleetOf = (list: { id: string; state: string; tags: Tags }[]) => ({
    list: async ({ runId }: { runId?: string }) =>
      list.filter((i) => i.state !== 'terminated' && (!runId || i.tags[TAG_RUN_ID] === runId)),
    terminate: async (ids: string[]) => {
      for (const i of list) if (ids.includes(i.id)) i.state = 'terminated';
    },
  });
  const ports = {
    clock,
    fleet: fleetOf(loaders),
    cluster: fleetOf(nodes),
    tables: {
      listTables: async () => has(tables)(),
      tableTags: async (name: string) => tables.get(name) ?? null,
      deleteTable: async (name: string) => tables.delete(name),
    },
    dax: {
      listClusters: async ({ runId }: { runId?: string }) =>
        has(daxClusters)(runId).map((c) => ({ ...c, status: 'available' })),
      listSupporting: async ({ runId }: { runId?: string }) => has(daxGroups)(runId),
      clusterTags: async (name: string) => daxClusters.get(name) ?? null,
      deleteCluster: async (name: string) => daxClusters.delete(name),
      describeCluster: async (name: string) => ({
        name,
        status: daxClusters.has(name) ? 'available' : 'MISSING',
      }),
      deleteSupporting: async (name: string) => daxGroups.delete(name),
    },
    keyspaces: {
      listKeyspaces: async ({ runId }: { runId?: string }) => has(keyspaces)(runId),
      keyspaceTags: async (name: string) => keyspaces.get(name) ?? null,
      deleteKeyspace: async (name: string) => keyspaces.delete(name),
    },
    secrets: {
      describeSecret: async (name: string) =>
        secrets.has(name) ? { arn: `arn:${name}`, tags: secrets.get(name)! } : null,
      deleteSecret: async (arn: string) => void secrets.delete(arn.slice('arn:'.length)),
    },
  };
  const left = () => ({
    tables: [...tables.keys()].sort(),
    daxClusters: [...daxClusters.keys()],
    daxGroups: [...daxGroups.keys()],
    keyspaces: [...keyspaces.keys()],
    secrets: [...secrets.keys()],
    running: [...nodes, ...loaders].filter((i) => i.state === 'running').map((i) => i.id),
  });
  return { ports, left };
}

type TeardownPorts = Parameters<typeof teardown>[1];

describe('teardown of a run whose context is of the old shape', () => {
  /** Teardown in a fresh account, with the context given or stored; what it recorded and what is left. */
  async function tornDown(how: { given?: unknown; stored?: unknown; blind?: boolean }) {
    const { ports, left } = account(how.blind);
    const own = new FsStore(mkdtempSync(path.join(dir, 'store-')));
    if (how.stored) await own.putJson(contextKey(RUN), how.stored);
    const deps = { ...ports, store: own } as unknown as TeardownPorts;
    const input = how.given ? { run: how.given as RunContext } : { executionName: RUN };
    return { record: await teardown(input, deps), left: left() };
  }

  it('removes exactly what teardown of the same run planned today removes, given or stored', async () => {
    const today = await plan({ executionName: RUN, spec: LEGACY_SPEC }, { store, clock });
    const expected = {
      record: {
        runId: RUN,
        failed: false,
        terminated: ['i-loader-0'],
        terminatedNodes: [
          'i-node-alt-0',
          'i-node-alt-1',
          'i-node-alt-2',
          'i-node-cass-0',
          'i-node-cass-1',
          'i-node-cass-2',
        ],
        deletedSecrets: ['fleetbench/legacy-run-1/cass-cql'],
        keptSecrets: [],
        deletedDaxClusters: ['fb-cc5cc0cb'],
        keptDaxClusters: [],
        pendingDaxGroups: [],
        deletedTables: ['fleetbench-legacy.ddb.legacy-run-1', 'fleetbench-legacy.cached.legacy-run-1'],
        // an existingTable is never deleted
        keptTables: ['fleetbench-orders-copy'],
        deletedKeyspaces: ['fb_legacy_run_1_ks_bc2bd033'],
        keptKeyspaces: [],
      },
      left: {
        tables: ['fleetbench-legacy.ddb.other-run', 'fleetbench-orders-copy'],
        daxClusters: ['fb-0ther000'],
        daxGroups: ['fb-0ther000'],
        keyspaces: ['fb_other_run_ks_00000000'],
        secrets: ['fleetbench/other-run/cass-cql'],
        running: ['i-node-x-0', 'i-loader-x-0'],
      },
    };
    expect(await tornDown({ given: today })).toEqual(expected);
    expect(await tornDown({ given: LEGACY })).toEqual(expected);
    // the abort rule and the late-arrivals pass know the execution name only: the stored context.json
    expect(await tornDown({ stored: LEGACY })).toEqual(expected);
  });

  it('fails the teardown of a run whose context names MemoryDB resources where no MemoryDB port is deployed', async () => {
    const spec = { ...LEGACY_SPEC, name: 'mdb', targets: [{ id: 'mdb', kind: 'memorydb' }] };
    const run = await plan({ executionName: 'mdb-run-1', spec }, { store, clock });
    const named = run.resources.map((r) => [r.type, r.name]);
    expect(named).toEqual([
      ['memorydb-login', 'fleetbench/mdb-run-1/mdb-memorydb'],
      ['memorydb-cluster', memoryDbResourceName('mdb-run-1', 'mdb')],
    ]);
    const { ports } = account();
    const e = (await teardown({ run }, { ...ports, store } as unknown as TeardownPorts).catch(
      (x) => x,
    )) as Error;
    // they would stay: the teardown is retried, and its message names them
    expect(e.message).toContain(`no MemoryDB port to delete ${memoryDbResourceName('mdb-run-1', 'mdb')}`);
    expect(e.message).toContain('fleetbench/mdb-run-1/mdb-memorydb');
  });

  it('removes the rest when one entry is malformed, and fails naming it', async () => {
    const today = await plan({ executionName: RUN, spec: LEGACY_SPEC }, { store, clock });
    // the login's entry without its name: the login type (before DAX, tables and keyspaces) cannot read it
    const broken = {
      ...today,
      resources: today.resources.map(({ name, ...r }) => (r.type === 'login-secret' ? r : { ...r, name })),
    };
    const at = broken.resources.findIndex((r) => r.type === 'login-secret');
    const { ports, left } = account();
    const e = (await teardown({ run: broken }, { ...ports, store } as unknown as TeardownPorts).catch(
      (x) => x,
    )) as Error;
    expect(e.message).toContain(`deleting login secrets: run.resources[${at}] (login-secret): name: `);
    expect(left()).toEqual({
      tables: ['fleetbench-legacy.ddb.other-run', 'fleetbench-orders-copy'],
      daxClusters: ['fb-0ther000'],
      daxGroups: ['fb-0ther000'],
      keyspaces: ['fb_other_run_ks_00000000'],
      // the run's login stays (the janitor's expiry sweep takes it)
      secrets: ['fleetbench/legacy-run-1/cass-cql', 'fleetbench/other-run/cass-cql'],
      running: ['i-node-x-0', 'i-loader-x-0'],
    });
  });

  it('finds the DAX cluster and the keyspace by the old context alone, as by the new one', async () => {
    const today = await plan({ executionName: RUN, spec: LEGACY_SPEC }, { store, clock });
    const fromToday = await tornDown({ given: today, blind: true });
    expect(fromToday.record).toMatchObject({
      deletedDaxClusters: ['fb-cc5cc0cb'],
      deletedKeyspaces: ['fb_legacy_run_1_ks_bc2bd033'],
    });
    // its groups were not found by their tag here: the janitor's expiry sweep takes them
    expect(fromToday.left.daxGroups).toEqual(['fb-cc5cc0cb', 'fb-0ther000']);
    expect(await tornDown({ given: LEGACY, blind: true })).toEqual(fromToday);
    expect(await tornDown({ stored: LEGACY, blind: true })).toEqual(fromToday);
  });
});
