/**
 * The KeyspacesAccess construct on its own (a small stack, no bundling): which functions may create, read and
 * drop runs' keyspaces, under which resources and conditions, and what the loader role may do. That these grants
 * are enough for a run and refuse other keyspaces is shown by the cloud twin (test/cloud-twin).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KeyspacesAccess } from '../../lib/constructs/keyspaces-access';

const names = ['provisionTarget', 'waitReady', 'teardown', 'onAbort', 'janitor', 'plan'] as const;
let template: Template;

beforeAll(() => {
  const stack = new Stack(new App(), 'Ks', { env: { account: '123456789012', region: 'eu-west-1' } });
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
  const loaderRole = new iam.Role(stack, 'LoaderRole', {
    assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
  });
  const { provisionTarget, waitReady, teardown, onAbort, janitor } = fns; // not plan
  new KeyspacesAccess(stack, 'Keyspaces', {
    loaderRole,
    functions: { provisionTarget, waitReady, teardown, onAbort, janitor },
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
const arn = (rest: string) => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, `:cassandra:eu-west-1:123456789012:/keyspace/${rest}`],
  ],
});

it('ProvisionTarget creates fb_ keyspaces and tables only with the run tag in the request', () => {
  const s = statementsOf('provisionTarget').find((x) => x.Sid === 'CreateRunKeyspaces')!;
  expect(s.Action).toEqual(['cassandra:Create', 'cassandra:TagResource']);
  expect(s.Resource).toEqual([arn('fb_*/'), arn('fb_*/table/*')]);
  expect(s.Condition).toEqual({ Null: { 'aws:RequestTag/fleetbench:run-id': 'false' } });
});

it('only Teardown, the abort handler and the janitor may drop, and only fb_ keyspaces carrying a run tag', () => {
  for (const n of names) {
    const drops = statementsOf(n).filter((x) => ([] as string[]).concat(x.Action).includes('cassandra:Drop'));
    if (['teardown', 'onAbort', 'janitor'].includes(n)) {
      expect(drops.map((d) => d.Resource)).toEqual([[arn('fb_*/'), arn('fb_*/table/*')]]);
      expect(drops.map((d) => d.Condition)).toEqual([
        { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } },
      ]);
    } else expect(drops).toEqual([]);
  }
});

it('the five steps get the Keyspaces port (KEYSPACES_ADMIN) and a read grant; Plan gets neither', () => {
  const fns = template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { Environment?: { Variables: Record<string, string> } } }
  >;
  for (const [id, f] of Object.entries(fns)) {
    const on = f.Properties.Environment?.Variables.KEYSPACES_ADMIN;
    expect([id, on]).toEqual([id, id.startsWith('plan') ? undefined : 'true']);
  }
  expect(statementsOf('plan')).toEqual([]);
  expect(statementsOf('waitReady').map((s) => [s.Action, s.Resource])).toEqual([
    ['cassandra:Select', [arn('fb_*/'), arn('fb_*/table/*'), arn('system*')]],
  ]);
});

it('the loader role reads and writes tables of fb_ keyspaces and reads the system tables, nothing else', () => {
  expect(statementsOf('LoaderRole').map((s) => [s.Action, s.Resource])).toEqual([
    [['cassandra:Select', 'cassandra:Modify'], arn('fb_*/table/*')],
    ['cassandra:Select', arn('system*')],
  ]);
});
