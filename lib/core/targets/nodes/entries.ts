/**
 * A node target's entry (scylla-ec2, cassandra-ec2) in the run context's resource list
 * (lib/core/resources/run-resource.ts): its cluster of database nodes. It has no name: the nodes are found by
 * their run and target tags.
 */
import { z } from 'zod';
import { runResourceSchema } from '../../resources/run-resource';

/** How many nodes, which API the loaders use, and the table the schema step creates. */
export const NODE_CLUSTER_ENTRY = runResourceSchema('database-node', {
  nodes: z.number().int().positive(),
  api: z.enum(['alternator', 'cql']),
  table: z.string().min(1),
});
export type NodeClusterEntry = z.infer<typeof NODE_CLUSTER_ENTRY>;
