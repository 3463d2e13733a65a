/**
 * Logins of cassandra-ec2 clusters (PasswordAuthenticator). Apache Cassandra 5.0 always creates the
 * superuser `cassandra`/`cassandra` on a cluster's first start and has no option to skip it, so each run
 * gets its own login instead: ProvisionTarget generates it and keeps it in a Secrets Manager secret named
 * under the loaders' `fleetbench/` prefix and tagged with the run's id; the schema step logs in once with
 * the default superuser, creates the run's role from the secret, raises `system_auth` to the keyspace's
 * replication factor and locks the default login; the loaders read the secret by reference (the job's
 * `credentials`, the cql binding's layout). Teardown deletes a secret only when it carries the run's tag.
 * Pure: the secret's I/O is the SecretAdmin port's.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, StepFailedError, TAG_RUN_ID, type SecretAdmin, type Tags } from '../../common/ports';
import { ownedByRun } from '../../pipeline/ownership';
import { cqlLoginSecretName } from './cql-secret-name';

export { cqlLoginSecretName };

/** A login as the cql binding's secret holds it (lib/core/contract/bindings.ts: username, password). */
export interface CqlLogin {
  username: string;
  password: string;
}

/** Whether `name` is a login secret's name of run `runId` (as cqlLoginSecretName writes it, for any target). */
export function isCqlLoginSecretOf(name: string, runId: string): boolean {
  const [head, tail] = cqlLoginSecretName(runId, '\n').split('\n') as [string, string];
  return name.length > head.length + tail.length && name.startsWith(head) && name.endsWith(tail);
}

/** A fresh login: a role name and a 256-bit password, hex only (nothing CQL or a shell could misread). */
export function generateCqlLogin(random: (n: number) => Buffer = randomBytes): CqlLogin {
  return { username: `fb_${random(6).toString('hex')}`, password: random(32).toString('hex') };
}

const quoteName = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Run as the default superuser, once: `system_auth` replicated as the data (so a login survives a node's
 * loss; before the role is written, so its row reaches every replica), then the run's role, a superuser.
 */
export function createRoleStatements(login: CqlLogin, replicationFactor: number): string[] {
  return [
    `ALTER KEYSPACE system_auth WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': '${replicationFactor}'}`,
    `CREATE ROLE IF NOT EXISTS ${quoteName(login.username)} WITH PASSWORD = ${quoteText(login.password)} AND LOGIN = true AND SUPERUSER = true`,
  ];
}

/** Run as the run's role: the default superuser can no longer log in (a random password as well). */
export function lockDefaultStatements(random: (n: number) => Buffer = randomBytes): string[] {
  return [
    `ALTER ROLE cassandra WITH PASSWORD = ${quoteText(random(32).toString('hex'))} AND LOGIN = false AND SUPERUSER = false`,
  ];
}

/**
 * Creates the run's login secret of a target (ProvisionTarget), tagged with the run; on a retry, adopts
 * the one of the same name only if it carries this run's tag. Returns its ARN.
 */
export async function provisionCqlLogin(
  runId: string,
  targetId: string,
  tags: Tags,
  secrets: SecretAdmin,
): Promise<string> {
  const name = cqlLoginSecretName(runId, targetId);
  try {
    return await secrets.createSecret({
      name,
      value: JSON.stringify(generateCqlLogin()),
      tags: { ...tags, [TAG_RUN_ID]: runId },
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const have = await secrets.describeSecret(name);
    if (!have || !ownedByRun(have.tags, runId)) {
      throw new StepFailedError('ProvisionTarget', `secret ${name} already exists and is not this run's`);
    }
    return have.arn;
  }
}

/**
 * Teardown: deletes the run's login secret of a target when it exists and carries the run's tag; the
 * deleted secret's name, else undefined (absent, or another's: kept).
 */
export async function deleteCqlLogin(
  runId: string,
  targetId: string,
  secrets: SecretAdmin,
): Promise<string | undefined> {
  const name = cqlLoginSecretName(runId, targetId);
  const have = await secrets.describeSecret(name);
  if (!have || !ownedByRun(have.tags, runId)) return undefined;
  await secrets.deleteSecret(have.arn);
  return name;
}
