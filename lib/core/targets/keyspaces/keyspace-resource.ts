/**
 * The run's Amazon Keyspaces keyspaces (with their tables) as a resource type (lib/core/resources): those the
 * context names and any carrying the run tag.
 */
import { removeRunKeyspaces, sweepExpiredKeyspaces } from './lifecycle';
import type { ResourceType } from '../../resources/resource-type';
import { entriesOf } from '../../resources/run-resource';
import { KEYSPACE_ENTRY } from './entries';

export const KEYSPACES: ResourceType = {
  id: KEYSPACE_ENTRY.shape.type.value,
  order: 50,
  service: 'Keyspaces',
  noun: 'Keyspaces keyspace',
  verb: 'deleted',
  activity: 'deleting keyspaces',
  record: { removed: 'deletedKeyspaces', kept: 'keptKeyspaces' },
  swept: ['deletedKeyspaces'],
  available: (ports) => ports.keyspaces !== undefined,
  mayExist: (run) => !run || entriesOf(run, KEYSPACE_ENTRY).length > 0,
  namedIn: (run) => entriesOf(run, KEYSPACE_ENTRY).map((k) => k.name),
  removeForRun: (runId, run, { keyspaces }, scope) => removeRunKeyspaces(runId, run, keyspaces!, scope),
  sweepExpired: async ({ keyspaces }, expired) => ({
    removed: { deletedKeyspaces: await sweepExpiredKeyspaces(keyspaces!, expired) },
  }),
  async liveByRun({ keyspaces }) {
    return (await keyspaces!.listKeyspaces({})).map((k) => ({ tags: k.tags, label: `keyspace ${k.name}` }));
  },
};
