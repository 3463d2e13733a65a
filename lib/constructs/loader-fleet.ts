import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Annotations, ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { TABLE_PREFIX } from '../core/ports';
import { CREDENTIALS_SECRET_PREFIX } from '../core/cluster';
import { PROJECT_ROOT } from './benchmark-function';

export interface LoaderFleetProps {
  readonly resultsBucket: s3.IBucket;
  /** Use this VPC (its private subnets need routes to the endpoints) instead of creating one. */
  readonly vpc?: ec2.IVpc;
  /** The loader bundle directory (YCSB + bindings). @default loader/ycsb-binding/target/bundle */
  readonly bundleDir?: string;
  /** The bundled loader agent. @default loader/agent/dist/agent.js */
  readonly agentFile?: string;
}

/** Makes a placeholder directory so synth works before `npm run build:loader` (with a warning). */
function placeholder(what: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-missing-'));
  writeFileSync(path.join(dir, 'MISSING.txt'), `${what} was not built when this template was synthesized\n`);
  return dir;
}

/**
 * The loaders' world: a VPC with private subnets only and endpoints (no NAT), a security group,
 * a launch template (Amazon Linux 2023, IMDSv2 required, encrypted gp3, no SSH key), the instance
 * role, the loader bundle and agent as S3 assets, and the SSM Command document that runs a job.
 */
export class LoaderFleet extends Construct {
  readonly vpc: ec2.IVpc;
  readonly securityGroup: ec2.SecurityGroup;
  readonly role: iam.Role;
  /** x86_64 loaders. */
  readonly launchTemplate: ec2.LaunchTemplate;
  /** arm64 (Graviton) loaders: instance types such as c7g.large. */
  readonly launchTemplateArm: ec2.LaunchTemplate;
  readonly document: ssm.CfnDocument;
  readonly commandLogGroup: logs.LogGroup;
  readonly subnetIds: string[];
  /** Shell commands that install Java/Node and fetch the loader bundle to bundleDirOnLoader (the document's first steps). */
  readonly prepareCommands: string[];
  readonly bundleDirOnLoader = '/opt/fleetbench/bundle';

  constructor(scope: Construct, id: string, props: LoaderFleetProps) {
    super(scope, id);
    const stack = Stack.of(this);

    if (props.vpc) {
      this.vpc = props.vpc;
    } else {
      const vpc = new ec2.Vpc(this, 'Vpc', {
        maxAzs: 2,
        natGateways: 0,
        subnetConfiguration: [{ name: 'loaders', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 20 }],
        gatewayEndpoints: {
          S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
          DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        },
      });
      vpc.addFlowLog('FlowLog', {
        destination: ec2.FlowLogDestination.toCloudWatchLogs(
          new logs.LogGroup(this, 'FlowLogs', {
            retention: logs.RetentionDays.ONE_MONTH,
            removalPolicy: RemovalPolicy.DESTROY,
          }),
        ),
        trafficType: ec2.FlowLogTrafficType.REJECT,
      });
      const endpoints: Record<string, ec2.InterfaceVpcEndpointAwsService> = {
        Ssm: ec2.InterfaceVpcEndpointAwsService.SSM,
        SsmMessages: ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES,
        Ec2Messages: ec2.InterfaceVpcEndpointAwsService.EC2_MESSAGES,
        CloudWatch: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING,
        Logs: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
        Sts: ec2.InterfaceVpcEndpointAwsService.STS,
      };
      for (const [name, service] of Object.entries(endpoints)) {
        vpc.addInterfaceEndpoint(name, { service, privateDnsEnabled: true });
      }
      this.vpc = vpc;
    }
    const subnets = this.vpc.selectSubnets({
      subnetType: props.vpc ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED,
    });
    this.subnetIds = subnets.subnetIds;

    this.securityGroup = new ec2.SecurityGroup(this, 'LoaderSg', {
      vpc: this.vpc,
      description: 'fleetbench loaders: no inbound; HTTPS out to the VPC endpoints and the targets',
      allowAllOutbound: true,
    });

    this.commandLogGroup = new logs.LogGroup(this, 'CommandLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.role = new iam.Role(this, 'LoaderRole', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description:
        'fleetbench loader: SSM agent, bundle read, runs/ write, fleetbench-* table data, Fleetbench metrics',
    });
    // what the SSM agent needs (the managed AmazonSSMManagedInstanceCore minus what loaders never use)
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'SsmAgent',
        actions: [
          'ssm:UpdateInstanceInformation',
          'ssm:ListInstanceAssociations',
          'ssm:DescribeDocument',
          'ssm:GetDocument',
          'ssmmessages:CreateControlChannel',
          'ssmmessages:CreateDataChannel',
          'ssmmessages:OpenControlChannel',
          'ssmmessages:OpenDataChannel',
          'ec2messages:AcknowledgeMessage',
          'ec2messages:DeleteMessage',
          'ec2messages:FailMessage',
          'ec2messages:GetEndpoint',
          'ec2messages:GetMessages',
          'ec2messages:SendReply',
        ],
        resources: ['*'],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'TableData',
        actions: [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:Scan',
          'dynamodb:Query',
          'dynamodb:BatchGetItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:DescribeTable',
        ],
        resources: [
          stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: `${TABLE_PREFIX}*` }),
        ],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'Metrics',
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringEquals: { 'cloudwatch:namespace': 'Fleetbench' } },
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'RunOutputs',
        actions: ['s3:GetObject', 's3:PutObject'],
        resources: [props.resultsBucket.arnForObjects('runs/*')],
      }),
    );
    // external targets' credentials: the agent reads the secret the job names (fleetbench/* only)
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'TargetCredentials',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [
          stack.formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${CREDENTIALS_SECRET_PREFIX}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'CommandOutput',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        resources: [this.commandLogGroup.logGroupArn, `${this.commandLogGroup.logGroupArn}:log-stream:*`],
      }),
    );

    const bundleDir =
      props.bundleDir ?? path.join(PROJECT_ROOT, 'loader', 'ycsb-binding', 'target', 'bundle');
    const agentFile = props.agentFile ?? path.join(PROJECT_ROOT, 'loader', 'agent', 'dist', 'agent.js');
    let bundlePath = bundleDir;
    if (!existsSync(bundleDir)) {
      Annotations.of(this).addWarning(
        `loader bundle ${bundleDir} not found: run \`npm run build:loader\` before deploying (a placeholder was used)`,
      );
      bundlePath = placeholder('the loader bundle');
    }
    let agentPath = agentFile;
    if (!existsSync(agentFile)) {
      Annotations.of(this).addWarning(
        `loader agent ${agentFile} not found: build it before deploying (a placeholder was used)`,
      );
      agentPath = path.join(placeholder('the loader agent'), 'MISSING.txt');
    }
    const bundle = new s3assets.Asset(this, 'Bundle', { path: bundlePath });
    const agent = new s3assets.Asset(this, 'Agent', { path: agentPath });
    bundle.grantRead(this.role);
    agent.grantRead(this.role);

    const template = (tid: string, cpuType: ec2.AmazonLinuxCpuType) =>
      new ec2.LaunchTemplate(this, tid, {
        machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType }),
        role: this.role,
        securityGroup: this.securityGroup,
        requireImdsv2: true,
        httpPutResponseHopLimit: 1,
        detailedMonitoring: false,
        blockDevices: [
          {
            deviceName: '/dev/xvda',
            volume: ec2.BlockDeviceVolume.ebs(30, {
              encrypted: true,
              volumeType: ec2.EbsDeviceVolumeType.GP3,
              deleteOnTermination: true,
            }),
          },
        ],
        instanceInitiatedShutdownBehavior: ec2.InstanceInitiatedShutdownBehavior.TERMINATE,
      });
    this.launchTemplate = template('LaunchTemplate', ec2.AmazonLinuxCpuType.X86_64);
    this.launchTemplateArm = template('LaunchTemplateArm', ec2.AmazonLinuxCpuType.ARM_64);

    this.prepareCommands = [
      'set -euo pipefail',
      'command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -q \'"17\\|version "2[0-9]\' || dnf install -y -q java-17-amazon-corretto-headless',
      'command -v node >/dev/null 2>&1 || dnf install -y -q nodejs20 || dnf install -y -q nodejs',
      'command -v node >/dev/null 2>&1 || ln -sf "$(ls /usr/bin/node-* | head -1)" /usr/local/bin/node',
      'mkdir -p /opt/fleetbench && cd /opt/fleetbench',
      `if [ ! -f bundle/.${bundle.assetHash} ]; then rm -rf bundle && aws s3 cp --only-show-errors s3://${bundle.s3BucketName}/${bundle.s3ObjectKey} bundle.zip && mkdir bundle && (cd bundle && python3 -m zipfile -e ../bundle.zip .) && touch bundle/.${bundle.assetHash}; fi`,
    ];
    const script = [
      ...this.prepareCommands,
      `aws s3 cp --only-show-errors s3://${agent.s3BucketName}/${agent.s3ObjectKey} agent.js`,
      'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
      'IID=$(curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" http://169.254.169.254/latest/meta-data/instance-id)',
      'export FLEETBENCH_BUNDLE=/opt/fleetbench/bundle FLEETBENCH_PROGRESS=cloudwatch',
      'exec node /opt/fleetbench/agent.js "{{ jobPrefix }}/$IID.json" --bundle /opt/fleetbench/bundle',
    ];
    this.document = new ssm.CfnDocument(this, 'RunJobDocument', {
      documentType: 'Command',
      documentFormat: 'JSON',
      updateMethod: 'NewVersion',
      content: {
        schemaVersion: '2.2',
        description:
          'fleetbench: install Java 17 and Node if missing, fetch the loader bundle, run the agent on a job',
        parameters: {
          jobPrefix: {
            type: 'String',
            description:
              'Object-store URI of the jobs directory; the agent runs <jobPrefix>/<instance id>.json',
            allowedPattern: '^s3://[a-z0-9.-]+/[A-Za-z0-9._/=-]+$',
          },
          executionTimeout: {
            type: 'String',
            default: '3600',
            description: 'Seconds before the command is stopped',
            allowedPattern: '^[0-9]{1,6}$',
          },
        },
        mainSteps: [
          {
            action: 'aws:runShellScript',
            name: 'runJob',
            inputs: { timeoutSeconds: '{{ executionTimeout }}', runCommand: script },
          },
        ],
      },
    });
  }
}
