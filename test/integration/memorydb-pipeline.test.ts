/**
 * A memorydb target through the pipeline's steps on moto server: MemoryDB clusters, subnet groups, users and tags on
 * moto's MemoryDB backend (the ACL calls moto lacks answered by test/support/memorydb-twin.ts), security groups on
 * moto's EC2, the login secret on moto's Secrets Manager. Plan, ProvisionTarget (idempotent, refusing another run's
 * cluster), the readiness, endpoint and credential functions StartLoad/StartCell need, Teardown (only what carries
 * the run's tag) and the Janitor's sweep of expired runs. Fleet and commands are small fakes (not the subject here).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  CreateACLCommand,
  CreateClusterCommand,
  CreateSubnetGroupCommand,
  CreateUserCommand,
  DescribeSubnetGroupsCommand,
  DescribeUsersCommand,
  MemoryDBClient,
} from '@aws-sdk/client-memorydb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { MEMORYDB_ACCESS_STRING, MemoryDbClusterAdmin } from '../../lib/aws/memorydb-admin';
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import {
  janitor,
  plan,
  provisionTarget,
  startPhase,
  teardown,
  waitReady,
  type RunContext,
} from '../../lib/core/pipeline';
import {
  NotOwnedError,
  StepFailedError,
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type CommandRunner,
  type FleetAdmin,
} from '../../lib/core/common/ports';
import { memoryDbResourceName, memoryDbSecretName } from '../../lib/core/targets/memorydb/names';
import { memoryDbReady, memoryDbRuntime } from '../../lib/core/targets/memorydb/lifecycle';
import type { MemoryDbTarget } from '../../lib/core/targets/memorydb/target';
import { readPlan, teardownKey } from '../../lib/core/pipeline/context';
import { validateSpec } from '../../lib/core/spec';
import { FsStore } from '../../lib/local/fs-store';
import { startMemoryDbTwin, type MemoryDbTwin } from '../support/memorydb-twin';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(90_000);

let moto: MotoServer;
let twin: MemoryDbTwin;
let ec2: EC2Client;
let memorydb: MemoryDbClusterAdmin;
let secrets: SecretsManagerSecrets;
let tables: DynamoDbTableAdmin;
let dir: string;
let store: FsStore;
let network: { vpcId: string; subnetIds: string[]; loaderSecurityGroupId: string };
let nowMs = Date.UTC(2026, 10, 27, 12);
const clock = { nowMs: () => nowMs };

beforeAll(async () => {
  moto = await startMoto();
  twin = await startMemoryDbTwin(moto.endpoint);
  ec2 = new EC2Client(moto.clientConfig);
  const vpcId = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.3.0.0/16' }))).Vpc!.VpcId!;
  const subnetIds: string[] = [];
  for (const [i, az] of ['us-east-1a', 'us-east-1b'].entries())
    subnetIds.push(
      (
        await ec2.send(
          new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.3.${i}.0/24`, AvailabilityZone: az }),
        )
      ).Subnet!.SubnetId!,
    );
  const loaderSecurityGroupId = (
    await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'loaders', Description: 'loaders', VpcId: vpcId }),
    )
  ).GroupId!;
  network = { vpcId, subnetIds, loaderSecurityGroupId };
  memorydb = new MemoryDbClusterAdmin(
    { ...moto.clientConfig, endpoint: twin.endpoint },
    moto.clientConfig,
    network,
  );
  secrets = new SecretsManagerSecrets(moto.clientConfig);
  tables = new DynamoDbTableAdmin(moto.clientConfig);
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-memorydb-pipeline-'));
  store = new FsStore(dir);
});

afterAll(async () => {
  await twin?.stop();
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const spec = {
  name: 'mdb-run',
  targets: [{ id: 'mdb', kind: 'memorydb', nodeType: 'db.r7g.large', shards: 2, replicasPerShard: 1 }],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.95], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
};

const fleet: FleetAdmin = {
  launch: () => Promise.resolve(['i-loader0']),
  list: () => Promise.resolve([]),
  terminate: () => Promise.resolve(),
};

/** One loader, online at once; commands are accepted and do nothing. */
const oneLoader: FleetAdmin = {
  ...fleet,
  list: () => Promise.resolve([{ id: 'i-loader0', state: 'running', tags: {} }]),
};
const commands: CommandRunner = {
  online: (ids) => Promise.resolve(ids),
  send: () => Promise.resolve(['cmd-1']),
  status: () => Promise.resolve([]),
  cancel: () => Promise.resolve(),
};

async function groupsNamed(name: string) {
  const out = await ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: [name] }] }),
  );
  return out.SecurityGroups ?? [];
}

describe('a MemoryDB run through the steps', () => {
  let run: RunContext;
  const name = memoryDbResourceName('mdb-run-1', 'mdb');
  const secretName = memoryDbSecretName('mdb-run-1', 'mdb');

  it('Plan gives the target the Redis binding in cluster mode with TLS', async () => {
    run = await plan({ executionName: 'mdb-run-1', spec }, { store, clock });
    const p = await readPlan(store, run.runId);
    expect(p.bindings.mdb).toMatchObject({
      binding: 'redis',
      db: 'dev.fleetbench.ycsb.RedisClient',
      properties: { 'redis.cluster': 'true', 'redis.tls': 'true' },
    });
    expect(run.loadTargets).toEqual(['mdb']);
  });

  it('ProvisionTarget makes the login, then the cluster in the loaders network; a retry adopts both', async () => {
    const first = await provisionTarget(run, { store, tables, kindServices: { memorydb }, secrets });
    expect(first).toMatchObject({ created: [name], secrets: [secretName] });
    // the login: the user named like the cluster, a 64-hex-digit password
    const sm = new SecretsManagerClient(moto.clientConfig);
    const login = JSON.parse(
      (await sm.send(new GetSecretValueCommand({ SecretId: secretName }))).SecretString!,
    );
    expect(login.username).toBe(name);
    expect(login.password).toMatch(/^[0-9a-f]{64}$/);
    // the user authenticates with that password, and is in the cluster's ACL
    const createUser = twin.calls.find((c) => c.op === 'CreateUser' && c.body.UserName === name)!;
    expect(createUser.body).toMatchObject({
      AuthenticationMode: { Type: 'password', Passwords: [login.password] },
      AccessString: MEMORYDB_ACCESS_STRING,
    });
    expect(twin.acls.get(name)).toEqual([name]);
    const create = twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name);
    expect(create).toHaveLength(1);
    expect(create[0]!.body).toMatchObject({
      NodeType: 'db.r7g.large',
      NumShards: 2,
      NumReplicasPerShard: 1,
      Engine: 'valkey',
      EngineVersion: '7.2',
      TLSEnabled: true,
      ACLName: name,
      SubnetGroupName: name,
      Port: 6379,
    });
    // the security group admits the loaders only, on 6379, and carries the run's tags
    const [sg] = await groupsNamed(name);
    expect(create[0]!.body.SecurityGroupIds).toEqual([sg!.GroupId]);
    expect(sg!.IpPermissions).toEqual([
      expect.objectContaining({
        IpProtocol: 'tcp',
        FromPort: 6379,
        ToPort: 6379,
        UserIdGroupPairs: [expect.objectContaining({ GroupId: network.loaderSecurityGroupId })],
        IpRanges: [],
      }),
    ]);
    const tags = Object.fromEntries((sg!.Tags ?? []).map((t) => [t.Key, t.Value]));
    expect(tags).toMatchObject({ [TAG_RUN_ID]: 'mdb-run-1', [TAG_EXPIRES_AT]: String(run.expiresAt) });
    expect(await memorydb.clusterTags(name)).toMatchObject({
      [TAG_RUN_ID]: 'mdb-run-1',
      'fleetbench:target': 'mdb',
    });

    const again = await provisionTarget(run, { store, tables, kindServices: { memorydb }, secrets });
    expect(again).toMatchObject({ created: [name], secrets: [secretName] });
    expect(twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name)).toHaveLength(1);
  });

  it("a cluster of the run's name that is not the run's fails ProvisionTarget and is left alone", async () => {
    const other = await plan({ executionName: 'mdb-run-2', spec }, { store, clock });
    const otherName = memoryDbResourceName('mdb-run-2', 'mdb');
    // someone else's cluster under that name (no run tag), created straight on moto
    await new MemoryDBClient(moto.clientConfig).send(
      new CreateClusterCommand({ ClusterName: otherName, NodeType: 'db.t4g.small', ACLName: 'open-access' }),
    );
    await expect(
      provisionTarget(other, { store, tables, kindServices: { memorydb }, secrets }),
    ).rejects.toThrow(
      new StepFailedError(
        'ProvisionTarget',
        `MemoryDB cluster ${otherName} already exists and is not this run's`,
      ),
    );
    const down = await teardown(
      { run: other },
      { store, tables, fleet, clock, kindServices: { memorydb }, secrets },
    );
    expect(down.keptMemoryDbClusters).toEqual([otherName]);
    expect(down.deletedMemoryDbClusters).toEqual([]);
    expect((await memorydb.describeCluster(otherName)).status).toBe('available');
    // its login secret (made before the clash) was the run's: deleted
    expect(down.deletedMemoryDbSecrets).toEqual([memoryDbSecretName('mdb-run-2', 'mdb')]);
  });

  it('WaitReady waits for the cluster; StartLoad gives the loaders its endpoint with TLS and the login', async () => {
    const ready = await waitReady(
      { run },
      { store, tables, fleet: oneLoader, commands, clock, kindServices: { memorydb } },
    );
    expect(ready.ready).toBe(true);
    await startPhase(
      'load',
      { run, index: 0 },
      { store, fleet: oneLoader, commands, clock, kindServices: { memorydb }, secrets },
    );
    const job = (await store.getJson(`runs/mdb-run-1/load/mdb/jobs/i-loader0.json`)) as {
      processes: Record<string, string>[];
      credentials?: unknown;
    };
    expect(job.processes.length).toBeGreaterThan(0);
    for (const p of job.processes)
      expect(p).toMatchObject({
        'redis.host': `clustercfg.${name}.aoneci.memorydb.us-east-1.amazonaws.com:6379`,
        'redis.cluster': 'true',
        'redis.tls': 'true',
      });
    // the login by reference: the loaders fetch the secret, never its values in the job
    expect(job.credentials).toEqual({
      secretArn: (await secrets.describeSecret(secretName))!.arn,
      binding: 'redis',
    });
    expect(JSON.stringify(job)).not.toMatch(/password/);
    // without the MemoryDB port the phase fails rather than start loaders with nowhere to go
    await expect(
      startPhase('load', { run, index: 0 }, { store, fleet: oneLoader, commands, clock, secrets }),
    ).rejects.toThrow(/no MemoryDB port/);
  });

  it('a cluster that is not available keeps WaitReady waiting, naming it', async () => {
    const runSpec = validateSpec(spec).spec;
    const target = runSpec.targets[0] as MemoryDbTarget;
    const creating = { ...memorydb, describeCluster: async (n: string) => ({ name: n, status: 'creating' }) };
    const ready = await memoryDbReady(target, {
      run,
      spec: runSpec,
      step: 'WaitReady',
      ports: { store, kindServices: { memorydb: creating as never } },
    });
    expect(ready.problems).toEqual([`MemoryDB cluster ${name} of mdb is creating (no endpoint yet)`]);
    // an available cluster, but the login secret of another run's name: not this run's, refused
    const available = {
      ...memorydb,
      describeCluster: async (n: string) => ({ name: n, status: 'available', endpoint: `${n}.example:6379` }),
    };
    expect(
      await memoryDbRuntime(target, {
        run: { ...run, runId: 'another-run' },
        spec: runSpec,
        step: 'StartCell',
        ports: { store, kindServices: { memorydb: available as never }, secrets },
      }).catch((e: Error) => e.message),
    ).toBe(
      `StartCell: the login secret ${memoryDbSecretName('another-run', 'mdb')} of mdb is missing or not this run's`,
    );
  });

  it('Teardown deletes the cluster, its ACL, user, subnet group and security group, and the login', async () => {
    const down = await teardown(
      { run },
      { store, tables, fleet, clock, kindServices: { memorydb }, secrets },
    );
    expect(down.deletedMemoryDbClusters).toEqual([name]);
    expect(down.pendingMemoryDbGroups).toEqual([]);
    expect(down.deletedMemoryDbSecrets).toEqual([secretName]);
    expect((await memorydb.describeCluster(name)).status).toBe('MISSING');
    expect(twin.acls.has(name)).toBe(false);
    await expect(
      new MemoryDBClient(moto.clientConfig).send(new DescribeUsersCommand({ UserName: name })),
    ).rejects.toMatchObject({ name: 'UserNotFoundFault' });
    expect(await groupsNamed(name)).toEqual([]);
    expect(await secrets.describeSecret(secretName)).toBeNull();
    // a second pass finds nothing left; the run's record keeps what the first removed
    const again = await teardown(
      { run },
      { store, tables, fleet, clock, kindServices: { memorydb }, secrets },
    );
    expect(again.deletedMemoryDbClusters).toEqual([]);
    expect(again.deletedMemoryDbSecrets).toEqual([]);
    const record = (await store.getJson(teardownKey(run.runId))) as Record<string, unknown>;
    expect(record).toMatchObject({
      deletedMemoryDbClusters: [name],
      deletedMemoryDbSecrets: [secretName],
      passes: 2,
    });
  });

  it("the Janitor sweeps an expired run's cluster, its pieces and its login", async () => {
    const old = await plan({ executionName: 'mdb-run-3', spec }, { store, clock });
    await provisionTarget(old, { store, tables, kindServices: { memorydb }, secrets });
    const oldName = memoryDbResourceName('mdb-run-3', 'mdb');
    // not yet expired: kept
    let swept = await janitor({ tables, fleet, clock, kindServices: { memorydb }, secrets });
    expect(swept.deletedMemoryDbClusters ?? []).toEqual([]);
    nowMs = (old.expiresAt + 60) * 1000;
    swept = await janitor({ tables, fleet, clock, kindServices: { memorydb }, secrets });
    expect(swept.deletedMemoryDbSecrets).toEqual([memoryDbSecretName('mdb-run-3', 'mdb')]);
    expect(swept.deletedMemoryDbClusters).toEqual([oldName]);
    expect(swept.deletedMemoryDbGroups).toEqual([oldName]);
    expect(twin.acls.has(oldName)).toBe(false);
    expect(await groupsNamed(oldName)).toEqual([]);
  });
});

it('the teardown of a run without memorydb targets does not ask MemoryDB anything', async () => {
  const ddbSpec = {
    ...spec,
    name: 'ddb-run',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
  };
  const run = await plan({ executionName: 'ddb-run-1', spec: ddbSpec }, { store, clock });
  const before = twin.calls.length;
  const down = await teardown({ run }, { store, tables, fleet, clock, kindServices: { memorydb }, secrets });
  expect(twin.calls.slice(before)).toEqual([]);
  expect(down).toMatchObject({ deletedMemoryDbClusters: [], deletedMemoryDbSecrets: [] });
});

describe('MemoryDbClusterAdmin on moto', () => {
  it('a failure part-way undoes what it created (a subnet MemoryDB does not know)', async () => {
    const broken = new MemoryDbClusterAdmin(
      { ...moto.clientConfig, endpoint: twin.endpoint },
      moto.clientConfig,
      {
        ...network,
        subnetIds: ['subnet-00000000'],
      },
    );
    const name = memoryDbResourceName('mdb-run-4', 'mdb');
    await expect(
      broken.createCluster({
        name,
        nodeType: 'db.r7g.large',
        shards: 1,
        replicasPerShard: 0,
        engine: 'valkey',
        engineVersion: '7.2',
        password: 'a'.repeat(32),
        tags: { [TAG_RUN_ID]: 'mdb-run-4' },
      }),
    ).rejects.toThrow(/CreateSubnetGroup/);
    expect(await groupsNamed(name)).toEqual([]);
    expect(twin.acls.has(name)).toBe(false);
    expect((await memorydb.describeCluster(name)).status).toBe('MISSING');
  });

  it('lists only fleetbench-named clusters that carry a run tag', async () => {
    expect((await memorydb.listClusters({})).map((c) => c.name)).not.toContain(
      memoryDbResourceName('mdb-run-2', 'mdb'),
    );
  });
});

describe("a retried ProvisionTarget adopts what its first attempt left (the state machine's one retry)", () => {
  const mdb = () => new MemoryDBClient({ ...moto.clientConfig, endpoint: twin.endpoint });
  const tagsOf = (run: RunContext) => [
    { Key: TAG_RUN_ID, Value: run.runId },
    { Key: TAG_EXPIRES_AT, Value: String(run.expiresAt) },
  ];
  /** The security group as CreateSecurityGroup left it: tags, the default egress rule, no ingress. */
  const leftGroup = async (name: string, tags: { Key: string; Value: string }[]) =>
    (
      await ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: name,
          Description: 'fleetbench MemoryDB cluster: the loaders only',
          VpcId: network.vpcId,
          TagSpecifications: [{ ResourceType: 'security-group', Tags: tags }],
        }),
      )
    ).GroupId!;
  const ports = () => ({ store, tables, kindServices: { memorydb }, secrets });

  it('login secret, security group, subnet group and user: the cluster is created over them with the stored password', async () => {
    const run = await plan({ executionName: 'mdb-run-7', spec }, { store, clock });
    const name = memoryDbResourceName('mdb-run-7', 'mdb');
    const secretName = memoryDbSecretName('mdb-run-7', 'mdb');
    const password = 'c0ffee'.repeat(10);
    await secrets.createSecret({
      name: secretName,
      value: JSON.stringify({ username: name, password }),
      tags: { [TAG_RUN_ID]: run.runId, 'fleetbench:target': 'mdb' },
    });
    const left = await leftGroup(name, tagsOf(run));
    await mdb().send(
      new CreateSubnetGroupCommand({
        SubnetGroupName: name,
        SubnetIds: network.subnetIds,
        Tags: tagsOf(run),
      }),
    );
    await mdb().send(
      new CreateUserCommand({
        UserName: name,
        AuthenticationMode: { Type: 'password', Passwords: [password] },
        AccessString: MEMORYDB_ACCESS_STRING,
        Tags: tagsOf(run),
      }),
    );

    expect(await provisionTarget(run, ports())).toMatchObject({ created: [name], secrets: [secretName] });
    const create = twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name);
    expect(create).toHaveLength(1);
    expect(create[0]!.body).toMatchObject({ SecurityGroupIds: [left], SubnetGroupName: name, ACLName: name });
    // the ACL holds the adopted user; no second user or group, and the secret still holds the first login
    expect(twin.acls.get(name)).toEqual([name]);
    expect(
      twin.calls
        .filter((c) => c.op === 'CreateUser' && c.body.UserName === name)
        .map((c) => c.body.AuthenticationMode),
    ).toEqual([
      { Type: 'password', Passwords: [password] },
      { Type: 'password', Passwords: [password] },
    ]);
    expect(JSON.parse(await secrets.secretString(secretName))).toEqual({ username: name, password });
    const groups = await groupsNamed(name);
    expect(groups.map((g) => g.GroupId)).toEqual([left]);
    expect(groups[0]!.IpPermissions).toEqual([
      expect.objectContaining({
        FromPort: 6379,
        ToPort: 6379,
        UserIdGroupPairs: [expect.objectContaining({ GroupId: network.loaderSecurityGroupId })],
      }),
    ]);
    expect(groups[0]!.IpPermissionsEgress ?? []).toEqual([]);

    const down = await teardown({ run }, { ...ports(), fleet, clock });
    expect(down.deletedMemoryDbClusters).toEqual([name]);
    expect(down.deletedMemoryDbSecrets).toEqual([secretName]);
    expect(twin.acls.has(name)).toBe(false);
    await expect(mdb().send(new DescribeUsersCommand({ UserName: name }))).rejects.toMatchObject({
      name: 'UserNotFoundFault',
    });
    await expect(
      mdb().send(new DescribeSubnetGroupsCommand({ SubnetGroupName: name })),
    ).rejects.toMatchObject({ name: 'SubnetGroupNotFoundFault' });
    expect(await groupsNamed(name)).toEqual([]);
  });

  it('everything but the cluster (the ACL too): adopted, one cluster created over them', async () => {
    const run = await plan({ executionName: 'mdb-run-10', spec }, { store, clock });
    const name = memoryDbResourceName('mdb-run-10', 'mdb');
    const password = 'beef'.repeat(16);
    await secrets.createSecret({
      name: memoryDbSecretName('mdb-run-10', 'mdb'),
      value: JSON.stringify({ username: name, password }),
      tags: { [TAG_RUN_ID]: run.runId },
    });
    const left = await leftGroup(name, tagsOf(run));
    await mdb().send(
      new CreateSubnetGroupCommand({
        SubnetGroupName: name,
        SubnetIds: network.subnetIds,
        Tags: tagsOf(run),
      }),
    );
    await mdb().send(
      new CreateUserCommand({
        UserName: name,
        AuthenticationMode: { Type: 'password', Passwords: [password] },
        AccessString: MEMORYDB_ACCESS_STRING,
        Tags: tagsOf(run),
      }),
    );
    await mdb().send(new CreateACLCommand({ ACLName: name, UserNames: [name], Tags: tagsOf(run) }));
    await provisionTarget(run, ports());
    const create = twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name);
    expect(create.map((c) => c.body)).toEqual([
      expect.objectContaining({ SecurityGroupIds: [left], SubnetGroupName: name, ACLName: name }),
    ]);
    expect(await groupsNamed(name)).toHaveLength(1);
    const down = await teardown({ run }, { ...ports(), fleet, clock });
    expect(down.deletedMemoryDbClusters).toEqual([name]);
    expect(twin.acls.has(name)).toBe(false);
    expect(await groupsNamed(name)).toEqual([]);
  });

  it("a security group of the run's name without its tag: refused naming it, and it stays", async () => {
    const run = await plan({ executionName: 'mdb-run-8', spec }, { store, clock });
    const name = memoryDbResourceName('mdb-run-8', 'mdb');
    const theirs = await leftGroup(name, [{ Key: 'team', Value: 'payments' }]);
    await expect(provisionTarget(run, ports())).rejects.toThrow(
      `security group ${name} (${theirs}) already exists in ${network.vpcId} without this run's tag`,
    );
    expect((await groupsNamed(name)).map((g) => g.GroupId)).toEqual([theirs]);
    expect(twin.calls.filter((c) => c.op === 'CreateSubnetGroup' && c.body.SubnetGroupName === name)).toEqual(
      [],
    );
    await teardown({ run }, { ...ports(), fleet, clock });
    expect((await groupsNamed(name)).map((g) => g.GroupId)).toEqual([theirs]);
  });

  it("a user of the run's name without its tag: refused naming it; it stays, what the attempt made is undone", async () => {
    const run = await plan({ executionName: 'mdb-run-9', spec }, { store, clock });
    const name = memoryDbResourceName('mdb-run-9', 'mdb');
    await mdb().send(
      new CreateUserCommand({
        UserName: name,
        AuthenticationMode: { Type: 'password', Passwords: ['someone-elses-password'] },
        AccessString: 'on ~* +@read',
      }),
    );
    await expect(provisionTarget(run, ports())).rejects.toThrow(
      new NotOwnedError(
        `MemoryDB user ${name} already exists without this run's tag (${TAG_RUN_ID}=mdb-run-9): ` +
          'not adopted, left as it is',
      ),
    );
    const [user] = (await mdb().send(new DescribeUsersCommand({ UserName: name }))).Users ?? [];
    expect(user?.AccessString).toBe('on ~* +@read');
    expect(await groupsNamed(name)).toEqual([]);
    await expect(
      mdb().send(new DescribeSubnetGroupsCommand({ SubnetGroupName: name })),
    ).rejects.toMatchObject({ name: 'SubnetGroupNotFoundFault' });
    expect(twin.acls.has(name)).toBe(false);
  });
});
