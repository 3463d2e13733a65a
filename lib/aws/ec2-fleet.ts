/** FleetAdmin on EC2: RunInstances from the stack's launch template, found again by the run and loader role tags. */
import { EC2Client, RunInstancesCommand, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import {
  CapacityError,
  LOADER_ROLE,
  type FleetAdmin,
  type LaunchRequest,
  type LoaderInstance,
} from '../core/common/ports';
import { describeRunInstances, instanceTags, terminateInstances, terminateLaunched } from './ec2-instances';
import { translate } from './errors';

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
        `EC2 no launch template for ${arm ? 'arm64' : 'x86_64'} instance type ${req.instanceType} ` +
          `(${arm ? 'LAUNCH_TEMPLATE_ID_ARM' : 'LAUNCH_TEMPLATE_ID'} is not set on this function)`,
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
      // all or nothing: what was launched before the refusal is terminated again (once its run tag is read on
      // it: ec2-instances.ts terminateLaunched); the refusal stays
      // the error (a failed rollback is added to it, teardown terminates by the run tag later)
      const refused = translate('EC2', 'RunInstances', err);
      if (ids.length) {
        try {
          const left = await terminateLaunched(this.client, req.runId, ids);
          if (left.length)
            refused.message += `; ${left.join(', ')} launched before it not terminated (not found with the run's tag yet: teardown terminates them by the tag)`;
        } catch (rollback) {
          refused.message += `; terminating the ${ids.length} launched before it (${ids.join(', ')}) failed: ${(rollback as Error).message}`;
        }
      }
      throw refused;
    }
    return ids;
  }

  /** The run's loaders only (role tag): database nodes of the same run carry the run tag too. */
  async list(filter: { runId?: string }): Promise<LoaderInstance[]> {
    return (await describeRunInstances(this.client, LOADER_ROLE, filter.runId)).map((i) => ({
      id: i.InstanceId!,
      state: i.State?.Name ?? 'unknown',
      tags: instanceTags(i),
    }));
  }

  terminate(ids: string[]): Promise<void> {
    return terminateInstances(this.client, ids);
  }
}
