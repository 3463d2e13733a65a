/**
 * The run's DynamoDB tables as a resource type (lib/core/resources): those the context says the run created
 * (or, when Plan did not finish, those carrying the run tag); an `existingTable` is never deleted.
 */
import { TABLE_PREFIX, TAG_RUN_ID } from '../../common/ports';
import { ownedByRun, removeOwned } from '../../pipeline/ownership';
import type { ResourceType } from '../../resources/resource-type';
import { entriesOf } from '../../resources/run-resource';
import { TABLE_ENTRY } from './entries';

export const DYNAMODB_TABLES: ResourceType = {
  id: TABLE_ENTRY.shape.type.value,
  order: 40,
  service: 'DynamoDB',
  noun: 'DynamoDB table',
  verb: 'deleted',
  activity: 'deleting tables',
  record: { removed: 'deletedTables', kept: 'keptTables' },
  swept: ['deletedTables'],
  available: () => true,
  mayExist: () => true,
  namedIn: () => [],
  async removeForRun(runId, run, { tables }) {
    const candidates = new Set<string>();
    const notOurs: string[] = [];
    if (run) {
      for (const t of entriesOf(run, TABLE_ENTRY)) {
        if (t.owned) candidates.add(t.name);
        else notOurs.push(t.name); // existingTable: never deleted, whatever its tags
      }
    } else {
      for (const t of await tables.listTables(TABLE_PREFIX))
        if (ownedByRun(t.tags, runId)) candidates.add(t.name);
    }
    const r = await removeOwned(runId, 'table', candidates, {
      tags: (name) => tables.tableTags(name),
      remove: (name) => tables.deleteTable(name),
    });
    return { ...r, kept: [...notOurs, ...r.kept] };
  },
  async sweepExpired({ tables }, expired) {
    const deleted: string[] = [];
    const errors: string[] = [];
    for (const t of await tables.listTables(TABLE_PREFIX)) {
      if (!t.tags[TAG_RUN_ID] || !expired(t.tags)) continue;
      try {
        if (await tables.deleteTable(t.name)) deleted.push(t.name);
      } catch (err) {
        errors.push(`deleting table ${t.name}: ${(err as Error).message}`);
      }
    }
    return { removed: { deletedTables: deleted }, errors };
  },
  async liveByRun({ tables }) {
    return (await tables.listTables(TABLE_PREFIX)).map((t) => ({ tags: t.tags, label: `table ${t.name}` }));
  },
};
