/** A memorydb target's entries in the run context's resource list (lib/core/resources/run-resource.ts). */
import { z } from 'zod';
import { runResourceSchema } from '../../resources/run-resource';

/** Its cluster; `name` (memoryDbResourceName) is also its ACL's, user's, subnet group's and security group's. */
export const MEMORYDB_CLUSTER_ENTRY = runResourceSchema('memorydb-cluster', { name: z.string().min(1) });
/** The run's login secret of the target (memoryDbSecretName). */
export const MEMORYDB_LOGIN_ENTRY = runResourceSchema('memorydb-login', { name: z.string().min(1) });
