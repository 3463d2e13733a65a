/**
 * A dynamodb target with DAX through the pipeline's steps, on moto server (DAX clusters, EC2 security groups,
 * DynamoDB tables) with the DAX group calls moto lacks answered by test/support/dax-twin.ts: Plan records the
 * cluster, ProvisionTarget creates it (idempotently) in the stack's network, WaitReady waits for `available`
 * with DAX's longer deadline, StartLoad/StartCell hand the loaders the cluster's endpoint (never the table's),
 * Teardown deletes the cluster and leaves the groups to the Janitor until DAX has removed it.
 * Fleet and commands are small fakes (not the subject here).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CreateSubnetGroupCommand, DeleteSubnetGroupCommand } from '@aws-sdk/client-dax';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
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
  DAX_READY_POLL_SECONDS,
  DAX_READY_TIMEOUT_SECONDS,
  phaseTimes,
} from '../../lib/core/pipeline/timing';
import { READY_TIMEOUT_SECONDS, maxReadyChecks } from '../../lib/core/plan/history';
import {
  StepFailedError,
  TAG_RUN_ID,
  type CommandRunner,
  type FleetAdmin,
} from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startMoto, type MotoServer } from '../support/moto';
import { withRenamed } from '../support/run-resources';

jest.setTimeout(90_000);

let moto: MotoServer;
let twin: DaxTwin;
let ec2: EC2Client;
let dax: DaxClusterAdmin;
let tables: DynamoDbTableAdmin;
let dir: string;
let store: FsStore;
let network: { vpcId: string; subnetIds: string[]; loaderSecurityGroupId: string; iamRoleArn: string };
let nowMs = Date.UTC(2026, 10, 23, 12);
const clock = { nowMs: () => nowMs };

const ROLE = 'arn:aws:iam::123456789012:role/fleetbench-dax';

beforeAll(async () => {
  moto = await startMoto();
  twin = await startDaxTwin(moto.endpoint);
  ec2 = new EC2Client(moto.clientConfig);
  const vpcId = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.2.0.0/16' }))).Vpc!.VpcId!;
  const subnetIds: string[] = [];
  for (const [i, az] of ['us-east-1a', 'us-east-1b'].entries())
    subnetIds.push(
      (
        await ec2.send(
          new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: `10.2.${i}.0/24`, AvailabilityZone: az }),
        )
      ).Subnet!.SubnetId!,
    );
  const loaderSecurityGroupId = (
    await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'loaders', Description: 'loaders', VpcId: vpcId }),
    )
  ).GroupId!;
  network = { vpcId, subnetIds, loaderSecurityGroupId, iamRoleArn: ROLE };
  dax = new DaxClusterAdmin({ ...moto.clientConfig, endpoint: twin.endpoint }, moto.clientConfig, network);
  tables = new DynamoDbTableAdmin(moto.clientConfig);
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-dax-pipeline-'));
  store = new FsStore(dir);
});

afterAll(async () => {
  await twin?.stop();
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const spec = {
  name: 'dax-run',
  targets: [
    { id: 'plain', kind: 'dynamodb', billing: { mode: 'on-demand' } },
    {
      id: 'cached',
      kind: 'dynamodb',
      billing: { mode: 'on-demand' },
      dax: { nodeType: 'dax.r5.large', nodes: 3, itemTtlMs: 60_000, queryTtlMs: 0 },
    },
  ],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.95], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
};

/** One loader, online at once; commands are accepted and do nothing. */
const fleet: FleetAdmin = {
  launch: () => Promise.resolve(['i-loader0']),
  list: () => Promise.resolve([{ id: 'i-loader0', state: 'running', tags: {} }]),
  terminate: () => Promise.resolve(),
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

describe('a DAX run through the steps', () => {
  let run: RunContext;
  const name = daxResourceName('dax-run-1', 'cached');

  it('Plan records the cluster of the DAX target only, and allows WaitReady its longer deadline', async () => {
    run = await plan({ executionName: 'dax-run-1', spec }, { store, clock });
    expect(run.resources.filter((r) => r.type === 'dax-cluster')).toEqual([
      { type: 'dax-cluster', targetId: 'cached', name },
    ]);
    // the worst case (and so the janitor's expiry) counts DAX's ready time, not the 15 minutes of other runs
    const noDax = { ...spec, targets: spec.targets.map(({ dax: _d, ...t }: Record<string, unknown>) => t) };
    const without = await plan({ executionName: 'dax-run-0', spec: noDax }, { store, clock });
    expect(without.resources.map((r) => r.type)).toEqual(['dynamodb-table', 'dynamodb-table']);
    expect(run.expiresAt - without.expiresAt).toBe((DAX_READY_TIMEOUT_SECONDS - READY_TIMEOUT_SECONDS) * 1.5);
  });

  it('ProvisionTarget creates the cluster in the stack network with the TTLs; a retry finds it again', async () => {
    const first = await provisionTarget(run, { store, tables, dax });
    expect(first.dax).toEqual([name]);
    expect(first.created.sort()).toEqual([
      'fleetbench-dax-run.cached.dax-run-1',
      'fleetbench-dax-run.plain.dax-run-1',
    ]);
    const create = twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name);
    expect(create).toHaveLength(1);
    expect(create[0]!.body).toMatchObject({
      NodeType: 'dax.r5.large',
      ReplicationFactor: 3,
      IamRoleArn: ROLE,
      ClusterEndpointEncryptionType: 'TLS',
    });
    expect(twin.parameterGroups.get(name)).toEqual({ 'record-ttl-millis': '60000', 'query-ttl-millis': '0' });
    expect(twin.subnetGroups.get(name)).toEqual(network.subnetIds);
    const [sg] = await groupsNamed(name);
    const tags = Object.fromEntries((sg!.Tags ?? []).map((t) => [t.Key, t.Value]));
    expect(tags).toMatchObject({ [TAG_RUN_ID]: 'dax-run-1', 'fleetbench:expires-at': String(run.expiresAt) });

    const again = await provisionTarget(run, { store, tables, dax });
    expect(again.dax).toEqual([name]);
    expect(twin.calls.filter((c) => c.op === 'CreateCluster' && c.body.ClusterName === name)).toHaveLength(1);
  });

  it("a cluster of that name that is not this run's fails ProvisionTarget", async () => {
    const other = await plan({ executionName: 'dax-run-9', spec }, { store, clock });
    const clash = withRenamed(other, 'dax-cluster', name);
    await expect(provisionTarget(clash, { store, tables, dax })).rejects.toThrow(
      new StepFailedError('ProvisionTarget', `DAX cluster ${name} already exists and is not this run's`),
    );
    // its tables only: its ProvisionTarget failed before any DAX call (a teardown with a DAX port would poll the
    // twin, whose clusters advance by calls, and shift the next test's view of run 1's cluster)
    const tablesOnly = other.resources.filter((r) => r.type !== 'dax-cluster');
    await teardown({ run: { ...other, resources: tablesOnly } }, { store, tables, fleet, clock });
  });

  it('WaitReady waits for the cluster to be available, polling every 60 s within 40 minutes', async () => {
    let ready = await waitReady({ run }, { store, tables, fleet, commands, clock, dax });
    expect(ready.waitSeconds).toBe(DAX_READY_POLL_SECONDS);
    expect(ready.deadlineMs).toBe(nowMs + DAX_READY_TIMEOUT_SECONDS * 1000);
    for (let i = 0; i < 10 && !ready.ready; i++)
      ready = await waitReady({ run, ready }, { store, tables, fleet, commands, clock, dax });
    expect(ready.ready).toBe(true);
    // the history budget counts the most ready checks of either limit: DAX's 40 min / 60 s = 40 ≥ 15 min / 30 s = 30
    expect(maxReadyChecks()).toBe(40);
  });

  it("the loaders get the cluster's endpoint for the DAX target only, and never a DynamoDB endpoint", async () => {
    const load = await startPhase(
      'load',
      { run, index: run.loadTargets.indexOf('cached') },
      {
        store,
        fleet,
        commands,
        clock,
        dax,
      },
    );
    expect(load.instances).toBe(1);
    const job = (await store.getJson(`runs/dax-run-1/load/cached/jobs/i-loader0.json`)) as {
      processes: Record<string, string>[];
    };
    const endpoint = (await dax.describeCluster(name)).endpoint!;
    expect(endpoint).toMatch(/^daxs:\/\/fb-[0-9a-f]{8}\..*:\d+$/);
    for (const p of job.processes) {
      expect(p['dynamodb.daxEndpoint']).toBe(endpoint);
      expect(p['dynamodb.endpoint']).toBeUndefined();
    }
    await startPhase(
      'load',
      { run, index: run.loadTargets.indexOf('plain') },
      { store, fleet, commands, clock, dax },
    );
    const plain = (await store.getJson(`runs/dax-run-1/load/plain/jobs/i-loader0.json`)) as {
      processes: Record<string, string>[];
    };
    for (const p of plain.processes) expect(p['dynamodb.daxEndpoint']).toBeUndefined();
    // without the DAX port the phase fails rather than send the loaders to the table directly
    await expect(startPhase('run', { run, index: 0 }, { store, fleet, commands, clock })).rejects.toThrow(
      /no DAX port/,
    );
  });

  it('Teardown deletes the cluster; the groups wait for the Janitor until DAX has removed it', async () => {
    const down = await teardown({ run }, { store, tables, fleet, clock, dax });
    expect(down.deletedDaxClusters).toEqual([name]);
    expect(down.pendingDaxGroups).toEqual([name]);
    expect(down.deletedTables.sort()).toEqual([
      'fleetbench-dax-run.cached.dax-run-1',
      'fleetbench-dax-run.plain.dax-run-1',
    ]);
    expect(await groupsNamed(name)).toHaveLength(1);
    expect(twin.subnetGroups.has(name)).toBe(true);

    // moto removes a deleting cluster after a few describes (moto's unnamed DescribeClusters fails while a
    // cluster finishes deleting during the call, which AWS does not: the test waits for it to be gone first)
    for (let i = 0; i < 10 && (await dax.describeCluster(name)).status !== 'MISSING'; i++);
    expect((await dax.describeCluster(name)).status).toBe('MISSING');
    // the cluster is gone, but before the run expires the janitor leaves its groups alone
    const early = await janitor({ tables, fleet: { ...fleet, list: () => Promise.resolve([]) }, clock, dax });
    expect(early.deletedDaxGroups).toEqual([]);
    expect(twin.subnetGroups.has(name)).toBe(true);
    // once expired, it deletes them
    nowMs = (run.expiresAt + 1) * 1000;
    const late = await janitor({ tables, fleet: { ...fleet, list: () => Promise.resolve([]) }, clock, dax });
    expect(late.deletedDaxGroups).toEqual([name]);
    expect(await groupsNamed(name)).toEqual([]);
    expect(twin.subnetGroups.has(name)).toBe(false);
    expect(twin.parameterGroups.has(name)).toBe(false);
  });

  it('the Janitor deletes an expired cluster a run left behind, and keeps an unexpired one', async () => {
    const left = await plan({ executionName: 'dax-run-2', spec }, { store, clock });
    const kept = await plan(
      { executionName: 'dax-run-3', spec },
      { store, clock: { nowMs: () => nowMs + 1e10 } },
    );
    await provisionTarget(left, { store, tables, dax });
    await provisionTarget(kept, { store, tables, dax });
    nowMs = (left.expiresAt + 1) * 1000;
    const r = await janitor({ tables, fleet: { ...fleet, list: () => Promise.resolve([]) }, clock, dax });
    expect(r.deletedDaxClusters).toEqual([daxResourceName('dax-run-2', 'cached')]);
    expect((await dax.describeCluster(daxResourceName('dax-run-3', 'cached'))).status).not.toBe('MISSING');
    await teardown({ run: kept }, { store, tables, fleet, clock, dax });
  });
});

describe("ProvisionTarget's rollback of a DAX cluster it could not finish", () => {
  it('deletes the security group it created by its id; a same-named group in another VPC survives', async () => {
    const rb = await plan({ executionName: 'dax-run-rb', spec }, { store, clock });
    const name = daxResourceName('dax-run-rb', 'cached');
    // names are unique per VPC only: the same name, run tag and all, in another VPC
    const otherVpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: '10.3.0.0/16' }))).Vpc!.VpcId!;
    const decoy = (
      await ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: name,
          Description: 'another VPC',
          VpcId: otherVpc,
          TagSpecifications: [
            { ResourceType: 'security-group', Tags: [{ Key: TAG_RUN_ID, Value: 'dax-run-rb' }] },
          ],
        }),
      )
    ).GroupId!;
    // the subnet group's name is taken (and not provably this run's: the run's security group in the loaders' VPC
    // was not there before): creation fails after the security group
    await dax.dax.send(new CreateSubnetGroupCommand({ SubnetGroupName: name, SubnetIds: network.subnetIds }));
    // the EC2 calls the adapter makes, with the group each names
    const sent: string[] = [];
    const logged = new EC2Client(moto.clientConfig);
    logged.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const input = args.input as { GroupId?: string; GroupIds?: string[] };
        const output = out.output as { GroupId?: string };
        const group = input.GroupId ?? input.GroupIds?.join(',') ?? output.GroupId ?? '';
        sent.push(`${context.commandName} ${group}`.trim());
        return out;
      },
      { step: 'initialize' },
    );
    const adapter = new DaxClusterAdmin({ ...moto.clientConfig, endpoint: twin.endpoint }, logged, network);

    await expect(provisionTarget(rb, { store, tables, dax: adapter })).rejects.toThrow(
      `DAX subnet group ${name} already exists`,
    );
    expect((await groupsNamed(name)).map((g) => g.GroupId)).toEqual([decoy]);
    const created = sent[0]!.split(' ')[1]!;
    expect(created).toMatch(/^sg-/);
    expect(created).not.toBe(decoy);
    // created, its rules set, its run tag read by that id, then deleted by that id: no lookup by name
    expect(sent).toEqual([
      `CreateSecurityGroupCommand ${created}`,
      `AuthorizeSecurityGroupIngressCommand ${created}`,
      `RevokeSecurityGroupEgressCommand ${created}`,
      `DescribeSecurityGroupsCommand ${created}`,
      `DeleteSecurityGroupCommand ${created}`,
    ]);
    expect(twin.parameterGroups.has(name)).toBe(false);
    expect((await dax.describeCluster(name)).status).toBe('MISSING');

    await ec2.send(new DeleteSecurityGroupCommand({ GroupId: decoy }));
    await dax.dax.send(new DeleteSubnetGroupCommand({ SubnetGroupName: name }));
    await teardown({ run: rb }, { store, tables, fleet, clock, dax });
  });
});

describe('phaseTimes', () => {
  it('counts DAX’s ready deadline instead of the 15 minutes', () => {
    const p = { load: undefined, cells: [], onCellFailure: { retries: 0, replacements: 0 } } as never;
    const withDax = { targets: [{ kind: 'dynamodb', dax: {} }] } as never;
    const plainSpec = { targets: [{ kind: 'dynamodb' }] } as never;
    expect(phaseTimes(p, withDax).worstCaseSeconds).toBe(DAX_READY_TIMEOUT_SECONDS);
    expect(phaseTimes(p, plainSpec).worstCaseSeconds).toBe(READY_TIMEOUT_SECONDS);
  });
});
