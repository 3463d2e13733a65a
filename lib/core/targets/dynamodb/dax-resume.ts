/**
 * A resume's check of the DAX clusters it makes again (lib/core/pipeline/resume.ts): DeleteCluster only begins
 * deleting a cluster (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_dax_DeleteCluster.html), which
 * stays `deleting` for minutes, so the failed execution's teardown may have left one `deleting`, with its subnet,
 * parameter and security groups pending (./dax-lifecycle.ts). The resume reuses the names: it waits for the cluster to be gone, then deletes the
 * groups teardown left (DaxAdmin.deleteSupporting, only those whose security group carries the run's tag).
 */
import type { DaxAdmin } from '../../common/ports';
import type { RunContext } from '../../pipeline/run-context';
import { entriesOf } from '../../resources/run-resource';
import { clusterResumeBlockers } from '../../resources/resource-type';
import { DAX_ENTRY } from './entries';

/** What keeps the run's DAX clusters (`run`: those to make again) from being created again; empty: nothing. */
export function daxResumeBlockers(runId: string, run: RunContext, dax: DaxAdmin): Promise<string[]> {
  return clusterResumeBlockers({
    service: 'DAX',
    pieces: 'the subnet, parameter and security groups',
    clusters: entriesOf(run, DAX_ENTRY),
    describe: (name) => dax.describeCluster(name),
    // deletes only the groups whose security group carries the run's tag
    deletePieces: (name) => dax.deleteSupporting(name, runId),
  });
}
