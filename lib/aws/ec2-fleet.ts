/** FleetAdmin on EC2: RunInstances from the stack's launch template, found again by the run tag. */
import {
  DescribeInstancesCommand,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
  type EC2ClientConfig,
  type Filter,
} from '@aws-sdk/client-ec2';
import {
  CapacityError,
  TAG_RUN_ID,
  type FleetAdmin,
  type LaunchRequest,
  type LoaderInstance,
} from '../core/ports';
import { errorName, translate } from './errors';

/** Graviton instance types (c7g.large, m6gd.xlarge, t4g.small, c7gn.2xlarge, ...) need the arm64 template. */
export function isArmInstanceType(instanceType: string): boolean {
  return /^[a-z]+\d+[a-z]*g[a-z]*\./.test(instanceType) && !/^g\d/.test(instanceType);
}

export interface Ec2FleetOptions {
  /** Launch template for x86_64 instance types. */
  launchTemplateId: string;
  /** Launch template for arm64 (Graviton) instance types; without it they are refused. */
  launchTemplateIdArm?: string;
  /** Private subnets; instances are spread over them round-robin (one RunInstances per subnet). */
  subnetIds: string[];
}

export class Ec2FleetAdmin implements FleetAdmin {
  readonly client: EC2Client;
  constructor(
    private readonly options: Ec2FleetOptions,
    clientOrConfig: EC2Client | EC2ClientConfig = {},
  ) {
    this.client = clientOrConfig instanceof EC2Client ? clientOrConfig : new EC2Client(clientOrConfig);
  }

  async launch(req: LaunchRequest): Promise<string[]> {
    const subnets = this.options.subnetIds.length ? this.options.subnetIds : [undefined];
    const per = subnets.map(
      (_, i) => Math.floor(req.count / subnets.length) + (i < req.count % subnets.length ? 1 : 0),
    );
    const arm = isArmInstanceType(req.instanceType);
    const templateId = arm ? this.options.launchTemplateIdArm : this.options.launchTemplateId;
    if (!templateId)
      throw new CapacityError(
        `EC2 no launch template for ${arm ? 'arm64' : 'x86_64'} instance type ${req.instanceType}`,
      );
    const ids: string[] = [];
    try {
      for (let i = 0; i < subnets.length; i++) {
        if (per[i] === 0) continue;
        const out = await this.client.send(
          new RunInstancesCommand({
            MinCount: per[i],
            MaxCount: per[i],
            InstanceType: req.instanceType as never,
            LaunchTemplate: { LaunchTemplateId: templateId, Version: '$Latest' },
            ...(subnets[i] ? { SubnetId: subnets[i] } : {}),
            TagSpecifications: (['instance', 'volume'] as const).map((ResourceType) => ({
              ResourceType,
              Tags: Object.entries({ ...req.tags, Name: `fleetbench-loader-${req.runId}` }).map(
                ([Key, Value]) => ({
                  Key,
                  Value,
                }),
              ),
            })),
          }),
        );
        ids.push(...(out.Instances ?? []).map((x) => x.InstanceId!));
      }
    } catch (err) {
      // all or nothing: what was launched before the refusal is terminated again
      if (ids.length) await this.terminate(ids);
      throw translate('EC2', 'RunInstances', err);
    }
    return ids;
  }

  async list(filter: { runId?: string }): Promise<LoaderInstance[]> {
    const filters: Filter[] = [
      { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
      filter.runId
        ? { Name: `tag:${TAG_RUN_ID}`, Values: [filter.runId] }
        : { Name: 'tag-key', Values: [TAG_RUN_ID] },
    ];
    const out: LoaderInstance[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new DescribeInstancesCommand({ Filters: filters, NextToken: token }),
        );
        for (const r of page.Reservations ?? []) {
          for (const i of r.Instances ?? []) {
            const tags: Record<string, string> = {};
            for (const t of i.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
            out.push({ id: i.InstanceId!, state: i.State?.Name ?? 'unknown', tags });
          }
        }
        token = page.NextToken;
      } while (token);
    } catch (err) {
      throw translate('EC2', 'DescribeInstances', err);
    }
    return out;
  }

  async terminate(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      try {
        await this.client.send(new TerminateInstancesCommand({ InstanceIds: ids.slice(i, i + 500) }));
      } catch (err) {
        if (errorName(err) === 'InvalidInstanceID.NotFound') continue;
        throw translate('EC2', 'TerminateInstances', err);
      }
    }
  }
}
