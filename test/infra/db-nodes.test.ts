/**
 * The DbNodes construct on its own (a small stack: the loader fleet and stand-in functions,
 * so no bundling): node launch template, the nodes' security group (loaders only), tag-scoped
 * launch/terminate permissions, the step functions' environment, and cdk-nag.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { LoaderFleet } from '../../lib/constructs/loader-fleet';
import { DbNodes, NODE_CLIENT_PORTS } from '../../lib/constructs/db-nodes';
import { NAG_ACKNOWLEDGEMENTS } from '../../stacks/nag-suppressions';
import { standInLoaderAssets } from '../support/loader-assets';

let template: Template;
let stack: Stack;
let cluster: DbNodes;
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
  stack = new Stack(app, 'NodesTest', { env: { account: '123456789012', region: 'us-east-1' } });
  const bucket = new s3.Bucket(stack, 'Results');
  const assets = standInLoaderAssets();
  fleet = new LoaderFleet(stack, 'Loaders', {
    resultsBucket: bucket,
    bundleDir: assets.loaderBundleDir,
    agentFile: assets.loaderAgentFile,
  });
  const fns = Object.fromEntries(
    names.map((n) => [
      n,
      new lambda.Function(stack, `${n}Fn`, {
        runtime: lambda.Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => ({})'),
      }),
    ]),
  ) as Record<(typeof names)[number], lambda.Function>;
  // a stand-in file for the Cassandra archive (this test does not need the 60 MB asset built)
  cluster = new DbNodes(stack, 'Scylla', { fleet, functions: fns, cassandraAssetPath: __filename });
  template = Template.fromStack(stack);
});

/** Logical id of a construct's CFN resource. */
const logicalId = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as never);

describe('node launch template', () => {
  it('requires IMDSv2, encrypts the root volume, has no SSH key and no instance profile', () => {
    const lt = template.findResources('AWS::EC2::LaunchTemplate');
    const node = lt[logicalId(cluster.launchTemplate)]!.Properties.LaunchTemplateData;
    expect(node.MetadataOptions).toMatchObject({ HttpTokens: 'required', HttpPutResponseHopLimit: 1 });
    expect(node.BlockDeviceMappings).toEqual([
      {
        DeviceName: '/dev/sda1',
        Ebs: { DeleteOnTermination: true, Encrypted: true, VolumeSize: 50, VolumeType: 'gp3' },
      },
    ]);
    expect(node.KeyName).toBeUndefined();
    expect(node.IamInstanceProfile).toBeUndefined();
    expect(node.ImageId).toBeUndefined(); // the AMI comes per launch (lookup by version, or the spec's id)
    expect(node.SecurityGroupIds).toEqual([{ 'Fn::GetAtt': [logicalId(cluster.securityGroup), 'GroupId'] }]);
  });
});

describe('node security group', () => {
  it('admits the loaders only, on the Alternator and CQL ports; inter-node within the group', () => {
    const sg =
      template.findResources('AWS::EC2::SecurityGroup')[logicalId(cluster.securityGroup)]!.Properties;
    const loaderSg = { 'Fn::GetAtt': [logicalId(fleet.securityGroup), 'GroupId'] };
    const nodeSg = { 'Fn::GetAtt': [logicalId(cluster.securityGroup), 'GroupId'] };
    // no CIDR ingress at all
    expect(JSON.stringify(sg.SecurityGroupIngress ?? [])).not.toContain('CidrIp');
    // rules inline on the group and as separate resources (CDK uses the latter for self-references)
    const ingress = [
      ...(sg.SecurityGroupIngress ?? []),
      ...Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
        .map((r) => r.Properties)
        .filter((p) => JSON.stringify(p.GroupId) === JSON.stringify(nodeSg)),
    ];
    const fromLoaders = ingress.filter(
      (p) => JSON.stringify(p.SourceSecurityGroupId) === JSON.stringify(loaderSg),
    );
    expect(fromLoaders.map((p) => p.FromPort).sort()).toEqual(Object.values(NODE_CLIENT_PORTS).sort());
    for (const p of fromLoaders) expect(p.ToPort).toBe(p.FromPort);
    const fromNodes = ingress.filter(
      (p) => JSON.stringify(p.SourceSecurityGroupId) === JSON.stringify(nodeSg),
    );
    expect(fromNodes.map((p) => p.FromPort).sort()).toEqual([7000, 7001]);
    expect(ingress).toHaveLength(fromLoaders.length + fromNodes.length);
    // outbound: inter-node, and HTTPS to S3's prefix list (the bootstrap's dnf and `aws s3 cp`); no 0.0.0.0/0
    const egress = [
      ...(sg.SecurityGroupEgress ?? []),
      ...Object.values(template.findResources('AWS::EC2::SecurityGroupEgress'))
        .map((r) => r.Properties)
        .filter((p) => JSON.stringify(p.GroupId) === JSON.stringify(nodeSg)),
    ];
    expect(JSON.stringify(egress)).not.toContain('0.0.0.0/0');
    expect(
      egress.map((p) => [
        p.IpProtocol,
        p.FromPort,
        p.ToPort,
        JSON.stringify(p.DestinationSecurityGroupId ?? p.DestinationPrefixListId),
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['tcp', 7000, 7000, JSON.stringify(nodeSg)],
        ['tcp', 7001, 7001, JSON.stringify(nodeSg)],
        // the lookup's placeholder without cdk.context.json (the S3 list com.amazonaws.us-east-1.s3)
        ['tcp', 443, 443, JSON.stringify('pl-xxxxxxxx')],
      ]),
    );
    expect(egress).toHaveLength(3);
    // the prefix list the stack asks for is S3's in the stack's region
    const lookups = (stack.node.root as App).synth().manifest.missing ?? [];
    expect(lookups.map((m) => (m.props as { propertyMatch?: unknown }).propertyMatch)).toContainEqual({
      PrefixListName: 'com.amazonaws.us-east-1.s3',
    });
  });
});

/** Statements of the policy attached to a function's role. */
function statements(
  fn: string,
): { Sid?: string; Action: string | string[]; Resource: unknown; Condition?: unknown }[] {
  const roleId = Object.entries(template.findResources('AWS::IAM::Role')).find(([id]) =>
    id.startsWith(`${fn}FnServiceRole`),
  )![0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('permissions', () => {
  it('ProvisionTarget launches only from the node template, only instances tagged as nodes with a run id', () => {
    const s = statements('provisionTarget');
    const run = s.filter((x) => [x.Action].flat().includes('ec2:RunInstances'));
    expect(run.map((x) => x.Sid).sort()).toEqual(['RunNodesFromTemplate', 'RunTaggedNodes']);
    const tagged = run.find((x) => x.Sid === 'RunTaggedNodes')!;
    expect(JSON.stringify(tagged.Resource)).toContain(':instance/*');
    expect(tagged.Condition).toEqual({
      StringEquals: { 'aws:RequestTag/fleetbench:role': ['scylla-node', 'cassandra-node'] },
      StringLike: { 'aws:RequestTag/fleetbench:run-id': '?*' },
    });
    const fromTemplate = run.find((x) => x.Sid === 'RunNodesFromTemplate')!;
    expect(JSON.stringify(fromTemplate.Resource)).not.toContain(':instance/');
    expect(JSON.stringify(fromTemplate.Resource)).toContain(logicalId(cluster.launchTemplate));
  });

  it.each(['provisionTarget', 'teardown', 'onAbort', 'janitor'])(
    '%s terminates only instances tagged as database nodes',
    (fn) => {
      const t = statements(fn).filter((x) => [x.Action].flat().includes('ec2:TerminateInstances'));
      expect(t).toHaveLength(1);
      expect(t[0]!.Condition).toEqual({
        StringEquals: { 'aws:ResourceTag/fleetbench:role': ['scylla-node', 'cassandra-node'] },
      });
    },
  );

  it("WaitReady runs its probe only on loaders, with the stack's probe document (not AWS-RunShellScript)", () => {
    const s = statements('waitReady').filter((x) => [x.Action].flat().includes('ssm:SendCommand'));
    expect(s.map((x) => x.Sid).sort()).toEqual(['ProbeFromLoaders', 'ProbeOnLoaderInstances']);
    const docs = JSON.stringify(s.find((x) => x.Sid === 'ProbeFromLoaders')!.Resource);
    expect(docs).toContain(`:document/",{"Ref":"${stack.getLogicalId(fleet.probeDocument)}"}`);
    expect(docs).not.toContain('AWS-RunShellScript');
    // a Command document with a fixed script: the action is one of four, every value is pattern-checked
    const doc =
      template.findResources('AWS::SSM::Document')[stack.getLogicalId(fleet.probeDocument)]!.Properties;
    expect(doc.DocumentType).toBe('Command');
    const params = doc.Content.parameters as Record<
      string,
      { allowedValues?: string[]; allowedPattern?: string }
    >;
    expect(params.action!.allowedValues).toEqual([
      'health-alternator',
      'health-cql',
      'schema-alternator',
      'schema-cql',
    ]);
    for (const [name, p] of Object.entries(params))
      if (name !== 'action')
        expect([name, p.allowedPattern]).toEqual([name, expect.stringMatching(/^\^.*\$$/)]);
    expect(s.find((x) => x.Sid === 'ProbeOnLoaderInstances')!.Condition).toEqual({
      StringEquals: { 'ssm:resourceTag/fleetbench:role': 'loader' },
    });
  });

  it('the step functions get the node template and subnets; WaitReady the probe document', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          NODE_LAUNCH_TEMPLATE_ID: { Ref: logicalId(cluster.launchTemplate) },
          NODE_SUBNET_IDS: Match.anyValue(),
          PROBE_DOCUMENT: { Ref: stack.getLogicalId(fleet.probeDocument) },
        }),
      },
    });
  });
});

describe('Cassandra nodes', () => {
  it('their role is assumed by EC2 and reads the Cassandra asset object only', () => {
    const roleId = logicalId(cluster.cassandraRole!);
    const role = template.findResources('AWS::IAM::Role')[roleId]!;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }),
    ]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(roleId),
    );
    const stmts = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[]);
    expect(stmts).toHaveLength(1);
    expect(stmts[0]!.Action).toBe('s3:GetObject');
    // the asset's own key, no wildcard
    expect(JSON.stringify(stmts[0]!.Resource)).toContain(
      `/${stack.resolve(cluster.cassandraAsset!.s3ObjectKey)}`,
    );
    expect(JSON.stringify(stmts[0]!.Resource)).not.toContain('*');
    template.hasResourceProperties('AWS::IAM::InstanceProfile', { Roles: [{ Ref: roleId }] });
  });

  it('ProvisionTarget may pass that role, to EC2 only, and gets the asset, images and profile', () => {
    const pass = statements('provisionTarget').filter((x) => [x.Action].flat().includes('iam:PassRole'));
    expect(pass).toHaveLength(1);
    expect(pass[0]!.Resource).toEqual({ 'Fn::GetAtt': [logicalId(cluster.cassandraRole!), 'Arn'] });
    expect(pass[0]!.Condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } });
    const fns = template.findResources('AWS::Lambda::Function');
    const withAsset = Object.entries(fns).filter(
      ([, f]) => f.Properties.Environment?.Variables?.CASSANDRA_ASSET,
    );
    expect(withAsset.map(([id]) => id)).toEqual([expect.stringMatching(/^provisionTargetFn/)]);
    const vars = withAsset[0]![1].Properties.Environment.Variables;
    expect(vars.CASSANDRA_ASSET).toBe(
      `s3://${stack.resolve(cluster.cassandraAsset!.s3BucketName)}/${stack.resolve(cluster.cassandraAsset!.s3ObjectKey)}`,
    );
    expect(Object.keys(vars)).toEqual(
      expect.arrayContaining([
        'CASSANDRA_AMI_X86_64',
        'CASSANDRA_AMI_ARM64',
        'CASSANDRA_INSTANCE_PROFILE_ARN',
      ]),
    );
  });
});

describe('cdk-nag', () => {
  it('the construct adds no finding without a written acknowledgement', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    const mine = report.violations.filter((v) => JSON.stringify(v).includes('/Scylla/'));
    expect(report.violations.length).toBeGreaterThan(0); // the checks ran (the bare test stack has findings)
    const unacknowledged = mine
      .map((v) => v.ruleName)
      .filter((r) => !NAG_ACKNOWLEDGEMENTS.some((a) => a.pattern.test(r)));
    expect(unacknowledged).toEqual([]);
  });
});
