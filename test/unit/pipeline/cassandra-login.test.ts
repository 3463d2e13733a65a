/**
 * cassandra-ec2 logins through the pipeline (issue 26, item 9): ProvisionTarget creates the run's login
 * secret tagged with the run; StartLoad's jobs carry its reference (never its value); teardown deletes it
 * only when it carries the run's tag. In-memory cluster and secrets ports, the real FsStore.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { plan, provisionTarget, startPhase, teardown } from '../../../lib/core/pipeline';
import type {
  DbNodeAdmin,
  ClusterNode,
  NodeLaunchRequest,
  DynamoDbAdmin,
} from '../../../lib/core/common/ports';
import { scriptVariable } from '../../../lib/core/targets/cassandra-ec2/node';
import { schemaScript } from '../../../lib/core/targets/nodes/cluster';
import { FsStore } from '../../../lib/local/fs-store';
import { LocalSecrets } from '../../../lib/local/secrets';

const spec = {
  name: 'authed',
  targets: [
    {
      id: 'cass',
      kind: 'cassandra-ec2',
      nodes: 1,
      instanceType: 'c5.2xlarge',
      volume: { sizeGb: 20 },
      replicationFactor: 1,
      cql: { port: 9042, consistency: 'ONE' },
    },
  ],
  dataset: { recordCount: 1000, load: true },
  workload: { readProportions: [0.5], targetOpsPerSec: [1000], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
};

class RunningCluster implements DbNodeAdmin {
  readonly cassandraAsset = 's3://assets/fleetbench-cassandra-5.0.6.tar.gz';
  readonly nodes: ClusterNode[] = [];
  readonly authenticators: (string | undefined)[] = [];
  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    for (const n of req.nodes)
      this.authenticators.push(
        scriptVariable(Buffer.from(n.userData, 'base64').toString(), 'FB_AUTHENTICATOR'),
      );
    const out = req.nodes.map((n) => ({
      id: `i-${n.index}`,
      state: 'running',
      privateIp: `10.0.0.${10 + n.index}`,
      tags: n.tags,
    }));
    this.nodes.push(...out);
    return out;
  }
  async list(): Promise<ClusterNode[]> {
    return this.nodes.filter((n) => n.state !== 'terminated');
  }
  async terminate(ids: string[]): Promise<void> {
    for (const n of this.nodes) if (ids.includes(n.id)) n.state = 'terminated';
  }
}

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-login-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('ProvisionTarget creates the tagged login secret; the jobs name it; teardown deletes it', async () => {
  const store = new FsStore(dir);
  const clock = { nowMs: () => 0 };
  const run = await plan({ executionName: 'authed-1', spec }, { store, clock });
  const secrets = new LocalSecrets();
  const cluster = new RunningCluster();
  const tables = {} as DynamoDbAdmin;

  const result = await provisionTarget(run, { store, tables, cluster, secrets });
  expect(result.secrets).toEqual(['fleetbench/authed-1/cass-cql']);
  const made = await secrets.describeSecret('fleetbench/authed-1/cass-cql');
  expect(made?.tags['fleetbench:run-id']).toBe('authed-1');
  const login = JSON.parse(secrets.value(made!.arn)!) as { username: string; password: string };
  expect(cluster.authenticators).toEqual(['PasswordAuthenticator']);
  // a retry adopts it
  expect((await provisionTarget(run, { store, tables, cluster, secrets })).secrets).toEqual([
    'fleetbench/authed-1/cass-cql',
  ]);

  const fleet = {
    launch: async () => [],
    list: async () => [{ id: 'loader-0', state: 'running', tags: {} }],
    terminate: async () => undefined,
    online: async (ids: string[]) => ids,
  };
  const sent: string[] = [];
  const commands = {
    send: async (req: { jobPrefix: string }) => (sent.push(req.jobPrefix), ['cmd-1']),
    status: async () => [],
    cancel: async () => undefined,
    online: async (ids: string[]) => ids,
  };
  await startPhase('load', { run, index: 0 }, { store, fleet, commands, clock, cluster, secrets });
  const job = await store.getJson(`runs/authed-1/load/cass/jobs/loader-0.json`);
  expect(job).toMatchObject({ credentials: { secretArn: made!.arn, binding: 'cql' } });
  expect(JSON.stringify(job)).not.toContain(login.password);

  const published: string[] = [];
  const notifier = { publish: async (_s: string, m: string) => void published.push(m) };
  const down = await teardown(
    { run, error: { Error: 'X' } },
    { store, tables, fleet, clock, cluster, secrets, notifier },
  );
  expect(down.deletedSecrets).toEqual(['fleetbench/authed-1/cass-cql']);
  expect(published.join('\n')).toContain('deleted 1 login secret (fleetbench/authed-1/cass-cql)');
  expect(await secrets.describeSecret('fleetbench/authed-1/cass-cql')).toBeNull();
});

it('teardown keeps a secret of the same name that another run tagged', async () => {
  const store = new FsStore(dir);
  const clock = { nowMs: () => 0 };
  const run = await plan({ executionName: 'authed-2', spec }, { store, clock });
  const secrets = new LocalSecrets();
  await secrets.createSecret({
    name: 'fleetbench/authed-2/cass-cql',
    value: '{}',
    tags: { 'fleetbench:run-id': 'someone-else' },
  });
  const cluster = new RunningCluster();
  await expect(
    provisionTarget(run, { store, tables: {} as DynamoDbAdmin, cluster, secrets }),
  ).rejects.toThrow(/already exists and is not this run's/);
  const fleet = {
    launch: async () => [],
    list: async () => [],
    terminate: async () => undefined,
    online: async () => [],
  };
  const published: string[] = [];
  const notifier = { publish: async (_s: string, m: string) => void published.push(m) };
  const down = await teardown(
    { run, error: { Error: 'X' } },
    { store, tables: {} as DynamoDbAdmin, fleet, clock, cluster, secrets, notifier },
  );
  expect(down.deletedSecrets).toEqual([]);
  expect(down.keptSecrets).toEqual(['fleetbench/authed-2/cass-cql']);
  expect(published.join('\n')).toContain(
    "Kept (not this run's, or given as existingTable): fleetbench/authed-2/cass-cql",
  );
  expect(await secrets.describeSecret('fleetbench/authed-2/cass-cql')).not.toBeNull();
});

it('without a secrets port (no login to hand out) the nodes keep AllowAllAuthenticator', async () => {
  const store = new FsStore(dir);
  const run = await plan({ executionName: 'authed-3', spec }, { store, clock: { nowMs: () => 0 } });
  const cluster = new RunningCluster();
  const result = await provisionTarget(run, { store, tables: {} as DynamoDbAdmin, cluster });
  expect(result.secrets).toBeUndefined();
  expect(cluster.authenticators).toEqual(['AllowAllAuthenticator']);
});

it("the loaders' schema step reads the run's login and sets the cluster up with the default superuser", () => {
  const req = {
    api: 'cql' as const,
    hosts: ['10.0.0.10:9042'],
    port: 9042,
    statements: [],
    keyspace: 'ycsb',
    table: 'usertable',
    replicationFactor: 3,
    fieldCount: 10,
  };
  const opts = { prepare: [], bundleDir: '/opt/fleetbench/loader', region: 'eu-west-1' };
  const plain = schemaScript(req, opts).join('\n');
  expect(plain).not.toMatch(/secretsmanager|setupUsername/);
  const script = schemaScript({ ...req, login: 'fleetbench/r1/cass-cql' }, opts).join('\n');
  expect(script).toContain(
    'aws secretsmanager get-secret-value --region eu-west-1 --secret-id fleetbench/r1/cass-cql --query SecretString --output text',
  );
  expect(script).toMatch(/export FLEETBENCH_CQL_USERNAME=.*\["username"\]/);
  expect(script).toMatch(/export FLEETBENCH_CQL_PASSWORD=.*\["password"\]/);
  expect(script).toContain('-p cql.setupUsername=cassandra -p cql.setupPassword=cassandra');
  expect(() => schemaScript({ ...req, login: 'fleetbench/$(id)' }, opts)).toThrow(/unsafe/);
});
