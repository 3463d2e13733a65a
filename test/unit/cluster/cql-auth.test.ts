/** cassandra-ec2 logins (lib/core/targets/cassandra-ec2/cql-auth.ts): the run's tagged secret, its statements, its teardown. */
import {
  cqlLoginSecretName,
  createRoleStatements,
  deleteCqlLogin,
  generateCqlLogin,
  lockDefaultStatements,
  provisionCqlLogin,
} from '../../../lib/core/targets/cassandra-ec2/cql-auth';
import { ConflictError, StepFailedError, type SecretAdmin, type Tags } from '../../../lib/core/common/ports';

/** Secrets Manager as far as the port goes: names are unique, ARNs get a random suffix. */
function memorySecrets() {
  const byName = new Map<string, { arn: string; value: string; tags: Tags }>();
  const deleted: string[] = [];
  const port: SecretAdmin = {
    async createSecret({ name, value, tags }) {
      if (byName.has(name)) throw new ConflictError(`secret ${name} exists`);
      const arn = `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`;
      byName.set(name, { arn, value, tags });
      return arn;
    },
    async describeSecret(name) {
      const s = byName.get(name);
      return s ? { arn: s.arn, tags: s.tags } : null;
    },
    async secretString(id) {
      const s = [...byName].find(([n, x]) => n === id || x.arn === id);
      if (!s) throw new Error(`secret ${id} does not exist`);
      return s[1].value;
    },
    async deleteSecret(arn) {
      for (const [n, s] of byName) if (s.arn === arn) byName.delete(n);
      deleted.push(arn);
    },
    async listSecrets(prefix) {
      return [...byName].filter(([n]) => n.startsWith(prefix)).map(([name, s]) => ({ name, ...s }));
    },
  };
  return { port, byName, deleted };
}

describe('a run’s CQL login', () => {
  it('is named under the prefix the loaders may read', () => {
    expect(cqlLoginSecretName('nightly', 'cass')).toBe('fleetbench/nightly/cass-cql');
  });

  it('is generated fresh: a role name and a 256-bit hex password', () => {
    const a = generateCqlLogin();
    const b = generateCqlLogin();
    expect(a.username).toMatch(/^fb_[0-9a-f]{12}$/);
    expect(a.password).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toEqual(b);
  });

  it('ProvisionTarget creates the secret tagged with the run, holding the cql binding’s fields', async () => {
    const s = memorySecrets();
    const arn = await provisionCqlLogin('nightly', 'cass', { team: 'db' }, s.port);
    const stored = s.byName.get('fleetbench/nightly/cass-cql')!;
    expect(arn).toBe(stored.arn);
    expect(stored.tags).toEqual({ team: 'db', 'fleetbench:run-id': 'nightly' });
    expect(Object.keys(JSON.parse(stored.value)).sort()).toEqual(['password', 'username']);
  });

  it('a retry adopts the run’s own secret (same value); another run’s is refused', async () => {
    const s = memorySecrets();
    const arn = await provisionCqlLogin('nightly', 'cass', {}, s.port);
    const value = s.byName.get('fleetbench/nightly/cass-cql')!.value;
    expect(await provisionCqlLogin('nightly', 'cass', {}, s.port)).toBe(arn);
    expect(s.byName.get('fleetbench/nightly/cass-cql')!.value).toBe(value);
    s.byName.get('fleetbench/nightly/cass-cql')!.tags['fleetbench:run-id'] = 'other';
    await expect(provisionCqlLogin('nightly', 'cass', {}, s.port)).rejects.toThrow(StepFailedError);
  });

  it('teardown deletes the secret only when it carries the run’s tag', async () => {
    const s = memorySecrets();
    const arn = await provisionCqlLogin('nightly', 'cass', {}, s.port);
    await provisionCqlLogin('x', 'cass', {}, s.port);
    s.byName.get('fleetbench/x/cass-cql')!.tags['fleetbench:run-id'] = 'someone-else';
    expect(await deleteCqlLogin('x', 'cass', s.port)).toBeUndefined();
    expect(await deleteCqlLogin('nightly', 'cass', s.port)).toBe('fleetbench/nightly/cass-cql');
    expect(await deleteCqlLogin('nightly', 'cass', s.port)).toBeUndefined();
    expect(s.deleted).toEqual([arn]);
  });

  it('statements: system_auth at the data’s replication factor before the role; the default locked', () => {
    const [alter, create] = createRoleStatements({ username: 'fb_1', password: "p'w" }, 3);
    expect(alter).toBe(
      "ALTER KEYSPACE system_auth WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': '3'}",
    );
    expect(create).toBe(
      `CREATE ROLE IF NOT EXISTS "fb_1" WITH PASSWORD = 'p''w' AND LOGIN = true AND SUPERUSER = true`,
    );
    const [lock] = lockDefaultStatements(() => Buffer.from([0xab]));
    expect(lock).toBe("ALTER ROLE cassandra WITH PASSWORD = 'ab' AND LOGIN = false AND SUPERUSER = false");
  });
});
