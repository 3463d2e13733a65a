/**
 * scylla-ec2 (Alternator) in the local mode: the state machine provisions stand-in nodes (one
 * process each, forwarding to one DynamoDB Local), waits until every node answers Alternator's
 * health check, creates the table, loads and runs YCSB spread over all node endpoints, and tears the
 * nodes down; on an injected failure the nodes are gone too.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import type { LocalCluster } from '../../lib/local/cluster';
import { runLocal } from '../../lib/local/runner';
import { pidAlive } from '../support/processes';

const spec = validateSpec({
  name: 'scylla-local',
  targets: [
    {
      id: 'scylla',
      kind: 'scylla-ec2',
      nodes: 3,
      api: 'alternator',
      alternator: { port: 8000, writeIsolation: 'forbid_rmw' },
      expectedLatencyMs: 20,
    },
  ],
  dataset: { recordCount: 500 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [60],
    distributions: ['uniform'],
    durationSeconds: 5,
    warmupSeconds: 1,
  },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
}).spec;

function readJson(...p: string[]): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(...p), 'utf8')) as Record<string, unknown>;
}

describe('scylla-ec2 (Alternator) on local stand-in nodes', () => {
  it('provisions 3 nodes, runs a cell over all of them, and tears them down', async () => {
    const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-scylla-'));
    let cluster: LocalCluster | undefined;
    const pids: number[] = [];
    const result = await runLocal({
      spec,
      resultsDir,
      runName: 'scylla-run',
      // poll every second instead of sleeping until the computed expected end (30 s of JVM allowance)
      waitMs: 1000,
      out: () => undefined,
      onCluster: (c) => {
        cluster = c;
        const orig = c.launch.bind(c);
        c.launch = async (req) => {
          const nodes = await orig(req);
          for (const pid of c.runningPids()) if (!pids.includes(pid)) pids.push(pid);
          return nodes;
        };
      },
    });
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });

    // node 0 first (seeds itself), then nodes 1 and 2 seeded with node 0's address
    const launches = cluster!.launches;
    expect(launches.map((l) => l.nodes.map((n) => n.index))).toEqual([[0], [1, 2]]);
    const yaml = (l: number, n: number) =>
      JSON.parse(Buffer.from(launches[l]!.nodes[n]!.userData, 'base64').toString('utf8')).scylla_yaml;
    expect(yaml(0, 0)).toMatchObject({
      cluster_name: 'fleetbench-scylla-run-scylla',
      alternator_port: 8000,
      alternator_write_isolation: 'forbid_rmw',
      native_transport_port: 9042,
    });
    expect(yaml(0, 0).seed_provider).toBeUndefined();
    expect(yaml(1, 1).seed_provider[0].parameters[0].seeds).toBe('127.0.0.1');
    expect(launches[1]!.nodes[1]!.tags).toMatchObject({
      'fleetbench:run-id': 'scylla-run',
      'fleetbench:role': 'scylla-node',
      'fleetbench:target': 'scylla',
      'fleetbench:node-index': '2',
    });
    expect(Number(launches[0]!.nodes[0]!.tags['fleetbench:expires-at'])).toBeGreaterThan(Date.now() / 1000);

    // the cell ran against all three endpoints (client-side spreading), and every node forwarded requests
    const job = readJson(
      resultsDir,
      'runs',
      'scylla-run',
      'cells',
      'scylla.uniform.r50.t60',
      'jobs',
      'local-scylla-run-0.json',
    ) as { processes: Record<string, string>[] };
    expect(job.processes[0]!['dynamodb.endpoint']!.split(',')).toHaveLength(3);
    const forwarded = Object.values(cluster!.forwarded());
    expect(forwarded).toHaveLength(3);
    for (const n of forwarded) expect(n).toBeGreaterThan(20);

    const cell = readJson(resultsDir, 'runs', 'scylla-run', 'cells', 'scylla.uniform.r50.t60', 'result.json');
    expect(JSON.stringify(cell)).toContain('scylla.uniform.r50.t60');

    // teardown terminated the nodes; no node process is left
    const teardown = readJson(resultsDir, 'runs', 'scylla-run', 'teardown.json');
    expect((teardown.terminatedNodes as string[]).sort()).toEqual([
      'node-scylla-run-scylla-0',
      'node-scylla-run-scylla-1',
      'node-scylla-run-scylla-2',
    ]);
    expect(cluster!.runningPids()).toEqual([]);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
  }, 240_000);

  it('a failure after provisioning (StartCell) still terminates every node', async () => {
    const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-scylla-fault-'));
    let cluster: LocalCluster | undefined;
    const pids: number[] = [];
    // which live nodes each terminate call stopped (the pipeline's teardown comes before the runner's backstop)
    const terminateCalls: string[][] = [];
    const result = await runLocal({
      spec,
      resultsDir,
      runName: 'scylla-fault',
      failAt: 'StartCell',
      fastRetries: true,
      waitMs: 500,
      out: () => undefined,
      onCluster: (c) => {
        cluster = c;
        const orig = c.launch.bind(c);
        c.launch = async (req) => {
          const nodes = await orig(req);
          for (const pid of c.runningPids()) if (!pids.includes(pid)) pids.push(pid);
          return nodes;
        };
        const terminate = c.terminate.bind(c);
        c.terminate = async (ids) => {
          const live = (await c.list({})).map((n) => n.id).filter((id) => ids.includes(id));
          terminateCalls.push(live);
          return terminate(ids);
        };
      },
    });
    expect(result).toMatchObject({ status: 'FAILED', failedState: 'StartCell' });
    expect(pids).toHaveLength(3);
    // the catch's teardown terminated all three (later teardowns and the runner find nothing left)
    expect(terminateCalls[0]?.sort()).toEqual([
      'node-scylla-fault-scylla-0',
      'node-scylla-fault-scylla-1',
      'node-scylla-fault-scylla-2',
    ]);
    expect(terminateCalls.slice(1).flat()).toEqual([]);
    const teardown = readJson(resultsDir, 'runs', 'scylla-fault', 'teardown.json');
    expect(teardown).toMatchObject({ failed: true });
    // the backstop pass found nothing left; the record still lists what the Catch's pass removed
    expect([...(teardown.terminatedNodes as string[])].sort()).toEqual(terminateCalls[0]);
    expect(existsSync(path.join(resultsDir, 'runs', 'scylla-fault', 'failure.json'))).toBe(true);
    expect(cluster!.runningPids()).toEqual([]);
    for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
  }, 240_000);
});
