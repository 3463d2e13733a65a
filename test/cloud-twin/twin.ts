/**
 * The cloud twin: the synthesized stack run the way AWS would run it, on emulators. The template's
 * resources are created in moto server (bucket, topic, VPC/subnets, security groups, launch
 * templates, the SSM document, the state machine) and DynamoDB Local serves tables; each Lambda is
 * its bundled asset in its own Node process with exactly the template's environment (Refs/GetAtts
 * resolved to those resources) plus what the Lambda runtime sets; every AWS call goes through the
 * gateway, which enforces the caller's role policies from the template; the state machine
 * definition from the template runs in aws-local-stepfunctions, each Task invoking the function its
 * Resource names; the SSM twin plays the agent on the loaders.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  CreateLaunchTemplateCommand,
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DescribeImagesCommand,
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
} from '@aws-sdk/client-ec2';
import { CreateTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { CreateDocumentCommand, SSMClient } from '@aws-sdk/client-ssm';
import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  startDynamoDbLocal,
  DYNAMODB_LOCAL_CREDENTIALS,
  type DynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { NODE_MAIN } from '../../lib/local/cluster';
import { ensureLoaderBuilt } from '../../lib/build/maven';
import { buildAgent } from '../../loader/agent/build';
import { DB_NODE_ROLES, NODE_ROLES } from '../../lib/core/targets/nodes/cluster';
import { TAG_ROLE } from '../../lib/core/common/ports';
import { ensureCassandraAsset, localJava } from '../../lib/build/cassandra-asset';
import { TwinCassandraNodes, type TwinNode } from './cassandra-nodes';
import { freePort } from '../support/ports';
import { onTheLoader } from './loader-shell';
import { startMoto, type MotoServer } from '../support/moto';
import { startKeyspacesTwin, type KeyspacesTwin } from '../support/keyspaces-twin';
import { startDaxTwin, type DaxTwin } from '../support/dax-twin';
import { startMemoryDbTwin, type MemoryDbTwin } from '../support/memorydb-twin';
import { Gateway, type Principal } from './gateway';
import { evaluate } from './iam';
import { SsmTwin } from './ssm-twin';
import { TwinNetwork, describe as describeDestination, type Destination } from './network';
import { scriptVariable } from '../../lib/core/targets/cassandra-ec2/node';
import {
  ACCOUNT,
  REGION,
  Resolver,
  launchTemplateRole,
  resourcesOfType,
  rolePolicies,
  synthesize,
  type Assembly,
  type Physical,
} from './template';
import '../../lib/local/promise-polyfill';

const RUNTIME = path.join(__dirname, 'lambda-runtime.js');
const NODE_MODULES = path.resolve(__dirname, '..', '..', 'node_modules');

export class LambdaError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = errorType;
  }
}

interface Worker {
  child: ChildProcess;
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
  ready: Promise<void>;
}

export interface ExecutionResult {
  status: 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  output?: unknown;
  error?: string;
  cause?: string;
  /** States entered, in order (Parallel branches included). */
  states: string[];
  executionArn: string;
}

export class CloudTwin {
  readonly gateway: Gateway;
  readonly ssm: SsmTwin;
  readonly resolver: Resolver;
  readonly physical = new Map<string, Physical>();
  readonly clients: {
    s3: S3Client;
    ec2: EC2Client;
    sfn: SFNClient;
    ddb: DynamoDBClient;
    secrets: SecretsManagerClient;
  };
  private readonly workers = new Map<string, Worker>();
  private seq = 0;
  /** stdout/stderr lines of the functions and agents (for failure messages). */
  readonly logs: string[] = [];
  /** What answers for cassandra-ec2 nodes (./cassandra-nodes.ts). */
  readonly cassandra: TwinCassandraNodes;
  /** Amazon Keyspaces' API (no emulator serves it): the gateway sends the `cassandra` service here. */
  keyspaces?: KeyspacesTwin;
  /** MemoryDB's ACL calls moto lacks, in front of moto (test/support/memorydb-twin.ts). */
  memorydb?: MemoryDbTwin;
  /** The template's security groups: what instances may connect to (./network.ts). */
  readonly network: TwinNetwork;
  /** Every connection an instance opened (or was refused), in order. */
  readonly connections: { who: string; why: string; to: string; port: number; allowed: boolean }[] = [];

  private constructor(
    readonly asm: Assembly,
    readonly moto: MotoServer,
    readonly ddbLocal: DynamoDbLocal,
    readonly workDir: string,
    private readonly ltRoles: Map<string, string>,
    cassandra: { asset: string; java: string },
    /** moto's DAX behind the front that answers the group calls moto lacks. */
    readonly dax: DaxTwin,
  ) {
    const cfg = moto.clientConfig;
    this.clients = {
      s3: new S3Client(cfg),
      ec2: new EC2Client(cfg),
      sfn: new SFNClient(cfg),
      secrets: new SecretsManagerClient(cfg),
      ddb: new DynamoDBClient({
        endpoint: ddbLocal.endpoint,
        region: REGION,
        credentials: DYNAMODB_LOCAL_CREDENTIALS,
      }),
    };
    this.resolver = new Resolver(this.physical);
    const [, vpc] = resourcesOfType(asm.template, 'AWS::EC2::VPC')[0] ?? [];
    this.network = new TwinNetwork(asm.template, String(vpc?.Properties?.CidrBlock ?? '10.0.0.0/16'));
    const principals = new Map<string, Principal>();
    for (const [id] of resourcesOfType(asm.template, 'AWS::IAM::Role')) {
      principals.set(accessKeyOf(id), {
        name: this.principalName(id),
        roleArn: roleArn(id),
        policies: [],
      });
    }
    this.gateway = new Gateway({
      motoPort: moto.port,
      dynamodbPort: Number(new URL(ddbLocal.endpoint).port),
      principals,
      instanceTags: (ids) => this.instanceTags(ids),
      launchTemplateRole: (lt) => this.ltRoles.get(lt),
      instanceProfileRole: (arn) => {
        const roles = this.asm.template.Resources[arn.split('/').pop()!]?.Properties?.Roles as
          { Ref?: string }[] | undefined;
        return roles?.[0]?.Ref ? roleArn(roles[0].Ref) : undefined;
      },
      daxPort: Number(new URL(dax.endpoint).port),
      network: (p, service) => this.instanceCallRefused(p, service),
      topicKey: (arn) => this.topicKey(arn),
      securityGroupTags: (ids) => this.securityGroupTags(ids),
      secretTags: (id) => this.secretTags(id),
      ssm: {
        sent: (id, p) => this.ssm.sent(id, p),
        answer: (op, p) => this.ssm.answer(op, p),
        terminated: (ids) => this.ssm.terminated(ids),
      },
    });
    this.ssm = undefined as unknown as SsmTwin;
    this.cassandra = new TwinCassandraNodes({
      ...cassandra,
      workDir,
      userData: async (id) =>
        (
          await this.clients.ec2.send(
            new DescribeInstanceAttributeCommand({ InstanceId: id, Attribute: 'userData' }),
          )
        ).UserData?.Value ?? '',
      log: (line) => this.log(line),
      refused: (node) => this.nodeBootRefused(node),
    });
  }

  /** The KMS key (ARN and key policy) a topic of the template is encrypted with. */
  topicKey(topicArn: string): { arn: string; policy: unknown } | undefined {
    const t = this.asm.template;
    for (const [id, r] of resourcesOfType(t, 'AWS::SNS::Topic')) {
      const ref = r.Properties?.KmsMasterKeyId as { 'Fn::GetAtt'?: [string]; Ref?: string } | undefined;
      if (this.physical.get(id)?.ref !== topicArn || !ref) continue;
      const keyId = ref['Fn::GetAtt']?.[0] ?? ref.Ref;
      const key = String(this.resolver.resolve(ref));
      return {
        arn: key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`,
        policy: this.resolver.resolve(t.Resources[keyId!]?.Properties?.KeyPolicy),
      };
    }
    return undefined;
  }

  /** The security group (logical id) of the instances a role is the instance role of; Lambdas have none. */
  groupOfRole(roleLogicalId: string): string | undefined {
    const t = this.asm.template;
    for (const [lt, r] of resourcesOfType(t, 'AWS::EC2::LaunchTemplate')) {
      const isNodes = /NodeLaunchTemplate/.test(lt);
      const role = isNodes ? this.nodeRole() : launchTemplateRole(t, lt);
      if (role !== roleLogicalId) continue;
      const data = r.Properties?.LaunchTemplateData as { SecurityGroupIds?: { 'Fn::GetAtt'?: [string] }[] };
      return data?.SecurityGroupIds?.[0]?.['Fn::GetAtt']?.[0];
    }
    return undefined;
  }

  private nodeRole(): string | undefined {
    return resourcesOfType(this.asm.template, 'AWS::IAM::Role').find(([id]) =>
      id.includes('CassandraNodeRole'),
    )?.[0];
  }

  /** The node launch template's group (scylla-ec2 and cassandra-ec2 nodes). */
  get nodeGroup(): string {
    const [, lt] = resourcesOfType(this.asm.template, 'AWS::EC2::LaunchTemplate').find(([id]) =>
      /NodeLaunchTemplate/.test(id),
    )!;
    const data = lt.Properties!.LaunchTemplateData as { SecurityGroupIds: { 'Fn::GetAtt': [string] }[] };
    return data.SecurityGroupIds[0]!['Fn::GetAtt'][0];
  }

  /** Connections the network refused, recorded with the IAM decisions (expectNoDenials sees both). */
  private connection(who: string, group: string, to: Destination, port: number, why: string): boolean {
    const refused = this.network.refused(group, to, port);
    this.connections.push({ who, why, to: describeDestination(to), port, allowed: !refused });
    if (refused)
      this.gateway.calls.push({
        principal: who,
        operation: `network ${why}`,
        action: `network:tcp/${port}`,
        resource: describeDestination(to),
        result: `NetworkRefused: ${refused}`,
      });
    return !refused;
  }

  /** An instance's AWS call (HTTPS): refused when its group does not let it out to the service. */
  private instanceCallRefused(p: Principal, service: string): boolean {
    const role = p.roleArn.split('/').pop()!;
    const group = this.groupOfRole(role);
    if (!group) return false;
    return !this.connection(p.name, group, { kind: 'service', service }, 443, `${service} call`);
  }

  /**
   * What a node's boot opens, from its user data, checked against the nodes' group: a Cassandra node's
   * `dnf install` (the Amazon Linux 2023 repositories are S3 buckets of the region) and `aws s3 cp` of
   * its archive, HTTPS to S3; any node's gossip to its seed. The script runs under `set -euo pipefail`:
   * one refused connection and the node never answers. Returns whether it boots.
   */
  async nodeBoots(node: { id: string; privateIp?: string; tags: Record<string, string> }): Promise<boolean> {
    const raw = await this.clients.ec2.send(
      new DescribeInstanceAttributeCommand({ InstanceId: node.id, Attribute: 'userData' }),
    );
    const text = Buffer.from(raw.UserData?.Value ?? '', 'base64').toString('utf8');
    const needs: { to: Destination; port: number; why: string }[] = [];
    const seeds: string[] = [];
    if (node.tags[TAG_ROLE] === NODE_ROLES['cassandra-ec2']) {
      if (scriptVariable(text, 'FB_JAVA') === 'install')
        needs.push({
          to: { kind: 'service', service: 's3' },
          port: 443,
          why: 'dnf install (AL2023 repositories)',
        });
      if (scriptVariable(text, 'FB_ASSET')?.startsWith('s3://'))
        needs.push({
          to: { kind: 'service', service: 's3' },
          port: 443,
          why: 'aws s3 cp of the Cassandra archive',
        });
      seeds.push(...(scriptVariable(text, 'FB_SEEDS') ?? '').split(',').filter(Boolean));
    } else {
      const m = /"seeds":"([^"]*)"/.exec(text);
      seeds.push(
        ...(m?.[1] ?? '')
          .split(',')
          .filter(Boolean)
          .map((ip) => `${ip}:7000`),
      );
    }
    for (const seed of seeds) {
      const [ip, port] = seed.split(':') as [string, string];
      if (ip !== node.privateIp)
        needs.push({
          to: { kind: 'group', group: this.nodeGroup },
          port: Number(port),
          why: `gossip to seed ${ip}`,
        });
    }
    let boots = true;
    for (const n of needs)
      boots = this.connection(`node ${node.id}`, this.nodeGroup, n.to, n.port, n.why) && boots;
    return boots;
  }

  private async nodeBootRefused(node: TwinNode): Promise<boolean> {
    return !(await this.nodeBoots(node));
  }

  /** Synthesizes (with bundling), starts moto, DynamoDB Local and the gateway, creates the stack's resources. */
  static async start(): Promise<CloudTwin> {
    const workDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-twin-'));
    // the loader bundle (Maven, when missing or stale), the agent built from the current sources, and the
    // Apache Cassandra asset (Maven; the stack ships it and gives cassandra-ec2 nodes a role only with it)
    const [built, agentFile, cassandraAsset, java] = await Promise.all([
      ensureLoaderBuilt(),
      buildAgent(path.join(workDir, 'agent', 'agent.js')),
      ensureCassandraAsset(),
      localJava(),
    ]);
    const asm = synthesize(path.join(workDir, 'cdk.out'), {
      agentFile,
      bundleDir: path.dirname(built.bundleLibDir),
    });
    const [moto, ddb] = await Promise.all([startMoto(), startDynamoDbLocal()]);
    const dax = await startDaxTwin(moto.endpoint);
    const twin = new CloudTwin(asm, moto, ddb, workDir, new Map(), { asset: cassandraAsset, java }, dax);
    try {
      await twin.createResources();
      twin.keyspaces = await startKeyspacesTwin();
      twin.gateway.upstreams.set('cassandra', Number(new URL(twin.keyspaces.endpoint).port));
      twin.memorydb = await startMemoryDbTwin(moto.endpoint);
      twin.gateway.upstreams.set('memorydb', Number(new URL(twin.memorydb.endpoint).port));
      await twin.gateway.start();
    } catch (err) {
      await twin.stop();
      throw err;
    }
    return twin;
  }

  private principalName(roleId: string): string {
    const fn = this.asm.functions.find((f) => f.roleLogicalId === roleId);
    return fn ? fn.logicalId : roleId;
  }

  /** Creates the template's resources in moto; fills the physical map the resolver uses. */
  private async createResources(): Promise<void> {
    const t = this.asm.template;
    const { ec2 } = this.clients;
    const cfg = this.moto.clientConfig;
    const set = (id: string, ref: string, attrs: Record<string, string> = {}) =>
      this.physical.set(id, { ref, attrs });
    const arnOf = (svc: string, res: string) => `arn:aws:${svc}:${REGION}:${ACCOUNT}:${res}`;
    const props = (id: string) =>
      this.resolver.resolve(t.Resources[id]!.Properties ?? {}) as Record<string, unknown>;

    // names and ARNs that need no emulator resource
    for (const [id, r] of Object.entries(t.Resources)) {
      if (r.Type === 'AWS::IAM::Role') set(id, id, { Arn: roleArn(id), RoleId: `AROA${id}` });
      else if (r.Type === 'AWS::IAM::InstanceProfile')
        set(id, id, { Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/${id}` });
      else if (r.Type === 'AWS::Logs::LogGroup') {
        const name = `/twin/${id}`;
        set(id, name, { Arn: arnOf('logs', `log-group:${name}:*`) });
      } else if (r.Type === 'AWS::Lambda::Function') {
        const name = `twin-${id}`;
        set(id, name, { Arn: arnOf('lambda', `function:${name}`) });
      } else if (r.Type === 'AWS::KMS::Key') set(id, `key-${id}`, { Arn: arnOf('kms', `key/key-${id}`) });
      else if (r.Type === 'AWS::Events::Rule') set(id, id, { Arn: arnOf('events', `rule/${id}`) });
      else if (r.Type === 'AWS::SQS::Queue') {
        const name = `twin-${id}`;
        const url = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
        set(id, url, { Arn: arnOf('sqs', name), QueueName: name, QueueUrl: url });
      }
    }
    // instance profiles (the Cassandra nodes'): RunInstances in moto refuses a profile it does not know
    for (const [id] of resourcesOfType(t, 'AWS::IAM::InstanceProfile')) await this.createInstanceProfile(id);
    for (const [id] of resourcesOfType(t, 'AWS::S3::Bucket')) {
      const name = `twin-${id.toLowerCase()}`.slice(0, 60);
      await new S3Client(cfg).send(new CreateBucketCommand({ Bucket: name }));
      set(id, name, { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com` });
    }
    for (const [id] of resourcesOfType(t, 'AWS::SNS::Topic')) {
      const out = await new SNSClient(cfg).send(new CreateTopicCommand({ Name: `twin-${id}` }));
      set(id, out.TopicArn!, { TopicName: `twin-${id}`, TopicArn: out.TopicArn! });
    }
    for (const [id] of resourcesOfType(t, 'AWS::EC2::VPC')) {
      const out = await ec2.send(new CreateVpcCommand({ CidrBlock: String(props(id).CidrBlock) }));
      set(id, out.Vpc!.VpcId!, { CidrBlock: out.Vpc!.CidrBlock!, DefaultSecurityGroup: 'sg-default' });
    }
    let subnetIndex = 0;
    for (const [id] of resourcesOfType(t, 'AWS::EC2::Subnet')) {
      const p = props(id);
      // an app without an account lookup synthesizes placeholder zones (dummy1a): moto needs real ones
      const az = String(p.AvailabilityZone).startsWith(REGION)
        ? String(p.AvailabilityZone)
        : `${REGION}${'abc'[subnetIndex++ % 3]}`;
      const out = await ec2.send(
        new CreateSubnetCommand({
          VpcId: String(p.VpcId),
          CidrBlock: String(p.CidrBlock),
          AvailabilityZone: az,
        }),
      );
      set(id, out.Subnet!.SubnetId!, { SubnetId: out.Subnet!.SubnetId! });
    }
    for (const [id] of resourcesOfType(t, 'AWS::EC2::SecurityGroup')) {
      const p = props(id);
      const out = await ec2.send(
        new CreateSecurityGroupCommand({
          GroupName: `twin-${id}`,
          Description: String(p.GroupDescription ?? id),
          VpcId: String(p.VpcId),
        }),
      );
      set(id, out.GroupId!, { GroupId: out.GroupId! });
    }
    const images = await ec2.send(new DescribeImagesCommand({}));
    const ami = images.Images?.[0]?.ImageId;
    if (!ami) throw new Error('moto has no AMI to launch');
    // image ids the template reads from SSM public parameters (Amazon Linux 2023 for Cassandra nodes): moto's AMI
    const params = (t as { Parameters?: Record<string, { Type?: string }> }).Parameters ?? {};
    for (const [id, p] of Object.entries(params)) {
      if (p.Type === 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>') set(id, ami);
    }
    for (const [id] of resourcesOfType(t, 'AWS::EC2::LaunchTemplate')) {
      const out = await ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: `twin-${id}`,
          LaunchTemplateData: { ImageId: ami, InstanceType: 't3.micro' },
        }),
      );
      const ltId = out.LaunchTemplate!.LaunchTemplateId!;
      set(id, ltId, {
        LatestVersionNumber: '1',
        DefaultVersionNumber: '1',
        LaunchTemplateName: `twin-${id}`,
      });
      const role = launchTemplateRole(t, id);
      if (role) this.ltRoles.set(ltId, roleArn(role));
    }
    for (const [id] of resourcesOfType(t, 'AWS::SSM::Document')) {
      const name = `twin-${id}`;
      await new SSMClient(cfg).send(
        new CreateDocumentCommand({
          Name: name,
          Content: JSON.stringify(props(id).Content),
          DocumentType: 'Command',
          DocumentFormat: 'JSON',
        }),
      );
      set(id, name);
    }
    // everything else that is only referenced by name
    for (const [id, r] of Object.entries(t.Resources))
      if (!this.physical.has(id) && r.Type !== 'AWS::StepFunctions::StateMachine') set(id, `twin-${id}`);
    for (const [id, r] of resourcesOfType(t, 'AWS::StepFunctions::StateMachine')) {
      const name = String(r.Properties!.StateMachineName);
      const out = await this.clients.sfn.send(
        new CreateStateMachineCommand({
          name,
          definition: this.resolver.resolveString(r.Properties!.DefinitionString),
          roleArn: roleArn('StatesRole'),
        }),
      );
      set(id, out.stateMachineArn!, { Name: name, Arn: out.stateMachineArn! });
    }
    // role policies, now that every Ref resolves
    for (const p of this.gatewayPrincipals()) {
      const roleId = p.roleArn.split('/').pop()!;
      p.policies = rolePolicies(t, roleId).map((x) => ({ name: x.name, doc: this.resolver.resolve(x.doc) }));
    }
    (this as { ssm: SsmTwin }).ssm = this.makeSsm();
  }

  /** IAM's CreateInstanceProfile on moto (a Query API call; the SDK's IAM client is not a dependency). */
  private async createInstanceProfile(name: string): Promise<void> {
    const res = await fetch(this.moto.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `AWS4-HMAC-SHA256 Credential=twin/20260101/${REGION}/iam/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: `Action=CreateInstanceProfile&InstanceProfileName=${encodeURIComponent(name)}&Version=2010-05-08`,
    });
    const xml = await res.text();
    if (!xml.includes(`<Arn>arn:aws:iam::${ACCOUNT}:instance-profile/${name}</Arn>`))
      throw new Error(`CreateInstanceProfile ${name} in moto: ${xml.slice(0, 500)}`);
  }

  private gatewayPrincipals(): Principal[] {
    return [
      ...(this.gateway as unknown as { o: { principals: Map<string, Principal> } }).o.principals.values(),
    ];
  }

  private makeSsm(): SsmTwin {
    // the loader document (RunJobDocument) and WaitReady's probe document (ProbeDocument), both LoaderFleet's
    const doc = (name: string) => {
      const [docId, d] = resourcesOfType(this.asm.template, 'AWS::SSM::Document').find(([id]) =>
        id.includes(name),
      )!;
      const content = this.resolver.resolve(d.Properties!.Content) as {
        mainSteps: { inputs: { runCommand: string[] } }[];
      };
      return { name: this.physical.get(docId)!.ref, lines: content.mainSteps[0]!.inputs.runCommand };
    };
    const logDir = path.join(this.workDir, 'agents');
    mkdirSync(logDir, { recursive: true });
    return new SsmTwin({
      document: doc('RunJobDocument'),
      probeDocument: doc('ProbeDocument'),
      assetFromS3: (uri) => this.asm.assetPath(path.basename(uri).replace(/\.(zip|js)$/, '')),
      running: async (ids) => {
        const tags = await this.instances(ids);
        return tags.filter((i) => i.state === 'running').map((i) => i.id);
      },
      // what Run Command gives a command on the instance: its region and id as AWS_SSM_* (no
      // AWS_REGION), the instance role's credentials (here as variables: there is no metadata service)
      agentEnv: (instanceId) => ({
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}),
        AWS_SSM_REGION_NAME: REGION,
        AWS_SSM_INSTANCE_ID: instanceId,
        AWS_ACCESS_KEY_ID: this.loaderAccessKey(instanceId),
        AWS_SECRET_ACCESS_KEY: 'twin',
        AWS_ENDPOINT_URL: this.gateway.endpoint,
      }),
      logDir,
      onOutput: (id, line) => this.log(`agent ${id}: ${line}`),
      shell: (id, commands) => this.runShell(id, commands),
    });
  }

  /** A ScyllaDB node's stand-in, once its boot's connections are allowed (else a port nothing answers on). */
  private readonly scyllaBoots = new Map<string, Promise<boolean>>();

  private async scyllaPort(node: { id: string; privateIp?: string; tags: Record<string, string> }) {
    let boots = this.scyllaBoots.get(node.id);
    if (!boots) this.scyllaBoots.set(node.id, (boots = this.nodeBoots(node)));
    return (await boots) ? this.standIn(node.privateIp!) : freePort();
  }

  /** Stand-in ScyllaDB nodes (lib/local/scylla-node.ts) by the moto node's private IP. */
  private readonly standIns = new Map<string, { child: ChildProcess; port: Promise<number> }>();

  private standIn(ip: string): Promise<number> {
    let s = this.standIns.get(ip);
    if (!s) {
      const child = spawn(
        process.execPath,
        ['-r', require.resolve('tsx/cjs'), NODE_MAIN, this.ddbLocal.endpoint, 'twin', ip],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      const port = new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /listening (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`stand-in node for ${ip} exited ${code}`)));
      });
      s = { child, port };
      this.standIns.set(ip, s);
    }
    return s.port;
  }

  /**
   * AWS-RunShellScript on a loader (the node probe and schema scripts): each running moto node's
   * `ip:port` becomes its stand-in's `127.0.0.1:port` (ScyllaDB: ./twin's Alternator stand-ins; Cassandra:
   * ./cassandra-nodes.ts), the loader document's preparation is what this machine has (./loader-shell.ts),
   * the lines run with bash under the loader's credentials, and the output names the nodes' addresses again.
   */
  private async runShell(instanceId: string, commands: string[]): Promise<{ ok: boolean; output: string }> {
    const nodes = new Map(
      (await this.instances())
        .filter((i) => i.state === 'running' && i.privateIp && DB_NODE_ROLES.includes(i.tags[TAG_ROLE] ?? ''))
        .map((i) => [i.privateIp!, i]),
    );
    const back = new Map<string, string>();
    let script = onTheLoader(commands, this.loaderPreparation()).join('\n');
    for (const m of new Set(script.match(/\b\d+\.\d+\.\d+\.\d+:\d+\b/g) ?? [])) {
      const [ip] = m.split(':') as [string];
      const node = nodes.get(ip);
      if (!node) continue;
      // the loader's connection to the node (its group out, the nodes' group in); a refused one, or a
      // node that could not boot, is a port nothing answers on
      const reachable = this.connection(
        `loader ${instanceId}`,
        this.groupOfRole(this.loaderRole())!,
        { kind: 'group', group: this.nodeGroup },
        Number(m.split(':')[1]),
        `probe of node ${node.id}`,
      );
      const port = !reachable
        ? await freePort()
        : node.tags[TAG_ROLE] === NODE_ROLES['cassandra-ec2']
          ? await this.cassandra.portOf({ id: node.id, privateIp: ip, tags: node.tags })
          : await this.scyllaPort(node);
      const local = `127.0.0.1:${port}`;
      back.set(local, m);
      script = script.split(m).join(local);
    }
    const env = { ...this.ssm.agentEnvOf(instanceId) };
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (b: Buffer) => (output += b.toString()));
      child.stderr.on('data', (b: Buffer) => (output += b.toString()));
      child.on('exit', (code) => {
        for (const [local, remote] of back) output = output.split(local).join(remote);
        resolve({ ok: code === 0, output });
      });
    });
  }

  /** WaitReady's preparation commands (the loader document's) and where they put the bundle, vs the staged bundle. */
  private loaderPreparation(): { prepare: string[]; bundleDir: string; stagedBundle: string } {
    // the loader document's lines before it fetches the agent (LoaderFleet.prepareCommands)
    const lines = this.ssm.document.lines;
    return {
      prepare: lines.slice(
        0,
        lines.findIndex((l) => l.includes('agent.js')),
      ),
      bundleDir: '/opt/fleetbench/bundle',
      stagedBundle: this.ssm.stagedAsset('bundle.zip'),
    };
  }

  /** The instance's role (the launch template it was launched from) as the agent's access key. */
  private loaderAccessKey(_instanceId: string): string {
    return accessKeyOf(this.loaderRole());
  }

  private loaderRole(): string {
    const lt = resourcesOfType(this.asm.template, 'AWS::EC2::LaunchTemplate').find(
      ([id]) => launchTemplateRole(this.asm.template, id) && !/Node/i.test(id),
    );
    return launchTemplateRole(this.asm.template, lt![0])!;
  }

  log(line: string): void {
    this.logs.push(line);
    if (this.logs.length > 4000) this.logs.splice(0, 1000);
  }

  async instances(
    ids?: string[],
  ): Promise<{ id: string; state: string; tags: Record<string, string>; privateIp?: string }[]> {
    const out = await this.clients.ec2.send(
      new DescribeInstancesCommand(ids?.length ? { InstanceIds: ids } : {}),
    );
    return (out.Reservations ?? []).flatMap((r) =>
      (r.Instances ?? []).map((i) => ({
        id: i.InstanceId!,
        state: i.State?.Name ?? '?',
        ...(i.PrivateIpAddress ? { privateIp: i.PrivateIpAddress } : {}),
        tags: Object.fromEntries((i.Tags ?? []).map((x) => [x.Key!, x.Value!])),
      })),
    );
  }

  private async secretTags(id: string): Promise<Record<string, string>> {
    const out = await this.clients.secrets
      .send(new DescribeSecretCommand({ SecretId: id }))
      .catch(() => ({ Tags: [] }));
    return Object.fromEntries((out.Tags ?? []).map((t) => [t.Key!, t.Value!]));
  }

  private async securityGroupTags(ids: string[]): Promise<Record<string, Record<string, string>>> {
    const out = await this.clients.ec2
      .send(new DescribeSecurityGroupsCommand({ GroupIds: ids }))
      .catch(() => ({ SecurityGroups: [] }));
    return Object.fromEntries(
      (out.SecurityGroups ?? []).map((g) => [
        g.GroupId!,
        Object.fromEntries((g.Tags ?? []).map((t) => [t.Key!, t.Value!])),
      ]),
    );
  }

  private async instanceTags(ids: string[]): Promise<Record<string, Record<string, string>>> {
    if (!ids.length) return {};
    try {
      return Object.fromEntries((await this.instances(ids)).map((i) => [i.id, i.tags]));
    } catch {
      return {};
    }
  }

  /** The environment a function's process gets: the template's, resolved, plus the Lambda runtime's. */
  functionEnv(logicalId: string): Record<string, string> {
    const fn = this.fn(logicalId);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(fn.environment)) env[k] = this.resolver.resolveString(v);
    return env;
  }

  fn(logicalId: string) {
    const fn = this.asm.functions.find((f) => f.logicalId === logicalId);
    if (!fn) throw new Error(`no function ${logicalId} in the template`);
    return fn;
  }

  /** The function a Lambda ARN (a Task's Resource, a rule's target) names. */
  functionByArn(arn: string): string {
    const name = arn.split(':').pop()!;
    for (const [id, p] of this.physical) if (p.ref === name) return id;
    throw new Error(`no function for ${arn}`);
  }

  private worker(logicalId: string): Worker {
    let w = this.workers.get(logicalId);
    if (w) return w;
    const fn = this.fn(logicalId);
    const env = {
      ...this.functionEnv(logicalId),
      // what the Lambda runtime sets (the SDK comes from the runtime: NODE_PATH)
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: this.physical.get(logicalId)!.ref,
      AWS_ACCESS_KEY_ID: accessKeyOf(fn.roleLogicalId),
      AWS_SECRET_ACCESS_KEY: 'twin',
      AWS_SESSION_TOKEN: 'twin',
      NODE_PATH: NODE_MODULES,
      PATH: process.env.PATH ?? '',
      // the emulated AWS endpoint (the gateway)
      AWS_ENDPOINT_URL: this.gateway.endpoint,
      POWERTOOLS_TRACE_ENABLED: 'false',
    };
    const child = fork(RUNTIME, [fn.assetDir, fn.handler], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
    let output = '';
    const take = (b: Buffer) => {
      output = (output + b.toString()).slice(-4000);
      for (const l of b.toString().split('\n')) if (l.trim()) this.log(`${logicalId}: ${l.slice(0, 600)}`);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    let markReady!: () => void;
    const ready = new Promise<void>((r) => (markReady = r));
    child.on(
      'message',
      (m: {
        ready?: boolean;
        id?: number;
        result?: unknown;
        error?: { errorType: string; errorMessage: string };
      }) => {
        if (m.ready) return markReady();
        const p = pending.get(m.id!);
        if (!p) return;
        pending.delete(m.id!);
        if (m.error) p.reject(new LambdaError(m.error.errorType, m.error.errorMessage));
        else p.resolve(m.result);
      },
    );
    child.on('exit', (code) => {
      this.workers.delete(logicalId);
      for (const p of pending.values())
        p.reject(new LambdaError('Runtime.ExitError', `${logicalId} exited ${code}: ${output.slice(-1500)}`));
      markReady();
    });
    w = { child, pending, ready };
    this.workers.set(logicalId, w);
    return w;
  }

  /** Invokes a function with an event (its handler's error is thrown as a LambdaError). */
  async invoke(logicalId: string, event: unknown): Promise<unknown> {
    const w = this.worker(logicalId);
    await w.ready;
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      w.pending.set(id, { resolve, reject });
      w.child.send({
        id,
        event,
        context: {
          functionName: this.physical.get(logicalId)!.ref,
          awsRequestId: `twin-${id}`,
          invokedFunctionArn: this.physical.get(logicalId)!.attrs!.Arn,
          deadlineMs: Date.now() + 600_000,
        },
      });
    });
  }

  stateMachine(): { logicalId: string; arn: string; name: string; definition: Record<string, unknown> } {
    const [id, r] = resourcesOfType(this.asm.template, 'AWS::StepFunctions::StateMachine')[0]!;
    const p = this.physical.get(id)!;
    return {
      logicalId: id,
      arn: p.ref,
      name: p.attrs!.Name!,
      definition: JSON.parse(this.resolver.resolveString(r.Properties!.DefinitionString)) as Record<
        string,
        unknown
      >,
    };
  }

  /**
   * Runs one execution of the template's definition. Every Task calls the function its Resource names
   * with the Task's Parameters as the event. `waitMs` shortens the Wait states; `onState` is told of
   * every state entered and aborts the execution (as StopExecution does) when it answers 'abort'.
   */
  async execute(o: {
    input: unknown;
    name: string;
    waitMs?: number;
    /** Retry intervals (ms) of the states named, instead of their IntervalSeconds and backoff. */
    retryMs?: Record<string, number>;
    onState?: (state: string) => 'abort' | void;
  }): Promise<ExecutionResult> {
    const sm = this.stateMachine();
    const def = sm.definition as {
      States: Record<
        string,
        { Type: string; Resource?: string; Branches?: unknown[]; ItemProcessor?: unknown }
      >;
    };
    const handlers: Record<string, (input: unknown) => Promise<unknown>> = {};
    const waits: Record<string, number> = {};
    const visit = (
      states: Record<
        string,
        { Type: string; Resource?: string; Branches?: unknown[]; ItemProcessor?: unknown }
      >,
    ) => {
      for (const [name, s] of Object.entries(states)) {
        if (s.Type === 'Task') {
          const fnId = this.functionByArn(String(s.Resource));
          handlers[name] = async (input) => {
            await this.statesMayInvoke(name, String(s.Resource));
            return this.invoke(fnId, input);
          };
        }
        if (s.Type === 'Wait' && o.waitMs !== undefined) waits[name] = o.waitMs;
        for (const b of (s.Branches ?? []) as { States: typeof states }[]) visit(b.States);
        if (s.ItemProcessor) visit((s.ItemProcessor as { States: typeof states }).States);
      }
    };
    visit(def.States);
    const executionArn = `${sm.arn.replace(':stateMachine:', ':execution:')}:${o.name}`;
    const { StateMachine } = await import('aws-local-stepfunctions');
    const machine = new StateMachine(def as never);
    const execution = machine.run(o.input as never, {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides: waits,
        ...(o.retryMs ? { retryIntervalOverrides: o.retryMs } : {}),
      },
      context: {
        Execution: { Id: executionArn, Name: o.name, StartTime: new Date().toISOString() },
        StateMachine: { Id: sm.arn, Name: sm.name },
      },
    });
    const states: string[] = [];
    const watch = (async () => {
      for await (const ev of execution.eventLogs) {
        const e = ev as { type: string; state?: { name: string } };
        if (e.type === 'StateEntered' && e.state) {
          states.push(e.state.name);
          if (o.onState?.(e.state.name) === 'abort') execution.abort();
        }
      }
    })();
    try {
      const output = await execution.result;
      await watch.catch(() => undefined);
      return { status: 'SUCCEEDED', output, states, executionArn };
    } catch (err) {
      await watch.catch(() => undefined);
      // an ExecutionError wraps what ended the run (the Fail state's error and cause)
      const outer = err as { name?: string; message?: string; cause?: { name?: string; message?: string } };
      const e = outer.name === 'ExecutionError' && outer.cause ? outer.cause : outer;
      const aborted = /abort/i.test(String(outer.name)) || /abort/i.test(String(outer.message));
      return {
        status: aborted ? 'ABORTED' : 'FAILED',
        error: e.name,
        cause: e.message,
        states,
        executionArn,
      };
    }
  }

  /** A role of the template as the gateway knows it (policies resolved). */
  gatewayRole(roleLogicalId: string): Principal {
    return this.gatewayPrincipals().find((p) => p.roleArn.endsWith(`/${roleLogicalId}`))!;
  }

  /** The state machine's role (the template's RoleArn), as the gateway knows it (policies resolved). */
  stateMachineRole(): Principal {
    const [, r] = resourcesOfType(this.asm.template, 'AWS::StepFunctions::StateMachine')[0]!;
    const roleId = (r.Properties!.RoleArn as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    return this.gatewayPrincipals().find((p) => p.roleArn.endsWith(`/${roleId}`))!;
  }

  /**
   * A Task's invocation as Step Functions makes it: lambda:InvokeFunction on the function under the state
   * machine's role, recorded with the gateway's calls; refused, the Task fails as Step Functions fails it.
   */
  async statesMayInvoke(state: string, functionArn: string): Promise<void> {
    const role = this.stateMachineRole();
    const check = { action: 'lambda:InvokeFunction', resource: functionArn, context: {} };
    const d = await evaluate(role.roleArn, role.policies, check);
    this.gateway.calls.push({
      principal: `StateMachine (${state})`,
      operation: 'lambda:Invoke',
      action: check.action,
      resource: functionArn,
      result: d.result,
    });
    if (!d.allowed)
      throw new LambdaError(
        'Lambda.AWSLambdaException',
        `User: ${role.roleArn} is not authorized to perform: lambda:InvokeFunction on resource: ${functionArn} (fleetbench twin, ${state})`,
      );
  }

  /** The results bucket (the stack's only bucket). */
  get bucket(): string {
    return this.physical.get(resourcesOfType(this.asm.template, 'AWS::S3::Bucket')[0]![0])!.ref;
  }

  async keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.clients.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      out.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return out.sort();
  }

  async getJson(key: string): Promise<unknown> {
    const out = await this.clients.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return JSON.parse(await out.Body!.transformToString());
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.clients.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: JSON.stringify(value) }),
    );
  }

  async tables(): Promise<string[]> {
    return (await this.clients.ddb.send(new ListTablesCommand({}))).TableNames ?? [];
  }

  /** The function an EventBridge rule targets and the rule's event pattern (resolved). */
  ruleTarget(ruleIdPrefix: string): { fn: string; pattern: unknown; schedule?: string } {
    const hit = resourcesOfType(this.asm.template, 'AWS::Events::Rule').find(([id]) =>
      id.startsWith(ruleIdPrefix),
    );
    if (!hit) throw new Error(`no rule ${ruleIdPrefix}* in the template`);
    const p = this.resolver.resolve(hit[1].Properties) as {
      Targets: { Arn: string }[];
      EventPattern?: unknown;
      ScheduleExpression?: string;
    };
    return {
      fn: this.functionByArn(p.Targets[0]!.Arn),
      pattern: p.EventPattern,
      ...(p.ScheduleExpression ? { schedule: p.ScheduleExpression } : {}),
    };
  }

  async stop(): Promise<void> {
    await this.ssm?.stopAll();
    await this.cassandra.stop();
    for (const s of this.standIns.values()) s.child.kill('SIGTERM');
    for (const w of this.workers.values()) w.child.kill('SIGKILL');
    await this.gateway.stop().catch(() => undefined);
    await this.keyspaces?.stop();
    await this.memorydb?.stop();
    await this.dax.stop().catch(() => undefined);
    await this.moto.stop();
    await this.ddbLocal.stop();
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

/** The access key the twin gives a role's sessions (the gateway finds the role by it). */
export const accessKeyOf = (roleLogicalId: string) => `TWIN${roleLogicalId}`;
const roleArn = (roleLogicalId: string) => `arn:aws:iam::${ACCOUNT}:role/${roleLogicalId}`;
