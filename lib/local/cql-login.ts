/**
 * A run's login on Cassandra nodes with PasswordAuthenticator, over the local CQL client: the schema
 * step's first half (lib/core/targets/cassandra-ec2/cql-auth.ts), for the local mode and the tests on real nodes.
 */
import { DEFAULT_SUPERUSER } from '../core/targets/nodes/cql-wire';
import {
  createRoleStatements,
  lockDefaultStatements,
  type CqlLogin,
} from '../core/targets/cassandra-ec2/cql-auth';
import { CqlLoginError, cqlQuery } from './cql-client';

type Endpoint = { host: string; port: number };

/**
 * Makes the run's login work on the cluster: when it already does (a retry), nothing; else logs in with
 * the default superuser (which a fresh node creates some seconds after it serves CQL: refusals are retried
 * until the deadline), creates the run's role with `system_auth` at the replication factor, then, as the
 * run's role, locks the default login. Returns how it found the cluster.
 */
export async function secureCqlCluster(
  e: Endpoint,
  login: CqlLogin,
  replicationFactor: number,
  timeoutMs = 120_000,
): Promise<'secured' | 'already'> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      await cqlQuery(e, [], { credentials: login });
      return 'already';
    } catch (err) {
      if (!(err instanceof CqlLoginError)) throw err;
    }
    try {
      const created = await cqlQuery(e, createRoleStatements(login, replicationFactor), {
        credentials: DEFAULT_SUPERUSER,
        timeoutMs: 60_000,
      });
      refused(created);
      refused(await cqlQuery(e, lockDefaultStatements(), { credentials: login, timeoutMs: 60_000 }));
      return 'secured';
    } catch (err) {
      if (!(err instanceof CqlLoginError)) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`no login on ${e.host}:${e.port} within ${timeoutMs} ms: ${(last as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function refused(answers: Awaited<ReturnType<typeof cqlQuery>>): void {
  const failed = answers.find((a) => a.kind === 'error');
  if (failed) throw new Error(`securing the cluster: ${JSON.stringify(failed)}`);
}
