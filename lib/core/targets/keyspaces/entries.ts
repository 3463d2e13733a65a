/** A keyspaces target's entry in the run context's resource list (lib/core/resources/run-resource.ts). */
import { z } from 'zod';
import { runResourceSchema } from '../../resources/run-resource';

/** Its keyspace (`name`) and the table in it. */
export const KEYSPACE_ENTRY = runResourceSchema('keyspace', {
  name: z.string().min(1),
  table: z.string().min(1),
});
export type KeyspaceEntry = z.infer<typeof KEYSPACE_ENTRY>;
