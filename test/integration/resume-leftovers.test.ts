/**
 * Resuming a failed DAX or MemoryDB run (lib/core/pipeline/resume.ts) on moto server: the failed execution's teardown
 * leaves the cluster `deleting` (DAX and MemoryDB take minutes) and its supporting groups pending. The resume's Plan
 * refuses, naming the cluster and its state, and writes nothing, so the same resume can be started again; once the
 * cluster is gone it deletes the groups the teardown left (the run's only) and the resumed ProvisionTarget creates the
 * cluster again under the same name.
 *
 * DAX: moto's state manager keeps a deleted cluster `deleting` for a few reads (test/support/dax-twin.ts). MemoryDB:
 * moto removes a cluster at once, so the adapter is wrapped to answer `deleting` for the cluster until the test says
 * it is gone (what MemoryDB's DescribeClusters reports meanwhile,
 * https://docs.aws.amazon.com/memorydb/latest/devguide/clusters.delete.html).
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
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { MemoryDbClusterAdmin } from '../../lib/aws/memorydb-admin';
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { plan, provisionTarget, teardown, type RunContext } from '../../lib/core/pipeline';
import { contextKey, resumeKey, resumesKey } from '../../lib/core/pipeline/context';
import { runIdFromExecutionName } from '../../lib/core/pipeline/context';
import { InputError } from '../../lib/core/common/errors';
import type { FleetAdmin } from '../../lib/core/common/ports';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
import { memoryDbResourceName } from '../../lib/core/targets/memorydb/names';
import type { MemoryDbAdmin } from '../../lib/core/targets/memorydb/port';
import { FsStore } from '../../lib/local/fs-store';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startMemoryDbTwin, type MemoryDbTwin } from '../support/memorydb-twin';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(90_000);

let moto: MotoServer;
let daxTwin: DaxTwin;
let mdbTwin: MemoryDbTwin;
let ec2: EC2Client;
let dax: DaxClusterAdmin;
let memorydb: MemoryDbClusterAdmin;
let tables: DynamoDbTableAdmin;
let secrets: SecretsManagerSecrets;
let dir: string;
let store: FsStore;
let nowMs = Date.UTC(2026, 10, 27, 12);
const clock = { nowMs: () => nowMs };

const fleet: FleetAdmin = {
  launch: () => Promise.resolve(['i-loader0']),
  list: () => Promise.resolve([]),
  terminate: () => Promise.resolve(),
};

beforeAll(async () => {
  moto = await startMoto();
  daxTwin = await startDaxTwin(moto.endpoint, { creatingPolls: 6 });
  mdbTwin = await startMemoryDbTwin(moto.endpoint);
  ec2 = new EC2Client(moto.clientConfig);
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
  const network = { vpcId, subnetIds, loaderSecurityGroupId };
  dax = new DaxClusterAdmin({ ...moto.clientConfig, endpoint: daxTwin.endpoint }, moto.clientConfig, {
    ...network,
    iamRoleArn: 'arn:aws:iam::123456789012:role/fleetbench-dax',
  });
  memorydb = new MemoryDbClusterAdmin(
    { ...moto.clientConfig, endpoint: mdbTwin.endpoint },
    moto.clientConfig,
    network,
  );
  tables = new DynamoDbTableAdmin(moto.clientConfig);
  secrets = new SecretsManagerSecrets(moto.clientConfig);
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-resume-leftovers-'));
  store = new FsStore(dir);
});

afterAll(async () => {
  await daxTwin?.stop();
  await mdbTwin?.stop();
  await moto?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const base = {
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.95], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
};

async function groupsNamed(name: string) {
  const out = await ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: [name] }] }),
  );
  return out.SecurityGroups ?? [];
}

/** The refusal's messages, or null when the resume went through. */
async function refusal(p: Promise<unknown>): Promise<string[] | null> {
  try {
    await p;
    return null;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    expect(err.issues.every((i) => i.path === 'resume')).toBe(true);
    return err.issues.map((i) => i.message);
  }
}

/** What a refused resume must have left: the run's own context, no resume record, no pointer. */
async function expectNothingWritten(runId: string, executionName: string, context: unknown) {
  expect(await store.exists(resumeKey(runId))).toBe(false);
  expect(await store.getJson(contextKey(runId))).toEqual(context);
  expect(await store.exists(resumesKey(runIdFromExecutionName(executionName)))).toBe(false);
}

describe('resuming a DAX run whose teardown left the cluster deleting', () => {
  const runId = 'dax-resume-1';
  const name = daxResourceName(runId, 'cached');
  const spec = {
    name: 'dax-resume',
    targets: [
      {
        id: 'cached',
        kind: 'dynamodb',
        billing: { mode: 'on-demand' },
        dax: { nodeType: 'dax.r5.large', nodes: 3, itemTtlMs: 60_000, queryTtlMs: 0 },
      },
    ],
    ...base,
  };

  it('is refused while the cluster is deleting, writing nothing; once it is gone, its groups go and it is made again', async () => {
    const run: RunContext = await plan({ executionName: runId, spec }, { store, clock });
    await provisionTarget(run, { store, tables, dax });
    for (let i = 0; i < 10 && (await dax.describeCluster(name)).status !== 'available'; i++);
    nowMs += 60_000;
    const down = await teardown(
      { run, executionName: runId, error: { Error: 'StepFailedError', Cause: 'a cell failed' } },
      { store, tables, fleet, clock, dax },
    );
    expect(down.deletedDaxClusters).toEqual([name]);
    expect(down.pendingDaxGroups).toEqual([name]);
    const context = await store.getJson(contextKey(runId));

    const ports = { store, tables, fleet, clock, dax };
    const attempt = (executionName: string) =>
      plan({ executionName, input: { resume: runId } }, { store, clock, ports });
    nowMs += 60_000;
    const first = await refusal(attempt(`${runId}-resume`));
    expect(first).toEqual([
      expect.stringMatching(
        new RegExp(
          `^run "${runId}" cannot be resumed yet .*DAX cluster ${name} of target cached is still deleting.*resume again$`,
        ),
      ),
    ]);
    await expectNothingWritten(runId, `${runId}-resume`, context);
    expect(daxTwin.subnetGroups.has(name)).toBe(true);

    // resumed again (a new execution name) until DAX has removed the cluster: each refusal names it, nothing is
    // written, and the resume that goes through first deletes the groups the teardown left
    let resumed: RunContext | null = null;
    for (let i = 2; i < 12 && !resumed; i++) {
      const executionName = `${runId}-resume-${i}`;
      const why = await refusal(attempt(executionName));
      if (why === null) {
        resumed = (await store.getJson(contextKey(runId))) as RunContext;
        expect(resumed.resume?.executionName).toBe(executionName);
        break;
      }
      expect(why.join('\n')).toMatch(/still deleting/);
      await expectNothingWritten(runId, executionName, context);
    }
    expect(resumed).not.toBeNull();
    expect(await groupsNamed(name)).toEqual([]);
    expect(daxTwin.subnetGroups.has(name)).toBe(false);
    expect(daxTwin.parameterGroups.has(name)).toBe(false);

    // the resumed execution's ProvisionTarget makes the cluster again under the same name
    const again = await provisionTarget(resumed!, { store, tables, dax });
    expect(again.dax).toEqual([name]);
    expect(
      daxTwin.calls.filter((c) => c.op === 'CreateSubnetGroup' && c.body.SubnetGroupName === name),
    ).toHaveLength(2);
  });
});

/** The adapter, answering `deleting` for the clusters in `deleting` (MemoryDB keeps them so for minutes). */
function slowDeletes(admin: MemoryDbAdmin, deleting: Set<string>): MemoryDbAdmin {
  return new Proxy(admin, {
    get(target, key, receiver) {
      if (key === 'deleteCluster')
        return async (n: string) => {
          const started = await target.deleteCluster(n);
          if (started) deleting.add(n);
          return started;
        };
      if (key === 'describeCluster')
        return async (n: string) =>
          deleting.has(n) ? { name: n, status: 'deleting' } : target.describeCluster(n);
      if (key === 'deleteSupporting')
        return async (n: string) => (deleting.has(n) ? false : target.deleteSupporting(n));
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('resuming a MemoryDB run whose teardown left the cluster deleting', () => {
  const runId = 'mdb-resume-1';
  const name = memoryDbResourceName(runId, 'mdb');
  const spec = {
    name: 'mdb-resume',
    targets: [{ id: 'mdb', kind: 'memorydb', nodeType: 'db.r7g.large', shards: 2, replicasPerShard: 1 }],
    ...base,
  };

  it('is refused while the cluster is deleting, writing nothing; once it is gone, its pieces go and it is made again', async () => {
    const deleting = new Set<string>();
    const slow = slowDeletes(memorydb, deleting);
    const run: RunContext = await plan({ executionName: runId, spec }, { store, clock });
    await provisionTarget(run, { store, tables, kindServices: { memorydb: slow }, secrets });
    nowMs += 60_000;
    const down = await teardown(
      { run, executionName: runId, error: { Error: 'StepFailedError', Cause: 'a cell failed' } },
      { store, tables, fleet, clock, kindServices: { memorydb: slow }, secrets },
    );
    expect(down.deletedMemoryDbClusters).toEqual([name]);
    expect(down.pendingMemoryDbGroups).toEqual([name]);
    expect(mdbTwin.acls.has(name)).toBe(true);
    const context = await store.getJson(contextKey(runId));

    const ports = { store, tables, fleet, clock, secrets, kindServices: { memorydb: slow } };
    const attempt = (executionName: string) =>
      plan({ executionName, input: { resume: runId } }, { store, clock, ports });
    nowMs += 30 * 60_000;
    expect(await refusal(attempt(`${runId}-resume`))).toEqual([
      expect.stringMatching(
        new RegExp(
          `MemoryDB cluster ${name} of target mdb is still deleting \\(.*MemoryDB takes several minutes\\)`,
        ),
      ),
    ]);
    await expectNothingWritten(runId, `${runId}-resume`, context);
    expect(await groupsNamed(name)).toHaveLength(1);

    // MemoryDB has removed the cluster: the next resume deletes its pieces and goes through
    deleting.clear();
    const resumed = await attempt(`${runId}-resume-2`);
    expect(resumed.resume).toMatchObject({ executionName: `${runId}-resume-2`, cells: [0] });
    expect(await store.getJson(resumeKey(runId))).toMatchObject({ executionName: `${runId}-resume-2` });
    expect(mdbTwin.acls.has(name)).toBe(false);
    expect(await groupsNamed(name)).toEqual([]);
    const again = await provisionTarget(resumed, { store, tables, kindServices: { memorydb }, secrets });
    expect(again).toBeDefined();
    expect((await memorydb.describeCluster(name)).status).not.toBe('MISSING');
  });
});
