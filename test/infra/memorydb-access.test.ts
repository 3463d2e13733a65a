/**
 * The MemoryDbAccess construct on its own (a small stack: the loader fleet and stand-in functions, no bundling): the
 * steps' MemoryDB/EC2/IAM grants, scoped to the run's `fleetbench-*` names (docs/memorydb.md gives their sources),
 * the MemoryDB port's environment, cdk-nag and cfn-lint.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { MemoryDbAccess } from '../../lib/constructs/memorydb-access';
import { NAG_ACKNOWLEDGEMENTS } from '../../stacks/nag-suppressions';
import { nagAcknowledgementsOf } from '../../lib/constructs/nag-acknowledgements';
import { standInLoaderAssets } from '../support/loader-assets';
import { cfnLintErrors } from '../support/cfn-lint';

jest.setTimeout(60_000);

let template: Template;
let stack: Stack;
let fleet: LoaderFleet;
const names = [
  'provisionTarget',
  'waitReady',
  'startLoad',
  'startCell',
  'teardown',
  'onAbort',
  'janitor',
] as const;

beforeAll(() => {
  const app = new App();
  stack = new Stack(app, 'MemoryDbTest', { env: { account: '123456789012', region: 'us-east-1' } });
  const bucket = new s3.Bucket(stack, 'Results');
  const assets = standInLoaderAssets();
  fleet = new LoaderFleet(stack, 'Loaders', {
    resultsBucket: bucket,
    bundleDir: assets.loaderBundleDir,
    agentFile: assets.loaderAgentFile,
  });
  const fn = (n: string) =>
    new lambda.Function(stack, `${n}Fn`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
  const fns = Object.fromEntries(names.map((n) => [n, fn(n)])) as Record<
    (typeof names)[number],
    lambda.Function
  >;
  fn('report');
  new MemoryDbAccess(stack, 'MemoryDb', { fleet, functions: fns });
  template = Template.fromStack(stack);
});

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

function fnStatements(fn: string): Statement[] {
  const roleId = Object.keys(template.findResources('AWS::IAM::Role')).find((id) =>
    id.startsWith(`${fn}FnServiceRole`),
  )!;
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const actionsOf = (s: Statement[]) => s.flatMap((x) => [x.Action].flat());
const text = (x: unknown) => JSON.stringify(x);

describe('step permissions', () => {
  it('ProvisionTarget creates the pieces and the cluster on fleetbench-* names, only with the run tag, TLS on', () => {
    const s = fnStatements('provisionTarget');
    const memorydb = s.filter((x) => actionsOf([x]).some((a) => a.startsWith('memorydb:')));
    const withRunTag = { Null: { 'aws:RequestTag/fleetbench:run-id': 'false' } };
    for (const x of memorydb) {
      const creates = actionsOf([x]).some((a) => /:(Create|Tag)/.test(a));
      // no resource type (CreateUser, CreateSubnetGroup): "*", allowed only with the run tag in the request
      if (text(x.Resource) === '"*"')
        expect(actionsOf([x]).sort()).toEqual(['memorydb:CreateSubnetGroup', 'memorydb:CreateUser']);
      else
        for (const r of [x.Resource].flat())
          expect(text(r)).toMatch(
            /:memorydb:us-east-1:123456789012:((cluster|acl|user|subnetgroup)\/fleetbench-\*|parametergroup\/default\.\*)"/,
          );
      if (creates) expect(x.Condition).toMatchObject(withRunTag);
    }
    expect(s.find((x) => x.Sid === 'CreateMemoryDbCluster')!.Condition).toEqual({
      ...withRunTag,
      Bool: { 'memorydb:TLSEnabled': 'true' },
    });
    expect(actionsOf(memorydb)).toEqual(
      expect.arrayContaining([
        'memorydb:CreateCluster',
        'memorydb:CreateAcl',
        'memorydb:CreateUser',
        'memorydb:CreateSubnetGroup',
        'memorydb:TagResource',
        'memorydb:DescribeClusters',
        'memorydb:ListTags',
      ]),
    );
    // security groups: created only with the run tag, tagged only at creation, changed only when run-tagged
    const sg = s.filter((x) => text(x.Resource).includes('security-group/*'));
    expect(sg.map((x) => [x.Sid, x.Condition])).toEqual(
      expect.arrayContaining([
        ['CreateRunTaggedMemoryDbSecurityGroup', { Null: { 'aws:RequestTag/fleetbench:run-id': 'false' } }],
        ['TagMemoryDbSecurityGroupOnCreate', { StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup' } }],
        ['MemoryDbSecurityGroupRules', { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } }],
        ['DeleteRunMemoryDbSecurityGroup', { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } }],
      ]),
    );
    // a retry reads back the pieces' ARNs and tags, and the run's login: MemoryDB login secrets carrying a run tag only
    expect(s.find((x) => x.Sid === 'ReadRunMemoryDbPieces')!.Action).toEqual([
      'memorydb:DescribeUsers',
      'memorydb:DescribeSubnetGroups',
      'memorydb:DescribeAcls',
      'memorydb:ListTags',
    ]);
    const login = s.find((x) => x.Sid === 'ReadRunMemoryDbLogin')!;
    expect([login.Action, login.Condition]).toEqual([
      'secretsmanager:GetSecretValue',
      { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } },
    ]);
    expect(text(login.Resource)).toMatch(
      /:secretsmanager:us-east-1:123456789012:secret:fleetbench\/\*-memorydb-\?{6}"/,
    );
    const slr = s.find((x) => x.Sid === 'MemoryDbServiceLinkedRole')!;
    expect(slr.Condition).toEqual({ StringEquals: { 'iam:AWSServiceName': 'memorydb.amazonaws.com' } });
  });

  it('WaitReady, StartLoad and StartCell only read; teardown, abort and janitor delete, never create', () => {
    for (const fn of ['waitReady', 'startLoad', 'startCell'])
      expect(
        actionsOf(fnStatements(fn))
          .filter((a) => a.startsWith('memorydb:'))
          .sort(),
      ).toEqual(['memorydb:DescribeClusters', 'memorydb:ListTags']);
    for (const fn of ['teardown', 'onAbort', 'janitor']) {
      const a = actionsOf(fnStatements(fn));
      expect(a).toEqual(
        expect.arrayContaining([
          'memorydb:DeleteCluster',
          'memorydb:DeleteAcl',
          'memorydb:DeleteUser',
          'memorydb:DeleteSubnetGroup',
          'ec2:DeleteSecurityGroup',
        ]),
      );
      expect(a.filter((x) => /:Create/.test(x))).toEqual([]);
    }
    // the pieces are deleted only when they carry a run tag (each is created with it)
    for (const fn of ['provisionTarget', 'teardown', 'onAbort', 'janitor']) {
      const del = fnStatements(fn).filter((x) => [x.Action].flat().some((a) => /^memorydb:Delete/.test(a)));
      expect(del.map((x) => [x.Sid, x.Condition])).toEqual([
        ['DeleteMemoryDbPieces', { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } }],
      ]);
    }
    expect(actionsOf(fnStatements('report')).filter((a) => a.startsWith('memorydb:'))).toEqual([]);
  });

  it("every step gets the loaders' network for the MemoryDB port", () => {
    const fns = Object.values(template.findResources('AWS::Lambda::Function')).filter((f) =>
      text(f).includes('MEMORYDB_VPC_ID'),
    );
    expect(fns).toHaveLength(names.length);
    expect(Object.keys(fns[0]!.Properties.Environment.Variables).sort()).toEqual([
      'MEMORYDB_LOADER_SECURITY_GROUP_ID',
      'MEMORYDB_SUBNET_IDS',
      'MEMORYDB_VPC_ID',
    ]);
  });
});

describe('cdk-nag and cfn-lint', () => {
  it('AwsSolutions: every finding is acknowledged with a reason', () => {
    const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    const ours = findings.filter((f) => /memorydb|security-group|Resource::\*|aws-service-role/.test(f));
    expect(ours).toEqual(
      expect.arrayContaining([
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:memorydb:us-east-1:123456789012:cluster/fleetbench-*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:memorydb:us-east-1:123456789012:parametergroup/default.*]',
      ]),
    );
    // the stack's list and what the construct recorded for its own grants
    const acks = [...NAG_ACKNOWLEDGEMENTS, ...nagAcknowledgementsOf(stack)];
    expect(ours.filter((f) => !acks.some((a) => a.pattern.test(f)))).toEqual([]);
  });

  it('cfn-lint reports no errors', () => {
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});
