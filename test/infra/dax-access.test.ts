/**
 * The DaxAccess construct on its own (a small stack: the loader fleet and stand-in functions, no bundling): the
 * DAX service role, the steps' DAX/EC2/IAM grants (names and resource types checked against the Service
 * Authorization Reference for DAX, see the construct), the loaders' data-plane grant, the DAX port's environment,
 * cdk-nag and cfn-lint.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { DAX_LOADER_ACTIONS, DAX_TABLE_ACTIONS, DaxAccess } from '../../lib/constructs/dax-access';
import { NAG_ACKNOWLEDGEMENTS } from '../../stacks/nag-suppressions';
import { standInLoaderAssets } from '../support/loader-assets';
import { cfnLintErrors } from '../support/cfn-lint';

jest.setTimeout(60_000);

let template: Template;
let stack: Stack;
let dax: DaxAccess;
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
const otherFn = 'report';

beforeAll(() => {
  const app = new App();
  stack = new Stack(app, 'DaxTest', { env: { account: '123456789012', region: 'us-east-1' } });
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
  fn(otherFn);
  dax = new DaxAccess(stack, 'Dax', { fleet, functions: fns });
  template = Template.fromStack(stack);
});

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

function statementsOfRole(prefix: string): Statement[] {
  const roleId = Object.keys(template.findResources('AWS::IAM::Role')).find((id) => id.startsWith(prefix))!;
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const fnStatements = (fn: string) => statementsOfRole(`${fn}FnServiceRole`);
const actionsOf = (s: Statement[]) => s.flatMap((x) => [x.Action].flat());
const text = (x: unknown) => JSON.stringify(x);

describe('DAX service role', () => {
  it('is assumed by DAX only and may use fleetbench-* tables only, with the actions DAX forwards', () => {
    const roles = template.findResources('AWS::IAM::Role');
    const role = Object.entries(roles).find(([id]) => id.startsWith('DaxDaxServiceRole'))![1];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'dax.amazonaws.com' } },
    ]);
    const s = statementsOfRole('DaxDaxServiceRole');
    expect(s).toHaveLength(1);
    expect([s[0]!.Action].flat().sort()).toEqual([...DAX_TABLE_ACTIONS].sort());
    expect(text(s[0]!.Resource)).toMatch(/:table\/fleetbench-\*"/);
  });
});

describe('step permissions', () => {
  it('ProvisionTarget creates fb-* clusters, passes the DAX role to DAX only, and tags security groups at creation', () => {
    const s = fnStatements('provisionTarget');
    const create = s.find((x) => x.Sid === 'CreateDaxCluster')!;
    expect([create.Action].flat().sort()).toEqual(['dax:CreateCluster', 'dax:TagResource']);
    expect(text(create.Resource)).toMatch(/:dax:us-east-1:123456789012:cache\/fb-\*"/);
    const pass = s.filter((x) => actionsOf([x]).includes('iam:PassRole'));
    expect(pass).toHaveLength(1);
    expect(pass[0]!.Resource).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(dax.serviceRole.node.defaultChild as never), 'Arn'],
    });
    expect(pass[0]!.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'dax.amazonaws.com' } });
    // security groups: created only with the run tag, tagged only at creation, changed only when run-tagged
    const sg = s.filter((x) => text(x.Resource).includes('security-group/*'));
    expect(sg.map((x) => [x.Sid, x.Condition])).toEqual(
      expect.arrayContaining([
        ['CreateRunTaggedSecurityGroup', { Null: { 'aws:RequestTag/fleetbench:run-id': 'false' } }],
        ['TagSecurityGroupOnCreate', { StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup' } }],
        ['DaxSecurityGroupRules', { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } }],
        ['DeleteRunSecurityGroup', { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } }],
      ]),
    );
    for (const x of sg) expect(x.Condition).toBeDefined();
    // CreateCluster's dependent network-interface actions: deletion and the subnets/groups only in the loaders' VPC
    const inVpc = (sid: string) => s.find((x) => x.Sid === sid)!.Condition;
    const vpcArn = {
      StringEquals: {
        'ec2:Vpc': {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':ec2:us-east-1:123456789012:vpc/',
              { Ref: stack.getLogicalId(fleet.vpc.node.defaultChild as never) },
            ],
          ],
        },
      },
    };
    expect(inVpc('DeleteDaxNetworkInterfaces')).toEqual(vpcArn);
    expect(inVpc('DaxNetworkInterfacesInLoaderVpc')).toEqual(vpcArn);
  });

  it('Teardown, the abort rule and the janitor may delete fb-* clusters and groups, not create', () => {
    for (const fn of ['teardown', 'onAbort', 'janitor']) {
      const s = fnStatements(fn);
      const a = actionsOf(s);
      expect(a).toEqual(
        expect.arrayContaining(['dax:DeleteCluster', 'dax:DeleteSubnetGroup', 'dax:DeleteParameterGroup']),
      );
      expect(a.filter((x) => /^dax:Create|^iam:/.test(x))).toEqual([]);
      expect(text(s.find((x) => x.Sid === 'DeleteDaxCluster')!.Resource)).toMatch(/cache\/fb-\*"/);
    }
  });

  it('WaitReady, StartLoad and StartCell only describe fb-* clusters; other functions get nothing of DAX', () => {
    for (const fn of ['waitReady', 'startLoad', 'startCell']) {
      const dax = fnStatements(fn).filter((x) => actionsOf([x]).some((a) => a.startsWith('dax:')));
      expect(actionsOf(dax)).toEqual(['dax:DescribeClusters']);
      expect(text(dax[0]!.Resource)).toMatch(/cache\/fb-\*"/);
    }
    expect(fnStatements(otherFn).filter((x) => text(x).includes('dax'))).toEqual([]);
  });

  it("sets the DAX port's environment on the seven functions", () => {
    const fns = template.findResources('AWS::Lambda::Function');
    for (const n of names) {
      const vars = Object.entries(fns).find(([id]) => id.startsWith(`${n}Fn`))![1].Properties.Environment
        .Variables;
      expect(Object.keys(vars).sort()).toEqual([
        'DAX_LOADER_SECURITY_GROUP_ID',
        'DAX_ROLE_ARN',
        'DAX_SUBNET_IDS',
        'DAX_VPC_ID',
      ]);
    }
  });
});

describe('loaders', () => {
  it('send item operations to fb-* clusters only', () => {
    const s = statementsOfRole('LoadersLoaderRole').find((x) => x.Sid === 'DaxDataPlane')!;
    expect([s.Action].flat().sort()).toEqual([...DAX_LOADER_ACTIONS].sort());
    expect(text(s.Resource)).toMatch(/cache\/fb-\*"/);
  });
});

describe('cdk-nag and cfn-lint', () => {
  it('AwsSolutions: every finding is acknowledged with a reason', () => {
    const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    // the construct's findings (the stand-in bucket's belong to this test's stack, not to the construct)
    const dax = findings.filter((f) => /dax|security-group|Resource::\*|aws-service-role/.test(f));
    expect(dax).toEqual(
      expect.arrayContaining([
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:dax:us-east-1:123456789012:cache/fb-*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:us-east-1:123456789012:security-group/*]',
      ]),
    );
    expect(dax.filter((f) => !NAG_ACKNOWLEDGEMENTS.some((a) => a.pattern.test(f)))).toEqual([]);
  });

  it('cfn-lint reports no errors', () => {
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});
