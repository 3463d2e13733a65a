/**
 * cassandra-ec2 over the real EC2 adapter against moto server: ProvisionTarget launches the nodes on the
 * stack's Amazon Linux 2023 image (per architecture) with the bootstrap script as user data, an encrypted
 * gp3 data volume besides the root volume, the Cassandra node instance profile and the cassandra-node role
 * tag; node 0 seeds the others; teardown and the janitor terminate them (the same list covers both node
 * roles, so a run with ScyllaDB and Cassandra nodes is torn down whole).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CreateLaunchTemplateCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { Ec2ClusterAdmin } from '../../lib/aws/ec2-cluster';
import { initialToken, scriptVariable } from '../../lib/core/targets/cassandra-ec2/node';
import { healthScript, parseHealth, type SchemaRequest } from '../../lib/core/targets/nodes/cluster';
import {
  janitor,
  plan,
  provisionTarget,
  teardown,
  waitReady,
  type RunContext,
} from '../../lib/core/pipeline';
import { StepFailedError, type Clock, type ClusterProbe } from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startCqlStandIn, type CqlStandIn } from '../support/cql-stand-in';
import { startMoto, type MotoServer } from '../support/moto';
import { freePort } from '../support/ports';

const brief = (): Promise<void> => new Promise((r) => setTimeout(r, 10));
jest.setTimeout(60_000);

let moto: MotoServer;
let ec2: EC2Client;
let templateId: string;
let subnets: string[];
let profileArn: string;
let dir: string;
// moto's default images stand in for the two Amazon Linux 2023 images the stack resolves
const AL2023 = { x86_64: 'ami-12c6146b', arm64: 'ami-03cf127a' };
const ASSET = 's3://cdk-hnb659fds-assets-123456789012-us-east-1/0123abcd.tar.gz';

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
const clockAt = (ms: number): Clock => ({ nowMs: () => ms });

/** IAM's CreateInstanceProfile on moto (a Query API call; moto does not check signatures). */
async function createInstanceProfile(name: string): Promise<string> {
  const res = await fetch(moto.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization:
        'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: `Action=CreateInstanceProfile&InstanceProfileName=${name}&Version=2010-05-08`,
  });
  const xml = await res.text();
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(xml)?.[1];
  if (!arn) throw new Error(`CreateInstanceProfile: ${xml}`);
  return arn;
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
  profileArn = await createInstanceProfile('fleetbench-cassandra-node');
});

afterAll(async () => {
  await moto?.stop();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cassandra-aws-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function admin(): Ec2ClusterAdmin {
  return new Ec2ClusterAdmin(
    {
      launchTemplateId: templateId,
      subnetIds: subnets,
      cassandra: { images: AL2023, asset: ASSET, instanceProfileArn: profileArn },
    },
    moto.clientConfig,
  );
}

async function planned(name: string, targets: unknown[], clock: Clock) {
  const store = new FsStore(dir);
  const spec = {
    name: 'cassandra-aws',
    targets,
    dataset: { recordCount: 1000 },
    workload: { readProportions: [0.5], targetOpsPerSec: [1000], durationSeconds: 60 },
    loaders: { count: 1 },
  };
  const run: RunContext = await plan({ executionName: name, spec }, { store, clock });
  return { run, store };
}

async function scriptOf(id: string): Promise<string> {
  const a = await ec2.send(new DescribeInstanceAttributeCommand({ InstanceId: id, Attribute: 'userData' }));
  return Buffer.from(a.UserData!.Value!, 'base64').toString('utf8');
}

const cassandra = {
  id: 'cass',
  kind: 'cassandra-ec2',
  nodes: 3,
  instanceType: 'r6i.2xlarge',
  volume: { sizeGb: 200 },
  replicationFactor: 3,
};

describe('EC2 cluster adapter on moto: cassandra-ec2', () => {
  it('the image follows the architecture; a stack without the Cassandra asset refuses', async () => {
    const a = admin();
    const req = { ami: { amazonLinux2023: true as const }, targetId: 't' };
    expect(await a.resolveImage({ ...req, instanceType: 'r6i.2xlarge' })).toBe(AL2023.x86_64);
    expect(await a.resolveImage({ ...req, instanceType: 'r7g.2xlarge' })).toBe(AL2023.arm64);
    const bare = new Ec2ClusterAdmin({ launchTemplateId: templateId, subnetIds: subnets }, moto.clientConfig);
    expect(bare.cassandraAsset).toBeUndefined();
    await expect(bare.resolveImage({ ...req, instanceType: 'r6i.2xlarge' })).rejects.toThrow(
      /target t: this stack launches no Cassandra nodes/,
    );
  });

  it('ProvisionTarget launches 3 tagged nodes with the script, data volume and profile; teardown ends them', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 1));
    const { run, store } = await planned('cass-aws-1', [cassandra], clock);
    expect(run.resources).toEqual([
      expect.objectContaining({ type: 'database-node', targetId: 'cass', nodes: 3, api: 'cql' }),
      { type: 'login-secret', targetId: 'cass', name: 'fleetbench/cass-aws-1/cass-cql' },
    ]);
    const cluster = admin();
    const result = await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    expect(result.nodes).toHaveLength(3);
    const nodes = await cluster.list({ runId: run.runId });
    expect(nodes).toHaveLength(3);
    const byIndex = Object.fromEntries(nodes.map((n) => [n.tags['fleetbench:node-index']!, n]));
    for (const n of nodes) {
      expect(n.tags).toMatchObject({
        'fleetbench:run-id': run.runId,
        'fleetbench:role': 'cassandra-node',
        'fleetbench:target': 'cass',
      });
    }
    const insts = (
      await ec2.send(new DescribeInstancesCommand({ InstanceIds: nodes.map((n) => n.id) }))
    ).Reservations!.flatMap((r) => r.Instances!);
    for (const i of insts) {
      const idx = Number(i.Tags!.find((t) => t.Key === 'fleetbench:node-index')!.Value);
      expect(i.ImageId).toBe(AL2023.x86_64);
      expect(i.InstanceType).toBe('r6i.2xlarge');
      expect(i.SubnetId).toBe(subnets[idx]);
      expect(i.IamInstanceProfile?.Arn).toBe(profileArn);
      expect(i.BlockDeviceMappings!.map((b) => b.DeviceName).sort()).toEqual(['/dev/sdf', '/dev/xvda']);
    }
    // the volumes: 30 GB root and the spec's 200 GB data volume, encrypted gp3 (moto keeps what was asked)
    const volumes = (
      await ec2.send(
        new DescribeVolumesCommand({
          Filters: [{ Name: 'attachment.instance-id', Values: [byIndex['0']!.id] }],
        }),
      )
    ).Volumes!;
    expect(volumes.map((v) => [v.Attachments![0]!.Device, v.Size, v.Encrypted]).sort()).toEqual([
      ['/dev/sdf', 200, true],
      ['/dev/xvda', 30, true],
    ]);
    // the user data is the bootstrap script: seeds, evenly spaced tokens, heap by Cassandra's rule, the asset
    const scripts = await Promise.all(['0', '1', '2'].map((i) => scriptOf(byIndex[i]!.id)));
    expect(scripts.map((s) => s.split('\n')[0])).toEqual(['#!/bin/bash', '#!/bin/bash', '#!/bin/bash']);
    expect(scripts.map((s) => scriptVariable(s, 'FB_SEEDS'))).toEqual([
      '',
      `${byIndex['0']!.privateIp}:7000`,
      `${byIndex['0']!.privateIp}:7000`,
    ]);
    expect(scripts.map((s) => scriptVariable(s, 'FB_TOKEN'))).toEqual(
      [0, 1, 2].map((i) => initialToken(i, 3)),
    );
    // r6i.2xlarge: 64 GiB → max(min(32768, 1024), min(16384, 8192)) = 8192 MB
    expect(scripts.map((s) => scriptVariable(s, 'FB_HEAP_MB'))).toEqual(['8192', '8192', '8192']);
    expect(scripts.map((s) => scriptVariable(s, 'FB_ASSET'))).toEqual([ASSET, ASSET, ASSET]);
    expect(scriptVariable(scripts[0]!, 'FB_CLUSTER_NAME')).toBe(`fleetbench-${run.runId}-cass`);

    const down = await teardown(
      { run, error: { Error: 'StepFailedError', Cause: 'x' } },
      { store, tables: noTables, fleet: noFleet, cluster, clock },
    );
    expect(down.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
  });

  it('ScyllaDB and Cassandra nodes of one run are listed and torn down together; the janitor ends expired ones', async () => {
    const clock = clockAt(Date.UTC(2026, 0, 2));
    const scylla = {
      id: 'scy',
      kind: 'scylla-ec2',
      nodes: 1,
      api: 'cql',
      replicationFactor: 1,
      ami: { id: AL2023.x86_64 },
    };
    const { run, store } = await planned(
      'cass-aws-2',
      [scylla, { ...cassandra, nodes: 2, replicationFactor: 2 }],
      clock,
    );
    const cluster = admin();
    await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    const nodes = await cluster.list({ runId: run.runId });
    expect(nodes.map((n) => n.tags['fleetbench:role']).sort()).toEqual([
      'cassandra-node',
      'cassandra-node',
      'scylla-node',
    ]);
    expect((await janitor({ tables: noTables, fleet: noFleet, cluster, clock })).terminatedNodes).toEqual([]);
    const after = await janitor({
      tables: noTables,
      fleet: noFleet,
      cluster,
      clock: clockAt((run.expiresAt + 1) * 1000),
    });
    expect(after.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
  });
});

/**
 * WaitReady over nodes launched in moto, probed by the loaders' own script (bash, CQL frames over
 * /dev/tcp: lib/core/targets/nodes/cluster.ts healthScript) run here, each node's private address mapped to a loopback
 * port: a node that answers (test/support/cql-stand-in.ts, with a release_version) or a port nothing
 * listens on. Only the Run Command transport is left out (test/integration/aws-ssm-probe.test.ts has it).
 */
describe('cassandra-ec2 failure paths end in teardown', () => {
  const standIns: CqlStandIn[] = [];
  afterAll(async () => Promise.all(standIns.map((s) => s.close())));

  async function answering(releaseVersion: string): Promise<number> {
    const s = await startCqlStandIn({ releaseVersion });
    standIns.push(s);
    return s.port;
  }

  function probeVia(portOf: Map<string, number>, schemas: SchemaRequest[]): ClusterProbe {
    return {
      check: async (api, endpoints) => {
        const local = endpoints.map((e) => ({ host: '127.0.0.1', port: portOf.get(e.host)! }));
        const { stdout } = await promisify(execFile)('bash', ['-c', healthScript(api, local).join('\n')]);
        return parseHealth(api, stdout, local).map((h, i) => ({
          ...h,
          endpoint: `${endpoints[i]!.host}:${endpoints[i]!.port}`,
        }));
      },
      createSchema: async (req) => void schemas.push(req),
    };
  }

  const loader = {
    ...noFleet,
    list: async () => [{ id: 'i-loader', state: 'running', tags: {} }],
  };
  const commands = {
    online: async (ids: string[]) => ids,
    send: async () => [],
    status: async () => [],
    cancel: async () => undefined,
  };

  async function launched(name: string, at: number) {
    const clock = clockAt(at);
    const { run, store } = await planned(name, [cassandra], clock);
    const cluster = admin();
    await provisionTarget(run, { store, tables: noTables, cluster, sleep: brief });
    const nodes = (await cluster.list({ runId: run.runId })).sort(
      (a, b) => Number(a.tags['fleetbench:node-index']) - Number(b.tags['fleetbench:node-index']),
    );
    expect(nodes).toHaveLength(3);
    return { run, store, cluster, nodes, clock };
  }

  it('a node that never answers: WaitReady waits, then fails at the deadline naming it; teardown terminates every node', async () => {
    const t0 = Date.UTC(2026, 0, 3);
    const { run, store, cluster, nodes } = await launched('cass-aws-silent', t0);
    const silent = nodes[2]!;
    const portOf = new Map([
      [nodes[0]!.privateIp!, await answering('5.0.6')],
      [nodes[1]!.privateIp!, await answering('5.0.6')],
      [silent.privateIp!, await freePort()],
    ]);
    const schemas: SchemaRequest[] = [];
    const deps = {
      tables: noTables,
      fleet: loader,
      commands,
      store,
      cluster,
      probe: probeVia(portOf, schemas),
    };
    // before the deadline: not ready, two of three answer, nothing created
    const first = await waitReady({ run }, { ...deps, clock: clockAt(t0) });
    expect(first).toMatchObject({ ready: false, nodesAnswering: 2, deadlineMs: t0 + 15 * 60 * 1000 });
    // the Wait state brings the step back after the deadline (READY_TIMEOUT_SECONDS, 15 min)
    await expect(
      waitReady({ run, ready: first }, { ...deps, clock: clockAt(first.deadlineMs) }),
    ).rejects.toThrow(
      new StepFailedError(
        'WaitReady',
        `not ready after 900 s: cass: 1 of 3 nodes do not answer on cql: ${silent.privateIp}:9042 (no connection)`,
      ),
    );
    expect(schemas).toEqual([]);
    // the state machine's Catch runs Teardown with the error: every node goes, the silent one too
    const down = await teardown(
      { run, error: { Error: 'StepFailedError', Cause: 'WaitReady: not ready after 900 s' } },
      { store, tables: noTables, fleet: noFleet, cluster, clock: clockAt(first.deadlineMs) },
    );
    expect(down.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
  });

  it('a node running another version: refused at the first probe naming both versions, no schema; teardown terminates every node', async () => {
    const t0 = Date.UTC(2026, 0, 4);
    const { run, store, cluster, nodes } = await launched('cass-aws-version', t0);
    const portOf = new Map([
      [nodes[0]!.privateIp!, await answering('5.0.6')],
      [nodes[1]!.privateIp!, await answering('4.1.9')],
      [nodes[2]!.privateIp!, await answering('5.0.6')],
    ]);
    const schemas: SchemaRequest[] = [];
    await expect(
      waitReady(
        { run },
        {
          tables: noTables,
          fleet: loader,
          commands,
          store,
          cluster,
          probe: probeVia(portOf, schemas),
          clock: clockAt(t0),
        },
      ),
    ).rejects.toThrow(
      new StepFailedError(
        'WaitReady',
        `cass: node ${nodes[1]!.privateIp}:9042 runs Apache Cassandra 4.1.9; the spec asks for 5.0.6 (targets[0].version)`,
      ),
    );
    expect(schemas).toEqual([]);
    const down = await teardown(
      { run, error: { Error: 'StepFailedError', Cause: 'WaitReady: version' } },
      { store, tables: noTables, fleet: noFleet, cluster, clock: clockAt(t0) },
    );
    expect(down.terminatedNodes!.sort()).toEqual(nodes.map((n) => n.id).sort());
    expect(await cluster.list({ runId: run.runId })).toEqual([]);
  });
});
