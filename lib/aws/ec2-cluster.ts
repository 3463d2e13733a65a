/**
 * DbNodeAdmin on EC2: database nodes launched from the stack's node launch template (IMDSv2,
 * encrypted volumes, no SSH key, the nodes' security group), found again by the run tag and the node
 * roles, terminated by id.
 * - scylla-ec2: the official ScyllaDB AMI (looked up by owner and name for a version, or the given id)
 *   and per-node JSON user data; no instance profile.
 * - cassandra-ec2: the stack's Amazon Linux 2023 image, the bootstrap script as user data, an encrypted
 *   gp3 data volume (/dev/sdf) besides the root volume, and the node instance profile (read the
 *   Cassandra asset, nothing else).
 */
import {
  DescribeImagesCommand,
  EC2Client,
  RunInstancesCommand,
  type EC2ClientConfig,
  type RunInstancesCommandInput,
  type Instance,
} from '@aws-sdk/client-ec2';
import { CASSANDRA_ROOT_VOLUME_GB } from '../core/targets/cassandra-ec2/node';
import { DB_NODE_ROLES, amiQuery, pickImage, type ClusterNode } from '../core/targets/nodes/cluster';
import { CapacityError, type DbNodeAdmin, type NodeLaunchRequest } from '../core/common/ports';
import { isArmInstanceType } from './ec2-fleet';
import { describeRunInstances, instanceTags, terminateInstances, terminateLaunched } from './ec2-instances';
import { translate } from './errors';

export interface Ec2ClusterOptions {
  /** The node launch template (security group, IMDSv2, encrypted volumes, no key). */
  launchTemplateId: string;
  /** Private subnets (one per AZ); node i goes to subnet i mod n. */
  subnetIds: string[];
  /** AMI owners for version lookups. @default SCYLLA_AMI_OWNERS (ScyllaDB's accounts) */
  amiOwners?: string[];
  /** Device name of the AMI's root volume, for `ebsGb`. @default /dev/sda1 (ScyllaDB's Ubuntu images) */
  rootDeviceName?: string;
  /** cassandra-ec2 nodes: the stack's Amazon Linux 2023 image per architecture, the asset, the node profile. */
  cassandra?: {
    images: { x86_64: string; arm64: string };
    /** `s3://bucket/key` of the Cassandra archive (the bootstrap script's FB_ASSET). */
    asset: string;
    instanceProfileArn: string;
  };
}

/** Device name of a cassandra-ec2 node's data volume (the bootstrap script mounts it). */
export const CASSANDRA_DATA_DEVICE = '/dev/sdf';

export class Ec2ClusterAdmin implements DbNodeAdmin {
  readonly client: EC2Client;
  private readonly images = new Map<string, string>();

  constructor(
    private readonly options: Ec2ClusterOptions,
    clientOrConfig: EC2Client | EC2ClientConfig = {},
  ) {
    this.client = clientOrConfig instanceof EC2Client ? clientOrConfig : new EC2Client(clientOrConfig);
  }

  get cassandraAsset(): string | undefined {
    return this.options.cassandra?.asset;
  }

  /** The AMI id for a request: the given one, the stack's Amazon Linux 2023, or the newest official ScyllaDB image of the version. */
  async resolveImage(req: Pick<NodeLaunchRequest, 'ami' | 'instanceType' | 'targetId'>): Promise<string> {
    const arch = isArmInstanceType(req.instanceType) ? 'arm64' : 'x86_64';
    if ('amazonLinux2023' in req.ami) {
      if (!this.options.cassandra) {
        throw new CapacityError(
          `target ${req.targetId}: this stack launches no Cassandra nodes (no Amazon Linux 2023 image configured)`,
        );
      }
      return this.options.cassandra.images[arch];
    }
    const q = amiQuery({ ami: req.ami } as never, arch);
    if ('imageId' in q) return q.imageId;
    const key = `${q.version}/${arch}`;
    const cached = this.images.get(key);
    if (cached) return cached;
    let images;
    try {
      images = await this.client.send(
        new DescribeImagesCommand({
          Owners: this.options.amiOwners ?? q.owners,
          Filters: [
            { Name: 'name', Values: q.namePatterns },
            { Name: 'architecture', Values: [q.architecture] },
            { Name: 'state', Values: ['available'] },
          ],
        }),
      );
    } catch (err) {
      throw translate('EC2', 'DescribeImages', err);
    }
    const best = pickImage(
      (images.Images ?? []).map((i) => ({
        imageId: i.ImageId ?? '',
        name: i.Name ?? '',
        creationDate: i.CreationDate ?? '',
      })),
      q.version,
    );
    if (!best) {
      throw new CapacityError(
        `EC2 DescribeImages: no ScyllaDB ${q.version} image for ${arch} from owners ${(this.options.amiOwners ?? q.owners).join(', ')} ` +
          `(target ${req.targetId}: give "ami": {"id": "ami-..."} or another scyllaVersion)`,
      );
    }
    this.images.set(key, best.imageId);
    return best.imageId;
  }

  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    const imageId = await this.resolveImage(req);
    const subnets = this.options.subnetIds.length ? this.options.subnetIds : [undefined];
    const volumesAndProfile = this.volumesAndProfile(req); // the same for every node of the request
    const launched: ClusterNode[] = [];
    try {
      for (const n of req.nodes) {
        const subnet = subnets[n.index % subnets.length];
        const tags = { ...n.tags, Name: `fleetbench-${req.targetId}-${n.index}-${req.runId}`.slice(0, 255) };
        const out = await this.client.send(
          new RunInstancesCommand({
            MinCount: 1,
            MaxCount: 1,
            ImageId: imageId,
            InstanceType: req.instanceType as never,
            LaunchTemplate: { LaunchTemplateId: this.options.launchTemplateId, Version: '$Latest' },
            UserData: n.userData,
            ...(subnet ? { SubnetId: subnet } : {}),
            ...volumesAndProfile,
            TagSpecifications: (['instance', 'volume'] as const).map((ResourceType) => ({
              ResourceType,
              Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
            })),
          }),
        );
        launched.push(...(out.Instances ?? []).map(toNode));
      }
    } catch (err) {
      // all or nothing, as the loaders: what this call launched is terminated again, once its run tag is read on
      // it (ec2-instances.ts terminateLaunched); what is not found with it yet is left to Teardown (by the tag)
      if (launched.length)
        await terminateLaunched(
          this.client,
          req.runId,
          launched.map((n) => n.id),
        );
      throw translate('EC2', 'RunInstances', err);
    }
    return launched;
  }

  /**
   * What every node of a request is launched with besides the template, once per request: a Cassandra
   * node's volumes (root + data, both encrypted gp3) and instance profile; a ScyllaDB node's root volume
   * when the spec gives `ebsGb`; else nothing.
   */
  private volumesAndProfile(
    req: NodeLaunchRequest,
  ): Pick<RunInstancesCommandInput, 'IamInstanceProfile' | 'BlockDeviceMappings'> {
    const ebs = (VolumeSize: number) => ({
      VolumeSize,
      VolumeType: 'gp3' as const,
      Encrypted: true,
      DeleteOnTermination: true,
    });
    if (req.software !== 'apache-cassandra')
      return req.ebsGb
        ? {
            BlockDeviceMappings: [
              { DeviceName: this.options.rootDeviceName ?? '/dev/sda1', Ebs: ebs(req.ebsGb) },
            ],
          }
        : {};
    const c = this.options.cassandra;
    if (!c) throw new CapacityError(`target ${req.targetId}: this stack launches no Cassandra nodes`);
    return {
      IamInstanceProfile: { Arn: c.instanceProfileArn },
      BlockDeviceMappings: [
        { DeviceName: '/dev/xvda', Ebs: ebs(CASSANDRA_ROOT_VOLUME_GB) },
        { DeviceName: CASSANDRA_DATA_DEVICE, Ebs: ebs(req.dataVolumeGb ?? 500) },
      ],
    };
  }

  async list(filter: { runId?: string }): Promise<ClusterNode[]> {
    return (await describeRunInstances(this.client, DB_NODE_ROLES, filter.runId)).map(toNode);
  }

  terminate(ids: string[]): Promise<void> {
    return terminateInstances(this.client, ids);
  }
}

function toNode(i: Instance): ClusterNode {
  return {
    id: i.InstanceId!,
    state: i.State?.Name ?? 'unknown',
    ...(i.PrivateIpAddress ? { privateIp: i.PrivateIpAddress } : {}),
    tags: instanceTags(i),
  };
}
