/**
 * What Amazon MemoryDB targets need in the account: the step functions' permissions to create, watch and delete
 * the per-run clusters with their ACL, user, subnet group and security group (all named `fleetbench-<12 hex>`:
 * lib/core/targets/memorydb/names.ts), and the environment the MemoryDB port is built from
 * (lambdas/shared/env.ts). The loaders need nothing more: they reach the cluster on 6379 through the run's
 * security group and read the run's login secret under `fleetbench/` (LoaderFleet); the login secrets' own
 * permissions are DbNodes' (the same `fleetbench/*` secrets). docs/memorydb.md gives the sources of every grant.
 */
import { Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TAG_RUN_ID } from '../core/ports';
import { MEMORYDB_NAME_PREFIX } from '../core/targets/memorydb/names';
import type { LoaderFleet } from './loader-fleet';

export interface MemoryDbAccessProps {
  readonly fleet: LoaderFleet;
  readonly functions: TargetFunctions;
}

export class MemoryDbAccess extends Construct {
  constructor(scope: Construct, id: string, props: MemoryDbAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet, functions: f } = props;
    const arn = (resource: string, name: string) =>
      stack.formatArn({ service: 'memorydb', resource, resourceName: name });
    const ec2 = (resource: string, name: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName: name });
    const run = `${MEMORYDB_NAME_PREFIX}*`;
    const [clusters, acls, users, subnetGroups] = ['cluster', 'acl', 'user', 'subnetgroup'].map((r) =>
      arn(r, run),
    );
    const runTagged = { Null: { [`aws:ResourceTag/${TAG_RUN_ID}`]: 'false' } };

    const env: Record<string, string> = {
      MEMORYDB_VPC_ID: fleet.vpc.vpcId,
      MEMORYDB_SUBNET_IDS: fleet.subnetIds.join(','),
      MEMORYDB_LOADER_SECURITY_GROUP_ID: fleet.securityGroup.securityGroupId,
    };
    for (const fn of Object.values(f)) for (const [k, v] of Object.entries(env)) fn.addEnvironment(k, v);

    // ProvisionTarget: the pieces, each tagged at creation, then the cluster over them; the cluster takes the
    // engine's default parameter group (AWS's name, `default.memorydb-valkey7` and the like)
    grant(
      f.provisionTarget,
      'CreateMemoryDbPieces',
      ['memorydb:CreateSubnetGroup', 'memorydb:CreateUser', 'memorydb:CreateAcl', 'memorydb:TagResource'],
      [subnetGroups, users, acls],
    );
    grant(
      f.provisionTarget,
      'CreateMemoryDbCluster',
      ['memorydb:CreateCluster', 'memorydb:TagResource'],
      [clusters, acls, subnetGroups, arn('parametergroup', 'default.*')],
    );
    // the first cluster of an account creates MemoryDB's service-linked role (it manages the nodes' interfaces)
    grant(
      f.provisionTarget,
      'MemoryDbServiceLinkedRole',
      ['iam:CreateServiceLinkedRole'],
      [
        `arn:${stack.partition}:iam::${stack.account}:role/aws-service-role/memorydb.amazonaws.com/AWSServiceRoleForMemoryDB`,
      ],
      { StringEquals: { 'iam:AWSServiceName': 'memorydb.amazonaws.com' } },
    );
    grant(
      f.provisionTarget,
      'DescribeMemoryDbNetwork',
      ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'ec2:DescribeSecurityGroups'],
      ['*'],
    );
    // the security group: created in the loaders' VPC only, with the run tag, its rules only on run-tagged groups
    grant(
      f.provisionTarget,
      'CreateMemoryDbSecurityGroupInVpc',
      ['ec2:CreateSecurityGroup'],
      [ec2('vpc', fleet.vpc.vpcId)],
    );
    grant(
      f.provisionTarget,
      'CreateRunTaggedMemoryDbSecurityGroup',
      ['ec2:CreateSecurityGroup'],
      [ec2('security-group', '*')],
      {
        Null: { [`aws:RequestTag/${TAG_RUN_ID}`]: 'false' },
      },
    );
    grant(
      f.provisionTarget,
      'TagMemoryDbSecurityGroupOnCreate',
      ['ec2:CreateTags'],
      [ec2('security-group', '*')],
      {
        StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup' },
      },
    );
    grant(
      f.provisionTarget,
      'MemoryDbSecurityGroupRules',
      ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress'],
      [ec2('security-group', '*')],
      runTagged,
    );

    // every step that reads a cluster's state by name
    for (const fn of [f.provisionTarget, f.waitReady, f.startLoad, f.startCell])
      grant(
        fn,
        'DescribeRunMemoryDbClusters',
        ['memorydb:DescribeClusters', 'memorydb:ListTags'],
        [clusters],
      );
    // listing the account's clusters (DescribeClusters without a name is on "*") to find a run's by tag
    for (const fn of [f.teardown, f.onAbort, f.janitor]) {
      grant(fn, 'ListMemoryDbClusters', ['memorydb:DescribeClusters'], ['*']);
      grant(fn, 'ReadMemoryDbClusterTags', ['memorydb:ListTags'], [clusters]);
      grant(fn, 'DescribeMemoryDbSecurityGroups', ['ec2:DescribeSecurityGroups'], ['*']);
    }
    // ProvisionTarget's rollback of a failed creation, Teardown, the abort rule and the janitor
    for (const fn of [f.provisionTarget, f.teardown, f.onAbort, f.janitor]) {
      grant(
        fn,
        'DeleteMemoryDbPieces',
        ['memorydb:DeleteCluster', 'memorydb:DeleteAcl', 'memorydb:DeleteUser', 'memorydb:DeleteSubnetGroup'],
        [clusters, acls, users, subnetGroups],
      );
      grant(
        fn,
        'DeleteRunMemoryDbSecurityGroup',
        ['ec2:DeleteSecurityGroup'],
        [ec2('security-group', '*')],
        runTagged,
      );
    }
  }
}
