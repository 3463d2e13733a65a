/**
 * The janitor's sweep of cassandra-ec2 login secrets (lib/core/targets/cassandra-ec2/cql-auth.ts) whose run is over: Teardown deletes
 * a run's logins by name, but a run whose teardown never ran (or failed) leaves them behind. A secret is deleted
 * only when its own tags, read in the listing, carry a `fleetbench:run-id`, its name is that run's login name
 * (`fleetbench/<run>/<target>-cql`) and its `fleetbench:expires-at` has passed: an external target's credentials
 * under the same `fleetbench/` prefix (no run tag, or another name) are never touched.
 */
import { TAG_RUN_ID, type SecretAdmin, type Tags } from '../../common/ports';
import { isCqlLoginSecretOf } from './cql-auth';

/** The prefix every run's login secret is named under (and the loaders' external credentials too). */
export const LOGIN_SECRET_PREFIX = 'fleetbench/';

/**
 * Deletes the expired login secrets (`expired`: the janitor's rule on `fleetbench:expires-at`); the names
 * deleted. Each failure is added to `errors`, naming the secret, and the others are still tried.
 */
export async function sweepExpiredLoginSecrets(
  secrets: SecretAdmin,
  expired: (tags: Tags) => boolean,
  errors: string[],
): Promise<string[]> {
  const deleted: string[] = [];
  let listed: Awaited<ReturnType<SecretAdmin['listSecrets']>>;
  try {
    listed = await secrets.listSecrets(LOGIN_SECRET_PREFIX);
  } catch (err) {
    errors.push(`listing login secrets: ${(err as Error).message}`);
    return deleted;
  }
  for (const s of listed) {
    const runId = s.tags[TAG_RUN_ID];
    if (!runId || !isCqlLoginSecretOf(s.name, runId) || !expired(s.tags)) continue;
    try {
      await secrets.deleteSecret(s.arn);
      deleted.push(s.name);
    } catch (err) {
      errors.push(`deleting login secret ${s.name}: ${(err as Error).message}`);
    }
  }
  return deleted;
}
