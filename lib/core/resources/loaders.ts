/**
 * The run's loader instances as a resource type (./resource-type.ts): found by the run tag, terminated; for one
 * target of a parallel run, only its own loader group (RemovalScope.loaderGroup).
 */
import { ownedInstanceIds } from '../pipeline/ownership';
import { TAG_LOADER_GROUP } from '../pipeline/run-context';
import type { ResourceType } from './resource-type';

export const LOADERS: ResourceType = {
  id: 'loader',
  order: 10,
  service: 'EC2',
  noun: 'loader',
  verb: 'terminated',
  activity: 'terminating loaders',
  record: { removed: 'terminated' },
  swept: ['terminated'],
  available: () => true,
  mayExist: () => true,
  namedIn: () => [],
  async removeForRun(runId, _run, { fleet }, scope) {
    const listed = await fleet.list({ runId });
    const group = scope?.loaderGroup;
    const ids = ownedInstanceIds(
      runId,
      group === undefined ? listed : listed.filter((i) => i.tags[TAG_LOADER_GROUP] === group),
    );
    if (ids.length) await fleet.terminate(ids);
    return { removed: ids, kept: [], errors: [] };
  },
  async sweepExpired({ fleet }, expired) {
    const ids = (await fleet.list({}))
      .filter((i) => i.state !== 'terminated' && expired(i.tags))
      .map((i) => i.id);
    if (ids.length) await fleet.terminate(ids);
    return { removed: { terminated: ids } };
  },
  async liveByRun({ fleet }) {
    return (await fleet.list({}))
      .filter((i) => i.state !== 'terminated')
      .map((i) => ({ tags: i.tags, label: `loader ${i.id}` }));
  },
};
