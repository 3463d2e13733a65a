/**
 * What DAX clusters (dynamodb targets with `dax`) need in the account: the DAX service role (assumed by
 * dax.amazonaws.com, the table actions DAX forwards on fleetbench-* tables), the step functions' permissions to
 * create, watch and delete the per-run clusters and their groups (cluster names `fb-<8 hex>`: lib/core/dax.ts),
 * the loaders' data-plane actions on those clusters, and the environment the DAX port is built from
 * (lambdas/shared/env.ts). The per-run security group (the loaders only, 8111/9111) is created by the run
 * (lib/aws/dax-admin.ts); the loaders' own group allows all outbound already.
 *
 * Sources, checked 2026-11-23:
 * - Service Authorization Reference for DAX
 *   (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodbacceleratordax.html and its
 *   operations table, https://docs.aws.amazon.com/service-authorization/latest/reference/list_dax.html): cluster
 *   actions (CreateCluster, DeleteCluster, ListTags, TagResource) require the `application` resource
 *   `arn:${Partition}:dax:${Region}:${Account}:cache/${ClusterName}`; DescribeClusters takes it optionally (without
 *   names it is authorized on "*"); the subnet and parameter group actions have no resource type (Resource "*").
 *   The CreateCluster operation authorizes dax:CreateCluster, dax:TagResource (tags in the request) and iam:PassRole
 *   with iam:PassedToService = dax.amazonaws.com; its dependent actions are dax:CreateParameterGroup,
 *   dax:CreateSubnetGroup, ec2:CreateNetworkInterface, ec2:DeleteNetworkInterface, ec2:DescribeNetworkInterfaces,
 *   ec2:DescribeSecurityGroups, ec2:DescribeSubnets, ec2:DescribeVpcs, iam:GetRole and iam:PassRole: all granted to
 *   ProvisionTarget below, the two network-interface actions only in the loaders' VPC.
 * - Using service-linked roles for DAX
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/using-service-linked-roles.html): DAX creates
 *   AWSServiceRoleForDAX on an account's first cluster, so the caller needs iam:CreateServiceLinkedRole for
 *   iam:AWSServiceName dax.amazonaws.com (the page's statement has Resource "*"; the grant here names the role's
 *   own path); that role then manages the cluster's network interfaces and its own security-group rules.
 * - Managing DAX clusters
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DAX.cluster-management.html) says the
 *   management APIs cannot be scoped to a cluster and need Resource "*"; its example is DescribeClusters without
 *   names (which is on "*" here) and its management statement does not name CreateCluster. The grants follow the
 *   Service Authorization Reference, which documents the cluster resource as required for the cluster actions; if
 *   an account answers AccessDenied on cache/fb-*, docs/dax-keyspaces.md says what to widen.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TABLE_PREFIX, TAG_RUN_ID } from '../core/ports';
import { DAX_NAME_PREFIX } from '../core/dax';
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

/** What the loaders' binding sends through the DAX client (read, update, insert, delete, scan, batched inserts). */
export const DAX_LOADER_ACTIONS = [
  'dax:GetItem',
  'dax:PutItem',
  'dax:UpdateItem',
  'dax:DeleteItem',
  'dax:Scan',
  'dax:BatchWriteItem',
];

export interface DaxAccessProps {
  readonly fleet: LoaderFleet;
  readonly functions: TargetFunctions;
}

export class DaxAccess extends Construct {
  /** The role DAX assumes to reach the run's table. */
  readonly serviceRole: iam.Role;

  constructor(scope: Construct, id: string, props: DaxAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet, functions: f } = props;
    const cache = (name: string) =>
      stack.formatArn({ service: 'dax', resource: 'cache', resourceName: name });
    const ec2 = (resource: string, name: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName: name });
    const runTagged = { Null: { [`aws:ResourceTag/${TAG_RUN_ID}`]: 'false' } };

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
    for (const fn of Object.values(f)) for (const [k, v] of Object.entries(env)) fn.addEnvironment(k, v);

    const add = grant;
    const runClusters = cache(`${DAX_NAME_PREFIX}*`);

    // ProvisionTarget: the cluster (tagged at creation), its groups, and its security group in the loaders' VPC
    add(f.provisionTarget, 'CreateDaxCluster', ['dax:CreateCluster', 'dax:TagResource'], [runClusters]);
    add(
      f.provisionTarget,
      'CreateDaxGroups',
      ['dax:CreateSubnetGroup', 'dax:CreateParameterGroup', 'dax:UpdateParameterGroup'],
      ['*'],
    );
    add(f.provisionTarget, 'PassDaxServiceRole', ['iam:PassRole'], [this.serviceRole.roleArn], {
      StringEquals: { 'iam:PassedToService': 'dax.amazonaws.com' },
    });
    add(f.provisionTarget, 'GetDaxServiceRole', ['iam:GetRole'], [this.serviceRole.roleArn]);
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

    // the loaders reach the tables through the run's cluster
    fleet.role.addToPolicy(
      new iam.PolicyStatement({ sid: 'DaxDataPlane', actions: DAX_LOADER_ACTIONS, resources: [runClusters] }),
    );
  }
}
