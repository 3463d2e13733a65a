/**
 * scylla-ec2 over the real EC2 adapter against moto server: AMI lookup by owner and name for a
 * version (DescribeImages), nodes launched with per-node user data and run/role/target tags, spread
 * over subnets, found again by tag, terminated by teardown (idempotently) and by the janitor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CreateImageCommand,
  CreateLaunchTemplateCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  EC2Client,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { Ec2ClusterAdmin } from '../../lib/aws/ec2-cluster';
import { Ec2FleetAdmin } from '../../lib/aws/ec2-fleet';
import { terminateLaunched } from '../../lib/aws/ec2-instances';
import {
  janitor,
  loaderIds,
  plan,
  provisionFleet,
  provisionTarget,
  teardown,
  type RunContext,
} from '../../lib/core/pipeline';
import type { Clock } from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startMoto, type MotoServer } from '../support/moto';

/** ProvisionTarget's wait for node 0 to run, shortened (moto reports it running on the next describe). */
const brief = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

jest.setTimeout(60_000);

const MOTO_ACCOUNT = '123456789012';
let moto: MotoServer;
let ec2: EC2Client;
let templateId: string;
let subnets: string[];
const images: Record<string, string> = {};
let dir: string;

const noTables = {
  createTable: async () => undefined,
  describeTable: async (name: string) => ({ name, status: 'MISSING' }),
  updateCapacity: async () => undefined,
  deleteTable: async () => false,
  tagTable: async () => undefined,
  listTables: async () => [],
  tableTags: async () => null,
};
const noFleet = { launch: async () => [], list: async () => [], terminate: async () => undefined };

function clockAt(ms: number): Clock {
  return { nowMs: () => ms };
}

beforeAll(async () => {
  moto = await startMoto();
  ec2 = new EC2Client(moto.clientConfig);
  const lt = await ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'nodes',
      LaunchTemplateData: { MetadataOptions: { HttpTokens: 'required' } },
    }),
  );
  templateId = lt.LaunchTemplate!.LaunchTemplateId!;
  const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
  subnets = [];
  for (const [i, az] of ['us-east-1a', 'us-east-1b', 'us-east-1c'].entries()) {
    const s = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpc.Vpc!.VpcId!, CidrBlock: `10.0.${i}.0/24`, AvailabilityZone: az }),
    );
    subnets.push(s.Subnet!.SubnetId!);
  }
  // images named like ScyllaDB's, registered from an instance of one of moto's default AMIs
  const base = await ec2.send(new RunInstancesCommand({ ImageId: 'ami-12c6146b', MinCount: 1, MaxCount: 1 }));
  for (const name of ['ScyllaDB 2024.2.5', 'ScyllaDB 2025.1.2', 'ScyllaDB 2025.10.0', 'Ubuntu 2025.1']) {
    const img = await ec2.send(
      new CreateImageCommand({ InstanceId: base.Instances![0]!.InstanceId!, Name: name }),
    );
    images[name] = img.ImageId!;
  }
});

afterAll(async () => {
  await moto?.stop();
});

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-scylla-aws-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function admin(): Ec2ClusterAdmin {
  return new Ec2ClusterAdmin(
    { launchTemplateId: templateId, subnetIds: subnets, amiOwners: [MOTO_ACCOUNT] },
    moto.clientConfig,
  );
}

function spec(ami: Record<string, string>) {
  return {
    name: 'scylla-aws',
    targets: [{ id: 'scylla', kind: 'scylla-ec2', nodes: 3, api: 'cql', ami, replicationFactor: 3 }],
    dataset: { recordCount: 1000 },
    workload: { readProportions: [0.5], targetOpsPerSec: [1000], durationSeconds: 60 },
    loaders: { count: 1 },
  };
}

async function planned(name: string, ami: Record<string, string>, clock: Clock) {
  const store = new FsStore(dir);
  const run: RunContext = await plan({ executionName: name, spec: spec(ami) }, { store, clock });
  return { run, store };
}

async function userDataOf(id: string): Promise<{ scylla_yaml: Record<string, unknown> }> {
  const a = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: id, Attribute: 'userData' }));
  return JSON.parse(Buffer.from(a.UserData!.Value!, 'base64').toString('utf8'));
}

describe('EC2 cluster adapter on moto', () => {
  it('finds the newest image of the version by owner and name, not a longer version or another product', async () => {
    const a = admin();
    const ami = await a.resolveImage({
      ami: { scyllaVersion: '2025.1' },
      instanceType: 'i4i.2xlarge',
      targetId: 't',
    });
    expect(ami).toBe(images['ScyllaDB 2025.1.2']);
    expect(
      await a.resolveImage({ ami: { scyllaVersion: '2024.2' }, instanceType: 'i4i.2xlarge', targetId: 't' }),
    ).toBe(images['ScyllaDB 2024.2.5']);
    await expect(
      a.resolveImage({ ami: { scyllaVersion: '6.0' }, instanceType: 'i4i.2xlarge', targetId: 'scylla' }),
    ).rejects.toThrow(/no ScyllaDB 6.0 image for x86_64 .*target scylla/);
    // ScyllaDB's own owners hold none of moto's images
    const official = new Ec2ClusterAdmin(
      { launchTemplateId: templateId, subnetIds: subnets },
      moto.clientConfig,
    );
    await expect(
      official.resolveImage({ ami: { scyllaVersion: '2025.1' }, instanceType: 'i4i.2xlarge', targetId: 't' }),
    ).rejects.toThrow(/797456418907/);
  });

  it('ProvisionTarget launches 3 tagged nodes over 3 subnets, seeded with node 0; teardown terminates them', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 1));
    const { run, store } = await planned('scylla-aws-1', { scyllaVersion: '2025.1' }, clock);
    expect(run.resources).toEqual([
      { type: 'database-node', targetId: 'scylla', nodes: 3, api: 'cql', table: 'usertable' },
    ]);
    const cluster = admin();

    const result = await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    expect(result.nodes).toHaveLength(3);
    const nodes = await cluster.list({ runId: run.runId });
    expect(nodes).toHaveLength(3);
    const byIndex = Object.fromEntries(nodes.map((n) => [n.tags['fleetbench:node-index'], n]));
    for (const n of nodes) {
      expect(n.tags).toMatchObject({
        'fleetbench:run-id': run.runId,
        'fleetbench:role': 'scylla-node',
        'fleetbench:target': 'scylla',
        'fleetbench:expires-at': String(run.expiresAt),
      });
      expect(n.privateIp).toMatch(/^10\.0\.[0-2]\.\d+$/);
    }
    // instance details: image, type, launch template, subnet per node index
    const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: nodes.map((n) => n.id) }));
    const insts = described.Reservations!.flatMap((r) => r.Instances!);
    for (const i of insts) {
      const idx = Number(i.Tags!.find((t) => t.Key === 'fleetbench:node-index')!.Value);
      expect(i.ImageId).toBe(images['ScyllaDB 2025.1.2']);
      expect(i.InstanceType).toBe('i4i.2xlarge');
      expect(i.SubnetId).toBe(subnets[idx]);
    }
    // user data: node 0 seeds itself, the others name node 0's address
    const u0 = await userDataOf(byIndex['0']!.id);
    expect(u0.scylla_yaml).toMatchObject({
      cluster_name: `fleetbench-${run.runId}-scylla`,
      alternator_port: 8000,
      alternator_write_isolation: 'only_rmw_uses_lwt',
      native_transport_port: 9042,
    });
    expect(u0.scylla_yaml.seed_provider).toBeUndefined();
    for (const i of ['1', '2']) {
      const u = await userDataOf(byIndex[i]!.id);
      expect(u.scylla_yaml.seed_provider).toEqual([
        {
          class_name: 'org.apache.cassandra.locator.SimpleSeedProvider',
          parameters: [{ seeds: byIndex['0']!.privateIp }],
        },
      ]);
    }

    // a retry launches nothing more
    expect(
      (await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief })).nodes,
    ).toBeUndefined();

    const down = await teardown(
      { run, error: { Error: 'StepFailedError', Cause: 'x' } },
      { store, tables: noTables, fleet: noFleet, cluster, clock },
    );
    expect(down.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
    const again = await teardown({ run }, { store, tables: noTables, fleet: noFleet, cluster, clock });
    expect(again.terminatedNodes).toEqual([]);
  });

  it('nodes and loaders of one run stay apart: the fleet counts, lists and commands loaders only', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 3));
    const { run, store } = await planned('scylla-aws-mixed', { scyllaVersion: '2025.1' }, clock);
    const cluster = admin();
    const fleet = new Ec2FleetAdmin({ launchTemplateId: templateId, subnetIds: subnets }, moto.clientConfig);
    // the nodes come first (ProvisionTarget and ProvisionFleet run in parallel)
    await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    const fleetResult = await provisionFleet(run, { fleet });
    expect(fleetResult).toEqual({ launched: run.loaders, instances: run.loaders });
    const loaders = await loaderIds(fleet, run.runId);
    const nodes = (await cluster.list({ runId: run.runId })).map((n) => n.id);
    expect(loaders).toHaveLength(run.loaders);
    expect(nodes).toHaveLength(3);
    expect(loaders.filter((id) => nodes.includes(id))).toEqual([]);
    const down = await teardown({ run }, { store, tables: noTables, fleet, cluster, clock });
    expect(down.terminated.sort()).toEqual(loaders);
    expect(down.terminatedNodes!.sort()).toEqual([...nodes].sort());
  });

  it('a given AMI id is used as is; the janitor terminates nodes whose expires-at has passed', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 2));
    const { run, store } = await planned('scylla-aws-2', { id: images['ScyllaDB 2024.2.5']! }, clock);
    const cluster = admin();
    await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    const nodes = await cluster.list({ runId: run.runId });
    expect(nodes).toHaveLength(3);
    // before expiry: nothing; after: all three
    const before = await janitor({ tables: noTables, fleet: noFleet, cluster, clock });
    expect(before.terminatedNodes).toEqual([]);
    const after = await janitor({
      tables: noTables,
      fleet: noFleet,
      cluster,
      clock: clockAt((run.expiresAt + 1) * 1000),
    });
    expect(after.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
  });

  it("a launch's rollback reads the run tag on each id first: another run's instance is never terminated", async () => {
    const launch = async (runId: string) =>
      (
        await ec2.send(
          new RunInstancesCommand({
            ImageId: 'ami-12c6146b',
            MinCount: 1,
            MaxCount: 1,
            TagSpecifications: [
              { ResourceType: 'instance', Tags: [{ Key: 'fleetbench:run-id', Value: runId }] },
            ],
          }),
        )
      ).Instances![0]!.InstanceId!;
    const mine = await launch('rollback-a');
    const theirs = await launch('rollback-b');
    const state = async (id: string) =>
      (await ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }))).Reservations![0]!.Instances![0]!
        .State!.Name;
    expect(await terminateLaunched(ec2, 'rollback-a', [mine, theirs])).toEqual([theirs]);
    expect(await state(mine)).toMatch(/^(shutting-down|terminated)$/);
    expect(await state(theirs)).toBe('running');
  });

  it('a loader launch refused in its second subnet terminates what the first launched, after reading its tag', async () => {
    const fleet = new Ec2FleetAdmin(
      { launchTemplateId: templateId, subnetIds: [subnets[0]!, 'subnet-0000000000000dead'] },
      moto.clientConfig,
    );
    const err = await fleet
      .launch({
        runId: 'rollback-c',
        count: 2,
        instanceType: 'c5.large',
        tags: { 'fleetbench:run-id': 'rollback-c', 'fleetbench:role': 'loader' },
      })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(err?.message).toMatch(/RunInstances/);
    expect(err?.message).not.toMatch(/not terminated|failed/);
    expect(await fleet.list({ runId: 'rollback-c' })).toEqual([]);
    // the first subnet's loader was launched, and is gone
    const all = await ec2.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'tag:fleetbench:run-id', Values: ['rollback-c'] }] }),
    );
    const states = (all.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => i.State!.Name);
    expect(states).toHaveLength(1);
    expect(states[0]).toMatch(/^(shutting-down|terminated)$/);
  });
});
