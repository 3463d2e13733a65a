/**
 * cassandra-ec2 in the local mode, for real: `examples/local-cassandra.json` through the state machine.
 * ProvisionTarget builds each node's EC2 user data (the bootstrap script); the local cluster runs THAT
 * script with loopback parameters: two Apache Cassandra 5.0.6 nodes from the Maven Central asset, started
 * one after the other. Once both answer, WaitReady's schema step is where this test also checks the ring:
 * the loaders' bash CQL probe reads release_version from both nodes, node 0 sees node 1 as a peer, and a
 * row written at QUORUM (RF 2) through node 0 is read through node 1. Then YCSB's CQL binding loads and
 * runs the cell: every operation must succeed; teardown stops both JVMs and removes their directories.
 * ~90 s on 2 shared cores (two JVMs of 512 MB heap).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  cassandraBootstrapScript,
  ec2NodeParams,
  scriptVariable,
} from '../../lib/core/targets/cassandra-ec2/node';
import { CQL_KEYSPACE, CQL_TABLE, type SchemaRequest } from '../../lib/core/targets/nodes/cluster';
import { validateSpec } from '../../lib/core/spec';
import type { CassandraEc2Target } from '../../lib/core/spec/schema';
import type { EndpointHealth } from '../../lib/core/common/ports';
import type { LocalCluster } from '../../lib/local/cluster';
import { CqlLoginError, cqlQuery } from '../../lib/local/cql-client';
import { RELEASE_VERSION_QUERY, type CqlResponse } from '../../lib/core/targets/nodes/cql-wire';
import { runLocal } from '../../lib/local/runner';
import { pidAlive } from '../support/processes';

const ROOT = path.join(__dirname, '../..');
const spec = validateSpec(
  JSON.parse(readFileSync(path.join(ROOT, 'examples/local-cassandra.json'), 'utf8')),
).spec;
const target = spec.targets[0] as CassandraEc2Target;

it('two loopback Cassandra nodes from the bootstrap script form one ring, serve QUORUM, and run a cell', async () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cassandra-'));
  let cluster: LocalCluster | undefined;
  const pids: number[] = [];
  const ring: {
    health?: EndpointHealth[];
    anonymous?: string;
    peers?: CqlResponse;
    write?: CqlResponse;
    read?: CqlResponse;
  } = {};
  const t0 = Date.now();
  const result = await runLocal({
    spec,
    resultsDir,
    runName: 'cass-run',
    waitMs: 1000,
    out: () => undefined,
    onCluster: (c) => {
      cluster = c;
      const createSchema = c.createSchema.bind(c);
      c.createSchema = async (req: SchemaRequest) => {
        await createSchema(req);
        if (req.api !== 'cql') return;
        pids.push(...c.runningPids());
        const eps = req.hosts.map((h) => ({ host: h.split(':')[0]!, port: Number(h.split(':')[1]) }));
        ring.health = await c.check('cql', eps);
        // PasswordAuthenticator: nothing without the run's login (the secret ProvisionTarget made)
        ring.anonymous = await cqlQuery(eps[0]!, [RELEASE_VERSION_QUERY]).then(
          () => 'served',
          (err: unknown) => (err instanceof CqlLoginError ? 'refused' : String(err)),
        );
        const credentials = c.logins.get(req.login!)!;
        [ring.peers] = await cqlQuery(eps[0]!, ['SELECT peer, data_center, rack FROM system.peers'], {
          credentials,
        });
        const table = `${CQL_KEYSPACE}.${CQL_TABLE}`;
        [ring.write] = await cqlQuery(
          eps[0]!,
          [`INSERT INTO ${table} (y_id, field0) VALUES ('check', 'q')`],
          { consistency: 'QUORUM', credentials },
        );
        // node 1 may briefly hold node 0 down after the write (gossip's failure detector on a loaded
        // 2-core machine): an Unavailable answer (0x1000) is asked again, for up to 20 s
        for (let attempt = 0; attempt < 20; attempt++) {
          [ring.read] = await cqlQuery(eps[1]!, [`SELECT field0 FROM ${table} WHERE y_id = 'check'`], {
            consistency: 'QUORUM',
            credentials,
          });
          const r = ring.read as { kind: string; code?: number };
          if (!(r.kind === 'error' && r.code === 0x1000)) break;
          await new Promise((done) => setTimeout(done, 1000));
        }
      };
    },
  });
  const seconds = (Date.now() - t0) / 1000;
  expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });

  // both nodes answer the loaders' probe; once the run's role replaced the default superuser they
  // refuse its login (WaitReady read their version with it before; a node's role cache may still
  // accept it for 2 s, and then the version shows); no credentials, no CQL
  expect(
    ring.health!.map(
      (h) => h.ok && (h.version === '5.0.6' || /refuses the default login/.test(h.detail ?? '')),
    ),
  ).toEqual([true, true]);
  expect(ring.anonymous).toBe('refused');
  expect(ring.peers).toEqual({
    kind: 'rows',
    columns: ['peer', 'data_center', 'rack'],
    rows: [['127.0.0.12', 'local', 'rack1']],
  });
  expect(ring.write).toEqual({ kind: 'void' });
  expect(ring.read).toEqual({ kind: 'rows', columns: ['field0'], rows: [['q']] });

  // what ran is the EC2 user data the pipeline made, with only its parameters changed
  const launches = cluster!.launches;
  expect(launches.map((l) => [l.software, l.dataVolumeGb, l.nodes.map((n) => n.index)])).toEqual([
    ['apache-cassandra', 20, [0]],
    ['apache-cassandra', 20, [1]],
  ]);
  const ec2 = (l: number) => Buffer.from(launches[l]!.nodes[0]!.userData, 'base64').toString('utf8');
  expect(scriptVariable(ec2(0), 'FB_LISTEN')).toBe('imds');
  expect(scriptVariable(ec2(0), 'FB_HEAP_MB')).toBe('4096'); // c5.2xlarge: 16 GiB → 1/4 = 4096 MB
  expect(scriptVariable(ec2(0), 'FB_SEEDS')).toBe('');
  expect(scriptVariable(ec2(0), 'FB_AUTHENTICATOR')).toBe('PasswordAuthenticator');
  expect(scriptVariable(ec2(1), 'FB_SEEDS')).toBe('127.0.0.11:7000'); // node 0's IP, Cassandra's port
  const body = (s: string) => s.slice(s.indexOf('\nlog() {'));
  const reference = cassandraBootstrapScript(ec2NodeParams({ target, runId: 'r', index: 1, asset: '/x' }));
  const ran = [...cluster!.scripts.values()];
  expect(ran).toHaveLength(2);
  for (const [i, script] of ran.entries()) {
    expect(body(script)).toBe(body(reference));
    expect(body(script)).toBe(body(ec2(i)));
    expect(scriptVariable(script, 'FB_LISTEN')).toBe(`127.0.0.1${1 + i}`);
    expect(scriptVariable(script, 'FB_HEAP_MB')).toBe('512');
  }

  // the cell: loaded and run through the CQL binding, every operation succeeded
  const cell = JSON.parse(
    readFileSync(
      path.join(resultsDir, 'runs', 'cass-run', 'cells', 'cassandra.uniform.r50.t100', 'result.json'),
      'utf8',
    ),
  ) as { row: Record<string, number | string | null> };
  expect(cell.row.target_kind).toBe('cassandra-ec2');
  expect(cell.row.errors).toBe(0);
  expect(Number(cell.row.read_service_count)).toBeGreaterThan(100);
  expect(Number(cell.row.update_service_count)).toBeGreaterThan(100);
  // 2 × c5.2xlarge (0.34 $/h, price book 2024-11) × 730 h + 2 × (20 GB data + 30 GB root) gp3 × 0.08 $/GB-month
  expect(cell.row.monthly_cost_usd).toBeCloseTo(2 * 0.34 * 730 + 2 * 50 * 0.08, 2);

  // teardown: both nodes terminated, no JVM left, directories removed
  const teardown = JSON.parse(
    readFileSync(path.join(resultsDir, 'runs', 'cass-run', 'teardown.json'), 'utf8'),
  );
  expect(teardown.terminatedNodes.sort()).toEqual(['node-cass-run-cassandra-0', 'node-cass-run-cassandra-1']);
  expect(teardown.deletedSecrets).toEqual(['fleetbench/cass-run/cassandra-cql']);
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
  for (const d of cluster!.nodeDirs()) expect(existsSync(d)).toBe(false);
  console.log(`local-cassandra: ${seconds} s`);
}, 420_000);
