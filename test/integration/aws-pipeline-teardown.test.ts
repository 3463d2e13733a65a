/**
 * The pipeline's steps over the real SDK adapters against moto server (EC2, SSM, DynamoDB API):
 * failure paths end in teardown with nothing left.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import { DynamoDbTableAdmin } from '../../lib/aws/dynamodb-tables';
import { Ec2FleetAdmin } from '../../lib/aws/ec2-fleet';
import { SsmCommandRunner } from '../../lib/aws/ssm-commands';
import {
  plan,
  provisionFleet,
  provisionTarget,
  teardown,
  waitReady,
  type RunContext,
} from '../../lib/core/pipeline';
import { CapacityError, TAG_RUN_ID, type Clock } from '../../lib/core/common/ports';
import { FsStore } from '../../lib/local/fs-store';
import { startMoto, type MotoServer } from '../support/moto';
import { tableOf } from '../support/run-resources';

jest.setTimeout(60_000);

let moto: MotoServer;
let dir: string;
let templateId: string;

const quickstart = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'examples', 'quickstart.json'), 'utf8'),
);

class FakeClock implements Clock {
  constructor(public ms: number) {}
  nowMs(): number {
    return this.ms;
  }
}

beforeAll(async () => {
  moto = await startMoto();
  const ec2 = new EC2Client(moto.clientConfig);
  const lt = await ec2.send(
    new CreateLaunchTemplateCommand({
      LaunchTemplateName: 'loaders',
      LaunchTemplateData: { ImageId: 'ami-12c6146b', MetadataOptions: { HttpTokens: 'required' } },
    }),
  );
  templateId = lt.LaunchTemplate!.LaunchTemplateId!;
});

afterAll(async () => {
  await moto?.stop();
});

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-aws-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function adapters(launchTemplateId = templateId) {
  return {
    tables: new DynamoDbTableAdmin(moto.clientConfig),
    fleet: new Ec2FleetAdmin({ launchTemplateId, subnetIds: [] }, moto.clientConfig),
    commands: new SsmCommandRunner('fleetbench-run-job', moto.clientConfig),
  };
}

async function planned(name: string, clock: Clock): Promise<{ run: RunContext; store: FsStore }> {
  const store = new FsStore(dir);
  const run = await plan({ executionName: name, spec: quickstart }, { store, clock });
  return { run, store };
}

describe('pipeline on moto', () => {
  it('a loader that never comes online: WaitReady fails at its deadline, teardown leaves nothing', async () => {
    // Prepare
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { run, store } = await planned('never-online-1', clock);
    const a = adapters();
    // Act
    const created = await provisionTarget(run, { store, tables: a.tables });
    const fleet = await provisionFleet(run, { fleet: a.fleet });
    expect(created.created).toEqual([tableOf(run)]);
    expect(fleet.instances).toBe(run.loaders);
    expect((await a.fleet.list({ runId: run.runId })).map((i) => i.tags[TAG_RUN_ID])).toEqual(
      Array(run.loaders).fill(run.runId),
    );
    // moto does not implement SSM DescribeInstanceInformation (it answers 404): the SSM side is the one
    // stand-in here, a registry where no loader ever registers; EC2 and DynamoDB are moto's.
    const neverOnline = { ...a.commands, online: async () => [] as string[] } as unknown as SsmCommandRunner;
    const first = await waitReady({ run }, { ...a, store, commands: neverOnline, clock });
    expect(first.ready).toBe(false);
    clock.ms = first.deadlineMs + 1;
    await expect(
      waitReady({ run, ready: first }, { ...a, store, commands: neverOnline, clock }),
    ).rejects.toThrow(/loaders not online in SSM/);
    const result = await teardown(
      { run, error: { Error: 'StepFailedError', Cause: 'not ready' } },
      { store, ...a, clock },
    );
    // Assess
    expect(result.terminated).toHaveLength(run.loaders);
    expect(result.deletedTables).toEqual([tableOf(run)]);
    expect(await a.fleet.list({ runId: run.runId })).toEqual([]);
    expect((await a.tables.describeTable(tableOf(run))).status).toBe('MISSING');
    expect(await store.getJson(`runs/${run.runId}/failure.json`)).toMatchObject({ error: 'StepFailedError' });
    // teardown is idempotent
    const again = await teardown({ run }, { store, ...a, clock });
    expect(again).toMatchObject({ terminated: [], deletedTables: [] });
    // the abort rule's pass on FAILED (status only, no error): the records keep the first pass's work
    await teardown({ run, status: 'FAILED' }, { store, ...a, clock });
    const record = (await store.getJson(`runs/${run.runId}/teardown.json`)) as Record<string, unknown>;
    expect(record).toMatchObject({ passes: 3, failed: true, deletedTables: [tableOf(run)] });
    expect((record.terminated as string[]).sort()).toEqual([...result.terminated].sort());
    expect(await store.getJson(`runs/${run.runId}/failure.json`)).toMatchObject({
      status: 'FAILED',
      error: 'StepFailedError',
      cause: 'not ready',
    });
  });

  it("RunInstances refused: the error is the project's, teardown by execution name removes the table", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 2));
    const { run, store } = await planned('refused-1', clock);
    const a = adapters('lt-0123456789abcdef0'); // no such launch template: EC2 refuses
    await provisionTarget(run, { store, tables: a.tables });
    await expect(provisionFleet(run, { fleet: a.fleet })).rejects.toThrow(/RunInstances/);
    // the abort rule only knows the execution name
    const result = await teardown({ executionName: 'refused-1', status: 'FAILED' }, { store, ...a, clock });
    expect(result.deletedTables).toEqual([tableOf(run)]);
    expect(await a.fleet.list({ runId: run.runId })).toEqual([]);
    expect(
      (await a.tables.listTables('fleetbench-')).filter((t) => t.tags[TAG_RUN_ID] === run.runId),
    ).toEqual([]);
  });

  it('an arm64 instance type without an arm64 template is refused before anything launches', async () => {
    const a = adapters();
    await expect(
      a.fleet.launch({ runId: 'x', count: 1, instanceType: 'c7g.large', tags: {} }),
    ).rejects.toThrow(CapacityError);
  });
});
