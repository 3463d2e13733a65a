/**
 * Run contexts written before the resource list: they held one field per kind (`tables`, `clusters`, `keyspaces`,
 * `dax`) instead of `resources`. Such contexts sit in the results store with older runs (`context.json`, read by
 * Teardown, the late-arrivals pass and `fleetbench report`), and runs that were going while the stack was updated
 * carry one in their state. This module turns that frozen shape into the resource list, entry by entry as each
 * resource type reads it, so teardown of an old run finds exactly what it found before: the tables (an
 * `existingTable` as not owned), the DAX clusters, the keyspaces, the node clusters, and the login secret named
 * after every node cluster (the login type named one per cluster, whatever its kind, and deleted it only when it
 * carried the run's tag). The type ids are the resource types' (a unit test checks them against the registry).
 */
import { z } from 'zod';
import type { RunResource } from '../resources/run-resource';
import { cqlLoginSecretName } from '../targets/cassandra-ec2/cql-secret-name';

const target = z.string().min(1);

/** The per-kind fields of a context written before `resources` (every field as those runs wrote it). */
export const LEGACY_CONTEXT_FIELDS = z.object({
  tables: z.array(z.object({ target, name: z.string().min(1), owned: z.boolean() })),
  clusters: z
    .array(
      z.object({
        target,
        nodes: z.number().int().positive(),
        api: z.enum(['alternator', 'cql']),
        table: z.string().min(1),
      }),
    )
    .optional(),
  keyspaces: z.array(z.object({ target, keyspace: z.string().min(1), table: z.string().min(1) })).optional(),
  dax: z.array(z.object({ target, name: z.string().min(1) })).optional(),
});

export type LegacyContextFields = z.infer<typeof LEGACY_CONTEXT_FIELDS>;

/** The field names a context of the old shape may hold (removed from the converted context). */
export const LEGACY_FIELD_NAMES = ['tables', 'clusters', 'keyspaces', 'dax'] as const;

/** The resource list a context of the old shape stands for. */
export function legacyResources(runId: string, old: LegacyContextFields): RunResource[] {
  return [
    ...old.tables.map((t) => ({ type: 'dynamodb-table', targetId: t.target, name: t.name, owned: t.owned })),
    ...(old.dax ?? []).map((c) => ({ type: 'dax-cluster', targetId: c.target, name: c.name })),
    ...(old.clusters ?? []).flatMap((c) => [
      { type: 'database-node', targetId: c.target, nodes: c.nodes, api: c.api, table: c.table },
      { type: 'login-secret', targetId: c.target, name: cqlLoginSecretName(runId, c.target) },
    ]),
    ...(old.keyspaces ?? []).map((k) => ({
      type: 'keyspace',
      targetId: k.target,
      name: k.keyspace,
      table: k.table,
    })),
  ];
}
