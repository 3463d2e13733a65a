import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { TABLE_PREFIX } from '../core/common/ports';
import {
  CREDENTIALS_SECRET_PREFIX,
  PROBE_ACTIONS,
  PROBE_PARAMETERS,
  probeDocumentScript,
} from '../core/targets/nodes/cluster';
import { PROJECT_ROOT } from './benchmark-function';

/**
 * How loaders and nodes reach AWS. `public` (default): public subnets, a public IPv4 address per
 * instance (paid only while it runs), no inbound rule, gateway endpoints for S3 and DynamoDB, no NAT and
 * no interface endpoint, so nothing is billed by the hour while no run is going. `private`: private
 * isolated subnets and the interface endpoints the loaders' SSM agent and agent use (billed per
 * endpoint and AZ by the hour). A stack in an existing VPC (`vpc`) creates no network at all.
 */
/** The object keys (results bucket) loaders read: the job files of every phase. */
export const LOADER_JOB_KEYS = 'runs/*/jobs/*';
/** The object keys loaders write: the raw outputs of a phase (`<phase>/raw/loader-<i>/…`). */
export const LOADER_OUTPUT_KEYS = 'runs/*/raw/loader-*';
/** The unprivileged user the loader agent runs the YCSB JVMs as (the agent itself runs as root under SSM). */
export const LOADER_JVM_USER = 'fleetbench-ycsb';

/** The Node.js executable the loaders run the agent with (AL2023's namespaced Node.js 22). */
export const LOADER_NODE = 'node-22';

export type NetworkMode = 'public' | 'private';
export const NETWORK_MODES: readonly NetworkMode[] = ['public', 'private'];

/**
 * Interface endpoints of the private mode: what the SSM agent (Run Command channel, command output
 * to CloudWatch Logs) and the loader agent (Secrets Manager for external targets' credentials,
 * CloudWatch PutMetricData for its live progress metrics) call. S3 and DynamoDB use the gateway
 * endpoints. No STS endpoint (instance-profile credentials come from the instance metadata service).
 */
export const PRIVATE_MODE_ENDPOINTS: Record<string, ec2.InterfaceVpcEndpointAwsService> = {
  Ssm: ec2.InterfaceVpcEndpointAwsService.SSM,
  SsmMessages: ec2.InterfaceVpcEndpointAwsService.SSM_MESSAGES,
  Ec2Messages: ec2.InterfaceVpcEndpointAwsService.EC2_MESSAGES,
  Logs: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
  CloudWatch: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING,
  SecretsManager: ec2.InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
};

export interface LoaderFleetProps {
  readonly resultsBucket: s3.IBucket;
  /** The network to create when `vpc` is not given. @default 'public' */
  readonly network?: NetworkMode;
  /** Use this VPC (its private subnets need routes to the endpoints) instead of creating one. */
  readonly vpc?: ec2.IVpc;
  /** The loader bundle directory (YCSB + bindings). @default loader/ycsb-binding/target/bundle */
  readonly bundleDir?: string;
  /** The bundled loader agent. @default loader/agent/dist/agent.js */
  readonly agentFile?: string;
}

/**
 * The loaders' world: a VPC (see NetworkMode; no NAT in any mode), a security group with no inbound rule,
 * a launch template (Amazon Linux 2023, IMDSv2 required, encrypted gp3, no SSH key), the instance
 * role, the loader bundle and agent as S3 assets, and the SSM Command document that runs a job.
 */
export class LoaderFleet extends Construct {
  readonly vpc: ec2.IVpc;
  /** The network mode, or `existing` when the stack uses a given VPC. */
  readonly network: NetworkMode | 'existing';
  readonly securityGroup: ec2.SecurityGroup;
  readonly role: iam.Role;
  /** x86_64 loaders. */
  readonly launchTemplate: ec2.LaunchTemplate;
  /** arm64 (Graviton) loaders: instance types such as c7g.large. */
  readonly launchTemplateArm: ec2.LaunchTemplate;
  readonly document: ssm.CfnDocument;
  /** WaitReady's document: probe the database nodes or create their schema from a loader (fixed script, checked parameters). */
  readonly probeDocument: ssm.CfnDocument;
  readonly commandLogGroup: logs.LogGroup;
  readonly subnetIds: string[];
  /** How many AZs the loader/node subnets span (a replication factor above it cannot place one replica per AZ). */
  readonly availabilityZoneCount: number;
  readonly bundleAsset: s3assets.Asset;
  readonly agentAsset: s3assets.Asset;
  /** Shell commands that install Java/Node and fetch the loader bundle to bundleDirOnLoader (the document's first steps). */
  readonly prepareCommands: string[];
  readonly bundleDirOnLoader = '/opt/fleetbench/bundle';

  constructor(scope: Construct, id: string, props: LoaderFleetProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const network = props.network ?? 'public';
    this.network = props.vpc ? 'existing' : network;
    this.vpc = props.vpc ?? loaderVpc(this, network);
    const subnets = this.vpc.selectSubnets({
      subnetType: props.vpc
        ? ec2.SubnetType.PRIVATE_WITH_EGRESS
        : network === 'public'
          ? ec2.SubnetType.PUBLIC
          : ec2.SubnetType.PRIVATE_ISOLATED,
    });
    this.subnetIds = subnets.subnetIds;
    this.availabilityZoneCount = new Set(subnets.availabilityZones).size;

    this.securityGroup = new ec2.SecurityGroup(this, 'LoaderSg', {
      vpc: this.vpc,
      description: 'fleetbench loaders: no inbound (control via SSM); out to AWS endpoints and the targets',
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
    addLoaderAgentStatements(this.role, this.commandLogGroup);
    addLoaderDataStatements(this.role, props.resultsBucket);

    const { bundle, agent } = loaderAssets(this, props);
    this.bundleAsset = bundle;
    this.agentAsset = agent;
    // the two objects, not the assets bucket: Asset.grantRead grants every object of the account's CDK
    // assets bucket (other stacks' Lambda code and files included)
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadLoaderAssets',
        actions: ['s3:GetObject'],
        resources: [bundle, agent].map((a) => a.bucket.arnForObjects(a.s3ObjectKey)),
      }),
    );

    const instances = { role: this.role, securityGroup: this.securityGroup };
    this.launchTemplate = loaderLaunchTemplate(
      this,
      'LaunchTemplate',
      ec2.AmazonLinuxCpuType.X86_64,
      instances,
    );
    this.launchTemplateArm = loaderLaunchTemplate(
      this,
      'LaunchTemplateArm',
      ec2.AmazonLinuxCpuType.ARM_64,
      instances,
    );

    this.prepareCommands = prepareCommands(stack.region, bundle);
    this.document = runJobDocument(this, this.prepareCommands, agent);

    this.probeDocument = probeDocument(this, {
      prepare: this.prepareCommands,
      bundleDir: this.bundleDirOnLoader,
      region: stack.region,
    });
  }
}

/** The loaders' VPC (see NetworkMode): no NAT, gateway endpoints, rejected flows logged, the private mode's interface endpoints. */
function loaderVpc(scope: Construct, network: NetworkMode): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    // three AZs so that a replication factor of 3 places one replica per AZ
    maxAzs: 3,
    natGateways: 0,
    subnetConfiguration: [
      network === 'public'
        ? // a public IPv4 address per instance, paid only while the instance runs
          { name: 'loaders', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 20, mapPublicIpOnLaunch: true }
        : { name: 'loaders', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 20 },
    ],
    gatewayEndpoints: {
      S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
    },
  });
  vpc.addFlowLog('FlowLog', {
    destination: ec2.FlowLogDestination.toCloudWatchLogs(
      new logs.LogGroup(scope, 'FlowLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    ),
    trafficType: ec2.FlowLogTrafficType.REJECT,
  });
  if (network === 'private') {
    for (const [name, service] of Object.entries(PRIVATE_MODE_ENDPOINTS)) {
      // two AZs are enough for the endpoints (instances in the third reach them across AZs): each
      // endpoint is billed per AZ
      vpc.addInterfaceEndpoint(name, {
        service,
        privateDnsEnabled: true,
        subnets: {
          subnetType: ec2.SubnetType.PRIVATE_ISOLATED,
          availabilityZones: vpc.availabilityZones.slice(0, 2),
        },
      });
    }
  }
  return vpc;
}

/** The loader bundle and agent as S3 assets (or this file standing in for them when the stack is never deployed). */
function loaderAssets(
  scope: Construct,
  props: Pick<LoaderFleetProps, 'bundleDir' | 'agentFile'>,
): { bundle: s3assets.Asset; agent: s3assets.Asset } {
  const bundleDir = props.bundleDir ?? path.join(PROJECT_ROOT, 'loader', 'ycsb-binding', 'target', 'bundle');
  const agentFile = props.agentFile ?? path.join(PROJECT_ROOT, 'loader', 'agent', 'dist', 'agent.js');
  // A stack that will be deployed (bundling required, as for `cdk deploy`) must have the real loader:
  // otherwise it would deploy and then fail on every loader. bin/app.ts builds both before synth.
  // Synths with bundling skipped (aws:cdk:bundling-stacks = [], as CDK does for its own Lambda assets:
  // the local mode's definition, the idle-cost tool) are never deployed and stand in this file.
  const missing = (
    [
      ['loader bundle', bundleDir, 'npm run build:loader'],
      ['loader agent', agentFile, 'npm run build:agent'],
    ] as const
  ).filter(([, p]) => !existsSync(p));
  if (missing.length && Stack.of(scope).bundlingRequired) {
    throw new Error(
      missing.map(([what, p, command]) => `${what} ${p} not found: run \`${command}\``).join('; '),
    );
  }
  const bundlePath = existsSync(bundleDir) ? bundleDir : __filename;
  const agentPath = existsSync(agentFile) ? agentFile : __filename;
  return {
    bundle: new s3assets.Asset(scope, 'Bundle', { path: bundlePath }),
    agent: new s3assets.Asset(scope, 'Agent', { path: agentPath }),
  };
}

/** A loader launch template: Amazon Linux 2023, IMDSv2 required, encrypted gp3, no SSH key, terminate on shutdown. */
function loaderLaunchTemplate(
  scope: Construct,
  id: string,
  cpuType: ec2.AmazonLinuxCpuType,
  instances: { role: iam.IRole; securityGroup: ec2.ISecurityGroup },
): ec2.LaunchTemplate {
  return new ec2.LaunchTemplate(scope, id, {
    machineImage: ec2.MachineImage.latestAmazonLinux2023({ cpuType }),
    role: instances.role,
    securityGroup: instances.securityGroup,
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
}

/** Shell commands that install Java/Node and fetch the loader bundle to /opt/fleetbench/bundle (once per bundle hash). */
function prepareCommands(region: string, bundle: s3assets.Asset): string[] {
  return [
    'set -euo pipefail',
    // the stack's region for the AWS CLI, the agent's SDK clients and the binding (no instance-metadata lookup)
    `export AWS_REGION=${region} AWS_DEFAULT_REGION=${region}`,
    'command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -q \'"17\\|version "2[0-9]\' || dnf install -y -q java-17-amazon-corretto-headless',
    // Node.js 22 (20 is end of life); AL2023 namespaces it as node-22, whatever `node` points to
    // (https://docs.aws.amazon.com/linux/al2023/ug/nodejs.html)
    `command -v ${LOADER_NODE} >/dev/null 2>&1 || dnf install -y -q nodejs22`,
    // the unprivileged user the agent runs the YCSB JVMs as (a custom binding's code does not run as root)
    `id -u ${LOADER_JVM_USER} >/dev/null 2>&1 || useradd --system --no-create-home --shell /sbin/nologin ${LOADER_JVM_USER}`,
    'mkdir -p /opt/fleetbench && cd /opt/fleetbench',
    `if [ ! -f bundle/.${bundle.assetHash} ]; then rm -rf bundle && aws s3 cp --only-show-errors s3://${bundle.s3BucketName}/${bundle.s3ObjectKey} bundle.zip && mkdir bundle && (cd bundle && python3 -m zipfile -e ../bundle.zip .) && touch bundle/.${bundle.assetHash}; fi`,
  ];
}

/** The Command document that runs a job on a loader: prepare, fetch the agent, run it on <jobPrefix>/<instance id>.json. */
function runJobDocument(scope: Construct, prepare: string[], agent: s3assets.Asset): ssm.CfnDocument {
  const script = [
    ...prepare,
    `aws s3 cp --only-show-errors s3://${agent.s3BucketName}/${agent.s3ObjectKey} agent.js`,
    'TOKEN=$(curl -sf -X PUT http://169.254.169.254/latest/api/token -H "X-aws-ec2-metadata-token-ttl-seconds: 300")',
    'IID=$(curl -sf -H "X-aws-ec2-metadata-token: $TOKEN" http://169.254.169.254/latest/meta-data/instance-id)',
    `export FLEETBENCH_BUNDLE=/opt/fleetbench/bundle FLEETBENCH_PROGRESS=cloudwatch FLEETBENCH_RUN_AS=${LOADER_JVM_USER}`,
    `exec ${LOADER_NODE} /opt/fleetbench/agent.js "{{ jobPrefix }}/$IID.json" --bundle /opt/fleetbench/bundle`,
  ];
  return new ssm.CfnDocument(scope, 'RunJobDocument', {
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

/**
 * WaitReady's node probe and schema creation (the nodes admit the loaders only): a stack-owned Command
 * document whose script is fixed and whose values are parameters Run Command checks against their
 * patterns, instead of AWS-RunShellScript, which would let WaitReady run anything on a loader.
 */
function probeDocument(
  scope: Construct,
  opts: { prepare: string[]; bundleDir: string; region: string },
): ssm.CfnDocument {
  return new ssm.CfnDocument(scope, 'ProbeDocument', {
    documentType: 'Command',
    documentFormat: 'JSON',
    updateMethod: 'NewVersion',
    content: {
      schemaVersion: '2.2',
      description: "fleetbench WaitReady: probe a run's database nodes or create their schema, from a loader",
      parameters: {
        action: { type: 'String', description: 'What to do', allowedValues: [...PROBE_ACTIONS] },
        ...Object.fromEntries(
          Object.entries(PROBE_PARAMETERS).map(([name, allowedPattern]) => [
            name,
            { type: 'String', default: '-', description: `${name} (- when unused)`, allowedPattern },
          ]),
        ),
        executionTimeout: {
          type: 'String',
          default: '300',
          description: 'Seconds before the command is stopped',
          allowedPattern: '^[0-9]{1,4}$',
        },
      },
      mainSteps: [
        {
          action: 'aws:runShellScript',
          name: 'probe',
          inputs: { timeoutSeconds: '{{ executionTimeout }}', runCommand: probeDocumentScript(opts) },
        },
      ],
    },
  });
}

/** What the SSM agent on a loader needs: its channels, and Run Command output to the command log group. */
function addLoaderAgentStatements(role: iam.Role, logGroup: logs.LogGroup): void {
  const stack = Stack.of(role);
  // what the SSM agent needs (the managed AmazonSSMManagedInstanceCore minus what loaders never use)
  role.addToPolicy(
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
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'CommandOutput',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
      resources: [logGroup.logGroupArn, `${logGroup.logGroupArn}:log-stream:*`],
    }),
  );
  // the SSM agent lists log groups before it streams Run Command output to CloudWatch Logs (it would
  // create the group if missing); DescribeLogGroups is authorized on the account's log-group:* only
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'CommandOutputGroups',
      actions: ['logs:DescribeLogGroups'],
      resources: [
        stack.formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
    }),
  );
}

/**
 * What the loader agent and the YCSB JVMs it starts (a custom binding's code among them) may do with data,
 * but for the loader assets (their two objects, granted where they are made).
 */
function addLoaderDataStatements(role: iam.Role, bucket: s3.IBucket): void {
  const stack = Stack.of(role);
  role.addToPolicy(
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
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'Metrics',
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': 'Fleetbench' } },
    }),
  );
  // The run layout (lib/core/pipeline/phase.ts): a phase's jobs at runs/<run>/(cells|load)/<name>/jobs/<instance>.json,
  // its raw outputs at runs/<run>/(cells|load)/<name>/raw/loader-<i>/proc-<j>/… The loaders read job files and
  // write raw outputs only: no loader (nor a custom binding on it) can rewrite a job, a plan, a spec or a result.
  // Keys are ids without "/", so no job key contains "/raw/loader-".
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'ReadJobs',
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${LOADER_JOB_KEYS}`)],
    }),
  );
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'WriteRawOutputs',
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects(`${LOADER_OUTPUT_KEYS}`)],
    }),
  );
  // users' YCSB bindings (external targets with protocol "custom"): jars under bindings/, read only
  role.addToPolicy(
    new iam.PolicyStatement({
      sid: 'UserBindings',
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects('bindings/*')],
    }),
  );
  // external targets' credentials: the agent reads the secret the job names (fleetbench/* only)
  role.addToPolicy(
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
}
