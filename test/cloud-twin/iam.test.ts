/**
 * The twin's IAM table and evaluation on their own (no emulator): what a request maps to, and that
 * the simulator allows and denies on the resource and the condition keys the stack's policies use.
 */
import { evaluate, mapRequest, UnmappedOperation, type ApiRequest } from './iam';

const role = 'arn:aws:iam::123456789012:role/TwinTest';
const lookups = {
  instanceTags: async (ids: string[]) =>
    Object.fromEntries(
      ids.map((id) => [id, { 'fleetbench:role': id === 'i-loader' ? 'loader' : 'scylla-node' }]),
    ),
  launchTemplateRole: () => undefined,
};
const req = (o: Partial<ApiRequest>): ApiRequest => ({
  service: 's3',
  method: 'GET',
  path: '/',
  query: new URLSearchParams(),
  headers: {},
  body: Buffer.alloc(0),
  ...o,
});
const json = (service: string, target: string, body: object): ApiRequest =>
  req({
    service,
    method: 'POST',
    headers: { 'x-amz-target': target },
    body: Buffer.from(JSON.stringify(body)),
  });
const policy = (statements: object[]) => [
  { name: 'p', doc: { Version: '2012-10-17', Statement: statements } },
];

test('S3 object reads map to s3:GetObject on the key; a grant on runs/* does not cover specs/*', async () => {
  const m = await mapRequest(req({ path: '/bucket/specs/a.json' }), lookups);
  expect(m.checks).toEqual([
    { action: 's3:GetObject', resource: 'arn:aws:s3:::bucket/specs/a.json', context: {} },
  ]);
  const grant = policy([{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bucket/runs/*' }]);
  expect((await evaluate(role, grant, m.checks[0]!)).allowed).toBe(false);
  const runs = await mapRequest(req({ path: '/bucket/runs/r1/spec.json' }), lookups);
  expect((await evaluate(role, grant, runs.checks[0]!)).allowed).toBe(true);
});

test('SendCommand checks the document and each instance with its tags as ssm:resourceTag', async () => {
  const m = await mapRequest(
    json('ssm', 'AmazonSSM.SendCommand', {
      DocumentName: 'AWS-RunShellScript',
      InstanceIds: ['i-loader', 'i-node'],
    }),
    lookups,
  );
  expect(m.checks.map((c) => c.resource)).toEqual([
    'arn:aws:ssm:us-east-1::document/AWS-RunShellScript',
    'arn:aws:ec2:us-east-1:123456789012:instance/i-loader',
    'arn:aws:ec2:us-east-1:123456789012:instance/i-node',
  ]);
  const grant = policy([
    {
      Effect: 'Allow',
      Action: 'ssm:SendCommand',
      Resource: 'arn:aws:ssm:us-east-1::document/AWS-RunShellScript',
    },
    {
      Effect: 'Allow',
      Action: 'ssm:SendCommand',
      Resource: 'arn:aws:ec2:us-east-1:123456789012:instance/*',
      Condition: { StringEquals: { 'ssm:resourceTag/fleetbench:role': 'loader' } },
    },
  ]);
  const decisions = await Promise.all(m.checks.map((c) => evaluate(role, grant, c)));
  expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
});

test('PutMetricData carries cloudwatch:namespace; an operation outside the table is refused', async () => {
  const m = await mapRequest(
    json('monitoring', 'GraniteServiceVersion20100801.PutMetricData', { Namespace: 'Fleetbench/Loader' }),
    lookups,
  );
  const grant = policy([
    {
      Effect: 'Allow',
      Action: 'cloudwatch:PutMetricData',
      Resource: '*',
      Condition: { StringEquals: { 'cloudwatch:namespace': 'Fleetbench' } },
    },
  ]);
  expect((await evaluate(role, grant, m.checks[0]!)).allowed).toBe(false);
  await expect(
    mapRequest(json('dynamodb', 'DynamoDB_20120810.RestoreTableFromBackup', {}), lookups),
  ).rejects.toThrow(UnmappedOperation);
});

test('Publish to a KMS-encrypted topic also needs kms:GenerateDataKey and kms:Decrypt on the topic key', async () => {
  const topic = 'arn:aws:sns:us-east-1:123456789012:events';
  const key = 'arn:aws:kms:us-east-1:123456789012:key/k-1';
  const publish = req({
    service: 'sns',
    method: 'POST',
    body: Buffer.from(`Action=Publish&TopicArn=${encodeURIComponent(topic)}&Message=x`),
  });
  // the key policy CDK gives a key: the account's IAM policies decide
  const keyPolicy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { AWS: 'arn:aws:iam::123456789012:root' },
        Action: 'kms:*',
        Resource: '*',
      },
    ],
  };
  const m = await mapRequest(publish, {
    ...lookups,
    topicKey: (t) => (t === topic ? { arn: key, policy: keyPolicy } : undefined),
  });
  expect(m.checks.map((c) => [c.action, c.resource])).toEqual([
    ['sns:Publish', topic],
    ['kms:GenerateDataKey', key],
    ['kms:Decrypt', key],
  ]);
  const snsOnly = policy([{ Effect: 'Allow', Action: 'sns:Publish', Resource: topic }]);
  const withKey = policy([
    { Effect: 'Allow', Action: 'sns:Publish', Resource: topic },
    { Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Resource: key },
  ]);
  const all = async (p: ReturnType<typeof policy>) =>
    (await Promise.all(m.checks.map((c) => evaluate(role, p, c)))).map((d) => d.allowed);
  expect(await all(snsOnly)).toEqual([true, false, false]);
  expect(await all(withKey)).toEqual([true, true, true]);
  // an unencrypted topic: the publish alone
  expect((await mapRequest(publish, lookups)).checks).toHaveLength(1);
});
