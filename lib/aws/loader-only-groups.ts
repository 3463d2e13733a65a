/**
 * The security groups a run creates in front of a managed cluster (of the dynamodb kind's DAX, of other kinds): named after the cluster, tagged
 * with the run at creation, admitting the loaders' group on the cluster's ports and nothing else, with no egress (the
 * nodes only answer; security groups are stateful). Listed by the run tag for teardown and the janitor.
 */
import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  RevokeSecurityGroupEgressCommand,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { TAG_RUN_ID, type Tags } from '../core/common/ports';
import { translate } from './errors';
import { ownedByRun } from '../core/pipeline/ownership';

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
 * Creates the group and its rules; when a rule cannot be set, the group is removed (deleteCreatedGroup: only once
 * the run's tag is read on it) and the rule's error is thrown. Returns the group id.
 */
export async function createLoaderOnlyGroup(ec2: EC2Client, req: LoaderOnlyGroupRequest): Promise<string> {
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
    await deleteCreatedGroup(ec2, id, req).catch(() => undefined);
    throw translate('EC2', `security group rules of ${req.name}`, err);
  }
  return id;
}

/**
 * A failed creation's rollback: the group it created, by its id, deleted only once the request's run tag is read on
 * it (lib/core/pipeline/ownership.ts's rule); without that tag it is left for Teardown, which finds it by the tag.
 */
export async function deleteCreatedGroup(
  ec2: EC2Client,
  id: string,
  req: Pick<LoaderOnlyGroupRequest, 'name' | 'tags'>,
): Promise<void> {
  const found = await ec2
    .send(new DescribeSecurityGroupsCommand({ GroupIds: [id] }))
    .catch((err: unknown) => {
      throw translate('EC2', `DescribeSecurityGroups ${id} (${req.name})`, err);
    });
  const tags = Object.fromEntries(
    (found.SecurityGroups?.[0]?.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']),
  );
  const runId = req.tags[TAG_RUN_ID];
  if (!runId || !ownedByRun(tags, runId)) return;
  await ec2.send(new DeleteSecurityGroupCommand({ GroupId: id })).catch((err: unknown) => {
    throw translate('EC2', `DeleteSecurityGroup ${id} (${req.name})`, err);
  });
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
