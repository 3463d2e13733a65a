/**
 * Per-target lifecycles (issue #33): the run context's target spans, and TeardownTarget removing one target's
 * resources only (its table from the context, its nodes by their target tag) through the ownership rule, leaving
 * the loaders and the other target's resources; the run's Teardown still removes everything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { teardown } from '../../../lib/core/pipeline';
import { teardownTarget } from '../../../lib/core/pipeline/teardown';
import { targetSpans, type RunContext } from '../../../lib/core/pipeline/run-context';
import { TAG_RUN_ID } from '../../../lib/core/common/ports';
import { teardownWorld } from '../../support/teardown-world';
import { TAG_TARGET } from '../../../lib/core/targets/nodes/cluster';
import { FsStore } from '../../../lib/local/fs-store';
import { InputError } from '../../../lib/core/common/errors';

const RUN = 'per-target-1';
const own = { [TAG_RUN_ID]: RUN };

describe('targetSpans', () => {
  it("gives each target its cells' and its load's half-open ranges, in the spec's order", () => {
    const cells = ['a', 'a', 'a', 'b', 'b', 'c'].map((target) => ({ target }));
    // b is not loaded (an existingTable): no load phase of its own
    expect(targetSpans(['a', 'b', 'c'], cells, ['a', 'c'])).toEqual([
      { id: 'a', loadStart: 0, loadEnd: 1, cellStart: 0, cellEnd: 3 },
      { id: 'b', loadStart: 0, loadEnd: 0, cellStart: 3, cellEnd: 5 },
      { id: 'c', loadStart: 1, loadEnd: 2, cellStart: 5, cellEnd: 6 },
    ]);
  });

  it('refuses cells of a target that are not consecutive (the state machine runs a range)', () => {
    const cells = ['a', 'b', 'a'].map((target) => ({ target }));
    expect(() => targetSpans(['a', 'b'], cells, [])).toThrow(/cells of target "a" are not consecutive/);
  });
});

function world() {
  const loaders = new Map([['i-1', { id: 'i-1', state: 'running', tags: own }]]);
  const nodes = new Map(
    ['x-0', 'x-1', 'y-0'].map((id) => [
      id,
      { id, state: 'running', tags: { ...own, [TAG_TARGET]: id.startsWith('x') ? 'nodes-x' : 'nodes-y' } },
    ]),
  );
  const tables = new Map([
    ['fleetbench-s.ddb-a.per-target-1', own],
    ['fleetbench-s.ddb-b.per-target-1', own],
  ]);
  const { fleet, cluster, tableAdmin } = teardownWorld({ loaders, nodes, tables });
  const table = (targetId: string) => ({
    type: 'dynamodb-table',
    targetId,
    name: `fleetbench-s.${targetId}.${RUN}`,
    owned: true,
  });
  const node = (targetId: string, n: number) => ({
    type: 'database-node',
    targetId,
    nodes: n,
    api: 'cql',
    table: 'usertable',
  });
  const run = {
    runId: RUN,
    specName: 's',
    storeUri: 'file:///x',
    startedAtMs: 0,
    cellCount: 4,
    loadTargets: [],
    loadCount: 0,
    loaders: 1,
    instanceType: 'c5.large',
    resources: [table('ddb-a'), node('nodes-x', 2), table('ddb-b'), node('nodes-y', 1)],
    targets: ['ddb-a', 'nodes-x', 'ddb-b', 'nodes-y'].map((id, i) => ({
      id,
      loadStart: 0,
      loadEnd: 0,
      cellStart: i,
      cellEnd: i + 1,
    })),
    expiresAt: 9e9,
  } as RunContext;
  return { loaders, nodes, tables, run, ports: { fleet, cluster, tables: tableAdmin } };
}

describe('TeardownTarget', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'teardown-target-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("removes one target's resources and leaves the loaders and the other targets'", async () => {
    const w = world();
    const store = new FsStore(dir);
    const deps = { ...w.ports, store, clock: { nowMs: () => 1000 } };
    const a = await teardownTarget({ run: w.run, target: 0 }, deps);
    expect(a).toMatchObject({ target: 'ddb-a', deletedTables: ['fleetbench-s.ddb-a.per-target-1'] });
    // the loaders serve the next target: its record says nothing of them (not "terminated none")
    expect(a).not.toHaveProperty('terminated');
    expect([...w.tables.keys()]).toEqual(['fleetbench-s.ddb-b.per-target-1']);
    expect(w.nodes.size).toBe(3);
    // a node target: its nodes by their target tag, not the other cluster's
    const x = await teardownTarget({ run: w.run, target: 1 }, deps);
    expect(x).toMatchObject({ target: 'nodes-x', terminatedNodes: ['x-0', 'x-1'], deletedTables: [] });
    expect([...w.nodes.keys()]).toEqual(['y-0']);
    expect([...w.loaders.keys()]).toEqual(['i-1']);
    expect(await store.getJson(`runs/${RUN}/teardown/nodes-x.json`)).toMatchObject({
      terminatedNodes: ['x-0', 'x-1'],
      atMs: 1000,
    });
    // the run's Teardown (at the end, or on a failure) still removes everything left
    await teardown({ run: w.run }, deps);
    expect([w.tables.size, w.nodes.size, w.loaders.size]).toEqual([0, 0, 0]);
    // its record lists what the targets' teardowns removed first, then its own
    expect(await store.getJson(`runs/${RUN}/teardown.json`)).toMatchObject({
      deletedTables: ['fleetbench-s.ddb-a.per-target-1', 'fleetbench-s.ddb-b.per-target-1'],
      terminatedNodes: ['x-0', 'x-1', 'y-0'],
      terminated: ['i-1'],
    });
  });

  it('keeps a table without the run tag (the ownership rule), and refuses an index outside the run', async () => {
    const w = world();
    w.tables.set('fleetbench-s.ddb-a.per-target-1', { [TAG_RUN_ID]: 'another-run' });
    const deps = { ...w.ports, store: new FsStore(dir), clock: { nowMs: () => 1000 } };
    expect(await teardownTarget({ run: w.run, target: 0 }, deps)).toMatchObject({
      deletedTables: [],
      keptTables: ['fleetbench-s.ddb-a.per-target-1'],
    });
    await expect(teardownTarget({ run: w.run, target: 4 }, deps)).rejects.toThrow(InputError);
  });
});
