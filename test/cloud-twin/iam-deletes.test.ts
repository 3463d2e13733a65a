/**
 * Deletes only what carries a run tag, creates only with one (docs/iam.md, rule 2), on the grants the constructs
 * synthesize (a small stack, no emulator): each request is mapped to IAM's checks by ./iam.ts and evaluated by
 * @cloud-copilot/iam-simulate with the role of the step that sends it, the resource's tags given as IAM sees them
 * (aws:ResourceTag/<key>; the Service Authorization Reference lists it for MemoryDB's DeleteCluster, DeleteAcl,
 * DeleteUser, DeleteSubnetGroup and for Keyspaces' keyspace resource:
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonmemorydb.html,
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonkeyspacesforapachecassandra.html).
 * A fleetbench-named MemoryDB piece or fb_ keyspace without the run tag (someone's own, or one named like ours) is
 * refused; the run's own, tagged at creation, is allowed. Nodes launch only with the run tag in the request, as
 * the loaders do (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/supported-iam-actions-tagging.html).
 */
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { DbNodes } from '../../lib/constructs/db-nodes';
import { DynamoDbAccess } from '../../lib/constructs/dynamodb-access';
import { KeyspacesAccess } from '../../lib/constructs/keyspaces-access';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { MemoryDbAccess } from '../../lib/constructs/memorydb-access';
import { TAG_ROLE, TAG_RUN_ID } from '../../lib/core/common/ports';
import { keyspaceName } from '../../lib/core/targets/keyspaces/keyspace';
import { memoryDbResourceName, memoryDbSecretName } from '../../lib/core/targets/memorydb/names';
import { standInLoaderAssets } from '../support/loader-assets';
import { evaluate, mapRequest, type ApiRequest } from './iam';
import { ACCOUNT, REGION, Resolver, rolePolicies, type Physical, type Template } from './template';

const STEPS = [
  'provisionTarget',
  'waitReady',
  'startLoad',
  'startCell',
  'teardown',
  'onAbort',
  'janitor',
] as const;
type Step = (typeof STEPS)[number] | 'configureCell';

let policies: Record<Step, { name: string; doc: unknown }[]>;
let roleArn: Record<Step, string>;

beforeAll(() => {
  const app = new App();
  const stack = new Stack(app, 'DeleteGrants', { env: { account: ACCOUNT, region: REGION } });
  const assets = standInLoaderAssets();
  const fleet = new LoaderFleet(stack, 'Loaders', {
    resultsBucket: new s3.Bucket(stack, 'Results'),
    bundleDir: assets.loaderBundleDir,
    agentFile: assets.loaderAgentFile,
  });
  const fn = (id: string) =>
    new lambda.Function(stack, `${id}Fn`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
  const fns = Object.fromEntries(STEPS.map((n) => [n, fn(n)])) as Record<Step, lambda.Function>;
  fns.configureCell = fn('configureCell');
  new MemoryDbAccess(stack, 'MemoryDb', { fleet, functions: fns });
  new KeyspacesAccess(stack, 'Keyspaces', {
    loaderRole: fleet.role,
    functions: fns,
    configureCell: fns.configureCell,
  });
  new DbNodes(stack, 'Nodes', { fleet, functions: fns, cassandraAssetPath: __filename });
  new DynamoDbAccess(stack, 'DynamoDb', { functions: fns, configureCell: fns.configureCell });
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  const physical = new Map<string, Physical>();
  for (const id of Object.keys(template.Resources))
    physical.set(id, {
      ref: `${id}-id`,
      attrs: { Arn: `arn:aws:iam::${ACCOUNT}:role/${id}`, GroupId: `sg-${id}` },
    });
  const resolver = new Resolver(physical);
  policies = {} as typeof policies;
  roleArn = {} as typeof roleArn;
  for (const [k, f] of Object.entries(fns)) {
    const id = stack.getLogicalId(f.role!.node.defaultChild as never);
    policies[k as Step] = rolePolicies(template, id).map((p) => ({
      name: p.name,
      doc: resolver.resolve(p.doc),
    }));
    roleArn[k as Step] = `arn:aws:iam::${ACCOUNT}:role/${id}`;
  }
});

const json = (service: string, target: string, body: object): ApiRequest => ({
  service,
  method: 'POST',
  path: '/',
  query: new URLSearchParams(),
  headers: { 'x-amz-target': target },
  body: Buffer.from(JSON.stringify(body)),
});

/** IAM's answers for one request by a step, the resource carrying `tags`. */
async function allowed(step: Step, req: ApiRequest, tags: Record<string, string> = {}): Promise<boolean[]> {
  const m = await mapRequest(req, {
    instanceTags: async () => ({}),
    launchTemplateRole: () => undefined,
    resourceTags: () => tags,
    secretTags: async () => tags,
  });
  return Promise.all(m.checks.map((c) => evaluate(roleArn[step], policies[step], c).then((d) => d.allowed)));
}

const runTag = { [TAG_RUN_ID]: 'r-1', 'fleetbench:expires-at': '1' };

describe('MemoryDB: the pieces are deleted only when they carry a run tag', () => {
  const name = memoryDbResourceName('r-1', 'mdb');
  const deletes: [string, object][] = [
    ['DeleteCluster', { ClusterName: name }],
    ['DeleteACL', { ACLName: name }],
    ['DeleteUser', { UserName: name }],
    ['DeleteSubnetGroup', { SubnetGroupName: name }],
  ];

  it.each(['provisionTarget', 'teardown', 'onAbort', 'janitor'] as const)('%s', async (step) => {
    for (const [op, body] of deletes) {
      const req = json('memorydb', `AmazonMemoryDB.${op}`, body);
      expect([op, await allowed(step, req, runTag)]).toEqual([op, [true]]);
      // a fleetbench-named piece without the run tag: untagged, or with someone else's tags
      expect([op, await allowed(step, req)]).toEqual([op, [false]]);
      expect([op, await allowed(step, req, { team: 'payments' })]).toEqual([op, [false]]);
    }
  });

  it('no other step deletes, tagged or not', async () => {
    for (const step of ['waitReady', 'startLoad', 'startCell'] as const)
      expect(
        await allowed(step, json('memorydb', 'AmazonMemoryDB.DeleteCluster', { ClusterName: name }), runTag),
      ).toEqual([false]);
  });
});

describe("MemoryDB: a retried ProvisionTarget reads back only a run's login and its pieces' names", () => {
  const name = memoryDbResourceName('r-1', 'mdb');
  // Secrets Manager's ARN: the name, a hyphen and six random characters
  const secretArn = (secretName: string) =>
    `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${secretName}-AbC123`;
  const read = (secretName: string) =>
    json('secretsmanager', 'secretsmanager.GetSecretValue', { SecretId: secretArn(secretName) });

  it("GetSecretValue: the run's tagged MemoryDB login only, and only for ProvisionTarget", async () => {
    const login = memoryDbSecretName('r-1', 'mdb');
    expect(await allowed('provisionTarget', read(login), runTag)).toEqual([true]);
    // the same name without a run tag (someone's own secret named like a login)
    expect(await allowed('provisionTarget', read(login))).toEqual([false]);
    expect(await allowed('provisionTarget', read(login), { team: 'payments' })).toEqual([false]);
    // another name pattern under the loaders' prefix: a cassandra-ec2 login, an external target's credentials
    expect(await allowed('provisionTarget', read('fleetbench/r-1/cass-cql'), runTag)).toEqual([false]);
    expect(await allowed('provisionTarget', read('fleetbench/prod-credentials'), runTag)).toEqual([false]);
    for (const step of ['waitReady', 'startLoad', 'startCell', 'teardown', 'onAbort', 'janitor'] as const)
      expect([step, await allowed(step, read(login), runTag)]).toEqual([step, [false]]);
  });

  it('the pieces: described and their tags read by fleetbench name only', async () => {
    const reads: [string, object, string][] = [
      ['DescribeUsers', { UserName: name }, 'user'],
      ['DescribeSubnetGroups', { SubnetGroupName: name }, 'subnetgroup'],
      ['DescribeACLs', { ACLName: name }, 'acl'],
    ];
    for (const [op, body, type] of reads) {
      const tags = json('memorydb', 'AmazonMemoryDB.ListTags', {
        ResourceArn: `arn:aws:memorydb:${REGION}:${ACCOUNT}:${type}/${name}`,
      });
      for (const req of [json('memorydb', `AmazonMemoryDB.${op}`, body), tags]) {
        expect([op, await allowed('provisionTarget', req)]).toEqual([op, [true]]);
        const other = { ...req, body: Buffer.from(req.body.toString('utf8').split(name).join('prod-cache')) };
        expect([op, await allowed('provisionTarget', other)]).toEqual([op, [false]]);
      }
    }
  });
});

describe('Keyspaces: an fb_ keyspace is dropped only when it carries a run tag', () => {
  const drop = json('cassandra', 'KeyspacesService.DeleteKeyspace', {
    keyspaceName: keyspaceName('r-1', 'ks'),
  });

  it.each(['teardown', 'onAbort', 'janitor'] as const)('%s', async (step) => {
    expect(await allowed(step, drop, runTag)).toEqual([true]);
    expect(await allowed(step, drop)).toEqual([false]);
    expect(await allowed(step, drop, { owner: 'someone' })).toEqual([false]);
  });

  it('ProvisionTarget and ConfigureCell drop nothing', async () => {
    expect(await allowed('provisionTarget', drop, runTag)).toEqual([false]);
    expect(await allowed('configureCell', drop, runTag)).toEqual([false]);
  });
});

describe('nodes: launched only with the node role tag and a run id in the request', () => {
  /** RunInstances' check on the new instance with these request tags (./iam.ts's tag-on-create mapping). */
  async function launchInstance(tags: Record<string, string>): Promise<boolean> {
    const form = new URLSearchParams({
      Action: 'RunInstances',
      'TagSpecification.1.ResourceType': 'instance',
    });
    Object.entries(tags).forEach(([k, v], i) => {
      form.set(`TagSpecification.1.Tag.${i + 1}.Key`, k);
      form.set(`TagSpecification.1.Tag.${i + 1}.Value`, v);
    });
    const m = await mapRequest(
      {
        service: 'ec2',
        method: 'POST',
        path: '/',
        query: new URLSearchParams(),
        headers: {},
        body: Buffer.from(form.toString()),
      },
      { instanceTags: async () => ({}), launchTemplateRole: () => undefined },
    );
    const instance = m.checks.find(
      (c) => c.action === 'ec2:RunInstances' && c.resource.endsWith(':instance/*'),
    )!;
    return (await evaluate(roleArn.provisionTarget, policies.provisionTarget, instance)).allowed;
  }

  it('a node with its run tag is allowed; without one, or with an empty one, refused', async () => {
    expect(await launchInstance({ [TAG_ROLE]: 'scylla-node', [TAG_RUN_ID]: 'r-1' })).toBe(true);
    expect(await launchInstance({ [TAG_ROLE]: 'scylla-node' })).toBe(false);
    expect(await launchInstance({ [TAG_ROLE]: 'scylla-node', [TAG_RUN_ID]: '' })).toBe(false);
    // the run tag alone does not make an instance a node
    expect(await launchInstance({ [TAG_RUN_ID]: 'r-1' })).toBe(false);
  });
});

describe('DynamoDB: no tag condition (ABAC can be off in an account: docs/iam.md)', () => {
  const table = json('dynamodb', 'DynamoDB_20120810.DeleteTable', { TableName: 'fleetbench-r-1' });

  it('the run’s tables are deleted by name whatever IAM sees of their tags; other names never', async () => {
    // an account without DynamoDB ABAC evaluates tag conditions as if the table had no tags: a tag condition
    // here would refuse the run's own teardown (a leak), so the run-tag check is the code's (ownership.ts)
    expect(await allowed('teardown', table)).toEqual([true]);
    const other = json('dynamodb', 'DynamoDB_20120810.DeleteTable', { TableName: 'orders' });
    for (const step of ['teardown', 'onAbort', 'janitor', 'configureCell'] as const)
      expect(await allowed(step, other)).toEqual([false]);
  });
});
