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
import { clusterResumeBlockers } from '../../resources/resource-type';
import { MEMORYDB_CLUSTER_ENTRY } from './entries';
import type { MemoryDbAdmin } from './port';

/** What keeps the run's MemoryDB clusters (`run`: those to make again) from being created again; empty: nothing. */
export function memoryDbResumeBlockers(
  runId: string,
  run: RunContext,
  admin: MemoryDbAdmin,
): Promise<string[]> {
  // the pieces carrying the run's tag, listed once (by their security group, as teardown finds them)
  let owned: Promise<Set<string>> | undefined;
  const ownedPieces = () =>
    (owned ??= admin
      .listSupporting({ runId })
      .then((l) => new Set(l.filter((g) => ownedByRun(g.tags, runId)).map((g) => g.name))));
  return clusterResumeBlockers({
    service: 'MemoryDB',
    pieces: 'the ACL, user, subnet group and security group',
    clusters: entriesOf(run, MEMORYDB_CLUSTER_ENTRY),
    describe: (name) => admin.describeCluster(name),
    // none of the run's left: nothing to delete
    deletePieces: async (name) => !(await ownedPieces()).has(name) || admin.deleteSupporting(name),
  });
}
