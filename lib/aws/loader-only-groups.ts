/**
 * The security groups a run creates in front of a managed cluster (of the dynamodb kind's DAX, of other kinds): named after the cluster, tagged
 * with the run at creation, admitting the loaders' group on the cluster's ports and nothing else, with no egress (the
 * nodes only answer; security groups are stateful). Listed by the run tag for teardown and the janitor.
 */
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  RevokeSecurityGroupEgressCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { TAG_RUN_ID, type Tags } from '../core/common/ports';
import { translate } from './errors';

export interface LoaderOnlyGroupRequest {
  /** the group's name: the cluster's */
  name: string;
  description: string;
  vpcId: string;
  loaderSecurityGroupId: string;
  /** TCP ports the loaders reach the cluster on */
  ports: readonly number[];
  /** the run's tags, set at creation */
  tags: Tags;
}

/**
 * Creates the group and its rules; when a rule cannot be set, `rollback` removes the group (by the adapter's own
 * rule) and the rule's error is thrown. Returns the group id.
 */
export async function createLoaderOnlyGroup(
  ec2: EC2Client,
  req: LoaderOnlyGroupRequest,
  rollback: (groupId: string) => Promise<unknown>,
): Promise<string> {
  const created = await ec2
    .send(
      new CreateSecurityGroupCommand({
        GroupName: req.name,
        Description: req.description,
        VpcId: req.vpcId,
        TagSpecifications: [
          {
            ResourceType: 'security-group',
            Tags: Object.entries(req.tags).map(([Key, Value]) => ({ Key, Value })),
          },
        ],
      }),
    )
    .catch((err: unknown) => {
      throw translate('EC2', `CreateSecurityGroup ${req.name}`, err);
    });
  const id = created.GroupId!;
  try {
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: id,
        IpPermissions: req.ports.map((port) => ({
          IpProtocol: 'tcp',
          FromPort: port,
          ToPort: port,
          UserIdGroupPairs: [{ GroupId: req.loaderSecurityGroupId, Description: 'fleetbench loaders' }],
        })),
      }),
    );
    await ec2.send(
      new RevokeSecurityGroupEgressCommand({
        GroupId: id,
        IpPermissions: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
      }),
    );
  } catch (err) {
    await rollback(id).catch(() => undefined);
    throw translate('EC2', `security group rules of ${req.name}`, err);
  }
  return id;
}

/**
 * The groups carrying a run tag (`runId`'s, or any run's) whose names match `names` (the kind's cluster names: the
 * run's other groups are not per cluster), with their tags.
 */
export async function listRunGroups(
  ec2: EC2Client,
  names: RegExp,
  filter: { runId?: string },
): Promise<{ name: string; tags: Tags }[]> {
  const out: { name: string; tags: Tags }[] = [];
  let token: string | undefined;
  do {
    const page = await ec2
      .send(
        new DescribeSecurityGroupsCommand({
          Filters: [
            filter.runId !== undefined
              ? { Name: `tag:${TAG_RUN_ID}`, Values: [filter.runId] }
              : { Name: 'tag-key', Values: [TAG_RUN_ID] },
          ],
          NextToken: token,
        }),
      )
      .catch((err: unknown) => {
        throw translate('EC2', 'DescribeSecurityGroups', err);
      });
    for (const g of page.SecurityGroups ?? []) {
      if (!g.GroupName || !names.test(g.GroupName)) continue;
      const tags: Tags = {};
      for (const t of g.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
      out.push({ name: g.GroupName, tags });
    }
    token = page.NextToken;
  } while (token);
  return out;
}
