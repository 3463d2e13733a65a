/**
 * A run's login on a real Apache Cassandra 5.0.6 node with PasswordAuthenticator (issue 26, item 9), the
 * node started by the cassandra-ec2 bootstrap script (lib/core/targets/cassandra-ec2/node.ts) on loopback by the local
 * cluster, launched as ProvisionTarget launches the nodes of a run that made a login (PasswordAuthenticator):
 * a connection without credentials is refused; the WaitReady probe
 * reads the version with the default superuser; the run's role replaces it (lib/core/targets/cassandra-ec2/cql-auth.ts), after
 * which the default login is refused, the probe still says "up", and the run's role creates the schema.
 * ~60 s on 2 shared cores (one JVM of 512 MB heap).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureCassandraAsset, localJava } from '../../lib/build/cassandra-asset';
import { LocalCluster } from '../../lib/local/cluster';
import { CqlLoginError, cqlQuery } from '../../lib/local/cql-client';
import { secureCqlCluster } from '../../lib/local/cql-login';
import { cqlSchemaStatements, healthScript, parseHealth } from '../../lib/core/targets/nodes/cluster';
import { generateCqlLogin } from '../../lib/core/targets/cassandra-ec2/cql-auth';
import { DEFAULT_SUPERUSER, RELEASE_VERSION_QUERY } from '../../lib/core/targets/nodes/cql-wire';
import { CASSANDRA_VERSION, scriptVariable } from '../../lib/core/targets/cassandra-ec2/node';
import { nodeLaunchRequest } from '../../lib/core/targets/nodes/provision';
import type { RunContext } from '../../lib/core/pipeline/context';
import type { CassandraEc2Target } from '../../lib/core/spec/schema';

const target = {
  id: 'cass',
  kind: 'cassandra-ec2',
  nodes: 1,
  instanceType: 'c5.2xlarge',
  volume: { sizeGb: 20 },
  replicationFactor: 1,
  cql: { port: 9042, consistency: 'ONE' },
} as unknown as CassandraEc2Target;

const run = { runId: 'auth-run', specName: 'auth', expiresAt: 0 } as unknown as RunContext;

it('a node with PasswordAuthenticator refuses no credentials; the run’s role replaces the default superuser', async () => {
  const cluster = new LocalCluster({
    cassandra: { asset: await ensureCassandraAsset(), java: await localJava() },
  });
  try {
    const req = nodeLaunchRequest({
      run,
      target,
      userTags: {},
      indexes: [0],
      seeds: [],
      cassandraAsset: cluster.cassandraAsset!,
      login: true,
    });
    const script = Buffer.from(req.nodes[0]!.userData, 'base64').toString('utf8');
    expect(scriptVariable(script, 'FB_AUTHENTICATOR')).toBe('PasswordAuthenticator');
    const [node] = await cluster.launch(req);
    const e = { host: node!.privateIp!, port: node!.port! };
    const probe = async () => {
      const { stdout } = await promisify(execFile)('bash', ['-c', healthScript('cql', [e]).join('\n')]);
      return parseHealth('cql', stdout, [e])[0]!;
    };

    await expect(cqlQuery(e, [RELEASE_VERSION_QUERY])).rejects.toThrow(CqlLoginError);

    // the default superuser appears some seconds after the node serves CQL
    let before = await probe();
    for (let i = 0; i < 60 && !before.version; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      before = await probe();
    }
    expect(before).toMatchObject({ ok: true, version: CASSANDRA_VERSION });

    const login = generateCqlLogin();
    expect(await secureCqlCluster(e, login, 1)).toBe('secured');
    expect(await secureCqlCluster(e, login, 1)).toBe('already');

    // the nodes cache roles and credentials for 2 s (roles_validity, credentials_validity)
    const defaultLogin = () => cqlQuery(e, [RELEASE_VERSION_QUERY], { credentials: DEFAULT_SUPERUSER });
    for (
      let i = 0;
      i < 20 &&
      (await defaultLogin().then(
        () => true,
        () => false,
      ));
      i++
    )
      await new Promise((r) => setTimeout(r, 500));
    await expect(defaultLogin()).rejects.toThrow(CqlLoginError);
    const after = await probe();
    expect(after).toMatchObject({ ok: true, detail: expect.stringMatching(/refuses the default login/) });

    const answers = await cqlQuery(
      e,
      cqlSchemaStatements({ table: 'usertable', replicationFactor: 1, fieldCount: 2 }),
      { credentials: login, timeoutMs: 60_000 },
    );
    expect(answers.map((a) => a.kind)).not.toContain('error');
    const [auth] = await cqlQuery(
      e,
      ["SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'system_auth'"],
      { credentials: login },
    );
    // a map<text, text>, which the wire client shows as hex
    const replication = auth?.kind === 'rows' ? Buffer.from(auth.rows[0]![0]!, 'hex').toString('latin1') : '';
    expect(replication).toContain('NetworkTopologyStrategy');
  } finally {
    await cluster.killAll();
  }
}, 400_000);
