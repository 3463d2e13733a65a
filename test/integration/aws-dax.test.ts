/**
 * DaxClusterAdmin against moto server: clusters on moto's DAX backend, security groups on moto's EC2; the
 * subnet and parameter group calls moto lacks are answered by the loopback front in test/support/dax-twin.ts
 * (what it records is the request exactly as the SDK sent it).
 */
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import {
  CreateClusterCommand,
  CreateParameterGroupCommand,
  CreateSubnetGroupCommand,
  DeleteClusterCommand,
} from '@aws-sdk/client-dax';
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { deleteCreatedGroup } from '../../lib/aws/loader-only-groups';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
import {
  ConflictError,
  NotOwnedError,
  TAG_RUN_ID,
  type DaxClusterRequest,
  type DaxNetwork,
} from '../../lib/core/common/ports';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(60_000);

let moto: MotoServer;
let twin: DaxTwin;
let ec2: EC2Client;
let admin: DaxClusterAdmin;
let vpcId: string;
let subnets: string[];
let loaderSg: string;

beforeAll(async () => {
  moto = await startMoto();
  twin = await startDaxTwin(moto.endpoint);
  ec2 = new EC2Client(moto.clientConfig);
  vpcId = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.1.0.0/16' }))).Vpc!.VpcId!;
  subnets = [];
  for (const [i, az] of ['us-east-1a', 'us-east-1b'].entries()) {
    const s = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.1.${i}.0/24`, AvailabilityZone: az }),
    );
    subnets.push(s.Subnet!.SubnetId!);
  }
  loaderSg = (
    await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'loaders', Description: 'loaders', VpcId: vpcId }),
    )
  ).GroupId!;
  admin = adapter(network());
});

/** The stack's network and DAX role, as lambdas/shared/env.ts gives the adapter. */
function network(overrides: Partial<DaxNetwork> = {}): DaxNetwork {
  return {
    vpcId,
    subnetIds: subnets,
    loaderSecurityGroupId: loaderSg,
    iamRoleArn: 'arn:aws:iam::123456789012:role/fleetbench-dax',
    ...overrides,
  };
}

function adapter(net?: DaxNetwork): DaxClusterAdmin {
  return new DaxClusterAdmin({ ...moto.clientConfig, endpoint: twin.endpoint }, moto.clientConfig, net);
}

afterAll(async () => {
  await twin?.stop();
  await moto?.stop();
});

function request(runId: string, overrides: Partial<DaxClusterRequest> = {}): DaxClusterRequest {
  return {
    name: daxResourceName(runId, 'ddb'),
    nodeType: 'dax.r5.large',
    nodes: 3,
    ttls: { itemTtlMs: 60_000, queryTtlMs: 0 },
    tls: true,
    tags: { [TAG_RUN_ID]: runId, 'fleetbench:expires-at': '1900000000' },
    ...overrides,
  };
}

async function groupsNamed(name: string) {
  const out = await ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: [name] }] }),
  );
  return out.SecurityGroups ?? [];
}

async function waitFor(name: string, status: string) {
  for (let i = 0; i < 10; i++) {
    const s = await admin.describeCluster(name);
    if (s.status === status) return s;
  }
  throw new Error(`${name} never reached ${status}`);
}

describe('DAX cluster adapter on moto', () => {
  it('creates security group, subnet group, parameter group (TTLs) and cluster; deletes all four, the groups only for the run whose tag their security group carries', async () => {
    const req = request('run-dax-1');
    await admin.createCluster(req);

    // the security group admits the loaders' group only, on 8111 and 9111, and sends nothing
    const [sg] = await groupsNamed(req.name);
    expect(sg!.VpcId).toBe(vpcId);
    const ingress = (sg!.IpPermissions ?? []).map((p) => ({
      port: p.FromPort,
      to: p.ToPort,
      from: (p.UserIdGroupPairs ?? []).map((g) => g.GroupId),
      cidrs: (p.IpRanges ?? []).length,
    }));
    expect(ingress.sort((a, b) => a.port! - b.port!)).toEqual([
      { port: 8111, to: 8111, from: [loaderSg], cidrs: 0 },
      { port: 9111, to: 9111, from: [loaderSg], cidrs: 0 },
    ]);
    expect(sg!.IpPermissionsEgress ?? []).toEqual([]);

    // the groups as sent: subnets, TTLs as DAX's two parameters
    expect(twin.subnetGroups.get(req.name)).toEqual(subnets);
    expect(twin.parameterGroups.get(req.name)).toEqual({
      'record-ttl-millis': '60000',
      'query-ttl-millis': '0',
    });
    const create = twin.calls.find((c) => c.op === 'CreateCluster' && c.body.ClusterName === req.name)!.body;
    expect(create).toMatchObject({
      NodeType: 'dax.r5.large',
      ReplicationFactor: 3,
      SubnetGroupName: req.name,
      ParameterGroupName: req.name,
      SecurityGroupIds: [sg!.GroupId],
      ClusterEndpointEncryptionType: 'TLS',
      SSESpecification: { Enabled: true },
      IamRoleArn: network().iamRoleArn,
    });

    const up = await waitFor(req.name, 'available');
    expect(up.nodes).toBe(3);
    expect(up.nodeType).toBe('dax.r5.large');
    expect(up.endpoint).toMatch(
      new RegExp(`^daxs://${req.name}\\.[0-9a-z]+\\.dax-clusters\\.us-east-1\\.amazonaws\\.com:\\d+$`),
    );

    expect((await admin.listClusters({ runId: 'run-dax-1' })).map((c) => c.name)).toEqual([req.name]);
    expect(await admin.listClusters({ runId: 'another-run' })).toEqual([]);

    // groups cannot go while the cluster exists
    expect(await admin.deleteSupporting(req.name)).toBe(false);
    expect(twin.subnetGroups.has(req.name)).toBe(true);

    expect(await admin.deleteCluster(req.name)).toBe(true);
    await waitFor(req.name, 'MISSING');
    // another run's teardown with the same name: the security group carries run-dax-1's tag, so nothing goes
    expect(await admin.deleteSupporting(req.name, 'another-run')).toBe(true);
    expect(twin.subnetGroups.has(req.name)).toBe(true);
    expect(twin.parameterGroups.has(req.name)).toBe(true);
    expect(await groupsNamed(req.name)).toHaveLength(1);
    expect(await admin.deleteSupporting(req.name, 'run-dax-1')).toBe(true);
    expect(twin.subnetGroups.has(req.name)).toBe(false);
    expect(twin.parameterGroups.has(req.name)).toBe(false);
    expect(await groupsNamed(req.name)).toEqual([]);
    // teardown is idempotent
    expect(await admin.deleteCluster(req.name)).toBe(false);
    expect(await admin.deleteSupporting(req.name)).toBe(true);
  });

  it('a cluster that already exists is a ConflictError and nothing more is created', async () => {
    const req = request('run-dax-2', { tls: false });
    await admin.createCluster(req);
    const callsBefore = twin.calls.length;
    await expect(admin.createCluster(req)).rejects.toBeInstanceOf(ConflictError);
    expect(twin.calls.length).toBe(callsBefore);
    expect(await groupsNamed(req.name)).toHaveLength(1);
    const up = await waitFor(req.name, 'available');
    expect(up.endpoint).toMatch(/^dax:\/\/.*:\d+$/);
    // the janitor's view: every fleetbench cluster (run tag), not a cluster someone else made
    await admin.dax.send(
      new CreateClusterCommand({
        ClusterName: 'not-ours',
        NodeType: 'dax.t3.small',
        ReplicationFactor: 1,
        IamRoleArn: 'arn:aws:iam::123456789012:role/other',
      }),
    );
    expect((await admin.listClusters({})).map((c) => c.name)).toEqual([req.name]);
    await admin.dax.send(new DeleteClusterCommand({ ClusterName: 'not-ours' }));
    await admin.deleteCluster(req.name);
    await waitFor(req.name, 'MISSING');
    expect(await admin.deleteSupporting(req.name)).toBe(true);
  });

  it('a refused CreateCluster leaves no security group, subnet group or parameter group behind', async () => {
    const req = request('run-dax-3');
    await expect(adapter(network({ iamRoleArn: 'not-an-arn' })).createCluster(req)).rejects.toThrow(
      /CreateCluster fb-[0-9a-f]{8}: InvalidParameterValueException/,
    );
    expect(twin.subnetGroups.has(req.name)).toBe(false);
    expect(twin.parameterGroups.has(req.name)).toBe(false);
    expect(await groupsNamed(req.name)).toEqual([]);
    expect((await admin.describeCluster(req.name)).status).toBe('MISSING');
  });

  it('a subnet EC2 does not know is refused at CreateSubnetGroup (InvalidSubnet); nothing is left behind', async () => {
    const req = request('run-dax-4');
    await expect(
      adapter(network({ subnetIds: [subnets[0]!, 'subnet-0123456789abcdef0'] })).createCluster(req),
    ).rejects.toThrow(/InvalidSubnet/);
    expect(twin.subnetGroups.has(req.name)).toBe(false);
    expect(await groupsNamed(req.name)).toEqual([]);
    expect((await admin.describeCluster(req.name)).status).toBe('MISSING');
  });

  it('a new cluster is creating for a few DescribeClusters before it is available', async () => {
    const req = request('run-dax-5');
    await admin.createCluster(req);
    const seen: string[] = [];
    for (let i = 0; i < 10 && seen.at(-1) !== 'available'; i++)
      seen.push((await admin.describeCluster(req.name)).status);
    expect(seen.slice(0, 2)).toEqual(['creating', 'creating']);
    expect(seen.at(-1)).toBe('available');
    await admin.deleteCluster(req.name);
  });

  it('refuses a name DAX would refuse, or a creation without a network, before creating anything', async () => {
    const before = twin.calls.length;
    await expect(adapter().createCluster(request('r'))).rejects.toThrow(/has no network to create it in/);
    await expect(admin.createCluster(request('r', { name: 'fleetbench-dax-name-too-long' }))).rejects.toThrow(
      /has 28 characters; DAX allows 1-20/,
    );
    expect(twin.calls.length).toBe(before);
  });
});

describe("a failed creation's security-group rollback (lib/aws/loader-only-groups.ts, DAX's and MemoryDB's)", () => {
  const group = async (name: string, runId: string) =>
    (
      await ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: name,
          Description: 'x',
          VpcId: vpcId,
          TagSpecifications: [{ ResourceType: 'security-group', Tags: [{ Key: TAG_RUN_ID, Value: runId }] }],
        }),
      )
    ).GroupId!;
  const exists = async (id: string) =>
    (
      (await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-id', Values: [id] }] })))
        .SecurityGroups ?? []
    ).length === 1;

  it("deletes the group only when it carries the request's run tag", async () => {
    const mine = await group('fb-rollback-mine', 'run-rb-1');
    const theirs = await group('fb-rollback-theirs', 'run-rb-2');
    await deleteCreatedGroup(ec2, mine, { name: 'fb-rollback-mine', tags: { [TAG_RUN_ID]: 'run-rb-1' } });
    await deleteCreatedGroup(ec2, theirs, { name: 'fb-rollback-theirs', tags: { [TAG_RUN_ID]: 'run-rb-1' } });
    expect([await exists(mine), await exists(theirs)]).toEqual([false, true]);
  });
});

describe('a retried creation adopts what a first attempt of the same run left (the state machine retries ProvisionTarget once)', () => {
  /** A security group as CreateSecurityGroup left it (default egress, no ingress), with these tags. */
  const leftGroup = async (name: string, tags: Record<string, string>) =>
    (
      await ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: name,
          Description: 'fleetbench DAX cluster: the loaders only',
          VpcId: vpcId,
          TagSpecifications: [
            {
              ResourceType: 'security-group',
              Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
            },
          ],
        }),
      )
    ).GroupId!;
  const rules = async (name: string) => {
    const [sg] = await groupsNamed(name);
    return {
      ingress: (sg!.IpPermissions ?? [])
        .map((p) => ({ port: p.FromPort, from: (p.UserIdGroupPairs ?? []).map((g) => g.GroupId) }))
        .sort((a, b) => a.port! - b.port!),
      egress: sg!.IpPermissionsEgress ?? [],
    };
  };
  const createdWith = (name: string) =>
    twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name).map((c) => c.body);
  const teardown = async (name: string, runId: string) => {
    await admin.deleteCluster(name);
    await waitFor(name, 'MISSING');
    expect(await admin.deleteSupporting(name, runId)).toBe(true);
    expect(twin.subnetGroups.has(name)).toBe(false);
    expect(twin.parameterGroups.has(name)).toBe(false);
    expect(await groupsNamed(name)).toEqual([]);
  };

  it("the run's security group alone: adopted, its rules set as on a fresh group, the cluster uses it", async () => {
    const req = request('run-dax-6');
    const left = await leftGroup(req.name, req.tags);
    await admin.createCluster(req);
    expect(await groupsNamed(req.name)).toHaveLength(1);
    expect(createdWith(req.name)).toEqual([expect.objectContaining({ SecurityGroupIds: [left] })]);
    // what a fresh group gets: the loaders on 8111 and 9111, no egress (the default rule revoked)
    expect(await rules(req.name)).toEqual({
      ingress: [
        { port: 8111, from: [loaderSg] },
        { port: 9111, from: [loaderSg] },
      ],
      egress: [],
    });
    await teardown(req.name, 'run-dax-6');
  });

  it('security group (one rule set already), subnet group and parameter group: all adopted, the TTLs set again', async () => {
    const req = request('run-dax-7');
    const left = await leftGroup(req.name, req.tags);
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: left,
        IpPermissions: [
          // as the first attempt set it (the request names both ports: EC2 would refuse it as a duplicate)
          {
            IpProtocol: 'tcp',
            FromPort: 8111,
            ToPort: 8111,
            UserIdGroupPairs: [{ GroupId: loaderSg, Description: 'fleetbench loaders' }],
          },
        ],
      }),
    );
    await admin.dax.send(new CreateSubnetGroupCommand({ SubnetGroupName: req.name, SubnetIds: subnets }));
    await admin.dax.send(new CreateParameterGroupCommand({ ParameterGroupName: req.name }));
    await admin.createCluster(req);
    expect(await groupsNamed(req.name)).toHaveLength(1);
    expect(createdWith(req.name)).toEqual([
      expect.objectContaining({
        SecurityGroupIds: [left],
        SubnetGroupName: req.name,
        ParameterGroupName: req.name,
      }),
    ]);
    expect((await rules(req.name)).ingress).toEqual([
      { port: 8111, from: [loaderSg] },
      { port: 9111, from: [loaderSg] },
    ]);
    // the spec's TTLs (itemTtlMs 60000, queryTtlMs 0), not the new group's defaults
    expect(twin.parameterGroups.get(req.name)).toEqual({
      'record-ttl-millis': '60000',
      'query-ttl-millis': '0',
    });
    await teardown(req.name, 'run-dax-7');
  });

  it("a security group of the name without this run's tag: refused naming it, left as it is, nothing created", async () => {
    const req = request('run-dax-8');
    const theirs = await leftGroup(req.name, { [TAG_RUN_ID]: 'another-run' });
    const err = await admin.createCluster(req).catch((e: Error) => e);
    expect(err).toBeInstanceOf(NotOwnedError);
    expect((err as Error).message).toContain(`security group ${req.name} (${theirs})`);
    expect((await groupsNamed(req.name)).map((g) => g.GroupId)).toEqual([theirs]);
    expect(await rules(req.name)).toMatchObject({ ingress: [] });
    expect(twin.subnetGroups.has(req.name)).toBe(false);
    expect(createdWith(req.name)).toEqual([]);
    await ec2.send(new DeleteSecurityGroupCommand({ GroupId: theirs }));
  });

  it("a subnet group of the name when the run's security group was not there before: refused naming it, left", async () => {
    const req = request('run-dax-9');
    await admin.dax.send(
      new CreateSubnetGroupCommand({ SubnetGroupName: req.name, SubnetIds: subnets.slice(0, 1) }),
    );
    await expect(admin.createCluster(req)).rejects.toThrow(
      new NotOwnedError(
        `DAX subnet group ${req.name} already exists and its security group of that name is not this run's ` +
          'from an earlier attempt: not adopted, left as it is',
      ),
    );
    expect(twin.subnetGroups.get(req.name)).toEqual(subnets.slice(0, 1));
    // the group this attempt made is rolled back
    expect(await groupsNamed(req.name)).toEqual([]);
    expect(createdWith(req.name)).toEqual([]);
  });
});
