/**
 * The janitor's second pass (lib/core/pipeline/late-arrivals.ts): a resource the other Provision branch
 * created after the run's teardown ran (a node after its seed wait, a DAX cluster) is removed by the
 * next janitor run once the run's teardown record is 15 minutes old; a younger record, or a run with no
 * record (still going), is left alone. Real teardown and janitor over an FsStore and in-memory ports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { LATE_ARRIVAL_AFTER_MS, janitor, teardown } from '../../../lib/core/pipeline';
import {
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type DbNodeAdmin,
  type DaxAdmin,
  type FleetAdmin,
  type DynamoDbAdmin,
} from '../../../lib/core/common/ports';
import { FsStore } from '../../../lib/local/fs-store';

const MIN = 60_000;
const T0 = 1_800_000_000_000;
/** Far from expiring: only the second pass can remove these. */
const tagsOf = (runId: string) => ({ [TAG_RUN_ID]: runId, [TAG_EXPIRES_AT]: String(T0 / 1000 + 12 * 86400) });

function world() {
  const loaders = new Map<string, { id: string; state: string; tags: Record<string, string> }>();
  const nodes = new Map<string, { id: string; state: string; tags: Record<string, string> }>();
  const daxClusters = new Map<string, { name: string; status: string; tags: Record<string, string> }>();
  const fleet = {
    list: async (f: { runId?: string }) =>
      [...loaders.values()].filter((i) => !f.runId || i.tags[TAG_RUN_ID] === f.runId),
    terminate: async (ids: string[]) => ids.forEach((id) => loaders.delete(id)),
  } as unknown as FleetAdmin;
  const cluster = {
    list: async (f: { runId?: string }) =>
      [...nodes.values()].filter((n) => !f.runId || n.tags[TAG_RUN_ID] === f.runId),
    terminate: async (ids: string[]) => ids.forEach((id) => nodes.delete(id)),
  } as unknown as DbNodeAdmin;
  const tables = {
    listTables: async () => [],
    tableTags: async () => null,
    deleteTable: async () => false,
  } as unknown as DynamoDbAdmin;
  const dax = {
    listClusters: async (f: { runId?: string }) =>
      [...daxClusters.values()].filter((c) => !f.runId || c.tags[TAG_RUN_ID] === f.runId),
    listSupporting: async () => [],
    describeCluster: async (name: string) => ({ status: daxClusters.get(name)?.status ?? 'missing' }),
    clusterTags: async (name: string) => daxClusters.get(name)?.tags ?? null,
    deleteCluster: async (name: string) => {
      const c = daxClusters.get(name);
      if (c) c.status = 'deleting';
      return Boolean(c);
    },
    deleteSupporting: async () => true,
  } as unknown as DaxAdmin;
  return { loaders, nodes, daxClusters, fleet, cluster, tables, dax };
}

describe('the janitor’s second pass: late arrivals', () => {
  let dir: string;
  let store: FsStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'late-arrivals-'));
    store = new FsStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a node created after the run’s teardown ran is terminated by the next janitor run, 15 minutes on', async () => {
    const w = world();
    const deps = (nowMs: number) => ({
      store,
      fleet: w.fleet,
      cluster: w.cluster,
      tables: w.tables,
      clock: { nowMs: () => nowMs },
    });
    w.loaders.set('i-1', { id: 'i-1', state: 'running', tags: tagsOf('late-1') });
    // the Provision branch that failed: TeardownAfterFailure removes the loader, records the run's end
    await teardown({ executionName: 'late-1', status: 'FAILED' }, deps(T0));
    expect(w.loaders.size).toBe(0);
    // the other branch's nodes land afterwards (after its seed wait)
    w.nodes.set('n-0', { id: 'n-0', state: 'running', tags: tagsOf('late-1') });
    w.nodes.set('n-1', { id: 'n-1', state: 'pending', tags: tagsOf('late-1') });

    // 10 minutes on: the record is younger than the limit, the run is left alone
    const early = await janitor(deps(T0 + 10 * MIN));
    expect(early.lateArrivals).toEqual([]);
    expect([...w.nodes.keys()]).toEqual(['n-0', 'n-1']);

    // 16 minutes on: the run is torn down again, the late nodes go
    const late = await janitor(deps(T0 + 16 * MIN));
    expect(late.lateArrivals).toEqual([{ runId: 'late-1', owned: ['node n-0', 'node n-1'] }]);
    expect(late.terminatedNodes).toEqual([]); // not by the first pass: they expire in 12 days
    expect(w.nodes.size).toBe(0);
    const record = (await store.getJson('runs/late-1/teardown.json')) as Record<string, unknown>;
    expect(record).toMatchObject({ terminatedNodes: ['n-0', 'n-1'], passes: 2, failed: true });
  });

  it('a DAX cluster created after the run’s failure record is deleted on a later janitor run', async () => {
    const w = world();
    await store.putJson('runs/late-2/failure.json', { runId: 'late-2', status: 'ABORTED', atMs: T0 });
    w.daxClusters.set('fb-late-2-ddb', {
      name: 'fb-late-2-ddb',
      status: 'available',
      tags: tagsOf('late-2'),
    });
    const out = await janitor({
      store,
      fleet: w.fleet,
      tables: w.tables,
      dax: w.dax,
      clock: { nowMs: () => T0 + LATE_ARRIVAL_AFTER_MS + MIN },
    }).catch((e: Error) => e);
    expect(w.daxClusters.get('fb-late-2-ddb')?.status).toBe('deleting');
    expect(out).not.toBeInstanceOf(Error);
  });

  it('leaves alone a run whose teardown is under 15 minutes old, and a run with no record (still going)', async () => {
    const w = world();
    await store.putJson('runs/recent-1/teardown.json', { runId: 'recent-1', atMs: T0 - 14 * MIN });
    w.nodes.set('n-r', { id: 'n-r', state: 'running', tags: tagsOf('recent-1') });
    w.nodes.set('n-g', { id: 'n-g', state: 'running', tags: tagsOf('going-1') });
    w.loaders.set('i-g', { id: 'i-g', state: 'running', tags: tagsOf('going-1') });
    const out = await janitor({
      store,
      fleet: w.fleet,
      cluster: w.cluster,
      tables: w.tables,
      clock: { nowMs: () => T0 },
    });
    expect(out.lateArrivals).toEqual([]);
    expect([...w.nodes.keys()].sort()).toEqual(['n-g', 'n-r']);
    expect([...w.loaders.keys()]).toEqual(['i-g']);
    expect(await store.exists('runs/going-1/teardown.json')).toBe(false);
  });
});
