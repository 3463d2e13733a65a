/**
 * DAX clusters in front of the run's dynamodb targets, with their subnet, parameter and security groups, as a
 * resource type (lib/core/resources). Deleting a cluster takes minutes: its groups are left pending for the
 * Janitor when the cluster is still deleting.
 */
import { sweepExpiredDax, removeRunDax } from './dax-lifecycle';
import type { ResourceType } from '../../resources/resource-type';
import { entriesOf } from '../../resources/run-resource';
import { DAX_ENTRY } from './entries';
import { daxResumeBlockers } from './dax-resume';

export const DAX_CLUSTERS: ResourceType = {
  id: DAX_ENTRY.shape.type.value,
  order: 30,
  service: 'DAX',
  noun: 'DAX cluster',
  verb: 'started deleting',
  activity: 'deleting DAX clusters',
  record: { removed: 'deletedDaxClusters', kept: 'keptDaxClusters', pending: 'pendingDaxGroups' },
  swept: ['deletedDaxClusters', 'deletedDaxGroups'],
  available: (ports) => ports.dax !== undefined,
  mayExist: (run) => !run || entriesOf(run, DAX_ENTRY).length > 0,
  namedIn: (run) => entriesOf(run, DAX_ENTRY).map((c) => c.name),
  async removeForRun(runId, run, { dax }, scope) {
    const r = await removeRunDax(runId, run, dax!, scope);
    return {
      removed: r.deletedDaxClusters,
      kept: r.keptDaxClusters,
      pending: r.pendingDaxGroups,
      errors: r.stuckDaxClusters.length
        ? [`DAX did not start deleting ${r.stuckDaxClusters.join(', ')}`]
        : [],
    };
  },
  resumeBlockers: (runId, run, { dax }) => daxResumeBlockers(runId, run, dax!),
  sweepExpired: async ({ dax }, expired) => ({ removed: await sweepExpiredDax(dax!, expired) }),
  async liveByRun({ dax }) {
    return (await dax!.listClusters({}))
      .filter((c) => c.status !== 'deleting')
      .map((c) => ({ tags: c.tags, label: `DAX cluster ${c.name}` }));
  },
};
