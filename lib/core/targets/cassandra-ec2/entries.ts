/** A cassandra-ec2 target's login secret in the run context's resource list (lib/core/resources/run-resource.ts). */
import { z } from 'zod';
import { runResourceSchema } from '../../resources/run-resource';

/** The run's login secret of the target (cqlLoginSecretName). */
export const LOGIN_SECRET_ENTRY = runResourceSchema('login-secret', { name: z.string().min(1) });
export type LoginSecretEntry = z.infer<typeof LOGIN_SECRET_ENTRY>;
