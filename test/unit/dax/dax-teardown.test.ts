/**
 * Teardown of a DAX cluster DAX does not start deleting (still being created when the run failed): the rest is
 * removed, the record names it and the failure is raised (the Task retries; the janitor deletes the cluster after
 * the run's expiry). A small in-memory DaxAdmin: the adapter itself is tested against moto (aws-dax.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { janitor, teardown, type RunContext } from '../../../lib/core/pipeline';
import {
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type DaxAdmin,
  type FleetAdmin,
  type DynamoDbAdmin,
} from '../../../lib/core/common/ports';
import { FsStore } from '../../../lib/local/fs-store';

const RUN = 'dax-stuck-1';
const tags = { [TAG_RUN_ID]: RUN, [TAG_EXPIRES_AT]: '1000' };

function world() {
  // DAX refuses to delete a cluster while it is created (the adapter then reports it as already deleting)
  const clusters = new Map([['fb-00000001', { status: 'creating' }]]);
  const dax = {
    listClusters: async () => [...clusters].map(([name, c]) => ({ name, status: c.status, tags })),
    deleteCluster: async (name: string) => {
      const c = clusters.get(name);
      if (!c) return false;
      if (c.status === 'available') c.status = 'deleting';
      return true;
    },
    describeCluster: async (name: string) => ({ name, status: clusters.get(name)?.status ?? 'MISSING' }),
    clusterTags: async (name: string) => (clusters.has(name) ? tags : null),
    deleteSupporting: async (name: string) => !clusters.has(name),
    listSupporting: async () => [{ name: 'fb-00000001', tags }],
  } as unknown as DaxAdmin;
  const tables = new Map([['fleetbench-dax-stuck-ddb', tags]]);
  const tableAdmin = {
    listTables: async () => [...tables].map(([name, t]) => ({ name, tags: t })),
    tableTags: async (name: string) => tables.get(name) ?? null,
    deleteTable: async (name: string) => tables.delete(name),
  } as unknown as DynamoDbAdmin;
  const fleet = { list: async () => [], terminate: async () => undefined } as unknown as FleetAdmin;
  return { clusters, dax, tables, tableAdmin, fleet };
}

describe('teardown with a DAX cluster still being created', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'dax-teardown-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('deletes the table, names the cluster in the error, and the janitor deletes it once it is available', async () => {
    const w = world();
    const store = new FsStore(dir);
    const clock = { nowMs: () => 5e6 };
    await expect(
      teardown(
        { executionName: RUN, status: 'FAILED' },
        { store, fleet: w.fleet, tables: w.tableAdmin, clock, dax: w.dax },
      ),
    ).rejects.toThrow(/incomplete \(it is retried\): DAX did not start deleting fb-00000001 \(creating\)$/);
    expect(w.tables.size).toBe(0);
    const record = (await store.getJson(`runs/${RUN}/teardown.json`)) as Record<string, unknown>;
    expect(record).toMatchObject({
      deletedDaxClusters: [],
      pendingDaxGroups: ['fb-00000001'],
      errors: ['DAX did not start deleting fb-00000001 (creating)'],
    });
    // later the cluster is available: the janitor (after the expiry) starts its deletion
    w.clusters.get('fb-00000001')!.status = 'available';
    const j = await janitor({ fleet: w.fleet, tables: w.tableAdmin, clock, dax: w.dax });
    expect(j.deletedDaxClusters).toEqual(['fb-00000001']);
    expect(w.clusters.get('fb-00000001')!.status).toBe('deleting');
  });

  it("keeps a cluster the context names that carries another run's tag: no DeleteCluster, no group deleted", async () => {
    const w = world();
    w.clusters.get('fb-00000001')!.status = 'available';
    const deleted: string[] = [];
    const foreign = { [TAG_RUN_ID]: 'another-run' };
    const dax = {
      ...w.dax,
      listClusters: async () => [], // the run tag finds nothing of this run
      listSupporting: async () => [{ name: 'fb-00000001', tags: foreign }],
      clusterTags: async () => foreign,
      deleteCluster: async (name: string) => (deleted.push(name), true),
      deleteSupporting: async (name: string) => (deleted.push(`groups ${name}`), true),
    } as unknown as DaxAdmin;
    const store = new FsStore(dir);
    // a context of the per-kind shape older runs stored (Teardown reads it as the resource list)
    const run = {
      runId: RUN,
      storeUri: store.uri,
      cellCount: 1,
      tables: [],
      dax: [{ target: 'cached', name: 'fb-00000001' }],
    } as unknown as RunContext;
    const r = await teardown(
      { run },
      { store, fleet: w.fleet, tables: w.tableAdmin, clock: { nowMs: () => 5e6 }, dax },
    );
    expect(r).toMatchObject({
      deletedDaxClusters: [],
      keptDaxClusters: ['fb-00000001'],
      pendingDaxGroups: [],
    });
    expect(deleted).toEqual([]);
  });
});
