/**
 * A resume's check of the MemoryDB clusters it makes again (lib/core/pipeline/resume.ts): MemoryDB takes minutes to
 * delete a cluster (its status stays `deleting` meanwhile,
 * https://docs.aws.amazon.com/memorydb/latest/devguide/clusters.delete.html), so the failed execution's teardown may
 * have left one `deleting`, with its ACL, user, subnet group and security group pending (./resources.ts). The resume
 * reuses the names: it waits for the cluster to be gone, then deletes the pieces teardown left (only those whose
 * security group carries the run's tag, as teardown does).
 */
import type { RunContext } from '../../pipeline/run-context';
import { ownedByRun } from '../../pipeline/ownership';
import { entriesOf } from '../../resources/run-resource';
import { clusterNotGone, piecesNotGone } from '../../resources/resource-type';
import { MEMORYDB_CLUSTER_ENTRY } from './entries';
import type { MemoryDbAdmin } from './port';

/** What keeps the run's MemoryDB clusters (`run`: those to make again) from being created again; empty: nothing. */
export async function memoryDbResumeBlockers(
  runId: string,
  run: RunContext,
  admin: MemoryDbAdmin,
): Promise<string[]> {
  const out: string[] = [];
  const gone: { name: string; what: string }[] = [];
  for (const c of entriesOf(run, MEMORYDB_CLUSTER_ENTRY)) {
    const what = `MemoryDB cluster ${c.name} of target ${c.targetId}`;
    const s = await admin.describeCluster(c.name);
    if (s.status === 'MISSING') gone.push({ name: c.name, what });
    else out.push(clusterNotGone(what, s.status, 'MemoryDB'));
  }
  if (!gone.length) return out;
  const pieces = new Set(
    (await admin.listSupporting({ runId })).filter((g) => ownedByRun(g.tags, runId)).map((g) => g.name),
  );
  for (const { name, what } of gone.filter((g) => pieces.has(g.name))) {
    try {
      if (!(await admin.deleteSupporting(name))) out.push(clusterNotGone(what, 'created again', 'MemoryDB'));
    } catch (err) {
      out.push(
        piecesNotGone(`the ACL, user, subnet group and security group of ${what}`, (err as Error).message),
      );
    }
  }
  return out;
}
