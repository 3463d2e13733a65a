/**
 * Teardown and the janitor keep going when one kind of resource fails to go: a loader API error must
 * not leave database nodes or tables behind. The failure is still raised (the Task retries) and the
 * record names it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { janitor, teardown } from '../../../lib/core/pipeline';
import { TAG_EXPIRES_AT, TAG_RUN_ID } from '../../../lib/core/common/ports';
import { teardownWorld } from '../../support/teardown-world';
import { FsStore } from '../../../lib/local/fs-store';

const RUN = 'partial-1';
const tags = { [TAG_RUN_ID]: RUN, [TAG_EXPIRES_AT]: '1000' };

function world(failLoaders: boolean) {
  const loaders = new Map([['i-1', { id: 'i-1', state: 'running', tags }]]);
  const nodes = new Map([
    ['n-0', { id: 'n-0', state: 'running', tags }],
    ['n-1', { id: 'n-1', state: 'running', tags }],
  ]);
  const tables = new Map([['fleetbench-partial-1-ddb', tags]]);
  return teardownWorld({ loaders, nodes, tables, failLoaders });
}

describe('teardown with a failing loader API', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'teardown-partial-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('still terminates the nodes and deletes the tables, then raises the loader error', async () => {
    const w = world(true);
    const store = new FsStore(dir);
    await expect(
      teardown(
        { executionName: RUN, status: 'FAILED' },
        { store, fleet: w.fleet, cluster: w.cluster, tables: w.tableAdmin, clock: { nowMs: () => 5e6 } },
      ),
    ).rejects.toThrow(/terminating loaders: EC2 TerminateInstances: RequestLimitExceeded/);
    expect([...w.nodes.keys()]).toEqual([]);
    expect([...w.tables.keys()]).toEqual([]);
    expect([...w.loaders.keys()]).toEqual(['i-1']);
    const record = (await store.getJson(`runs/${RUN}/teardown.json`)) as Record<string, unknown>;
    expect(record).toMatchObject({
      terminated: [],
      terminatedNodes: ['n-0', 'n-1'],
      deletedTables: ['fleetbench-partial-1-ddb'],
    });
    expect(String(record.errors)).toMatch(/RequestLimitExceeded/);
  });

  it('the janitor does the same with expired resources', async () => {
    const w = world(true);
    await expect(
      janitor({ fleet: w.fleet, cluster: w.cluster, tables: w.tableAdmin, clock: { nowMs: () => 5e6 } }),
    ).rejects.toThrow(/janitor incomplete: terminating loaders/);
    expect([...w.nodes.keys()]).toEqual([]);
    expect([...w.tables.keys()]).toEqual([]);
  });

  it('without failures both succeed and remove everything', async () => {
    const w = world(false);
    const result = await janitor({
      fleet: w.fleet,
      cluster: w.cluster,
      tables: w.tableAdmin,
      clock: { nowMs: () => 5e6 },
    });
    expect(result).toEqual({
      terminated: ['i-1'],
      deletedTables: ['fleetbench-partial-1-ddb'],
      terminatedNodes: ['n-0', 'n-1'],
    });
  });

  it("terminates no loader or node whose own tag is another run's (an adapter that ignores the filter)", async () => {
    const w = world(false);
    const other = { [TAG_RUN_ID]: 'other-run', [TAG_EXPIRES_AT]: '1000' };
    w.loaders.set('i-2', { id: 'i-2', state: 'running', tags: other });
    w.nodes.set('n-9', { id: 'n-9', state: 'running', tags: other });
    const r = await teardown(
      { executionName: RUN },
      {
        store: new FsStore(dir),
        fleet: w.fleet,
        cluster: w.cluster,
        tables: w.tableAdmin,
        clock: { nowMs: () => 5e6 },
      },
    );
    expect(r).toMatchObject({ terminated: ['i-1'], terminatedNodes: ['n-0', 'n-1'] });
    expect([...w.loaders.keys()]).toEqual(['i-2']);
    expect([...w.nodes.keys()]).toEqual(['n-9']);
  });
});
