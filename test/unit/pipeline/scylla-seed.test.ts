/**
 * Defect 10: ScyllaDB nodes 1..n are launched only once node 0 (their seed) is running, with node 0's
 * address as their seed; a seed that never runs fails ProvisionTarget with nothing else launched.
 * The cluster port is an in-memory EC2 stand-in whose node 0 stays `pending` for a number of checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TAG_NODE_INDEX } from '../../../lib/core/targets/nodes/cluster';
import { plan, provisionTarget } from '../../../lib/core/pipeline';
import { SEED_POLL_MS, SEED_RUNNING_POLLS } from '../../../lib/core/targets/nodes/provision';
import type {
  DbNodeAdmin,
  ClusterNode,
  NodeLaunchRequest,
  DynamoDbAdmin,
} from '../../../lib/core/common/ports';
import { FsStore } from '../../../lib/local/fs-store';

const spec = {
  name: 'seeded',
  targets: [{ id: 'scylla', kind: 'scylla-ec2', nodes: 3, api: 'cql', replicationFactor: 3 }],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.5], targetOpsPerSec: [3000], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 3, threadsPerProcess: 10 },
};

/** EC2 as ProvisionTarget sees it: node 0 is pending for `pendingChecks` list() calls. */
class SlowSeedCluster implements DbNodeAdmin {
  readonly events: string[] = [];
  private readonly nodes: ClusterNode[] = [];
  private checks = 0;
  constructor(private readonly pendingChecks: number) {}
  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    const out = req.nodes.map((n) => {
      const seeds = JSON.parse(Buffer.from(n.userData, 'base64').toString()).scylla_yaml.seed_provider;
      this.events.push(`launch ${n.index} seeds=${seeds ? seeds[0].parameters[0].seeds : '-'}`);
      const node = {
        id: `i-${n.index}`,
        state: 'pending',
        privateIp: `10.0.0.${10 + n.index}`,
        tags: n.tags,
      };
      this.nodes.push(node);
      return { ...node };
    });
    return out;
  }
  async list(): Promise<ClusterNode[]> {
    this.checks++;
    const seed = this.nodes.find((n) => n.tags[TAG_NODE_INDEX] === '0');
    if (seed && this.checks > this.pendingChecks) seed.state = 'running';
    this.events.push(`list: node 0 ${seed?.state ?? 'absent'}`);
    return this.nodes.map((n) => ({ ...n }));
  }
  async terminate(): Promise<void> {}
}

const noTables = {} as DynamoDbAdmin;
let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-seed-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('launches nodes 1 and 2 only after node 0 runs, seeded with its address', async () => {
  const store = new FsStore(dir);
  const run = await plan({ executionName: 'seeded-1', spec }, { store, clock: { nowMs: () => 0 } });
  const cluster = new SlowSeedCluster(3);
  const slept: number[] = [];
  const result = await provisionTarget(run, {
    store,
    tables: noTables,
    cluster,
    sleep: async (ms) => void slept.push(ms),
  });
  expect(cluster.events).toEqual([
    'list: node 0 absent', // what exists already (nothing)
    'launch 0 seeds=-',
    'list: node 0 pending',
    'list: node 0 pending',
    'list: node 0 running',
    'launch 1 seeds=10.0.0.10',
    'launch 2 seeds=10.0.0.10',
  ]);
  expect(slept).toEqual([SEED_POLL_MS, SEED_POLL_MS, SEED_POLL_MS]);
  expect(result.nodes).toEqual(['i-0', 'i-1', 'i-2']);
});

it('a seed that never runs fails the step and launches no other node', async () => {
  const store = new FsStore(dir);
  const run = await plan({ executionName: 'seeded-2', spec }, { store, clock: { nowMs: () => 0 } });
  const cluster = new SlowSeedCluster(1000);
  const err = await provisionTarget(run, { store, tables: noTables, cluster, sleep: async () => {} }).catch(
    (e: unknown) => e as Error,
  );
  expect(err).toMatchObject({ name: 'StepFailedError' });
  expect((err as Error).message).toBe(
    `ProvisionTarget: node 0 (the seed) of scylla is pending ${(SEED_RUNNING_POLLS * SEED_POLL_MS) / 1000} s after launch; nodes 1-2 were not launched`,
  );
  expect(cluster.events.filter((e) => e.startsWith('launch'))).toEqual(['launch 0 seeds=-']);
});

/** EC2 on a clock 100× faster than real time: each seed runs 60 s (of that clock) after its launch. */
class TimedSeedCluster implements DbNodeAdmin {
  static readonly SCALE = 100;
  readonly launched: { target: string; index: number; atS: number }[] = [];
  private readonly nodes: (ClusterNode & { launchedAtMs: number })[] = [];
  private readonly t0 = Date.now();
  nowS(): number {
    return ((Date.now() - this.t0) * TimedSeedCluster.SCALE) / 1000;
  }
  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    return req.nodes.map((n) => {
      this.launched.push({ target: req.targetId, index: n.index, atS: this.nowS() });
      const node = {
        id: `i-${req.targetId}-${n.index}`,
        state: 'pending',
        privateIp: '10.0.0.9',
        tags: n.tags,
      };
      this.nodes.push({ ...node, launchedAtMs: Date.now() });
      return node;
    });
  }
  async list(): Promise<ClusterNode[]> {
    for (const n of this.nodes)
      if (((Date.now() - n.launchedAtMs) * TimedSeedCluster.SCALE) / 1000 >= 60) n.state = 'running';
    return this.nodes.map(({ launchedAtMs: _, ...n }) => ({ ...n }));
  }
  async terminate(): Promise<void> {}
}

it('two clusters wait for their seeds side by side: one 60-s seed wait fits the 120-s Lambda, not two in a row', async () => {
  const store = new FsStore(dir);
  const two = {
    ...spec,
    targets: [
      { id: 'a', kind: 'scylla-ec2', nodes: 2, api: 'cql', replicationFactor: 2 },
      { id: 'b', kind: 'scylla-ec2', nodes: 2, api: 'cql', replicationFactor: 2 },
    ],
  };
  const run = await plan({ executionName: 'seeded-3', spec: two }, { store, clock: { nowMs: () => 0 } });
  const cluster = new TimedSeedCluster();
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms / TimedSeedCluster.SCALE));
  const result = await provisionTarget(run, { store, tables: noTables, cluster, sleep });
  expect(result.nodes).toHaveLength(4);
  // both seeds launched at once; the last node within one seed wait (60 s and a poll), far below 120 s
  const seeds = cluster.launched.filter((l) => l.index === 0);
  expect(seeds.map((s) => s.target).sort()).toEqual(['a', 'b']);
  expect(Math.max(...seeds.map((s) => s.atS))).toBeLessThan(10);
  expect(Math.max(...cluster.launched.map((l) => l.atS))).toBeLessThan(100);
});
