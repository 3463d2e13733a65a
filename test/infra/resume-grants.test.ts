/**
 * What the Plan step may do of DAX and MemoryDB (DaxAccess and MemoryDbAccess given the Plan function): a resume's
 * checks (lib/core/targets/dynamodb/dax-resume.ts, lib/core/targets/memorydb/resume.ts) describe the run's clusters by
 * name and delete the supporting groups of a cluster that is gone, the security group only when it carries a run tag;
 * Plan may not create, modify or delete a cluster, and gets the ports' environment. The DAX calls themselves are
 * evaluated against these grants in test/cloud-twin/iam-target-policies.test.ts.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { DaxAccess } from '../../lib/constructs/dax-access';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { MemoryDbAccess } from '../../lib/constructs/memorydb-access';
import { standInLoaderAssets } from '../support/loader-assets';

jest.setTimeout(60_000);

const names = [
  'provisionTarget',
  'waitReady',
  'startLoad',
  'startCell',
  'teardown',
  'onAbort',
  'janitor',
] as const;
let template: Template;

beforeAll(() => {
  const app = new App();
  const stack = new Stack(app, 'ResumeGrants', { env: { account: '123456789012', region: 'us-east-1' } });
  const assets = standInLoaderAssets();
  const fleet = new LoaderFleet(stack, 'Loaders', {
    resultsBucket: new s3.Bucket(stack, 'Results'),
    bundleDir: assets.loaderBundleDir,
    agentFile: assets.loaderAgentFile,
  });
  const fn = (n: string) =>
    new lambda.Function(stack, `${n}Fn`, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
    });
  const functions = Object.fromEntries(names.map((n) => [n, fn(n)])) as Record<
    (typeof names)[number],
    lambda.Function
  >;
  const plan = fn('plan');
  new DaxAccess(stack, 'Dax', { fleet, functions, plan });
  new MemoryDbAccess(stack, 'MemoryDb', { fleet, functions, plan });
  template = Template.fromStack(stack);
});

type Statement = { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

function planStatements(): Statement[] {
  const roleId = Object.keys(template.findResources('AWS::IAM::Role')).find((id) =>
    id.startsWith('planFnServiceRole'),
  )!;
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const actions = (s: Statement[]) => s.flatMap((x) => [x.Action].flat()).sort();
const runTagged = { Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } };

it("Plan describes the run's DAX clusters by name and deletes a gone cluster's groups, nothing more of DAX", () => {
  const s = planStatements().filter((x) => actions([x]).some((a) => a.startsWith('dax:')));
  expect(actions(s)).toEqual(['dax:DeleteParameterGroup', 'dax:DeleteSubnetGroup', 'dax:DescribeClusters']);
  const describe = s.find((x) => actions([x]).includes('dax:DescribeClusters'))!;
  expect(JSON.stringify(describe.Resource)).toMatch(/:dax:us-east-1:123456789012:cache\/fb-\*"/);
});

it("Plan describes the run's MemoryDB clusters by name and deletes a gone cluster's run-tagged pieces only", () => {
  const s = planStatements().filter((x) => actions([x]).some((a) => a.startsWith('memorydb:')));
  expect(actions(s)).toEqual([
    'memorydb:DeleteAcl',
    'memorydb:DeleteSubnetGroup',
    'memorydb:DeleteUser',
    'memorydb:DescribeClusters',
  ]);
  for (const x of s) {
    for (const r of [x.Resource].flat())
      expect(JSON.stringify(r)).toMatch(
        /:memorydb:us-east-1:123456789012:(cluster|acl|user|subnetgroup)\/fleetbench-\*"/,
      );
    if (actions([x]).some((a) => a.includes(':Delete'))) expect(x.Condition).toEqual(runTagged);
  }
});

it('Plan deletes security groups only when they carry a run tag, and creates nothing', () => {
  const s = planStatements();
  const sg = s.filter((x) => actions([x]).includes('ec2:DeleteSecurityGroup'));
  expect(sg.length).toBeGreaterThan(0);
  for (const x of sg) expect(x.Condition).toEqual(runTagged);
  expect(
    actions(s).filter((a) =>
      /^(dax|memorydb|ec2):(Create|Modify|Update|Authorize|Tag)|:DeleteCluster$/.test(a),
    ),
  ).toEqual([]);
});

it("Plan gets the ports' environment", () => {
  const fns = template.findResources('AWS::Lambda::Function');
  const vars = Object.entries(fns).find(([id]) => id.startsWith('planFn'))![1].Properties.Environment
    .Variables;
  expect(Object.keys(vars)).toEqual(
    expect.arrayContaining(['DAX_ROLE_ARN', 'DAX_VPC_ID', 'MEMORYDB_VPC_ID', 'MEMORYDB_SUBNET_IDS']),
  );
});
