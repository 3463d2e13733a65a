/**
 * DAX in the pipeline (dynamodb targets with `dax`): which clusters a run has (Plan), their creation
 * (ProvisionTarget), their readiness (WaitReady), the binding's `dynamodb.daxEndpoint` (StartLoad/StartCell ask
 * DAX for the cluster's discovery endpoint: it is known only once the cluster runs, and one DescribeClusters per
 * phase is the single place it comes from), and their removal (Teardown, the Janitor).
 *
 * Removal is two-step because DAX deletes a cluster in minutes: Teardown starts DeleteCluster and tries
 * deleteSupporting at once (it succeeds when the cluster is already gone); groups it could not delete yet stay
 * tagged with the run and its expires-at, and the Janitor deletes them (listSupporting → deleteSupporting) once
 * they have expired and their cluster is gone. Security, subnet and parameter groups cost nothing meanwhile.
 */
import { daxClusterShape } from './dax';
import { ConflictError, StepFailedError, TAG_RUN_ID, type DaxAdmin, type Tags } from '../../common/ports';
import type { DynamoDbTarget } from '../../spec/schema';
import type { RunContext } from '../../pipeline/run-context';
import { ownedByRun, removeOwned } from '../../pipeline/ownership';
import { entriesOf, entryOf } from '../../resources/run-resource';
import { DAX_ENTRY } from './entries';
import type { RemovalScope } from '../../resources/resource-type';

function needDax(step: string, dax: DaxAdmin | undefined): DaxAdmin {
  if (!dax) throw new StepFailedError(step, 'the run has a DAX cluster and no DAX port is configured');
  return dax;
}

/**
 * ProvisionTarget: creates the DAX cluster (with its groups) in front of a target, in the stack's network.
 * Idempotent: a cluster of that name that carries this run's tag is this run's (a retry); another one fails the step.
 */
export async function provisionDax(
  run: RunContext,
  target: DynamoDbTarget,
  tags: Tags,
  daxIn: DaxAdmin | undefined,
): Promise<string | null> {
  const c = entryOf(run, DAX_ENTRY, target.id);
  if (!c || !target.dax) return null;
  const dax = needDax('ProvisionTarget', daxIn);
  // the adapter creates in its own network: the step only checks that it has one
  if (!dax.network)
    throw new StepFailedError(
      'ProvisionTarget',
      'the DAX port has no network (VPC, subnets, loader security group, DAX role): the stack sets them',
    );
  try {
    await dax.createCluster({ name: c.name, ...daxClusterShape(target.dax), tags });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const mine = (await dax.listClusters({ runId: run.runId })).some((x) => x.name === c.name);
    if (!mine)
      throw new StepFailedError(
        'ProvisionTarget',
        `DAX cluster ${c.name} already exists and is not this run's`,
      );
  }
  return c.name;
}

/** WaitReady: what keeps the DAX cluster in front of a target from being ready (empty: `available` with an endpoint). */
export async function daxNotReady(
  run: RunContext,
  targetId: string,
  daxIn: DaxAdmin | undefined,
): Promise<string[]> {
  const c = entryOf(run, DAX_ENTRY, targetId);
  if (!c) return [];
  const s = await needDax('WaitReady', daxIn).describeCluster(c.name);
  if (s.status === 'MISSING')
    throw new StepFailedError('WaitReady', `DAX cluster ${c.name} of ${c.targetId} does not exist`);
  if (s.status !== 'available' || !s.endpoint)
    return [`DAX cluster ${c.name} of ${c.targetId} is ${s.status}${s.endpoint ? '' : ' (no endpoint yet)'}`];
  return [];
}

/** StartLoad/StartCell: `dynamodb.daxEndpoint` of the DAX cluster in front of a target, from the running cluster. */
export async function daxEndpoint(
  run: RunContext,
  targetId: string,
  step: 'StartLoad' | 'StartCell',
  daxIn: DaxAdmin | undefined,
): Promise<Record<string, string>> {
  const c = entryOf(run, DAX_ENTRY, targetId);
  if (!c) return {};
  const s = await needDax(step, daxIn).describeCluster(c.name);
  // without the endpoint the binding would talk to DynamoDB directly: never run a DAX target that way
  if (s.status !== 'available' || !s.endpoint)
    throw new StepFailedError(step, `DAX cluster ${c.name} of ${c.targetId} is ${s.status}, not available`);
  return { 'dynamodb.daxEndpoint': s.endpoint };
}

export interface DaxTeardown {
  /** Clusters whose deletion was started. */
  deletedDaxClusters: string[];
  /** Names whose clusters were still deleting: their groups are left to the Janitor. */
  pendingDaxGroups: string[];
  /**
   * Clusters DAX did not start deleting (still `creating` or `modifying` after DeleteCluster): Teardown reports
   * them as an error (it is retried), and the Janitor deletes them after the run's expiry.
   */
  stuckDaxClusters: string[];
  /** Clusters of the run's names that do not carry the run's tag: another's, left alone. */
  keptDaxClusters: string[];
}

/**
 * Teardown: deletes the run's DAX clusters (found by the run tag, and by the context's names), each only when its
 * own tag, read right before, is this run's (lib/core/pipeline/ownership.ts), then their groups where the cluster
 * is already gone. Groups are the run's when their security group carries the run's tag (DAX does not tag subnet
 * and parameter groups); a cluster or group of that name that is not the run's is kept.
 */
export async function removeRunDax(
  runId: string,
  run: RunContext | null,
  dax: DaxAdmin,
  scope?: RemovalScope,
): Promise<DaxTeardown> {
  const names = new Set<string>(entriesOf(run, DAX_ENTRY).map((c) => c.name));
  // one target's teardown: the context's clusters (its own); the run's Teardown sweeps by the run tag
  if (!scope) for (const c of await dax.listClusters({ runId })) names.add(c.name);
  const groups = new Set(
    (await dax.listSupporting({ runId })).filter((g) => ownedByRun(g.tags, runId)).map((g) => g.name),
  );
  const pendingDaxGroups: string[] = [];
  const stuckDaxClusters: string[] = [];
  const handled = new Set<string>();
  const deleteGroups = async (name: string) => {
    if (groups.has(name) && !(await dax.deleteSupporting(name, runId))) pendingDaxGroups.push(name);
  };
  const clusters = await removeOwned(runId, 'DAX cluster', names, {
    tags: (name) => dax.clusterTags(name),
    remove: async (name) => {
      handled.add(name);
      if (!(await dax.deleteCluster(name))) {
        await deleteGroups(name); // gone meanwhile
        return false;
      }
      const s = await dax.describeCluster(name);
      if (s.status !== 'deleting' && s.status !== 'MISSING') stuckDaxClusters.push(`${name} (${s.status})`);
      // the groups can go only once the cluster is gone: the status just read says whether it is
      if (s.status !== 'MISSING') pendingDaxGroups.push(name);
      else await deleteGroups(name);
      return s.status === 'deleting' || s.status === 'MISSING';
    },
  });
  if (clusters.errors.length) throw new Error(clusters.errors.join('; '));
  // groups of the run whose cluster is gone (an earlier pass deleted it, or its create failed)
  if (!scope) for (const name of groups) if (!handled.has(name)) await deleteGroups(name);
  return {
    deletedDaxClusters: clusters.removed,
    pendingDaxGroups,
    stuckDaxClusters,
    keptDaxClusters: clusters.kept,
  };
}

/**
 * Janitor: deletes expired DAX clusters of any run, and the expired supporting groups whose cluster is gone
 * (deleteSupporting refuses while the cluster exists: such groups are tried again on the next pass).
 */
export async function sweepExpiredDax(
  dax: DaxAdmin,
  expired: (tags: Tags) => boolean,
): Promise<{ deletedDaxClusters: string[]; deletedDaxGroups: string[] }> {
  const deletedDaxClusters: string[] = [];
  for (const c of await dax.listClusters({})) {
    if (!c.tags[TAG_RUN_ID] || !expired(c.tags) || c.status === 'deleting') continue;
    if (await dax.deleteCluster(c.name)) deletedDaxClusters.push(c.name);
  }
  const deletedDaxGroups: string[] = [];
  for (const g of await dax.listSupporting({})) {
    if (!expired(g.tags)) continue;
    if (await dax.deleteSupporting(g.name)) deletedDaxGroups.push(g.name);
  }
  return { deletedDaxClusters, deletedDaxGroups };
}
