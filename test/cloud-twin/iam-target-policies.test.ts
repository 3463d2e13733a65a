/**
 * Every call the DAX and Keyspaces steps make, evaluated against the policies DaxAccess and KeyspacesAccess
 * synthesize (a small stack, resolved as CloudFormation would): the steps' own functions (provisionDax, the dynamodb
 * kind's notReady and runtime hooks, removeRunDax, sweepExpiredDax and their Keyspaces counterparts) drive the real adapters against moto
 * (DAX clusters, EC2 security groups; test/support/dax-twin.ts for the DAX groups moto lacks) and
 * test/support/keyspaces-twin.ts; each request is recorded as the SDK built it, mapped to IAM's checks by ./iam.ts
 * (whose DAX and Keyspaces tables cite the Service Authorization Reference and the API references) and evaluated
 * by @cloud-copilot/iam-simulate with the role of the step that sends it. fb-/fb_ names are allowed; the same
 * requests naming another cluster or keyspace are denied. CreateCluster's dependent actions are evaluated too.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { CreateParameterGroupCommand, CreateSubnetGroupCommand, DAXClient } from '@aws-sdk/client-dax';
import {
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { KeyspacesClient } from '@aws-sdk/client-keyspaces';
import { DaxClusterAdmin } from '../../lib/aws/dax-admin';
import { KeyspacesApiAdmin } from '../../lib/aws/keyspaces-admin';
import { DaxAccess } from '../../lib/constructs/dax-access';
import { KeyspacesAccess } from '../../lib/constructs/keyspaces-access';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
import { keyspaceName } from '../../lib/core/targets/keyspaces/keyspace';
import { sweepExpiredDax, provisionDax, removeRunDax } from '../../lib/core/targets/dynamodb/dax-lifecycle';
import { daxResumeBlockers } from '../../lib/core/targets/dynamodb/dax-resume';
import {
  configureKeyspacesCapacity,
  sweepExpiredKeyspaces,
  removeRunKeyspaces,
  provisionKeyspace,
} from '../../lib/core/targets/keyspaces/lifecycle';
import type { RunContext } from '../../lib/core/pipeline';
import { DAX_ENTRY } from '../../lib/core/targets/dynamodb/entries';
import { KEYSPACE_ENTRY } from '../../lib/core/targets/keyspaces/entries';
import { kindOf } from '../../lib/core/targets/registry';
import type { StepContext } from '../../lib/core/targets/kind';
import { TAG_RUN_ID } from '../../lib/core/common/ports';
import { validateSpec } from '../../lib/core/spec';
import type { DynamoDbTarget, KeyspacesTarget } from '../../lib/core/spec/schema';
import { standInLoaderAssets } from '../support/loader-assets';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';
import { startMoto, type MotoServer } from '../support/moto';
import { evaluate, mapRequest, type ApiRequest, type IamCheck } from './iam';
import { createClusterDependents } from './iam-dax';
import { ACCOUNT, REGION, Resolver, rolePolicies, type Physical, type Template } from './template';

jest.setTimeout(90_000);

const STEPS = [
  'plan',
  'provisionTarget',
  'waitReady',
  'startLoad',
  'startCell',
  'teardown',
  'onAbort',
  'janitor',
] as const;
type Step = (typeof STEPS)[number] | 'configureCell';

let moto: MotoServer;
let daxTwin: DaxTwin;
let ksTwin: KeyspacesTwin;
let ec2: EC2Client;
let network: { vpcId: string; subnetIds: string[]; loaderSecurityGroupId: string; iamRoleArn: string };
let policies: Record<Step | 'loader', { name: string; doc: unknown }[]>;
let roleArn: Record<Step | 'loader', string>;
const sent: ApiRequest[] = [];

/** Records each request as the SDK built it (before signing), for the IAM mapping. */
type Build = (
  next: (args: { request: unknown }) => Promise<unknown>,
) => (args: { request: unknown }) => Promise<unknown>;

function recording<C>(client: C, service: string): C {
  (client as unknown as { middlewareStack: { add(m: Build, o: object): void } }).middlewareStack.add(
    (next) => async (args) => {
      const r = args.request as {
        method: string;
        path: string;
        query?: Record<string, string | string[] | null>;
        headers: Record<string, string>;
        body?: unknown;
      };
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(r.query ?? {}))
        for (const x of [v ?? ''].flat()) query.append(k, x);
      const group = /(?:^|&)GroupId=([^&]+)/.exec(typeof r.body === 'string' ? r.body : '');
      if (service === 'ec2' && group) await securityGroupTags([decodeURIComponent(group[1]!)]);
      if (service === 'cassandra') keyspaceTagsAtDelete(r.headers, r.body);
      sent.push({
        service,
        method: r.method,
        path: r.path,
        query,
        headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v])),
        body:
          typeof r.body === 'string'
            ? Buffer.from(r.body)
            : r.body instanceof Uint8Array
              ? Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength)
              : Buffer.alloc(0),
      });
      return next(args);
    },
    { step: 'build', priority: 'low' },
  );
  return client;
}

/** The template's DAX/Keyspaces grants resolved against the moto network (VPC and subnets by position). */
function synthesize(vpcId: string, subnetIds: string[]): void {
  const app = new App();
  const stack = new Stack(app, 'TargetPolicies', { env: { account: ACCOUNT, region: REGION } });
  const assets = standInLoaderAssets();
  const fleet = new LoaderFleet(stack, 'Loaders', {
    resultsBucket: new s3.Bucket(stack, 'Results'),
    bundleDir: assets.loaderBundleDir,
    agentFile: assets.loaderAgentFile,
  });
  const fns = Object.fromEntries(
    STEPS.map((n) => [
      n,
      new lambda.Function(stack, `${n}Fn`, {
        runtime: lambda.Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => ({})'),
      }),
    ]),
  ) as Record<Step, lambda.Function>;
  const { plan, ...targetFns } = fns;
  const dax = new DaxAccess(stack, 'Dax', { fleet, functions: targetFns, plan });
  const { provisionTarget, waitReady, teardown, onAbort, janitor } = fns;
  const configureCell = new lambda.Function(stack, 'configureCellFn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({})'),
  });
  new KeyspacesAccess(stack, 'Keyspaces', {
    loaderRole: fleet.role,
    functions: { provisionTarget, waitReady, teardown, onAbort, janitor },
    configureCell,
  });
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  const physical = new Map<string, Physical>();
  for (const id of Object.keys(template.Resources))
    physical.set(id, {
      ref: `${id}-id`,
      attrs: { Arn: `arn:aws:iam::${ACCOUNT}:role/${id}`, GroupId: `sg-${id}` },
    });
  physical.set(stack.getLogicalId(fleet.vpc.node.defaultChild as never), { ref: vpcId });
  (stack.resolve(fleet.subnetIds) as { Ref: string }[]).forEach((s, i) =>
    physical.set(s.Ref, { ref: subnetIds[i]! }),
  );
  const resolver = new Resolver(physical);
  const roleOf = (fn: lambda.Function) => stack.getLogicalId(fn.role!.node.defaultChild as never);
  const roles: Record<string, string> = Object.fromEntries(STEPS.map((n) => [n, roleOf(fns[n])]));
  roles.configureCell = roleOf(configureCell);
  roles.loader = stack.getLogicalId(fleet.role.node.defaultChild as never);
  policies = {} as typeof policies;
  roleArn = {} as typeof roleArn;
  for (const [k, id] of Object.entries(roles)) {
    policies[k as Step] = rolePolicies(template, id).map((p) => ({
      name: p.name,
      doc: resolver.resolve(p.doc),
    }));
    roleArn[k as Step] = `arn:aws:iam::${ACCOUNT}:role/${id}`;
  }
  network.iamRoleArn = resolver.resolveString(
    stack.resolve(dax.serviceRole.roleArn) as Record<string, unknown>,
  );
}

beforeAll(async () => {
  moto = await startMoto();
  daxTwin = await startDaxTwin(moto.endpoint);
  ksTwin = await startKeyspacesTwin();
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
  network = { vpcId, subnetIds, loaderSecurityGroupId, iamRoleArn: '' };
  synthesize(vpcId, subnetIds);
});

afterAll(async () => {
  await ksTwin?.stop();
  await daxTwin?.stop();
  await moto?.stop();
});

/** Tags of security groups as they were when a request named them (a deleted group keeps its last tags). */
const groupTags = new Map<string, Record<string, string>>();
const securityGroupTags = async (ids: string[]) => {
  const out = await ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-id', Values: ids }] }),
  );
  for (const g of out.SecurityGroups ?? [])
    groupTags.set(g.GroupId!, Object.fromEntries((g.Tags ?? []).map((t) => [t.Key!, t.Value!])));
  return Object.fromEntries(ids.map((id) => [id, groupTags.get(id) ?? {}]));
};
/** Tags of keyspaces as they were when a DeleteKeyspace named them (by the ARN ./keyspaces-iam.ts gives it). */
const keyspaceTags = new Map<string, Record<string, string>>();
function keyspaceTagsAtDelete(headers: Record<string, string>, body: unknown): void {
  if (!/\.DeleteKeyspace$/.test(String(headers['X-Amz-Target'] ?? headers['x-amz-target']))) return;
  const ks = (JSON.parse(String(body)) as { keyspaceName: string }).keyspaceName;
  const tags = ksTwin.keyspaces.get(ks)?.tags ?? [];
  keyspaceTags.set(
    `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/`,
    Object.fromEntries(tags.map((t) => [t.key, t.value])),
  );
}
const lookups = {
  instanceTags: async () => ({}),
  launchTemplateRole: () => undefined,
  securityGroupTags,
  resourceTags: (arn: string) => keyspaceTags.get(arn) ?? {},
};

interface Decided {
  operation: string;
  check: IamCheck;
  allowed: boolean;
}

/** Maps requests to IAM's checks and evaluates each with the step's role. */
async function decide(
  step: Step | 'loader',
  requests: ApiRequest[],
  extra: IamCheck[] = [],
): Promise<Decided[]> {
  const out: Decided[] = [];
  const mapped = await Promise.all(requests.map((r) => mapRequest(r, lookups)));
  const checks = [
    ...mapped.flatMap((m) => m.checks.map((check) => ({ operation: m.operation, check }))),
    ...extra.map((check) => ({ operation: 'dependent', check })),
  ];
  for (const { operation, check } of checks)
    out.push({ operation, check, allowed: (await evaluate(roleArn[step], policies[step], check)).allowed });
  return out;
}

/** Runs f and returns the requests it sent. */
async function callsOf(f: () => Promise<unknown>): Promise<ApiRequest[]> {
  const from = sent.length;
  await f();
  return sent.slice(from);
}

/** The same request with every fleetbench name replaced by a foreign one (cluster, keyspace, ARNs). */
function renamed(r: ApiRequest, from: string, to: string): ApiRequest {
  return { ...r, body: Buffer.from(r.body.toString('utf8').split(from).join(to)) };
}

/** The group deletions among the requests (DAX target, or the EC2 query Action). */
function daxGroupCalls(requests: ApiRequest[]): string[] {
  return requests
    .map((r) =>
      String(r.headers['x-amz-target'] ?? new URLSearchParams(r.body.toString('utf8')).get('Action')),
    )
    .filter((op) => /Delete(Subnet|Parameter|Security)Group$/.test(op));
}

const denied = (d: Decided[]) =>
  d.filter((x) => !x.allowed).map((x) => `${x.check.action} ${x.check.resource}`);

describe('DAX: the steps against the synthesized grants', () => {
  const runId = 'pol-run-1';
  const name = daxResourceName(runId, 'cached');
  const { spec } = validateSpec({
    name: 'pol',
    targets: [
      {
        id: 'cached',
        kind: 'dynamodb',
        billing: { mode: 'on-demand' },
        dax: { nodeType: 'dax.r5.large', nodes: 3 },
      },
    ],
    dataset: { recordCount: 100 },
    workload: { readProportions: [0.5], targetOpsPerSec: [10], durationSeconds: 60 },
    loaders: { count: 1 },
  });
  const run = {
    runId,
    resources: [{ type: DAX_ENTRY.shape.type.value, targetId: 'cached', name }],
  } as unknown as RunContext;
  const target = spec.targets[0] as DynamoDbTarget;
  /** What the steps give the kind's hooks (the DAX port; no store or table is read here). */
  const stepContext = (step: StepContext['step']) =>
    ({ run, spec, step, ports: { dax: admin } }) as unknown as StepContext;
  const tags = { [TAG_RUN_ID]: runId, 'fleetbench:expires-at': '1' };
  let admin: DaxClusterAdmin;

  beforeAll(() => {
    admin = new DaxClusterAdmin(
      recording(new DAXClient({ ...moto.clientConfig, endpoint: daxTwin.endpoint }), 'dax'),
      recording(new EC2Client(moto.clientConfig), 'ec2'),
      network,
    );
  });

  it('ProvisionTarget: every request and CreateCluster’s dependent actions are allowed; another name is not', async () => {
    const calls = await callsOf(() => provisionDax(run, spec.targets[0] as DynamoDbTarget, tags, admin));
    const ops = (await Promise.all(calls.map((c) => mapRequest(c, lookups)))).map((m) => m.operation);
    expect(ops).toEqual([
      'dax:DescribeClusters',
      'ec2:CreateSecurityGroup',
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:RevokeSecurityGroupEgress',
      'dax:CreateSubnetGroup',
      'dax:CreateParameterGroup',
      'dax:UpdateParameterGroup',
      'dax:CreateCluster',
    ]);
    const [sg] = (
      await ec2.send(new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: [name] }] }))
    ).SecurityGroups!;
    const dependents = createClusterDependents({
      roleArn: network.iamRoleArn,
      vpcId: network.vpcId,
      subnetIds: network.subnetIds,
      securityGroupIds: [sg!.GroupId!],
    });
    const d = await decide('provisionTarget', calls, dependents);
    expect(d.length).toBe(
      calls.length +
        2 /* CreateCluster's TagResource, PassRole */ +
        3 /* SG: vpc, tags */ +
        dependents.length -
        1,
    );
    expect(denied(d)).toEqual([]);
    // the same cluster request naming another cluster: the cluster actions are refused
    const create = calls.find((c) => String(c.headers['x-amz-target']).endsWith('.CreateCluster'))!;
    expect(denied(await decide('provisionTarget', [renamed(create, name, 'prod-cache')]))).toEqual([
      `dax:CreateCluster arn:aws:dax:${REGION}:${ACCOUNT}:cache/prod-cache`,
      `dax:TagResource arn:aws:dax:${REGION}:${ACCOUNT}:cache/prod-cache`,
    ]);
    // network interfaces outside the loaders' VPC are refused
    const elsewhere = dependents
      .filter((c) => 'ec2:Vpc' in c.context)
      .map((c) => ({ ...c, context: { 'ec2:Vpc': `arn:aws:ec2:${REGION}:${ACCOUNT}:vpc/vpc-other` } }));
    expect((await decide('provisionTarget', [], elsewhere)).every((x) => !x.allowed)).toBe(true);
  });

  it('WaitReady, StartLoad and StartCell describe the run’s cluster only', async () => {
    let problems = ['?'];
    const waits: ApiRequest[] = [];
    for (let i = 0; i < 10 && problems.length; i++)
      waits.push(
        ...(await callsOf(async () => {
          problems = (await kindOf(target).notReady!(target, stepContext('WaitReady'))).problems;
        })),
      );
    expect(problems).toEqual([]);
    expect(denied(await decide('waitReady', waits))).toEqual([]);
    for (const [step, phase] of [
      ['startLoad', 'StartLoad'],
      ['startCell', 'StartCell'],
    ] as const) {
      let properties: Record<string, string> | undefined;
      const calls = await callsOf(async () => {
        properties = (await kindOf(target).runtime!(target, stepContext(phase))).properties;
      });
      // the binding's endpoint (DAX's discovery endpoint, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DAX.concepts.cluster.html)
      expect(properties).toEqual({ 'dynamodb.daxEndpoint': expect.stringMatching(/^daxs?:\/\/[^:]+:\d+$/) });
      const d = await decide(step, calls);
      expect(d.map((x) => [x.check.action, x.allowed])).toEqual([['dax:DescribeClusters', true]]);
      expect(
        denied(
          await decide(
            step,
            calls.map((c) => renamed(c, name, 'prod-cache')),
          ),
        ),
      ).toEqual([`dax:DescribeClusters arn:aws:dax:${REGION}:${ACCOUNT}:cache/prod-cache`]);
    }
  });

  it('Teardown, the abort rule and the janitor: every call allowed; deleting another cluster is not', async () => {
    const down = await callsOf(() => removeRunDax(runId, run, admin));
    const ops = new Set((await Promise.all(down.map((c) => mapRequest(c, lookups)))).map((m) => m.operation));
    // the groups go in the same pass when DAX has already removed the cluster (moto may have)
    expect([...ops]).toEqual(
      expect.arrayContaining([
        'dax:DescribeClusters',
        'dax:ListTags',
        'dax:DeleteCluster',
        'ec2:DescribeSecurityGroups',
      ]),
    );
    for (const step of ['teardown', 'onAbort', 'janitor'] as const)
      expect([step, denied(await decide(step, down))]).toEqual([step, []]);
    const groups = [...daxGroupCalls(down)];
    const del = down.find((c) => String(c.headers['x-amz-target']).endsWith('.DeleteCluster'))!;
    for (const step of ['teardown', 'onAbort', 'janitor'] as const)
      expect(denied(await decide(step, [renamed(del, name, 'prod-cache')]))).toEqual([
        `dax:DeleteCluster arn:aws:dax:${REGION}:${ACCOUNT}:cache/prod-cache`,
      ]);
    // once DAX has removed the cluster, its groups go (in that pass, or the janitor's)
    for (let i = 0; i < 10 && (await admin.describeCluster(name)).status !== 'MISSING'; i++);
    const sweep = await callsOf(() => sweepExpiredDax(admin, () => true));
    groups.push(...daxGroupCalls(sweep));
    expect(new Set(groups)).toEqual(
      new Set(['AmazonDAXV3.DeleteSubnetGroup', 'AmazonDAXV3.DeleteParameterGroup', 'DeleteSecurityGroup']),
    );
    expect(denied(await decide('janitor', sweep))).toEqual([]);
  });

  it('Plan, resuming the run: describes its cluster by name and deletes the groups of one that is gone, every call allowed', async () => {
    // the failed execution's cluster, deleted by its teardown, its groups left for later (DAX had not removed it)
    await provisionDax(run, target, tags, admin);
    for (let i = 0; i < 10 && (await admin.describeCluster(name)).status !== 'available'; i++);
    expect(await admin.deleteCluster(name)).toBe(true);
    for (let i = 0; i < 10 && (await admin.describeCluster(name)).status !== 'MISSING'; i++);
    let blockers: string[] = ['?'];
    const calls = await callsOf(async () => {
      blockers = await daxResumeBlockers(runId, run, admin);
    });
    expect(blockers).toEqual([]);
    expect(new Set(daxGroupCalls(calls))).toEqual(
      new Set(['AmazonDAXV3.DeleteSubnetGroup', 'AmazonDAXV3.DeleteParameterGroup', 'DeleteSecurityGroup']),
    );
    expect(denied(await decide('plan', calls))).toEqual([]);
    // another cluster's state is not Plan's to read
    const describe = calls.find((c) => String(c.headers['x-amz-target']).endsWith('.DescribeClusters'))!;
    expect(denied(await decide('plan', [renamed(describe, name, 'prod-cache')]))).toEqual([
      `dax:DescribeClusters arn:aws:dax:${REGION}:${ACCOUNT}:cache/prod-cache`,
    ]);
  });

  it('no other step may create or delete clusters', async () => {
    const create = sent.find((c) => String(c.headers['x-amz-target']).endsWith('.CreateCluster'))!;
    const del = sent.find((c) => String(c.headers['x-amz-target']).endsWith('.DeleteCluster'))!;
    for (const step of ['plan', 'waitReady', 'startLoad', 'startCell', 'teardown', 'janitor'] as const)
      expect(
        (await decide(step, [create])).filter((x) => x.check.action === 'dax:CreateCluster')[0]!.allowed,
      ).toBe(false);
    for (const step of ['plan', 'waitReady', 'startLoad', 'startCell'] as const)
      expect((await decide(step, [del]))[0]!.allowed).toBe(false);
  });

  it('ProvisionTarget retried after a first attempt that left the run’s security group, subnet and parameter groups: every call allowed', async () => {
    const retryRun = 'pol-run-3';
    const retryName = daxResourceName(retryRun, 'cached');
    const retry = {
      runId: retryRun,
      resources: [{ type: DAX_ENTRY.shape.type.value, targetId: 'cached', name: retryName }],
    } as unknown as RunContext;
    const retryTags = { [TAG_RUN_ID]: retryRun, 'fleetbench:expires-at': '1' };
    await ec2.send(
      new CreateSecurityGroupCommand({
        GroupName: retryName,
        Description: 'left by the first attempt',
        VpcId: network.vpcId,
        TagSpecifications: [
          {
            ResourceType: 'security-group',
            Tags: Object.entries(retryTags).map(([Key, Value]) => ({ Key, Value })),
          },
        ],
      }),
    );
    await admin.dax.send(
      new CreateSubnetGroupCommand({ SubnetGroupName: retryName, SubnetIds: network.subnetIds }),
    );
    await admin.dax.send(new CreateParameterGroupCommand({ ParameterGroupName: retryName }));
    const calls = await callsOf(() => provisionDax(retry, target, retryTags, admin));
    const ops = (await Promise.all(calls.map((c) => mapRequest(c, lookups)))).map((m) => m.operation);
    expect(ops).toEqual([
      'dax:DescribeClusters',
      'ec2:CreateSecurityGroup',
      'ec2:DescribeSecurityGroups',
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:RevokeSecurityGroupEgress',
      'dax:CreateSubnetGroup',
      'dax:CreateParameterGroup',
      'dax:UpdateParameterGroup',
      'dax:CreateCluster',
    ]);
    expect(denied(await decide('provisionTarget', calls))).toEqual([]);
    await removeRunDax(retryRun, retry, admin);
  });
});

describe('Keyspaces: the steps against the synthesized grants', () => {
  const runId = 'pol-run-2';
  const keyspace = keyspaceName(runId, 'ks');
  const { spec } = validateSpec({
    name: 'pol',
    targets: [{ id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 10, wcu: 10 } }],
    dataset: { recordCount: 100 },
    workload: { readProportions: [0.5], targetOpsPerSec: [10], durationSeconds: 60 },
    loaders: { count: 1 },
  });
  const run = {
    runId,
    resources: [
      { type: KEYSPACE_ENTRY.shape.type.value, targetId: 'ks', name: keyspace, table: 'usertable' },
    ],
  } as unknown as RunContext;
  const ksTarget = spec.targets[0] as KeyspacesTarget;
  const tags = { [TAG_RUN_ID]: runId, 'fleetbench:expires-at': '1' };
  let admin: KeyspacesApiAdmin;

  beforeAll(() => {
    admin = new KeyspacesApiAdmin(
      recording(new KeyspacesClient({ ...moto.clientConfig, endpoint: ksTwin.endpoint }), 'cassandra'),
    );
  });

  it('every step’s calls are allowed on fb_ keyspaces and refused on another keyspace', async () => {
    const noSleep = async (): Promise<void> => undefined;
    const byStep: [Step, ApiRequest[], string[]][] = [
      [
        'provisionTarget',
        await callsOf(() =>
          provisionKeyspace(run, spec, spec.targets[0] as KeyspacesTarget, { tags, admin, sleep: noSleep }),
        ),
        // CreateKeyspace is asynchronous: GetKeyspace until it is there (the twin: 2 polls), its tags, then the table
        ['CreateKeyspace', 'GetKeyspace', 'GetKeyspace', 'GetKeyspace', 'ListTagsForResource', 'CreateTable'],
      ],
      [
        'waitReady',
        await callsOf(() =>
          kindOf(ksTarget).notReady!(ksTarget, {
            run,
            spec,
            step: 'WaitReady',
            ports: { keyspaces: admin },
          } as unknown as StepContext),
        ),
        ['GetTable'],
      ],
      [
        'teardown',
        await callsOf(() => removeRunKeyspaces(runId, { ...run, resources: [] }, admin)),
        // found by the run tag, its own tag read again right before the delete
        ['ListKeyspaces', 'ListTagsForResource', 'GetKeyspace', 'ListTagsForResource', 'DeleteKeyspace'],
      ],
    ];
    await callsOf(() =>
      provisionKeyspace(run, spec, spec.targets[0] as KeyspacesTarget, { tags, admin, sleep: noSleep }),
    );
    ksTwin.settle(); // WaitReady saw the table ACTIVE
    // ConfigureCell after the table's capacity drifted: GetTable, then UpdateTable
    await admin.updateCapacity(keyspace, 'usertable', { mode: 'provisioned', rcu: 1, wcu: 1 });
    ksTwin.settle();
    const target = spec.targets[0]!;
    if (target.kind !== 'keyspaces') throw new Error('the spec has a keyspaces target');
    byStep.push([
      'configureCell',
      await callsOf(() => configureKeyspacesCapacity(run, target, admin)),
      ['GetTable', 'UpdateTable'],
    ]);
    byStep.push([
      'janitor',
      await callsOf(() => sweepExpiredKeyspaces(admin, () => true)),
      ['ListKeyspaces', 'ListTagsForResource', 'DeleteKeyspace'],
    ]);
    for (const [step, calls, ops] of byStep) {
      expect([step, calls.map((c) => String(c.headers['x-amz-target']).split('.').pop())]).toEqual([
        step,
        ops,
      ]);
      expect([step, denied(await decide(step, calls))]).toEqual([step, []]);
      // the same requests on another keyspace: each check naming it is refused
      const foreign = await decide(
        step,
        calls.map((c) => renamed(c, keyspace, 'prod_ks')),
      );
      const naming = foreign.filter((x) => x.check.resource.includes('/keyspace/prod_ks/'));
      expect(naming.length).toBeGreaterThanOrEqual(1);
      expect([step, naming.filter((x) => x.allowed).map((x) => x.check.action)]).toEqual([step, []]);
    }
    // GetTable and the tag reads also read the system keyspace, which the grants allow read-only
    const reads = await decide('waitReady', byStep[1]![1]);
    expect(reads.map((x) => x.check.resource)).toEqual([
      `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${keyspace}/table/usertable`,
      `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/system_schema/table/tables`,
    ]);
    expect(
      (
        await evaluate(roleArn.waitReady, policies.waitReady, {
          action: 'cassandra:Drop',
          resource: reads[1]!.check.resource,
          context: {},
        })
      ).allowed,
    ).toBe(false);
  });

  it('the loaders read and write fb_ tables and read the system keyspaces, nothing else', async () => {
    const check = (action: string, ks: string, table?: string) =>
      evaluate(roleArn.loader, policies.loader, {
        action,
        resource: `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/${table ? `table/${table}` : ''}`,
        context: {},
      }).then((d) => d.allowed);
    expect(await check('cassandra:Modify', keyspace, 'usertable')).toBe(true);
    expect(await check('cassandra:Select', keyspace, 'usertable')).toBe(true);
    expect(await check('cassandra:Select', 'system_schema', 'tables')).toBe(true);
    expect(await check('cassandra:Select', 'system', 'peers')).toBe(true);
    expect(await check('cassandra:Modify', 'system_schema', 'tables')).toBe(false);
    expect(await check('cassandra:Select', 'prod_ks', 'usertable')).toBe(false);
    expect(await check('cassandra:Drop', keyspace)).toBe(false);
  });
});
