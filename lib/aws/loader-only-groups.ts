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
import { NotOwnedError, TAG_RUN_ID, type Tags } from '../core/common/ports';
import { errorName, translate } from './errors';
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

/** The group createLoaderOnlyGroup leaves: its id, and whether it was an earlier attempt's (adopted). */
export interface LoaderOnlyGroup {
  id: string;
  /** It existed already, carrying the request's run tag (an earlier attempt of the same run made it). */
  adopted: boolean;
}

/**
 * Creates the group and its rules; when a rule cannot be set, the group is removed (deleteCreatedGroup: only once
 * the run's tag is read on it) and the rule's error is thrown. A group of that name already in the VPC
 * (InvalidGroup.Duplicate) is adopted only when it carries the request's run tag (a retried step whose first
 * attempt died part-way): its rules are set again as on a fresh group. Without that tag: NotOwnedError naming
 * it, and it is left as it is.
 */
export async function createLoaderOnlyGroup(
  ec2: EC2Client,
  req: LoaderOnlyGroupRequest,
): Promise<LoaderOnlyGroup> {
  let group: LoaderOnlyGroup;
  try {
    const created = await ec2.send(
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
    );
    group = { id: created.GroupId!, adopted: false };
  } catch (err) {
    if (errorName(err) !== 'InvalidGroup.Duplicate')
      throw translate('EC2', `CreateSecurityGroup ${req.name}`, err);
    group = { id: await runGroupId(ec2, req, err), adopted: true };
  }
  try {
    await authorizeLoaders(ec2, group.id, req);
    // a fresh group's one egress rule (all traffic out); an adopted group may have lost it already
    await tolerate('InvalidPermission.NotFound', () =>
      ec2.send(
        new RevokeSecurityGroupEgressCommand({
          GroupId: group.id,
          IpPermissions: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
        }),
      ),
    );
  } catch (err) {
    await deleteCreatedGroup(ec2, group.id, req).catch(() => undefined);
    throw translate('EC2', `security group rules of ${req.name}`, err);
  }
  return group;
}

/**
 * The loaders on each port. An adopted group may hold some of the rules already: EC2 refuses a request naming a
 * rule that exists (InvalidPermission.Duplicate), so then each port is authorized on its own, its duplicate
 * tolerated.
 */
async function authorizeLoaders(ec2: EC2Client, id: string, req: LoaderOnlyGroupRequest): Promise<void> {
  const authorize = (ports: readonly number[]) =>
    ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: id,
        IpPermissions: ports.map((port) => ({
          IpProtocol: 'tcp',
          FromPort: port,
          ToPort: port,
          UserIdGroupPairs: [{ GroupId: req.loaderSecurityGroupId, Description: 'fleetbench loaders' }],
        })),
      }),
    );
  try {
    await authorize(req.ports);
  } catch (err) {
    if (errorName(err) !== 'InvalidPermission.Duplicate') throw err;
    for (const port of req.ports) await tolerate('InvalidPermission.Duplicate', () => authorize([port]));
  }
}

async function tolerate(code: string, f: () => Promise<unknown>): Promise<void> {
  try {
    await f();
  } catch (err) {
    if (errorName(err) !== code) throw err;
  }
}

/**
 * The id of the group of the request's name in its VPC, when it carries the request's run tag; otherwise
 * NotOwnedError naming the group (nothing is changed on it). `duplicate` is CreateSecurityGroup's refusal.
 */
async function runGroupId(ec2: EC2Client, req: LoaderOnlyGroupRequest, duplicate: unknown): Promise<string> {
  const found = await ec2
    .send(
      new DescribeSecurityGroupsCommand({
        Filters: [
          { Name: 'group-name', Values: [req.name] },
          { Name: 'vpc-id', Values: [req.vpcId] },
        ],
      }),
    )
    .catch((err: unknown) => {
      throw translate('EC2', `DescribeSecurityGroups ${req.name}`, err);
    });
  const g = found.SecurityGroups?.[0];
  if (!g?.GroupId) throw translate('EC2', `CreateSecurityGroup ${req.name}`, duplicate);
  const tags = Object.fromEntries((g.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
  const runId = req.tags[TAG_RUN_ID];
  if (!runId || !ownedByRun(tags, runId))
    throw new NotOwnedError(
      `security group ${req.name} (${g.GroupId}) already exists in ${req.vpcId} without this run's tag ` +
        `(${TAG_RUN_ID}=${runId ?? ''}): not adopted, left as it is`,
    );
  return g.GroupId;
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
