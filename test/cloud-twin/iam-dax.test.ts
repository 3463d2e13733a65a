/**
 * The twin's mapping of DAX calls and of the DAX security-group calls (./iam-dax.ts) on its own (no emulator),
 * evaluated against statements shaped as lib/constructs/dax-access.ts writes them: what is allowed, and what
 * the same statements deny (another role passed, another cluster name, a group without the run tag).
 */
import { evaluate, mapRequest, type ApiRequest } from './iam';

const role = 'arn:aws:iam::123456789012:role/TwinTest';
const daxRole = 'arn:aws:iam::123456789012:role/DaxRole';
const cache = (n: string) => `arn:aws:dax:us-east-1:123456789012:cache/${n}`;
const lookups = {
  instanceTags: async () => ({}),
  launchTemplateRole: () => undefined,
  securityGroupTags: async (ids: string[]): Promise<Record<string, Record<string, string>>> =>
    Object.fromEntries(
      ids.map((id): [string, Record<string, string>] => [
        id,
        id === 'sg-run' ? { 'fleetbench:run-id': 'r1' } : {},
      ]),
    ),
};
const dax = (op: string, body: object): ApiRequest => ({
  service: 'dax',
  method: 'POST',
  path: '/',
  query: new URLSearchParams(),
  headers: { 'x-amz-target': `AmazonDAXV3.${op}` },
  body: Buffer.from(JSON.stringify(body)),
});
const ec2 = (form: Record<string, string>): ApiRequest => ({
  service: 'ec2',
  method: 'POST',
  path: '/',
  query: new URLSearchParams(),
  headers: {},
  body: Buffer.from(new URLSearchParams(form).toString()),
});
const policy = (statements: object[]) => [
  { name: 'p', doc: { Version: '2012-10-17', Statement: statements } },
];
const provisionTarget = policy([
  { Effect: 'Allow', Action: ['dax:CreateCluster', 'dax:TagResource'], Resource: cache('fb-*') },
  {
    Effect: 'Allow',
    Action: 'iam:PassRole',
    Resource: daxRole,
    Condition: { StringEquals: { 'iam:PassedToService': 'dax.amazonaws.com' } },
  },
  {
    Effect: 'Allow',
    Action: ['ec2:AuthorizeSecurityGroupIngress', 'ec2:DeleteSecurityGroup'],
    Resource: 'arn:aws:ec2:us-east-1:123456789012:security-group/*',
    Condition: { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } },
  },
]);
const allowed = async (r: ApiRequest) =>
  Promise.all(
    (await mapRequest(r, lookups)).checks.map(
      async (c) => (await evaluate(role, provisionTarget, c)).allowed,
    ),
  );

test('CreateCluster checks the cluster, the tags and passing its role to DAX', async () => {
  const m = await mapRequest(
    dax('CreateCluster', {
      ClusterName: 'fb-0a1b2c3d',
      IamRoleArn: daxRole,
      Tags: [{ Key: 'k', Value: 'v' }],
    }),
    lookups,
  );
  expect(m.checks).toEqual([
    { action: 'dax:CreateCluster', resource: cache('fb-0a1b2c3d'), context: {} },
    { action: 'dax:TagResource', resource: cache('fb-0a1b2c3d'), context: {} },
    { action: 'iam:PassRole', resource: daxRole, context: { 'iam:PassedToService': 'dax.amazonaws.com' } },
  ]);
  expect(await allowed(dax('CreateCluster', { ClusterName: 'fb-0a1b2c3d', IamRoleArn: daxRole }))).toEqual([
    true,
    true,
  ]);
  // another name, or another role handed to DAX, is denied by the same statements
  expect(await allowed(dax('CreateCluster', { ClusterName: 'prod-cache', IamRoleArn: daxRole }))).toEqual([
    false,
    true,
  ]);
  expect(
    await allowed(
      dax('CreateCluster', {
        ClusterName: 'fb-0a1b2c3d',
        IamRoleArn: 'arn:aws:iam::123456789012:role/Admin',
      }),
    ),
  ).toEqual([true, false]);
});

test('DescribeClusters by name checks each cluster; without names "*"', async () => {
  const named = await mapRequest(dax('DescribeClusters', { ClusterNames: ['fb-1', 'fb-2'] }), lookups);
  expect(named.checks.map((c) => c.resource)).toEqual([cache('fb-1'), cache('fb-2')]);
  const all = await mapRequest(dax('DescribeClusters', {}), lookups);
  expect(all.checks.map((c) => c.resource)).toEqual(['*']);
  const groups = await mapRequest(dax('CreateSubnetGroup', { SubnetGroupName: 'fb-1' }), lookups);
  expect(groups.checks).toEqual([{ action: 'dax:CreateSubnetGroup', resource: '*', context: {} }]);
});

test("security-group changes carry the group's tags: a run-tagged group is allowed, another is not", async () => {
  const rule = (id: string) => ec2({ Action: 'AuthorizeSecurityGroupIngress', GroupId: id });
  expect(await allowed(rule('sg-run'))).toEqual([true]);
  expect(await allowed(rule('sg-other'))).toEqual([false]);
  const create = await mapRequest(
    ec2({
      Action: 'CreateSecurityGroup',
      VpcId: 'vpc-1',
      'TagSpecification.1.ResourceType': 'security-group',
      'TagSpecification.1.Tag.1.Key': 'fleetbench:run-id',
      'TagSpecification.1.Tag.1.Value': 'r1',
    }),
    lookups,
  );
  expect(create.checks.map((c) => [c.action, c.resource, c.context])).toEqual([
    ['ec2:CreateSecurityGroup', 'arn:aws:ec2:us-east-1:123456789012:vpc/vpc-1', {}],
    [
      'ec2:CreateSecurityGroup',
      'arn:aws:ec2:us-east-1:123456789012:security-group/*',
      { 'aws:RequestTag/fleetbench:run-id': 'r1' },
    ],
    [
      'ec2:CreateTags',
      'arn:aws:ec2:us-east-1:123456789012:security-group/*',
      { 'aws:RequestTag/fleetbench:run-id': 'r1', 'ec2:CreateAction': 'CreateSecurityGroup' },
    ],
  ]);
});
