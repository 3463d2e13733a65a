/**
 * What DAX clusters (dynamodb targets with `dax`) need in the account: the DAX service role (assumed by
 * dax.amazonaws.com, the table actions DAX forwards on fleetbench-* tables), the step functions' permissions to
 * create, watch and delete the per-run clusters and their groups (cluster names `fb-<8 hex>`: lib/core/targets/dynamodb/dax.ts),
 * the loaders' data-plane actions on those clusters, and the environment the DAX port is built from
 * (lambdas/shared/env.ts). The per-run security group (the loaders only, 8111/9111) is created by the run
 * (lib/aws/dax-admin.ts); the loaders' own group allows all outbound already.
 *
 * Why each grant is what it is, with its sources: docs/iam.md, "DAX".
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TABLE_PREFIX, TAG_RUN_ID } from '../core/common/ports';
import { DAX_NAME_PREFIX } from '../core/targets/dynamodb/dax';
import type { LoaderFleet } from './loader-fleet';

/** Table actions DAX performs on the loaders' behalf (docs/dax-keyspaces.md, "The DAX service role"). */
export const DAX_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
];

/** What the loaders' binding sends through the DAX client (read, update, insert, delete, scan, query, batched inserts). */
export const DAX_LOADER_ACTIONS = [
  'dax:GetItem',
  'dax:PutItem',
  'dax:UpdateItem',
  'dax:DeleteItem',
  'dax:Scan',
  'dax:Query',
  'dax:BatchWriteItem',
];

export interface DaxAccessProps {
  readonly fleet: LoaderFleet;
  readonly functions: TargetFunctions;
  /**
   * The Plan step's function: a resume checks that the run's clusters are gone and deletes the groups its teardown
   * left pending (lib/core/targets/dynamodb/dax-resume.ts).
   */
  readonly plan?: lambda.Function;
}

export class DaxAccess extends Construct {
  /** The role DAX assumes to reach the run's table. */
  readonly serviceRole: iam.Role;

  constructor(scope: Construct, id: string, props: DaxAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet, functions: f } = props;

    this.serviceRole = new iam.Role(this, 'DaxServiceRole', {
      assumedBy: new iam.ServicePrincipal('dax.amazonaws.com'),
      description: 'fleetbench DAX clusters: the table actions DAX forwards, on fleetbench-* tables only',
    });
    this.serviceRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'DaxTableAccess',
        actions: DAX_TABLE_ACTIONS,
        resources: [
          stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: `${TABLE_PREFIX}*` }),
        ],
      }),
    );

    const env: Record<string, string> = {
      DAX_VPC_ID: fleet.vpc.vpcId,
      DAX_SUBNET_IDS: fleet.subnetIds.join(','),
      DAX_LOADER_SECURITY_GROUP_ID: fleet.securityGroup.securityGroupId,
      DAX_ROLE_ARN: this.serviceRole.roleArn,
    };
    for (const fn of [...Object.values(f), ...(props.plan ? [props.plan] : [])])
      for (const [k, v] of Object.entries(env)) fn.addEnvironment(k, v);
    if (props.plan) grantDaxResumeCheck(props.plan);

    const runClusters = runDaxClusters(stack);
    grantDaxProvision(f, { fleet, serviceRole: this.serviceRole });
    grantDaxLifecycle(f);

    // the loaders reach the tables through the run's cluster
    fleet.role.addToPolicy(
      new iam.PolicyStatement({ sid: 'DaxDataPlane', actions: DAX_LOADER_ACTIONS, resources: [runClusters] }),
    );
  }
}

/** The ARN pattern of the runs' DAX clusters (`fb-<8 hex>`). */
const runDaxClusters = (stack: Stack) =>
  stack.formatArn({ service: 'dax', resource: 'cache', resourceName: `${DAX_NAME_PREFIX}*` });
const runTagged = { Null: { [`aws:ResourceTag/${TAG_RUN_ID}`]: 'false' } };

/** ProvisionTarget: the cluster (tagged at creation), its groups, and its security group in the loaders' VPC. */
function grantDaxProvision(
  f: TargetFunctions,
  { fleet, serviceRole }: { fleet: LoaderFleet; serviceRole: iam.IRole },
): void {
  const stack = Stack.of(f.provisionTarget);
  const ec2 = (resource: string, name: string) =>
    stack.formatArn({ service: 'ec2', resource, resourceName: name });
  const add = grant;
  const runClusters = runDaxClusters(stack);
  // ProvisionTarget: the cluster (tagged at creation), its groups, and its security group in the loaders' VPC
  add(f.provisionTarget, 'CreateDaxCluster', ['dax:CreateCluster', 'dax:TagResource'], [runClusters]);
  add(
    f.provisionTarget,
    'CreateDaxGroups',
    ['dax:CreateSubnetGroup', 'dax:CreateParameterGroup', 'dax:UpdateParameterGroup'],
    ['*'],
  );
  add(f.provisionTarget, 'PassDaxServiceRole', ['iam:PassRole'], [serviceRole.roleArn], {
    StringEquals: { 'iam:PassedToService': 'dax.amazonaws.com' },
  });
  add(f.provisionTarget, 'GetDaxServiceRole', ['iam:GetRole'], [serviceRole.roleArn]);
  // the first cluster of an account creates DAX's service-linked role
  add(
    f.provisionTarget,
    'DaxServiceLinkedRole',
    ['iam:CreateServiceLinkedRole'],
    [
      `arn:${stack.partition}:iam::${stack.account}:role/aws-service-role/dax.amazonaws.com/AWSServiceRoleForDAX`,
    ],
    { StringEquals: { 'iam:AWSServiceName': 'dax.amazonaws.com' } },
  );
  add(
    f.provisionTarget,
    'CreateDaxSecurityGroupInVpc',
    ['ec2:CreateSecurityGroup'],
    [ec2('vpc', fleet.vpc.vpcId)],
  );
  add(
    f.provisionTarget,
    'CreateRunTaggedSecurityGroup',
    ['ec2:CreateSecurityGroup'],
    [ec2('security-group', '*')],
    { Null: { [`aws:RequestTag/${TAG_RUN_ID}`]: 'false' } },
  );
  add(f.provisionTarget, 'TagSecurityGroupOnCreate', ['ec2:CreateTags'], [ec2('security-group', '*')], {
    StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup' },
  });
  add(
    f.provisionTarget,
    'DaxSecurityGroupRules',
    ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress'],
    [ec2('security-group', '*')],
    runTagged,
  );
  // CreateCluster's dependent actions (Service Authorization Reference): the network checks, and the cluster's
  // network interfaces, which DAX places in the subnet group's subnets (the loaders'), so only in their VPC
  add(
    f.provisionTarget,
    'DescribeDaxNetwork',
    ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'ec2:DescribeNetworkInterfaces'],
    ['*'],
  );
  const inLoaderVpc = { StringEquals: { 'ec2:Vpc': ec2('vpc', fleet.vpc.vpcId) } };
  add(
    f.provisionTarget,
    'CreateDaxNetworkInterfaces',
    ['ec2:CreateNetworkInterface'],
    [ec2('network-interface', '*')],
  );
  add(
    f.provisionTarget,
    'DaxNetworkInterfacesInLoaderVpc',
    ['ec2:CreateNetworkInterface'],
    [...fleet.subnetIds.map((id) => ec2('subnet', id)), ec2('security-group', '*')],
    inLoaderVpc,
  );
  add(
    f.provisionTarget,
    'DeleteDaxNetworkInterfaces',
    ['ec2:DeleteNetworkInterface'],
    [ec2('network-interface', '*')],
    inLoaderVpc,
  );
}

/** Reading, listing and deleting the runs' clusters: the steps that watch them, ProvisionTarget's rollback, Teardown, the abort rule, the janitor. */
function grantDaxLifecycle(f: TargetFunctions): void {
  const stack = Stack.of(f.provisionTarget);
  const ec2 = (resource: string, name: string) =>
    stack.formatArn({ service: 'ec2', resource, resourceName: name });
  const add = grant;
  const runClusters = runDaxClusters(stack);
  // every step that reads a cluster's state: DescribeClusters by name
  for (const fn of [f.waitReady, f.startLoad, f.startCell]) {
    add(fn, 'DescribeRunDaxClusters', ['dax:DescribeClusters'], [runClusters]);
  }
  // listing the account's clusters (DescribeClusters without names: no cluster in the request, so "*", which
  // covers however IAM names the request's resource) to find a run's by tag; ListTags per cluster
  for (const fn of [f.provisionTarget, f.teardown, f.onAbort, f.janitor]) {
    add(fn, 'ListDaxClusters', ['dax:DescribeClusters'], ['*']);
    add(fn, 'ReadDaxClusterTags', ['dax:ListTags'], [runClusters]);
    add(fn, 'DescribeDaxSecurityGroups', ['ec2:DescribeSecurityGroups'], ['*']);
  }
  // ProvisionTarget's rollback of a failed creation, Teardown, the abort rule and the janitor
  for (const fn of [f.provisionTarget, f.teardown, f.onAbort, f.janitor]) {
    add(fn, 'DeleteDaxCluster', ['dax:DeleteCluster'], [runClusters]);
    add(fn, 'DeleteDaxGroups', ['dax:DeleteSubnetGroup', 'dax:DeleteParameterGroup'], ['*']);
    add(fn, 'DeleteRunSecurityGroup', ['ec2:DeleteSecurityGroup'], [ec2('security-group', '*')], runTagged);
  }
}

/**
 * Plan, resuming a run (lib/core/targets/dynamodb/dax-resume.ts): each of the run's clusters described by name, and the
 * groups of one that is gone deleted as Teardown deletes them (the security group only with a run tag). No cluster is
 * created or deleted.
 */
function grantDaxResumeCheck(fn: lambda.Function): void {
  const stack = Stack.of(fn);
  grant(fn, 'DescribeRunDaxClusters', ['dax:DescribeClusters'], [runDaxClusters(stack)]);
  grant(fn, 'DescribeDaxSecurityGroups', ['ec2:DescribeSecurityGroups'], ['*']);
  grant(fn, 'DeleteDaxGroups', ['dax:DeleteSubnetGroup', 'dax:DeleteParameterGroup'], ['*']);
  grant(
    fn,
    'DeleteRunSecurityGroup',
    ['ec2:DeleteSecurityGroup'],
    [stack.formatArn({ service: 'ec2', resource: 'security-group', resourceName: '*' })],
    runTagged,
  );
}
