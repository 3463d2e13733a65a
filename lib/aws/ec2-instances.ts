/**
 * What the loader fleet and the database nodes share on EC2: finding a run's instances by tags
 * (paginated, live states only), terminating them (idempotently, 500 ids per call), and a launch's rollback,
 * which terminates the ids it launched only after reading the run's tag on them (./ownership.ts's rule).
 */
import {
  DescribeInstancesCommand,
  TerminateInstancesCommand,
  type EC2Client,
  type Filter,
  type Instance,
} from '@aws-sdk/client-ec2';
import { TAG_ROLE, TAG_RUN_ID } from '../core/common/ports';
import { ownedInstanceIds } from '../core/pipeline/ownership';
import { errorName, translate } from './errors';

/** Instances of `role` carrying the run tag (of `runId`, or of any run), not yet terminated. */
export async function describeRunInstances(
  client: EC2Client,
  role: string | string[],
  runId: string | undefined,
): Promise<Instance[]> {
  const filters: Filter[] = [
    { Name: 'instance-state-name', Values: ['pending', 'running', 'stopping', 'stopped', 'shutting-down'] },
    { Name: `tag:${TAG_ROLE}`, Values: Array.isArray(role) ? role : [role] },
    runId ? { Name: `tag:${TAG_RUN_ID}`, Values: [runId] } : { Name: 'tag-key', Values: [TAG_RUN_ID] },
  ];
  const out: Instance[] = [];
  let token: string | undefined;
  try {
    do {
      const page = await client.send(new DescribeInstancesCommand({ Filters: filters, NextToken: token }));
      for (const r of page.Reservations ?? []) out.push(...(r.Instances ?? []));
      token = page.NextToken;
    } while (token);
  } catch (err) {
    throw translate('EC2', 'DescribeInstances', err);
  }
  return out;
}

export function instanceTags(i: Instance): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const t of i.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
  return tags;
}

/** Terminates the instances; already terminated or unknown ids are not an error. */
export async function terminateInstances(client: EC2Client, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    try {
      await client.send(new TerminateInstancesCommand({ InstanceIds: ids.slice(i, i + 500) }));
    } catch (err) {
      if (errorName(err) === 'InvalidInstanceID.NotFound') continue;
      throw translate('EC2', 'TerminateInstances', err);
    }
  }
}

/**
 * A launch's rollback: terminates those of `ids` (just launched, tagged at creation) whose own run tag, read
 * now, is `runId`. Returns the ids left: not found yet (DescribeInstances is eventually consistent) or not
 * this run's. Those stay for Teardown, which finds the run's instances by its tag.
 */
export async function terminateLaunched(client: EC2Client, runId: string, ids: string[]): Promise<string[]> {
  const seen: { id: string; state: string; tags: Record<string, string> }[] = [];
  try {
    for (let i = 0; i < ids.length; i += 200) {
      let token: string | undefined;
      do {
        const page = await client.send(
          new DescribeInstancesCommand({
            Filters: [{ Name: 'instance-id', Values: ids.slice(i, i + 200) }],
            NextToken: token,
          }),
        );
        for (const r of page.Reservations ?? [])
          for (const x of r.Instances ?? [])
            seen.push({ id: x.InstanceId!, state: x.State?.Name ?? 'unknown', tags: instanceTags(x) });
        token = page.NextToken;
      } while (token);
    }
  } catch (err) {
    throw translate('EC2', 'DescribeInstances', err);
  }
  const owned = ownedInstanceIds(runId, seen);
  await terminateInstances(client, owned);
  return ids.filter((id) => !owned.includes(id));
}
