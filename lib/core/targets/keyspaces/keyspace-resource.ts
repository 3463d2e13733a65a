/**
 * The run's Amazon Keyspaces keyspaces (with their tables) as a resource type (lib/core/resources): those the
 * context names and any carrying the run tag.
 */
import { TAG_RUN_ID } from '../../ports';
import { deleteRunKeyspaces } from '../../pipeline/keyspaces';
import type { ResourceType } from '../../resources/resource-type';

export const KEYSPACES: ResourceType = {
  id: 'keyspace',
  order: 50,
  service: 'Keyspaces',
  noun: 'Keyspaces keyspace',
  verb: 'deleted',
  activity: 'deleting keyspaces',
  record: { removed: 'deletedKeyspaces', kept: 'keptKeyspaces' },
  swept: ['deletedKeyspaces'],
  available: (ports) => ports.keyspaces !== undefined,
  mayExist: (run) => !run || Boolean(run.keyspaces?.length),
  namedIn: (run) => (run.keyspaces ?? []).map((k) => k.keyspace),
  removeForRun: (runId, run, { keyspaces }) => deleteRunKeyspaces(runId, run, keyspaces!),
  async sweepExpired({ keyspaces }, expired) {
    const deleted: string[] = [];
    for (const k of await keyspaces!.listKeyspaces({}))
      if (k.tags[TAG_RUN_ID] && expired(k.tags) && (await keyspaces!.deleteKeyspace(k.name)))
        deleted.push(k.name);
    return { removed: { deletedKeyspaces: deleted } };
  },
  async liveByRun({ keyspaces }) {
    return (await keyspaces!.listKeyspaces({})).map((k) => ({ tags: k.tags, label: `keyspace ${k.name}` }));
  },
};
