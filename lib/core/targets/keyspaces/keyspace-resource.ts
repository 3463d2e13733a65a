/**
 * The run's Amazon Keyspaces keyspaces (with their tables) as a resource type (lib/core/resources): those the
 * context names and any carrying the run tag.
 */
import { removeRunKeyspaces, sweepExpiredKeyspaces } from './lifecycle';
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
  removeForRun: (runId, run, { keyspaces }) => removeRunKeyspaces(runId, run, keyspaces!),
  sweepExpired: async ({ keyspaces }, expired) => ({
    removed: { deletedKeyspaces: await sweepExpiredKeyspaces(keyspaces!, expired) },
  }),
  async liveByRun({ keyspaces }) {
    return (await keyspaces!.listKeyspaces({})).map((k) => ({ tags: k.tags, label: `keyspace ${k.name}` }));
  },
};
