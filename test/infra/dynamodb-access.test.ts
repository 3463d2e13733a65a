/**
 * The DynamoDbAccess construct on its own (a small stack, no bundling): which step functions may create, size,
 * describe and delete DynamoDB tables, on which tables. Resource forms from the Service Authorization Reference
 * for DynamoDB (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html): the
 * table actions take `arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}`, ListTables no resource
 * type. That these grants are enough for a run is shown by the cloud twin (test/cloud-twin).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DynamoDbAccess } from '../../lib/constructs/dynamodb-access';
import { NAG_ACKNOWLEDGEMENTS } from '../../stacks/nag-suppressions';
import { cfnLintErrors } from '../support/cfn-lint';

const names = ['provisionTarget', 'waitReady', 'configureCell', 'teardown', 'onAbort', 'plan'] as const;
let template: Template;
let stack: Stack;

beforeAll(() => {
  stack = new Stack(new App(), 'Ddb', { env: { account: '123456789012', region: 'eu-west-1' } });
  const fn = (id: string) =>
    new lambda.Function(stack, id, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => 1'),
    });
  const fns = Object.fromEntries(names.map((n) => [n, fn(n)])) as Record<
    (typeof names)[number],
    lambda.Function
  >;
  const { provisionTarget, waitReady, teardown, onAbort, configureCell } = fns; // not plan
  new DynamoDbAccess(stack, 'DynamoDb', {
    functions: { provisionTarget, waitReady, teardown, onAbort },
    configureCell,
  });
  template = Template.fromStack(stack);
});

type Stmt = { Sid: string; Action: string | string[]; Resource: unknown; Condition?: unknown };
function statementsOf(rolePrefix: string): Stmt[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
    Properties: { PolicyDocument: { Statement: Stmt[] }; Roles: { Ref: string }[] };
  }[];
  return policies
    .filter((p) => p.Properties.Roles.some((r) => r.Ref.startsWith(rolePrefix)))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}
const tableArn = (name: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:eu-west-1:123456789012:table/${name}`]],
});
const actions = (s: Stmt) => [s.Action].flat();

it('ProvisionTarget creates and tags fleetbench-* tables only; describes any table (an existing one too); lists tables', () => {
  const s = statementsOf('provisionTarget');
  const create = s.find((x) => x.Sid === 'CreateTables')!;
  expect(create.Action).toEqual([
    'dynamodb:CreateTable',
    'dynamodb:TagResource',
    'dynamodb:ListTagsOfResource',
  ]);
  expect(create.Resource).toEqual(tableArn('fleetbench-*'));
  expect(s.find((x) => x.Sid === 'DescribeTables')).toMatchObject({
    Action: 'dynamodb:DescribeTable',
    Resource: tableArn('*'),
  });
  expect(s.find((x) => x.Sid === 'ListTables')).toMatchObject({
    Action: 'dynamodb:ListTables',
    Resource: '*',
  });
});

it('ConfigureCell changes the capacity of fleetbench-* tables only; WaitReady only describes', () => {
  const cc = statementsOf('configureCell');
  expect(cc.find((x) => x.Sid === 'SetCapacity')).toMatchObject({
    Action: 'dynamodb:UpdateTable',
    Resource: tableArn('fleetbench-*'),
  });
  expect(statementsOf('waitReady').flatMap(actions)).toEqual(['dynamodb:DescribeTable']);
});

it('Teardown and OnAbort delete fleetbench-* tables only; no other function may create, change or delete one', () => {
  for (const fn of ['teardown', 'onAbort']) {
    const del = statementsOf(fn).find((x) => x.Sid === 'DeleteTables')!;
    expect(actions(del)).toContain('dynamodb:DeleteTable');
    expect(del.Resource).toEqual(tableArn('fleetbench-*'));
  }
  const writes = /^dynamodb:(CreateTable|UpdateTable|DeleteTable|TagResource)$/;
  const who = names.filter((n) =>
    statementsOf(n)
      .flatMap(actions)
      .some((a) => writes.test(a)),
  );
  expect(who).toEqual(['provisionTarget', 'configureCell', 'teardown', 'onAbort']);
  // every write names fleetbench-* tables, never any table
  for (const n of names)
    for (const s of statementsOf(n).filter((x) => actions(x).some((a) => writes.test(a))))
      expect(s.Resource).toEqual(tableArn('fleetbench-*'));
  expect(statementsOf('plan')).toEqual([]);
});

it('AwsSolutions: every finding of the construct is acknowledged; cfn-lint reports no errors', () => {
  const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
  const ours = findings.filter((f) => /dynamodb|Resource::\*/.test(f));
  expect(ours.length).toBeGreaterThan(0);
  expect(ours.filter((f) => !NAG_ACKNOWLEDGEMENTS.some((a) => a.pattern.test(f)))).toEqual([]);
  expect(cfnLintErrors(template.toJSON())).toEqual([]);
});
