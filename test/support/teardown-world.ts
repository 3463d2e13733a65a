/**
 * In-memory fleet, database nodes and DynamoDB tables for the teardown tests: what each holds is a Map the test
 * fills and reads; the ports delete from it. `failLoaders` makes TerminateInstances fail as EC2 would throttle it.
 */
import type { DbNodeAdmin, DynamoDbAdmin, FleetAdmin, Tags } from '../../lib/core/common/ports';

export interface Instance {
  id: string;
  state: string;
  tags: Tags;
}

export function teardownWorld(o: {
  loaders: Map<string, Instance>;
  nodes: Map<string, Instance>;
  tables: Map<string, Tags>;
  failLoaders?: boolean;
}) {
  const { loaders, nodes, tables } = o;
  const fleet = {
    list: async () => [...loaders.values()],
    terminate: async (ids: string[]) => {
      if (o.failLoaders) throw new Error('EC2 TerminateInstances: RequestLimitExceeded');
      for (const id of ids) loaders.delete(id);
    },
  } as unknown as FleetAdmin;
  const cluster = {
    list: async () => [...nodes.values()],
    terminate: async (ids: string[]) => ids.forEach((id) => nodes.delete(id)),
  } as unknown as DbNodeAdmin;
  const tableAdmin = {
    listTables: async () => [...tables].map(([name, t]) => ({ name, tags: t })),
    tableTags: async (name: string) => tables.get(name) ?? null,
    deleteTable: async (name: string) => tables.delete(name),
  } as unknown as DynamoDbAdmin;
  return { loaders, nodes, tables, fleet, cluster, tableAdmin };
}
