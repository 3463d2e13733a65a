/**
 * What Amazon MemoryDB targets need in the account: the step functions' permissions to create, watch and delete
 * the per-run clusters with their ACL, user, subnet group and security group (all named `fleetbench-<12 hex>`:
 * lib/core/targets/memorydb/names.ts), and the environment the MemoryDB port is built from
 * (lambdas/shared/env.ts). The loaders need nothing more: they reach the cluster on 6379 through the run's
 * security group and read the run's login secret under `fleetbench/` (LoaderFleet); the login secrets' own
 * permissions are DbNodes' (the same `fleetbench/*` secrets), but for ProvisionTarget reading a MemoryDB login back
 * on a retry (grantRetryReads). docs/memorydb.md gives the sources of every grant.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { TAG_RUN_ID } from '../core/common/ports';
import { MEMORYDB_NAME_PREFIX, MEMORYDB_SECRET_SUFFIX } from '../core/targets/memorydb/names';
import type { LoaderFleet } from './loader-fleet';
import { acknowledgeNagFindings, type NagAcknowledgement } from './nag-acknowledgements';

export interface MemoryDbAccessProps {
  readonly fleet: LoaderFleet;
  readonly functions: TargetFunctions;
  /**
   * The Plan step's function: a resume checks that the run's clusters are gone and deletes the pieces its teardown
   * left pending (lib/core/targets/memorydb/resume.ts).
   */
  readonly plan?: lambda.Function;
}

const runTagged = { Null: { [`aws:ResourceTag/${TAG_RUN_ID}`]: 'false' } };

/** The clusters' security groups, deleted only when they carry a run tag (teardown, rollback, a resume's check). */
function grantDeleteRunSecurityGroup(fn: lambda.Function, ec2: (type: string, id: string) => string): void {
  grant(
    fn,
    'DeleteRunMemoryDbSecurityGroup',
    ['ec2:DeleteSecurityGroup'],
    [ec2('security-group', '*')],
    runTagged,
  );
}

/** ARNs of the run's MemoryDB resources and of EC2 resources, in the stack's account and region. */
function arns(stack: Stack) {
  const arn = (resource: string, name: string) =>
    stack.formatArn({ service: 'memorydb', resource, resourceName: name });
  const run = `${MEMORYDB_NAME_PREFIX}*`;
  return {
    clusters: arn('cluster', run),
    acls: arn('acl', run),
    users: arn('user', run),
    subnetGroups: arn('subnetgroup', run),
    defaultParameterGroups: arn('parametergroup', 'default.*'),
    ec2: (resource: string, name: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName: name }),
  };
}

/** The cdk-nag findings MemoryDB's grants raise, and why they are accepted (the stack's check reads them). */
export const MEMORYDB_NAG_ACKNOWLEDGEMENTS: readonly NagAcknowledgement[] = [
  {
    pattern: /^AwsSolutions-IAM5\[Resource::\*\]$/,
    reason:
      'MemoryDB: memorydb:DescribeClusters without a cluster name (teardown and the janitor list the clusters to find those of a run by tag), memorydb:CreateUser and memorydb:CreateSubnetGroup (no resource type in the Service Authorization Reference; allowed only with the fleetbench:run-id request tag) and the EC2 Describe calls the creation of a MemoryDB cluster reads (subnets, VPCs, security groups).',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:memorydb:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):(cluster|acl|user|subnetgroup)\/fleetbench-\*\]$/,
    reason:
      'MemoryDB clusters, ACLs, users and subnet groups are created per run and named fleetbench-<12 hex> (lib/core/targets/memorydb/names.ts): the grants are limited to that prefix.',
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:secretsmanager:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):secret:fleetbench\/\*-memorydb-\?\?\?\?\?\?\]$/,
    reason:
      "ProvisionTarget reads a MemoryDB login back on its retry (the first attempt stored it, then died before the cluster): the login secrets are named fleetbench/<run>/<target>-memorydb at run time (and Secrets Manager's six-character suffix), and GetSecretValue is allowed only on such a secret carrying a fleetbench:run-id tag; the code reads it only once that tag is its run's.",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:memorydb:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):parametergroup\/default\.\*\]$/,
    reason:
      "CreateCluster names the engine's default parameter group (AWS's own, default.memorydb-<engine><major>), read only; no parameter group is created or changed.",
  },
  {
    pattern:
      /^AwsSolutions-IAM5\[Resource::arn:<AWS::Partition>:ec2:[a-z0-9-]+:(?:<AWS::AccountId>|\d{12}):security-group\/\*\]$/,
    reason:
      "A run's MemoryDB security group does not exist before the run creates it: creating requires the fleetbench:run-id request tag, tagging only at creation, rule changes and deletion only on groups carrying the run tag.",
  },
];

export class MemoryDbAccess extends Construct {
  /** Its id in the stack (./kind-access.ts). */
  static readonly constructId = 'MemoryDb';

  constructor(scope: Construct, id: string, props: MemoryDbAccessProps) {
    super(scope, id);
    acknowledgeNagFindings(this, MEMORYDB_NAG_ACKNOWLEDGEMENTS);
    const { fleet, functions: f } = props;
    const env: Record<string, string> = {
      MEMORYDB_VPC_ID: fleet.vpc.vpcId,
      MEMORYDB_SUBNET_IDS: fleet.subnetIds.join(','),
      MEMORYDB_LOADER_SECURITY_GROUP_ID: fleet.securityGroup.securityGroupId,
    };
    for (const fn of [...Object.values(f), ...(props.plan ? [props.plan] : [])])
      for (const [k, v] of Object.entries(env)) fn.addEnvironment(k, v);
    const a = arns(Stack.of(this));
    this.grantCreation(f.provisionTarget, a, fleet);
    this.grantReadAndRemoval(f, a);
    if (props.plan) this.grantResumeCheck(props.plan, a);
  }

  /**
   * Plan, resuming a run (lib/core/targets/memorydb/resume.ts): each of the run's clusters described by name, the run's
   * security groups listed, and the pieces of a cluster that is gone deleted as Teardown deletes them (only those
   * carrying a run tag). No cluster is created or deleted.
   */
  private grantResumeCheck(fn: lambda.Function, a: ReturnType<typeof arns>): void {
    const { clusters, acls, users, subnetGroups, ec2 } = a;
    grant(fn, 'DescribeRunMemoryDbClusters', ['memorydb:DescribeClusters'], [clusters]);
    grant(fn, 'DescribeMemoryDbSecurityGroups', ['ec2:DescribeSecurityGroups'], ['*']);
    grant(
      fn,
      'DeleteMemoryDbPiecesOfGoneCluster',
      ['memorydb:DeleteAcl', 'memorydb:DeleteUser', 'memorydb:DeleteSubnetGroup'],
      [acls, users, subnetGroups],
      runTagged,
    );
    grantDeleteRunSecurityGroup(fn, ec2);
  }

  /** ProvisionTarget: the pieces, the cluster over them, and the security group in the loaders' VPC. */
  private grantCreation(
    fn: TargetFunctions['provisionTarget'],
    a: ReturnType<typeof arns>,
    fleet: LoaderFleet,
  ): void {
    const { clusters, acls, users, subnetGroups, ec2 } = a;
    // the pieces, then the cluster over them, each only with the run tag in the request and tagged at creation.
    // CreateUser and CreateSubnetGroup have no resource type, CreateAcl is on the users it names, CreateCluster on
    // the ACL, subnet group and parameter group it names (the engine's default group, AWS's name) and only with
    // TLS on; TagResource on the new resources
    const withRunTag = { Null: { [`aws:RequestTag/${TAG_RUN_ID}`]: 'false' } };
    grant(
      fn,
      'CreateMemoryDbUsersAndSubnetGroups',
      ['memorydb:CreateUser', 'memorydb:CreateSubnetGroup'],
      ['*'],
      withRunTag,
    );
    grant(fn, 'CreateMemoryDbAcl', ['memorydb:CreateAcl'], [users], withRunTag);
    grant(
      fn,
      'CreateMemoryDbCluster',
      ['memorydb:CreateCluster'],
      [acls, subnetGroups, a.defaultParameterGroups],
      {
        ...withRunTag,
        Bool: { 'memorydb:TLSEnabled': 'true' },
      },
    );
    grant(
      fn,
      'TagMemoryDbOnCreate',
      ['memorydb:TagResource'],
      [clusters, acls, users, subnetGroups],
      withRunTag,
    );
    // the first cluster of an account creates MemoryDB's service-linked role (it manages the nodes' interfaces)
    grant(
      fn,
      'MemoryDbServiceLinkedRole',
      ['iam:CreateServiceLinkedRole'],
      [
        `arn:${Stack.of(this).partition}:iam::${Stack.of(this).account}:role/aws-service-role/memorydb.amazonaws.com/AWSServiceRoleForMemoryDB`,
      ],
      { StringEquals: { 'iam:AWSServiceName': 'memorydb.amazonaws.com' } },
    );
    this.grantRetryReads(fn, a);
    grant(
      fn,
      'DescribeMemoryDbNetwork',
      ['ec2:DescribeSubnets', 'ec2:DescribeVpcs', 'ec2:DescribeSecurityGroups'],
      ['*'],
    );
    // the security group: created in the loaders' VPC only, with the run tag, its rules only on run-tagged groups
    grant(fn, 'CreateMemoryDbSecurityGroupInVpc', ['ec2:CreateSecurityGroup'], [ec2('vpc', fleet.vpc.vpcId)]);
    grant(
      fn,
      'CreateRunTaggedMemoryDbSecurityGroup',
      ['ec2:CreateSecurityGroup'],
      [ec2('security-group', '*')],
      {
        Null: { [`aws:RequestTag/${TAG_RUN_ID}`]: 'false' },
      },
    );
    grant(fn, 'TagMemoryDbSecurityGroupOnCreate', ['ec2:CreateTags'], [ec2('security-group', '*')], {
      StringEquals: { 'ec2:CreateAction': 'CreateSecurityGroup' },
    });
    grant(
      fn,
      'MemoryDbSecurityGroupRules',
      ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress'],
      [ec2('security-group', '*')],
      runTagged,
    );
  }

  /**
   * ProvisionTarget's retry after a first attempt that died part-way (lib/core/targets/memorydb/lifecycle.ts): the
   * pieces it left are adopted only when they carry the run's tag, read with ListTags on the ARN their Describe
   * gives (the Service Authorization Reference: DescribeUsers on user, DescribeSubnetGroups on subnetgroup,
   * DescribeAcls on acl, ListTags on each: https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonmemorydb.html);
   * the run's login is read back from its secret: GetSecretValue on MemoryDB login secrets only
   * (`fleetbench/<run>/<target>-memorydb` and the six characters Secrets Manager appends:
   * https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html, ARN)
   * and only on a secret that carries a run tag (aws:ResourceTag, which GetSecretValue supports:
   * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html); the code
   * checks that the tag is its run's before reading.
   */
  private grantRetryReads(fn: TargetFunctions['provisionTarget'], a: ReturnType<typeof arns>): void {
    grant(
      fn,
      'ReadRunMemoryDbPieces',
      [
        'memorydb:DescribeUsers',
        'memorydb:DescribeSubnetGroups',
        'memorydb:DescribeAcls',
        'memorydb:ListTags',
      ],
      [a.users, a.subnetGroups, a.acls],
    );
    grant(
      fn,
      'ReadRunMemoryDbLogin',
      ['secretsmanager:GetSecretValue'],
      [
        Stack.of(this).formatArn({
          service: 'secretsmanager',
          resource: 'secret',
          resourceName: `fleetbench/*${MEMORYDB_SECRET_SUFFIX}-??????`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      runTagged,
    );
  }

  /** Every step that reads a cluster; Teardown, OnAbort, the janitor (and ProvisionTarget's rollback) delete. */
  private grantReadAndRemoval(f: TargetFunctions, a: ReturnType<typeof arns>): void {
    const { clusters, acls, users, subnetGroups, ec2 } = a;
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
    // ProvisionTarget's rollback of a failed creation, Teardown, the abort rule and the janitor: only pieces that
    // carry a run tag (each is created with it, see grantCreation); the Service Authorization Reference lists
    // aws:ResourceTag/<key> for the four delete actions and the cluster, acl, user and subnetgroup resources
    // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonmemorydb.html)
    for (const fn of [f.provisionTarget, f.teardown, f.onAbort, f.janitor]) {
      grant(
        fn,
        'DeleteMemoryDbPieces',
        ['memorydb:DeleteCluster', 'memorydb:DeleteAcl', 'memorydb:DeleteUser', 'memorydb:DeleteSubnetGroup'],
        [clusters, acls, users, subnetGroups],
        runTagged,
      );
      grantDeleteRunSecurityGroup(fn, ec2);
    }
  }
}
