/**
 * The Secrets Manager adapter as the SecretAdmin port (cassandra-ec2 logins, lib/core/cql-auth.ts) on
 * moto: ProvisionTarget's create/adopt and teardown's tag-checked delete against the real API's answers.
 */
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { deleteCqlLogin, provisionCqlLogin } from '../../lib/core/cql-auth';
import { ConflictError, StepFailedError } from '../../lib/core/ports';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);
let moto: MotoServer;
let sm: SecretsManagerSecrets;
beforeAll(async () => {
  moto = await startMoto();
  sm = new SecretsManagerSecrets(moto.clientConfig);
});
afterAll(async () => {
  sm?.client.destroy();
  await moto?.stop();
});

it('creates tagged, refuses a name twice, describes by name, deletes at once', async () => {
  const arn = await sm.createSecret({
    name: 'fleetbench/r1/cass-cql',
    value: '{"username":"u","password":"p"}',
    tags: { 'fleetbench:run-id': 'r1' },
  });
  expect(arn).toMatch(/^arn:aws:secretsmanager:[a-z0-9-]+:\d{12}:secret:fleetbench\/r1\/cass-cql-/);
  await expect(sm.createSecret({ name: 'fleetbench/r1/cass-cql', value: '{}', tags: {} })).rejects.toThrow(
    ConflictError,
  );
  expect(await sm.describeSecret('fleetbench/r1/cass-cql')).toEqual({
    arn,
    tags: { 'fleetbench:run-id': 'r1' },
  });
  expect(await sm.secretString(arn)).toBe('{"username":"u","password":"p"}');
  await sm.deleteSecret(arn);
  expect(await sm.describeSecret('fleetbench/r1/cass-cql')).toBeNull();
  await sm.deleteSecret(arn); // absent is fine
});

it("a run's login: created, adopted on retry, refused and kept when another run's tag is on it", async () => {
  const arn = await provisionCqlLogin('r2', 'cass', { team: 'db' }, sm);
  expect(await provisionCqlLogin('r2', 'cass', {}, sm)).toBe(arn);
  const login = JSON.parse(await sm.secretString(arn)) as { username: string; password: string };
  expect(login.username).toMatch(/^fb_/);
  await sm.createSecret({
    name: 'fleetbench/r3/cass-cql',
    value: '{}',
    tags: { 'fleetbench:run-id': 'other' },
  });
  await expect(provisionCqlLogin('r3', 'cass', {}, sm)).rejects.toThrow(StepFailedError);
  expect(await deleteCqlLogin('r3', 'cass', sm)).toBeUndefined();
  expect(await sm.describeSecret('fleetbench/r3/cass-cql')).not.toBeNull();
  expect(await deleteCqlLogin('r2', 'cass', sm)).toBe('fleetbench/r2/cass-cql');
  expect(await sm.describeSecret('fleetbench/r2/cass-cql')).toBeNull();
});
