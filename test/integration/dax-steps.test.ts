/**
 * The DAX steps with the real AWS adapters on moto server, the way the deployed Lambdas wire them: the S3 store
 * (spec, plan, jobs), SSM Run Command (what the loader receives), DAX clusters and EC2 security groups (with
 * test/support/dax-twin.ts answering the DAX group calls moto lacks), and the Keyspaces API adapter on
 * test/support/keyspaces-twin.ts for the janitor. Checked: StartLoad and StartCell send each loader a command whose
 * job prefix leads to a job carrying `dynamodb.daxEndpoint` = the endpoint DescribeClusters reports; a cluster with
 * no endpoint yet fails the phase before any command or job, and Teardown (where the state machine routes every
 * Task error, test/infra/fleetbench-stack.test.ts) removes the cluster; the Janitor deletes expired fleetbench
 * clusters and keyspaces and keeps unexpired ones, untagged fb- ones and everyone else's.
 * Only the loader fleet is a fake (it lists a moto instance: launching is not the subject here).
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateClusterCommand, DAXClient } from '@aws-sdk/client-dax';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  EC2Client,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { ListCommandsCommand } from '@aws-sdk/client-ssm';
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import { S3Store } from '../../lib/aws/s3-store';
import { SsmCommandRunner } from '../../lib/aws/ssm-commands';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
import {
  janitor,
  plan,
  provisionTarget,
  startPhase,
  teardown,
  type RunContext,
} from '../../lib/core/pipeline';
import {
  StepFailedError,
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type FleetAdmin,
  type DynamoDbAdmin,
} from '../../lib/core/common/ports';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(90_000);

let moto: MotoServer;
let daxTwin: DaxTwin;
let ksTwin: KeyspacesTwin;
let store: S3Store;
let dax: DaxClusterAdmin;
let commands: SsmCommandRunner;
let loaderId: string;
let fleet: FleetAdmin;
const nowMs = Date.UTC(2026, 10, 23, 12);
const clock = { nowMs: () => nowMs };
/** DynamoDB tables are not the subject: none exist, none are made. */
const tables = {
  createTable: async () => undefined,
  listTables: async () => [],
  tableTags: async () => null,
  describeTable: async () => ({ status: 'ACTIVE' }),
  deleteTable: async () => false,
  tagTable: async () => undefined,
} as unknown as DynamoDbAdmin;

const spec = {
  name: 'dax-steps',
  targets: [
    {
      id: 'cached',
      kind: 'dynamodb',
      billing: { mode: 'on-demand' },
      dax: { nodeType: 'dax.r5.large', nodes: 3 },
    },
  ],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.95], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
};

beforeAll(async () => {
  moto = await startMoto();
  daxTwin = await startDaxTwin(moto.endpoint);
  ksTwin = await startKeyspacesTwin();
  await new S3Client(moto.clientConfig).send(new CreateBucketCommand({ Bucket: 'results' }));
  store = new S3Store('s3://results', { clientConfig: moto.clientConfig });
  const ec2 = new EC2Client(moto.clientConfig);
  const vpcId = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.4.0.0/16' }))).Vpc!.VpcId!;
  const subnetIds: string[] = [];
  for (const [i, az] of ['us-east-1a', 'us-east-1b'].entries())
    subnetIds.push(
      (
        await ec2.send(
          new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.4.${i}.0/24`, AvailabilityZone: az }),
        )
      ).Subnet!.SubnetId!,
    );
  const loaderSecurityGroupId = (
    await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'loaders', Description: 'loaders', VpcId: vpcId }),
    )
  ).GroupId!;
  dax = new DaxClusterAdmin({ ...moto.clientConfig, endpoint: daxTwin.endpoint }, moto.clientConfig, {
    vpcId,
    subnetIds,
    loaderSecurityGroupId,
    iamRoleArn: 'arn:aws:iam::123456789012:role/fleetbench-dax',
  });
  commands = new SsmCommandRunner('fleetbench-run-job', moto.clientConfig);
  loaderId = (
    await ec2.send(
      new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 1, MaxCount: 1, SubnetId: subnetIds[0] }),
    )
  ).Instances![0]!.InstanceId!;
  fleet = {
    launch: async () => [loaderId],
    list: async () => [{ id: loaderId, state: 'running', tags: {} }],
    terminate: async () => undefined,
  };
});

afterAll(async () => {
  await ksTwin?.stop();
  await daxTwin?.stop();
  await moto?.stop();
});

/** The commands Run Command holds, newest last (moto lists them all). */
async function sentCommands() {
  const out = await commands.client.send(new ListCommandsCommand({}));
  return [...(out.Commands ?? [])].sort((a, b) => +a.RequestedDateTime! - +b.RequestedDateTime!);
}

/** The job a loader reads: `<jobPrefix>/<instance id>.json` in the store the command names. */
async function jobOf(
  jobPrefix: string,
  instanceId: string,
): Promise<{ processes: Record<string, string>[] }> {
  const key = `${jobPrefix.replace(/^s3:\/\/results\//, '')}/${instanceId}.json`;
  return (await store.getJson(key)) as { processes: Record<string, string>[] };
}

describe('StartLoad and StartCell hand the loaders the cluster endpoint', () => {
  let run: RunContext;
  const name = daxResourceName('dax-steps-1', 'cached');

  it('the command each loader receives leads to jobs carrying the endpoint DescribeClusters reports', async () => {
    run = await plan({ executionName: 'dax-steps-1', spec }, { store, clock });
    await provisionTarget(run, { store, tables, dax });
    for (let i = 0; i < 10 && (await dax.describeCluster(name)).status !== 'available'; i++);
    const cluster = await dax.describeCluster(name);
    expect(cluster.status).toBe('available');
    expect(cluster.endpoint).toMatch(/^daxs:\/\/fb-[0-9a-f]{8}\..*:\d+$/);

    for (const [phase, index] of [
      ['load', run.loadTargets.indexOf('cached')],
      ['run', 0],
    ] as const) {
      const before = (await sentCommands()).length;
      const started = await startPhase(phase, { run, index }, { store, fleet, commands, clock, dax });
      const sent = (await sentCommands()).slice(before);
      expect(sent.map((c) => [c.CommandId, c.DocumentName, c.InstanceIds])).toEqual([
        [started.commandIds[0], 'fleetbench-run-job', [loaderId]],
      ]);
      const jobPrefix = sent[0]!.Parameters!.jobPrefix![0]!;
      expect(jobPrefix).toMatch(/^s3:\/\/results\/runs\/dax-steps-1\//);
      const job = await jobOf(jobPrefix, loaderId);
      expect(job.processes).toHaveLength(2);
      for (const p of job.processes) {
        expect(p['dynamodb.daxEndpoint']).toBe(cluster.endpoint);
        expect(p['dynamodb.endpoint']).toBeUndefined();
      }
    }
    await teardown({ run }, { store, tables, fleet, clock, dax });
  });

  it('a cluster with no endpoint yet fails the phase before any command or job; Teardown removes it', async () => {
    const other = await plan({ executionName: 'dax-steps-2', spec }, { store, clock });
    const otherName = daxResourceName('dax-steps-2', 'cached');
    await provisionTarget(other, { store, tables, dax });
    const before = (await sentCommands()).length;
    // moto reports a new cluster `creating`, without its discovery endpoint, until it has been described a few times
    await expect(
      startPhase('load', { run: other, index: 0 }, { store, fleet, commands, clock, dax }),
    ).rejects.toThrow(
      new StepFailedError('StartLoad', `DAX cluster ${otherName} of cached is creating, not available`),
    );
    expect((await sentCommands()).length).toBe(before);
    expect(await store.list('runs/dax-steps-2/load/')).toEqual([]);
    const down = await teardown({ run: other }, { store, tables, fleet, clock, dax });
    expect(down.deletedDaxClusters).toEqual([otherName]);
    expect(['deleting', 'MISSING']).toContain((await dax.describeCluster(otherName)).status);
  });
});

describe('the Janitor on DAX and Keyspaces', () => {
  it('deletes expired fleetbench clusters and keyspaces; keeps unexpired, untagged and foreign ones', async () => {
    const now = nowMs / 1000;
    const expired = (run: string) => ({ [TAG_RUN_ID]: run, [TAG_EXPIRES_AT]: String(now - 1) });
    const raw = new DAXClient({ ...moto.clientConfig, endpoint: daxTwin.endpoint });
    const cluster = (ClusterName: string, tags: Record<string, string>) =>
      raw.send(
        new CreateClusterCommand({
          ClusterName,
          NodeType: 'dax.r5.large',
          ReplicationFactor: 1,
          IamRoleArn: 'arn:aws:iam::123456789012:role/other',
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
    const old = daxResourceName('jan-old', 'cached');
    const fresh = daxResourceName('jan-new', 'cached');
    const untagged = daxResourceName('jan-untagged', 'cached');
    await cluster(old, expired('jan-old'));
    await cluster(fresh, { [TAG_RUN_ID]: 'jan-new', [TAG_EXPIRES_AT]: String(now + 3600) });
    await cluster(untagged, {});
    await cluster('prod-cache', expired('someone'));

    const ks = new KeyspacesApiAdmin({ ...moto.clientConfig, endpoint: ksTwin.endpoint });
    await ks.createKeyspace('fb_jan_old_ks', expired('jan-old'));
    await ks.createKeyspace('fb_jan_new_ks', {
      [TAG_RUN_ID]: 'jan-new',
      [TAG_EXPIRES_AT]: String(now + 3600),
    });
    await ks.createKeyspace('fb_jan_untagged', {});
    await ks.createKeyspace('prod_ks', expired('someone'));
    ksTwin.settle();

    const r = await janitor({ tables, fleet: { ...fleet, list: async () => [] }, clock, dax, keyspaces: ks });
    expect(r.deletedDaxClusters).toEqual([old]);
    expect(r.deletedKeyspaces).toEqual(['fb_jan_old_ks']);
    for (const kept of [fresh, untagged, 'prod-cache'])
      expect([kept, ['creating', 'available'].includes((await dax.describeCluster(kept)).status)]).toEqual([
        kept,
        true,
      ]);
    expect(['deleting', 'MISSING']).toContain((await dax.describeCluster(old)).status);
    expect([...ksTwin.keyspaces.keys()].sort()).toEqual(['fb_jan_new_ks', 'fb_jan_untagged', 'prod_ks']);
  });
});
