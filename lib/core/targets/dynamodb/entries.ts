/** A dynamodb target's entries in the run context's resource list (lib/core/resources/run-resource.ts). */
import { z } from 'zod';
import { runResourceSchema } from '../../resources/run-resource';

/** Its table: `owned` when the run creates (and deletes) it, not for an `existingTable`. */
export const TABLE_ENTRY = runResourceSchema('dynamodb-table', {
  name: z.string().min(1),
  owned: z.boolean(),
});
export type TableEntry = z.infer<typeof TABLE_ENTRY>;

/** The DAX cluster in front of it; `name` (daxResourceName) is also its subnet, parameter and security groups'. */
export const DAX_ENTRY = runResourceSchema('dax-cluster', { name: z.string().min(1) });
export type DaxEntry = z.infer<typeof DAX_ENTRY>;
