/**
 * The scylla-ec2 domain: the AMI's user data, the AMI lookup, the loader properties per API, the
 * seed appendix's keyspace/table statements, and the loader-side probe scripts (run here under
 * bash against real sockets).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import {
  amiQuery,
  cqlSchemaStatements,
  healthScript,
  nodeUserData,
  parseHealth,
  pickImage,
  PROBE_PARAMETERS,
  probeDocumentScript,
  probeParameters,
  schemaRequest,
  schemaScript,
  scyllaJobProperties,
} from '../../../lib/core/targets/nodes/cluster';
import { validateSpec, type ScyllaEc2Target } from '../../../lib/core/spec';
import { freePort } from '../../support/moto';

function target(t: Record<string, unknown> = {}): ScyllaEc2Target {
  const { spec } = validateSpec({
    name: 's',
    targets: [{ id: 'scylla', kind: 'scylla-ec2', ...t }],
    dataset: { recordCount: 10 },
    workload: { targetOpsPerSec: [10], durationSeconds: 10 },
  });
  return spec.targets[0] as ScyllaEc2Target;
}

describe('node user data (scylla-machine-image JSON format)', () => {
  it('sets cluster name, CQL port, and Alternator port together with its write isolation', () => {
    const u = nodeUserData({ target: target(), runId: 'r1', seeds: [] });
    expect(u).toEqual({
      scylla_yaml: {
        cluster_name: 'fleetbench-r1-scylla',
        native_transport_port: 9042,
        alternator_port: 8000,
        alternator_write_isolation: 'only_rmw_uses_lwt',
        endpoint_snitch: 'org.apache.cassandra.locator.Ec2Snitch',
      },
      start_scylla_on_first_boot: true,
    });
  });

  it('names the seeds for the nodes after the first, and follows the spec ports', () => {
    const u = nodeUserData({
      target: target({ alternator: { port: 8080, writeIsolation: 'always_use_lwt' }, cql: { port: 19000 } }),
      runId: 'r1',
      seeds: ['10.0.1.5'],
    });
    expect(u.scylla_yaml).toMatchObject({
      alternator_port: 8080,
      alternator_write_isolation: 'always_use_lwt',
      native_transport_port: 19000,
      seed_provider: [
        {
          class_name: 'org.apache.cassandra.locator.SimpleSeedProvider',
          parameters: [{ seeds: '10.0.1.5' }],
        },
      ],
    });
  });
});

describe('AMI lookup', () => {
  it('a given id is used; a version searches ScyllaDB owners by name for the architecture', () => {
    expect(amiQuery(target({ ami: { id: 'ami-0123456789abcdef0' } }), 'x86_64')).toEqual({
      imageId: 'ami-0123456789abcdef0',
    });
    expect(amiQuery(target({ ami: { scyllaVersion: '2025.1' } }), 'arm64')).toEqual({
      owners: ['797456418907', '158855661827'],
      namePatterns: ['ScyllaDB 2025.1*', 'ScyllaDB Enterprise 2025.1*'],
      architecture: 'arm64',
      version: '2025.1',
    });
  });

  it('picks the newest image of exactly that version', () => {
    const imgs = [
      { imageId: 'a', name: 'ScyllaDB 2025.1.0', creationDate: '2025-03-01T00:00:00Z' },
      { imageId: 'b', name: 'ScyllaDB 2025.1.3', creationDate: '2025-06-01T00:00:00Z' },
      { imageId: 'c', name: 'ScyllaDB 2025.10.0', creationDate: '2026-01-01T00:00:00Z' },
      { imageId: 'd', name: 'ScyllaDB Enterprise 2024.1.12', creationDate: '2025-01-01T00:00:00Z' },
    ];
    expect(pickImage(imgs, '2025.1')?.imageId).toBe('b');
    expect(pickImage(imgs, '2024.1')?.imageId).toBe('d');
    expect(pickImage(imgs, '6.2')).toBeUndefined();
  });
});

describe('loader properties', () => {
  const endpoints = [
    { host: '10.0.0.1', port: 8000 },
    { host: '10.0.1.2', port: 8000 },
    { host: '10.0.2.3', port: 8000 },
  ];
  it('Alternator: every node endpoint, for client-side spreading', () => {
    expect(scyllaJobProperties(target(), endpoints)).toEqual({
      'dynamodb.endpoint': 'http://10.0.0.1:8000,http://10.0.1.2:8000,http://10.0.2.3:8000',
    });
  });
  it("CQL: the binding's cql.* properties with the spec's consistency", () => {
    const cqlEndpoints = endpoints.map((e) => ({ ...e, port: 9042 }));
    expect(
      scyllaJobProperties(target({ api: 'cql', cql: { consistency: 'LOCAL_QUORUM' } }), cqlEndpoints),
    ).toEqual({
      'cql.hosts': '10.0.0.1,10.0.1.2,10.0.2.3',
      'cql.port': '9042',
      'cql.keyspace': 'ycsb',
      'cql.readConsistency': 'LOCAL_QUORUM',
      'cql.writeConsistency': 'LOCAL_QUORUM',
      'cql.replicationFactor': '3',
    });
  });
});

describe('schema', () => {
  it("CQL: the seed appendix's keyspace and usertable with the spec's replication factor (as the binding's CqlSchema)", () => {
    // the text of loader/ycsb-binding CqlSchema's javadoc, with RF 3 and 10 fields
    expect(cqlSchemaStatements({ table: 'usertable', replicationFactor: 3, fieldCount: 10 })).toEqual([
      `CREATE KEYSPACE IF NOT EXISTS "ycsb" WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': '3'}`,
      'CREATE TABLE IF NOT EXISTS "ycsb"."usertable" (y_id varchar PRIMARY KEY, field0 varchar, field1 varchar, ' +
        'field2 varchar, field3 varchar, field4 varchar, field5 varchar, field6 varchar, field7 varchar, field8 varchar, field9 varchar)',
    ]);
  });

  it('CQL from a loader: the bundle after the preparation; Alternator: create-table on one node', () => {
    const cql = schemaScript(
      schemaRequest({
        target: target({ api: 'cql', replicationFactor: 3 }),
        endpoints: [{ host: '10.0.0.1', port: 9042 }],
        table: 'usertable',
        fieldCount: 10,
      }),
      { prepare: ['PREP'], bundleDir: '/opt/fleetbench/bundle', region: 'us-east-1' },
    );
    expect(cql[0]).toBe('PREP');
    expect(cql[1]).toBe(
      "java -cp '/opt/fleetbench/bundle/lib/*' dev.fleetbench.ycsb.cql.CqlSchema -p cql.hosts=10.0.0.1:9042 -p cql.port=9042 " +
        '-p cql.keyspace=ycsb -p table=usertable -p cql.replicationFactor=3 -p fieldcount=10',
    );
    const alt = schemaScript(
      schemaRequest({
        target: target(),
        endpoints: [{ host: '10.0.0.1', port: 8000 }],
        table: 'fleetbench-t',
        fieldCount: 10,
      }),
      { prepare: [], bundleDir: '/x', region: 'eu-west-1' },
    ).join('\n');
    expect(alt).toContain('--endpoint-url http://10.0.0.1:8000 --table-name fleetbench-t');
    expect(alt).toContain('AttributeName=p,KeyType=HASH');
    expect(alt).toContain('ResourceInUseException');
  });

  it('refuses endpoints a shell could interpret', () => {
    expect(() => healthScript('cql', [{ host: '1.2.3.4;rm -rf /', port: 1 }])).toThrow(/unsafe endpoint/);
  });
});

describe('probe scripts, run under bash against real sockets', () => {
  let http: Server;
  let tcp: TcpServer;
  let httpPort: number;
  let tcpPort: number;
  let closedPort: number;
  beforeAll(async () => {
    http = createHttpServer((req, res) => {
      res.writeHead(req.url === '/' ? 200 : 404);
      res.end('healthy: 127.0.0.1');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    httpPort = (http.address() as { port: number }).port;
    tcp = createTcpServer((s) => s.end());
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
    tcpPort = (tcp.address() as { port: number }).port;
    closedPort = await freePort();
  });
  afterAll(() => {
    http.close();
    tcp.close();
  });

  // asynchronously: the servers live in this process and must answer while bash runs
  const run = async (lines: string[]) =>
    (await promisify(execFile)('bash', ['-c', lines.join('\n')], { encoding: 'utf8' })).stdout;

  it('Alternator: GET / answers 200 on a serving node; a closed port does not answer', async () => {
    const eps = [
      { host: '127.0.0.1', port: httpPort },
      { host: '127.0.0.1', port: closedPort },
    ];
    expect(parseHealth('alternator', await run(healthScript('alternator', eps)), eps)).toEqual([
      { endpoint: `http://127.0.0.1:${httpPort}`, ok: true },
      { endpoint: `http://127.0.0.1:${closedPort}`, ok: false, detail: 'no connection' },
    ]);
  });

  it('CQL: a port that accepts but does not speak CQL is not ready, nor is a closed one', async () => {
    // (a node that answers release_version: test/integration/local-cassandra-cluster.test.ts, real Cassandra)
    const eps = [
      { host: '127.0.0.1', port: tcpPort },
      { host: '127.0.0.1', port: closedPort },
    ];
    expect(parseHealth('cql', await run(healthScript('cql', eps)), eps)).toEqual([
      { endpoint: `127.0.0.1:${tcpPort}`, ok: false, detail: 'connected, no CQL answer' },
      { endpoint: `127.0.0.1:${closedPort}`, ok: false, detail: 'no connection' },
    ]);
  });

  /** The probe document as Run Command runs it: each parameter checked against its pattern, then substituted. */
  const probeDocument = (params: Record<string, string[]>): string[] => {
    for (const [k, pattern] of Object.entries(PROBE_PARAMETERS))
      if (!new RegExp(pattern).test(params[k]![0]!)) throw new Error(`${k} refused: ${params[k]![0]}`);
    return probeDocumentScript({ prepare: ['PREP'], bundleDir: '/b', region: 'us-east-1' }).map((l) =>
      l.replace(/\{\{\s*(\w+)\s*\}\}/g, (_m, n: string) => params[n]![0]!),
    );
  };

  it("WaitReady's probe document answers as the scripts do; its parameters refuse shell syntax", async () => {
    const eps = [
      { host: '127.0.0.1', port: httpPort },
      { host: '127.0.0.1', port: closedPort },
    ];
    const list = eps.map((e) => `${e.host}:${e.port}`).join(' ');
    const alt = await run(probeDocument(probeParameters('health-alternator', { endpoints: list }, 60)));
    expect(parseHealth('alternator', alt, eps)).toEqual([
      { endpoint: `http://127.0.0.1:${httpPort}`, ok: true },
      { endpoint: `http://127.0.0.1:${closedPort}`, ok: false, detail: 'no connection' },
    ]);
    const cqlEps = [{ host: '127.0.0.1', port: tcpPort }];
    const cql = await run(
      probeDocument(probeParameters('health-cql', { endpoints: `127.0.0.1:${tcpPort}` }, 60)),
    );
    expect(parseHealth('cql', cql, cqlEps)).toEqual([
      { endpoint: `127.0.0.1:${tcpPort}`, ok: false, detail: 'connected, no CQL answer' },
    ]);
    for (const [k, v] of [
      ['endpoints', '1.2.3.4:1;id'],
      ['endpoints', '$(id)'],
      ['table', 't`id`'],
      ['hosts', '10.0.0.1 && id'],
      ['endpoint', 'http://h:1/$(id)'],
      ['keyspace', 'ks"'],
      ['login', 'fleetbench/$(id)'],
      ['login', 'fleetbench/a;id'],
      ['login', 'other/secret'],
    ] as const)
      expect(() => probeDocument(probeParameters('schema-cql', { [k]: v }, 60))).toThrow(`${k} refused`);
  });

  it("the schema-cql branch reads the run's login secret by the name parameter only where one is given", () => {
    const script = probeDocumentScript({ prepare: ['PREP'], bundleDir: '/b', region: 'us-east-1' }).join(
      '\n',
    );
    expect(script).toContain('if [ "{{ login }}" != "-" ]; then');
    expect(script).toContain('--secret-id {{ login }} --query SecretString');
    const withLogin = probeDocument(
      probeParameters('schema-cql', { hosts: '10.0.0.1:9042', login: 'fleetbench/r1/cass-cql' }, 60),
    ).join('\n');
    expect(withLogin).toContain('if [ "fleetbench/r1/cass-cql" != "-" ]; then');
    expect(withLogin).toMatch(/CqlSchema .* \$fb_setup$/m);
    const without = probeDocument(probeParameters('schema-cql', { hosts: '10.0.0.1:9042' }, 60)).join('\n');
    expect(without).toContain('if [ "-" != "-" ]; then');
  });

  it('no output means no answer', () => {
    expect(parseHealth('cql', '', [{ host: 'h', port: 1 }])).toEqual([
      { endpoint: 'h:1', ok: false, detail: 'no answer from the probe' },
    ]);
  });
});
