/**
 * The loader role and the steps that launch loaders and read results, evaluated offline against the
 * policies the FleetbenchStack synthesizes (resolved as CloudFormation would; bundling skipped: only the
 * template matters) with @cloud-copilot/iam-simulate: what a loader — and so a custom binding running on
 * it — may read and write, and the request tags and pass-role target launching loaders needs.
 */
import { App } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { FleetbenchStack } from '../../stacks/fleetbench-stack';
import { standInLoaderAssets } from '../support/loader-assets';
import { evaluate, type IamCheck } from './iam';
import { ACCOUNT, REGION, Resolver, rolePolicies, type Physical, type Template } from './template';
import { tableObjectKey } from '../../lib/core/results/rows';
import { tableDef } from '../../lib/core/results/schema';

jest.setTimeout(120_000);

const BUCKET = 'results-bucket';
const ASSETS = `cdk-hnb659fds-assets-${ACCOUNT}-${REGION}`;
let stack: FleetbenchStack;
let policiesOf: (role: iam.IRole) => { name: string; doc: unknown }[];
let bundleKey: string;

beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new FleetbenchStack(app, 'IamLoader', {
    env: { account: ACCOUNT, region: REGION },
    ...standInLoaderAssets(),
  });
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  const physical = new Map<string, Physical>();
  for (const [id, r] of Object.entries(template.Resources))
    physical.set(id, {
      ref: r.Type === 'AWS::S3::Bucket' ? BUCKET : `${id}-id`,
      attrs: {
        Arn:
          r.Type === 'AWS::S3::Bucket'
            ? `arn:aws:s3:::${BUCKET}`
            : r.Type === 'AWS::IAM::Role'
              ? `arn:aws:iam::${ACCOUNT}:role/${id}`
              : `arn:aws:${id}`,
        GroupId: `sg-${id}`,
      },
    });
  const resolver = new Resolver(physical);
  policiesOf = (role) =>
    rolePolicies(template, stack.getLogicalId(role.node.defaultChild as never)).map((p) => ({
      name: p.name,
      doc: resolver.resolve(p.doc),
    }));
  bundleKey = stack.fleet.bundleAsset.s3ObjectKey;
});

const allowed = async (role: iam.IRole, check: IamCheck): Promise<boolean> =>
  (await evaluate(`arn:aws:iam::${ACCOUNT}:role/test`, policiesOf(role), check)).allowed;
const s3 = (action: string, key: string, bucket = BUCKET): IamCheck => ({
  action,
  resource: `arn:aws:s3:::${bucket}/${key}`,
  context: {},
});

describe('the loader role (what a custom binding on a loader can do)', () => {
  test('reads the loader bundle and agent objects, no other object of the CDK assets bucket', async () => {
    const role = stack.fleet.role;
    expect(await allowed(role, s3('s3:GetObject', bundleKey, ASSETS))).toBe(true);
    expect(await allowed(role, s3('s3:GetObject', stack.fleet.agentAsset.s3ObjectKey, ASSETS))).toBe(true);
    expect(await allowed(role, s3('s3:GetObject', `${'0'.repeat(64)}.zip`, ASSETS))).toBe(false);
  });

  test("reads job files and writes raw outputs only: another run's job file cannot be overwritten", async () => {
    const role = stack.fleet.role;
    expect(await allowed(role, s3('s3:GetObject', 'runs/r1/cells/c1/jobs/i-0abc.json'))).toBe(true);
    expect(await allowed(role, s3('s3:PutObject', 'runs/r1/cells/c1/raw/loader-0/proc-0/summary.json'))).toBe(
      true,
    );
    expect(await allowed(role, s3('s3:PutObject', 'runs/r1/load/t/raw/loader-1/proc-0/manifest.json'))).toBe(
      true,
    );
    for (const key of [
      'runs/r2/cells/c1/jobs/i-0abc.json',
      'runs/r2/load/t/jobs/i-0abc.json',
      // a target or cell named "raw" does not open its jobs
      'runs/r2/load/raw/jobs/i-0abc.json',
      'runs/r2/plan.json',
      'runs/r2/context.json',
      'runs/r2/cells/c1/result.json',
    ])
      expect([key, await allowed(role, s3('s3:PutObject', key))]).toEqual([key, false]);
    for (const key of ['runs/r2/plan.json', 'runs/r2/spec.json', 'tables/cells/x.json', 'specs/s.json'])
      expect([key, await allowed(role, s3('s3:GetObject', key))]).toEqual([key, false]);
    expect(await allowed(role, s3('s3:GetObject', 'bindings/abc/b.jar'))).toBe(true);
    expect(await allowed(role, s3('s3:PutObject', 'bindings/abc/b.jar'))).toBe(false);
  });
});

describe('IAM of the steps', () => {
  const ec2 = (resource: string) => `arn:aws:ec2:${REGION}:${ACCOUNT}:${resource}`;
  const runTags = { 'aws:RequestTag/fleetbench:role': 'loader', 'aws:RequestTag/fleetbench:run-id': 'r1' };

  test('ProvisionFleet launches instances and volumes only with the loader role and a run id in the request', async () => {
    const role = stack.pipeline.functions.provisionFleet.role!;
    for (const resource of [ec2('instance/*'), ec2('volume/*')]) {
      const run = (context: Record<string, string>) =>
        allowed(role, { action: 'ec2:RunInstances', resource, context });
      expect(await run(runTags)).toBe(true);
      expect(await run({ 'aws:RequestTag/fleetbench:role': 'loader' })).toBe(false);
      expect(await run({ ...runTags, 'aws:RequestTag/fleetbench:role': 'scylla-node' })).toBe(false);
      expect(await run({})).toBe(false);
    }
    const tag = (context: Record<string, string>) =>
      allowed(role, { action: 'ec2:CreateTags', resource: ec2('instance/*'), context });
    expect(await tag({ ...runTags, 'ec2:CreateAction': 'RunInstances' })).toBe(true);
    expect(
      await tag({ 'aws:RequestTag/fleetbench:role': 'loader', 'ec2:CreateAction': 'RunInstances' }),
    ).toBe(false);
  });

  test('ProvisionFleet passes the loader role to EC2 only', async () => {
    const role = stack.pipeline.functions.provisionFleet.role!;
    const loaderRole = `arn:aws:iam::${ACCOUNT}:role/${stack.getLogicalId(stack.fleet.role.node.defaultChild as never)}`;
    const pass = (service: string) =>
      allowed(role, {
        action: 'iam:PassRole',
        resource: loaderRole,
        context: { 'iam:PassedToService': service },
      });
    expect(await pass('ec2.amazonaws.com')).toBe(true);
    expect(await pass('lambda.amazonaws.com')).toBe(false);
  });

  test("CellFailed writes a failed cell's row, and the frontier row of a search that ends on a failed probe", async () => {
    const cellFailed = stack.pipeline.functions.cellFailed.role!;
    const run = { runId: 'r1', specName: 'slo', startedAtMs: Date.UTC(2026, 10, 27) };
    const cells = tableObjectKey(tableDef('cells'), run, 'r1.c1');
    const frontier = tableObjectKey(tableDef('frontier'), run, 'r1.ext.zipfian.r50');
    for (const key of [
      cells,
      frontier,
      'runs/r1/cells/c1/result.json',
      'runs/r1/searches/ext.zipfian.r50.json',
    ])
      expect([key, await allowed(cellFailed, s3('s3:PutObject', key))]).toEqual([key, true]);
    for (const key of [tableObjectKey(tableDef('runs'), run, 'r1'), 'specs/s.json', 'bindings/b.jar'])
      expect([key, await allowed(cellFailed, s3('s3:PutObject', key))]).toEqual([key, false]);
  });

  test('AggregateCell reads runs/* only; Plan reads binding jars (for their SHA-256)', async () => {
    const aggregate = stack.pipeline.functions.aggregateCell.role!;
    expect(await allowed(aggregate, s3('s3:GetObject', 'runs/r1/cells/c1/raw/loader-0/proc-0/a.hdr'))).toBe(
      true,
    );
    for (const key of ['tables/cells/x.json', 'specs/s.json', 'bindings/b.jar', 'noise/x.json'])
      expect([key, await allowed(aggregate, s3('s3:GetObject', key))]).toEqual([key, false]);
    const plan = stack.pipeline.functions.plan.role!;
    expect(await allowed(plan, s3('s3:GetObject', 'bindings/abc/b.jar'))).toBe(true);
  });
});
