/**
 * cassandra-ec2 nodes for real: the pipeline's ProvisionTarget code (provisionCluster) builds each node's
 * EC2 user data (the bootstrap script), and the local cluster runs THAT script with loopback parameters:
 * two Apache Cassandra 5.0.6 nodes from the Maven Central asset, started one after the other. Then the
 * loaders' probe (the bash CQL probe a loader runs over SSM on AWS) must read release_version from both,
 * node 0 must see node 1 as a peer with its rack, and a row written at QUORUM with RF 2 through node 0 must
 * be read through node 1. ~60 s on 2 shared cores (two JVMs of 512 MB heap); runs once per `npm test`.
 */
import { existsSync } from 'node:fs';
import { cassandraBootstrapScript, ec2NodeParams, scriptVariable } from '../../lib/core/cassandra-node';
import { CQL_KEYSPACE, CQL_TABLE, nodeEndpoints, schemaRequest, targetNodes } from '../../lib/core/cluster';
import { provisionCluster } from '../../lib/core/pipeline/provision';
import type { RunContext } from '../../lib/core/pipeline/context';
import { validateSpec } from '../../lib/core/spec';
import type { CassandraEc2Target } from '../../lib/core/spec/schema';
import { ensureCassandraAsset, localJava } from '../../lib/local/cassandra-asset';
import { LocalCluster } from '../../lib/local/cluster';
import { cqlQuery } from '../../lib/local/cql-client';
import { pidAlive } from '../support/processes';

jest.setTimeout(400_000);

const spec = validateSpec({
  name: 'cassandra-local',
  targets: [
    { id: 'cass', kind: 'cassandra-ec2', nodes: 2, replicationFactor: 2, instanceType: 'c5.2xlarge' },
  ],
  dataset: { recordCount: 10 },
  workload: { targetOpsPerSec: [10], durationSeconds: 10 },
  loaders: { count: 1 },
}).spec;
const target = spec.targets[0] as CassandraEc2Target;
const run = { runId: 'cass-it', specName: spec.name, expiresAt: 4_000_000_000 } as RunContext;

let cluster: LocalCluster;
let pids: number[] = [];

beforeAll(async () => {
  cluster = new LocalCluster({ cassandra: { asset: await ensureCassandraAsset(), java: await localJava() } });
});

afterAll(async () => {
  await cluster?.killAll();
});

it('starts two nodes from the bootstrap script; both answer the CQL probe, form one ring, and serve QUORUM', async () => {
  const t0 = Date.now();
  const launched = await provisionCluster(run, target, {}, cluster, async () => undefined);
  expect(launched).toHaveLength(2);
  // what ran is the EC2 user data the pipeline made, with only its parameters changed
  const req0 = cluster.launches[0]!;
  expect(req0.kind).toBe('cassandra-ec2');
  expect(req0.dataVolumeGb).toBe(500);
  const ec2Script = Buffer.from(req0.nodes[0]!.userData, 'base64').toString('utf8');
  expect(scriptVariable(ec2Script, 'FB_LISTEN')).toBe('imds');
  expect(scriptVariable(ec2Script, 'FB_HEAP_MB')).toBe('4096'); // c5.2xlarge: 16 GiB → 1/4 = 4096 MB
  const node1Script = Buffer.from(cluster.launches[1]!.nodes[0]!.userData, 'base64').toString('utf8');
  expect(scriptVariable(node1Script, 'FB_SEEDS')).toBe('127.0.0.11:7000'); // node 0's IP, Cassandra's port
  const body = (script: string) => script.slice(script.indexOf('\nlog() {'));
  const ran = [...cluster.scripts.values()];
  expect(ran).toHaveLength(2);
  for (const script of ran) {
    expect(body(script)).toBe(body(ec2Script));
    expect(scriptVariable(script, 'FB_LISTEN')).toMatch(/^127\.0\.0\.1[12]$/);
    expect(scriptVariable(script, 'FB_HEAP_MB')).toBe('512');
  }
  expect(body(ec2Script)).toBe(body(cassandraBootstrapScript(ec2NodeParams({ target, runId: 'r', index: 1, asset: '/x' }))));
  pids = cluster.runningPids();
  expect(pids).toHaveLength(2);

  const nodes = targetNodes(await cluster.list({ runId: run.runId }), target.id);
  const endpoints = nodeEndpoints(target, nodes);
  expect(endpoints.map((e) => e.host)).toEqual(['127.0.0.11', '127.0.0.12']);
  const health = await cluster.check('cql', endpoints);
  expect(health.map((h) => [h.ok, h.version])).toEqual([
    [true, '5.0.6'],
    [true, '5.0.6'],
  ]);

  const [peers] = await cqlQuery(endpoints[0]!, ['SELECT peer, data_center, rack FROM system.peers']);
  expect(peers).toEqual({
    kind: 'rows',
    columns: ['peer', 'data_center', 'rack'],
    rows: [['127.0.0.12', 'local', 'rack1']],
  });

  await cluster.createSchema(schemaRequest({ target, endpoints, table: CQL_TABLE, fieldCount: 2 }));
  const table = `${CQL_KEYSPACE}.${CQL_TABLE}`;
  const [write] = await cqlQuery(
    endpoints[0]!,
    [`INSERT INTO ${table} (y_id, field0, field1) VALUES ('user1', 'a', 'b')`],
    { consistency: 'QUORUM' },
  );
  expect(write).toEqual({ kind: 'void' });
  const [read] = await cqlQuery(endpoints[1]!, [`SELECT field0, field1 FROM ${table} WHERE y_id = 'user1'`], {
    consistency: 'QUORUM',
  });
  expect(read).toEqual({ kind: 'rows', columns: ['field0', 'field1'], rows: [['a', 'b']] });
  console.log(`two Cassandra nodes up, schema, QUORUM write and read: ${(Date.now() - t0) / 1000} s`);

  await cluster.killAll();
  expect(pids.filter(pidAlive)).toEqual([]);
  for (const d of cluster.nodeDirs()) expect(existsSync(d)).toBe(false);
});
