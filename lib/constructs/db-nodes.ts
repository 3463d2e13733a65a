/**
 * What the database-node targets (scylla-ec2 and cassandra-ec2) need in the account, one construct for
 * both: the nodes' security group (the loaders only, on the Alternator and CQL ports; node-to-node
 * traffic within the group; out, HTTPS to S3 for the Cassandra bootstrap's downloads), the node launch template (IMDSv2 required, encrypted gp3 volumes, no SSH
 * key; the AMI, volumes and user data come per launch), and the step functions' permissions to launch,
 * probe and terminate only nodes tagged with a node role (`scylla-node`, `cassandra-node`).
 * ScyllaDB nodes have no instance profile (they call no AWS API). Cassandra nodes run Amazon Linux 2023
 * and get a profile that may read the Apache Cassandra asset (loader/cassandra-node) and nothing else.
 */
import { existsSync } from 'node:fs';
import { Annotations, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import type * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { grant, type TargetFunctions } from './grants';
import { DB_NODE_ROLES, NODE_CLIENT_PORTS } from '../core/targets/nodes/cluster';
import { TAG_ROLE, TAG_RUN_ID } from '../core/common/ports';
import { SCYLLA_ROOT_VOLUME_GB } from '../core/spec';
import type { LoaderFleet } from './loader-fleet';
import { cassandraAssetPath } from '../build/cassandra-asset';

export { NODE_CLIENT_PORTS };
/** Inter-node ports within the nodes' group: RPC (7000) and its TLS variant (7001). */
export const NODE_INTERNODE_PORTS = [7000, 7001] as const;

/** The name of S3's AWS-managed prefix list in a region (what the nodes' HTTPS egress names). */
export const s3PrefixListName = (region: string) => `com.amazonaws.${region}.s3`;

/**
 * S3's prefix list (looked up by name: `cdk synth` asks the account once and caches the id in
 * cdk.context.json). An environment-agnostic stack cannot look it up: HTTPS to any IPv4 address instead.
 */
function s3Peer(scope: Construct): ec2.IPeer {
  const { region, account } = Stack.of(scope);
  if (Token.isUnresolved(region) || Token.isUnresolved(account)) {
    // info, not a warning: without an account (no credentials) the template is for reading, not deploying;
    // `cdk deploy` passes the account and region (bin/app.ts), so a deployed stack always gets the lookup
    Annotations.of(scope).addInfo(
      'environment-agnostic stack: database nodes may reach any IPv4 address on 443 (with an account and region, only S3)',
    );
    return ec2.Peer.anyIpv4();
  }
  return ec2.PrefixList.fromLookup(scope, 'S3PrefixList', { prefixListName: s3PrefixListName(region) });
}

export interface DbNodesProps {
  readonly fleet: LoaderFleet;
  /** The pipeline's step functions that handle nodes (BenchmarkFunctions in the stack). */
  readonly functions: TargetFunctions;
  /** Root volume of a node in GB (data go to the i4i instance store); a spec's `ebsGb` overrides it per run. @default SCYLLA_ROOT_VOLUME_GB (50) */
  readonly rootVolumeGb?: number;
  /**
   * The Apache Cassandra archive cassandra-ec2 nodes install (`npm run build:cassandra`). Without it a
   * deployed stack launches no Cassandra nodes (a synth without bundling stands in a placeholder file).
   * @default loader/cassandra-node/target/fleetbench-cassandra-<version>.tar.gz when built
   */
  readonly cassandraAssetPath?: string;
}

export class DbNodes extends Construct {
  readonly securityGroup: ec2.SecurityGroup;
  readonly launchTemplate: ec2.LaunchTemplate;
  /** The Cassandra nodes' role (reads the Cassandra asset only), when the stack ships the asset. */
  readonly cassandraRole?: iam.Role;
  readonly cassandraAsset?: s3assets.Asset;

  constructor(scope: Construct, id: string, props: DbNodesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet, functions: f } = props;

    this.securityGroup = nodeSecurityGroup(this, fleet);
    this.launchTemplate = nodeLaunchTemplate(
      this,
      this.securityGroup,
      props.rootVolumeGb ?? SCYLLA_ROOT_VOLUME_GB,
    );

    const env = {
      NODE_LAUNCH_TEMPLATE_ID: this.launchTemplate.launchTemplateId!,
      NODE_SUBNET_IDS: fleet.subnetIds.join(','),
    };
    for (const fn of Object.values(f)) for (const [k, v] of Object.entries(env)) fn.addEnvironment(k, v);
    f.waitReady.addEnvironment('PROBE_DOCUMENT', fleet.probeDocument.ref);

    grantNodeLifecycle(f, {
      launchTemplate: this.launchTemplate,
      securityGroup: this.securityGroup,
      probeDocument: fleet.probeDocument,
    });
    grantRunLogins(stack, f);

    const cassandra = cassandraNodes(this, f, props.cassandraAssetPath);
    if (cassandra) {
      this.cassandraRole = cassandra.role;
      this.cassandraAsset = cassandra.asset;
    }
  }
}

/** The nodes' security group: client ports from the loaders only, inter-node within the group, HTTPS to S3 out. */
function nodeSecurityGroup(scope: Construct, fleet: LoaderFleet): ec2.SecurityGroup {
  const sg = new ec2.SecurityGroup(scope, 'NodeSg', {
    vpc: fleet.vpc,
    description: 'fleetbench database nodes: client ports from the loaders only, inter-node within the group',
    allowAllOutbound: false,
  });
  const loaders = ec2.Peer.securityGroupId(fleet.securityGroup.securityGroupId);
  for (const [name, port] of Object.entries(NODE_CLIENT_PORTS)) {
    sg.addIngressRule(loaders, ec2.Port.tcp(port), `loaders to ${name}`);
  }
  for (const port of NODE_INTERNODE_PORTS) {
    sg.addIngressRule(sg, ec2.Port.tcp(port), 'inter-node');
    sg.addEgressRule(sg, ec2.Port.tcp(port), 'inter-node');
  }
  // the bootstrap script's downloads: `dnf install` (the Amazon Linux 2023 repositories are S3 buckets in
  // the region) and `aws s3 cp` of the Cassandra archive, both HTTPS to S3 (the gateway endpoint of the
  // stack's VPC, or S3's public addresses through an existing VPC's NAT: both are in S3's prefix list).
  // Security groups do not filter DNS or the instance metadata service, so nothing else is needed.
  // https://docs.aws.amazon.com/vpc/latest/privatelink/gateway-endpoints.html (security groups: the prefix list)
  // https://docs.aws.amazon.com/linux/al2023/ug/managing-repos-os-updates.html (repositories in S3)
  // https://docs.aws.amazon.com/vpc/latest/userguide/vpc-security-groups.html (what groups do not filter)
  sg.addEgressRule(s3Peer(scope), ec2.Port.tcp(443), 'bootstrap downloads from S3 (HTTPS)');
  // the loaders' group allows all outbound already; nothing to add there
  return sg;
}

/** The node launch template: IMDSv2 required, encrypted gp3 root volume, no SSH key (AMI, volumes and user data come per launch). */
function nodeLaunchTemplate(
  scope: Construct,
  securityGroup: ec2.ISecurityGroup,
  rootVolumeGb: number,
): ec2.LaunchTemplate {
  return new ec2.LaunchTemplate(scope, 'NodeLaunchTemplate', {
    securityGroup,
    requireImdsv2: true,
    httpPutResponseHopLimit: 1,
    detailedMonitoring: false,
    blockDevices: [
      {
        // ScyllaDB's images are Ubuntu-based: the root device is /dev/sda1
        deviceName: '/dev/sda1',
        volume: ec2.BlockDeviceVolume.ebs(rootVolumeGb, {
          encrypted: true,
          volumeType: ec2.EbsDeviceVolumeType.GP3,
          deleteOnTermination: true,
        }),
      },
    ],
    instanceInitiatedShutdownBehavior: ec2.InstanceInitiatedShutdownBehavior.TERMINATE,
  });
}

/** The step functions' rights over nodes: launch from the node template only, describe, probe from loaders, terminate nodes only. */
function grantNodeLifecycle(
  f: TargetFunctions,
  nodes: {
    launchTemplate: ec2.LaunchTemplate;
    securityGroup: ec2.ISecurityGroup;
    probeDocument: ssm.CfnDocument;
  },
): void {
  const stack = Stack.of(nodes.securityGroup);
  const add = grant;
  const arn = (resource: string, name: string) =>
    stack.formatArn({ service: 'ec2', resource, resourceName: name });
  const nodeTagged = { StringEquals: { [`aws:ResourceTag/${TAG_ROLE}`]: DB_NODE_ROLES } };

  // ProvisionTarget: launch from the node template only, into the nodes' group, tagged as nodes
  add(
    f.provisionTarget,
    'RunNodesFromTemplate',
    ['ec2:RunInstances'],
    [
      arn('launch-template', nodes.launchTemplate.launchTemplateId!),
      arn('security-group', nodes.securityGroup.securityGroupId),
      arn('subnet', '*'),
      arn('network-interface', '*'),
      arn('volume', '*'),
      `arn:${stack.partition}:ec2:${stack.region}::image/*`,
    ],
  );
  // tagged as nodes and with a run id (as the loaders' launch: BenchmarkStateMachine), so a launch that lost the
  // run's tags is refused instead of leaving nodes no teardown or janitor finds
  add(f.provisionTarget, 'RunTaggedNodes', ['ec2:RunInstances'], [arn('instance', '*')], {
    StringEquals: { [`aws:RequestTag/${TAG_ROLE}`]: DB_NODE_ROLES },
    StringLike: { [`aws:RequestTag/${TAG_RUN_ID}`]: '?*' },
  });
  add(f.provisionTarget, 'TagNodesOnLaunch', ['ec2:CreateTags'], [arn('instance', '*'), arn('volume', '*')], {
    StringEquals: { 'ec2:CreateAction': 'RunInstances' },
  });
  // DescribeImages / DescribeInstances have no resource-level permissions
  add(f.provisionTarget, 'FindNodesAndImages', ['ec2:DescribeImages', 'ec2:DescribeInstances'], ['*']);
  for (const fn of [f.waitReady, f.startLoad, f.startCell, f.teardown, f.onAbort, f.janitor]) {
    add(fn, 'DescribeNodes', ['ec2:DescribeInstances'], ['*']);
  }
  // ProvisionTarget's all-or-nothing rollback, Teardown, the abort rule and the janitor: nodes only
  for (const fn of [f.provisionTarget, f.teardown, f.onAbort, f.janitor]) {
    add(fn, 'TerminateNodes', ['ec2:TerminateInstances'], [arn('instance', '*')], nodeTagged);
  }
  // WaitReady probes the nodes and creates the schema from a loader (the nodes admit loaders only)
  // through the stack's probe document only (a fixed script with checked parameters, LoaderFleet)
  add(
    f.waitReady,
    'ProbeFromLoaders',
    ['ssm:SendCommand'],
    [stack.formatArn({ service: 'ssm', resource: 'document', resourceName: nodes.probeDocument.ref })],
  );
  add(f.waitReady, 'ProbeOnLoaderInstances', ['ssm:SendCommand'], [arn('instance', '*')], {
    StringEquals: { [`ssm:resourceTag/${TAG_ROLE}`]: 'loader' },
  });
  add(f.waitReady, 'ProbeOutput', ['ssm:GetCommandInvocation'], ['*']);
}

/** cassandra-ec2 logins: the steps' rights over the run's login secrets. */
function grantRunLogins(stack: Stack, f: TargetFunctions): void {
  const add = grant;
  // cassandra-ec2 logins (lib/core/targets/cassandra-ec2/cql-auth.ts): one secret per run and target, fleetbench/<run>/<target>-cql
  // (under the prefix the loader role reads). ProvisionTarget creates it only with the run tag in the request
  // (CreateSecret with tags needs TagResource too) and describes it to adopt it on a retry; StartLoad and
  // StartCell describe it (its ARN goes into the jobs); Teardown, the abort rule and the janitor's second pass
  // (which runs teardown again) describe it and delete it only when it carries a run tag (the code checks
  // that the tag is its run's: lib/core/pipeline/ownership.ts). No step reads a CQL login's value (another kind's
  // construct may grant reading its own logins back, on their own name pattern: docs/iam.md).
  const loginSecrets = [
    stack.formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: 'fleetbench/*',
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  ];
  const runTagged = (key: string) => ({ Null: { [`${key}/${TAG_RUN_ID}`]: 'false' } });
  add(
    f.provisionTarget,
    'CreateRunLogins',
    ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
    loginSecrets,
    runTagged('aws:RequestTag'),
  );
  for (const fn of [f.provisionTarget, f.startLoad, f.startCell, f.teardown, f.onAbort, f.janitor])
    add(fn, 'DescribeRunLogins', ['secretsmanager:DescribeSecret'], loginSecrets);
  for (const fn of [f.teardown, f.onAbort, f.janitor])
    add(fn, 'DeleteRunLogins', ['secretsmanager:DeleteSecret'], loginSecrets, runTagged('aws:ResourceTag'));
  // the janitor sweeps expired logins (lib/core/targets/cassandra-ec2/login-sweep.ts): ListSecrets accepts only "*"
  add(f.janitor, 'ListRunLogins', ['secretsmanager:ListSecrets'], ['*']);
}

/** Cassandra nodes: the asset, their role and instance profile, Amazon Linux 2023 per architecture (none without the asset). */
function cassandraNodes(
  scope: Construct,
  f: TargetFunctions,
  assetPathProp: string | undefined,
): { role: iam.Role; asset: s3assets.Asset } | undefined {
  const stack = Stack.of(scope);
  const built = cassandraAssetPath();
  const assetPath =
    assetPathProp ?? (existsSync(built) ? built : stack.bundlingRequired ? undefined : __filename);
  if (!assetPath) {
    Annotations.of(scope).addWarning(
      `no Apache Cassandra asset (${built}): cassandra-ec2 targets cannot run on this stack; run \`npm run build:cassandra\` and deploy again`,
    );
    return undefined;
  }
  const asset = new s3assets.Asset(scope, 'CassandraAsset', { path: assetPath });
  const role = new iam.Role(scope, 'CassandraNodeRole', {
    assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
    description: 'fleetbench Cassandra nodes: read the Apache Cassandra asset, nothing else',
  });
  // the one object, not the assets bucket (asset.grantRead would allow every asset of the account)
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'ReadCassandraAsset',
      actions: ['s3:GetObject'],
      resources: [asset.bucket.arnForObjects(asset.s3ObjectKey)],
    }),
  );
  const profile = new iam.InstanceProfile(scope, 'CassandraNodeProfile', { role });
  const image = (cpuType: ec2.AmazonLinuxCpuType) =>
    ec2.MachineImage.latestAmazonLinux2023({ cpuType }).getImage(scope).imageId;
  f.provisionTarget.addEnvironment('CASSANDRA_ASSET', `s3://${asset.s3BucketName}/${asset.s3ObjectKey}`);
  f.provisionTarget.addEnvironment('CASSANDRA_AMI_X86_64', image(ec2.AmazonLinuxCpuType.X86_64));
  f.provisionTarget.addEnvironment('CASSANDRA_AMI_ARM64', image(ec2.AmazonLinuxCpuType.ARM_64));
  f.provisionTarget.addEnvironment('CASSANDRA_INSTANCE_PROFILE_ARN', profile.instanceProfileArn);
  // ProvisionTarget hands the role to the Cassandra nodes it launches, to EC2 only
  grant(f.provisionTarget, 'PassCassandraNodeRole', ['iam:PassRole'], [role.roleArn], {
    StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' },
  });
  return { role, asset };
}
