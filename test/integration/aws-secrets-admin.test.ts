/**
 * The Secrets Manager adapter as the SecretAdmin port (cassandra-ec2 logins, lib/core/targets/cassandra-ec2/cql-auth.ts) on
 * moto: ProvisionTarget's create/adopt, teardown's tag-checked delete and the janitor's listing and sweep of
 * expired logins against the real API's answers.
 */
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { deleteCqlLogin, provisionCqlLogin } from '../../lib/core/targets/cassandra-ec2/cql-auth';
import { janitor } from '../../lib/core/pipeline/teardown';
import { ConflictError, StepFailedError, TAG_EXPIRES_AT, TAG_RUN_ID } from '../../lib/core/common/ports';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);
// the janitor's other ports, empty: these tests are about its secrets
const noTables = {
  createTable: async () => undefined,
  describeTable: async (name: string) => ({ name, status: 'MISSING' }),
  updateCapacity: async () => undefined,
  deleteTable: async () => false,
  tagTable: async () => undefined,
  listTables: async () => [],
  tableTags: async () => null,
};
const noFleet = { launch: async () => [], list: async () => [], terminate: async () => undefined };
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

it('lists the secrets under a prefix with their tags; deleted ones and other prefixes are not listed', async () => {
  const tagged = await sm.createSecret({
    name: 'fleetbench/list1/a-cql',
    value: '{}',
    tags: { [TAG_RUN_ID]: 'list1', [TAG_EXPIRES_AT]: '4000000000' },
  });
  const gone = await sm.createSecret({ name: 'fleetbench/list1/b-cql', value: '{}', tags: {} });
  await sm.createSecret({ name: 'other/fleetbench/list1/c-cql', value: '{}', tags: {} });
  await sm.deleteSecret(gone);
  const listed = (await sm.listSecrets('fleetbench/list1/')).sort((a, b) => a.name.localeCompare(b.name));
  expect(listed).toEqual([
    {
      name: 'fleetbench/list1/a-cql',
      arn: tagged,
      tags: { [TAG_RUN_ID]: 'list1', [TAG_EXPIRES_AT]: '4000000000' },
    },
  ]);
  expect(await sm.listSecrets('fleetbench/nothing-here/')).toEqual([]);
});

it("the janitor deletes expired run logins only: not unexpired ones, untagged ones or another name's", async () => {
  const nowS = 2_000_000_000;
  const create = (name: string, tags: Record<string, string>) =>
    sm.createSecret({ name, value: '{"username":"u","password":"p"}', tags });
  await create('fleetbench/jan-old/cass-cql', {
    [TAG_RUN_ID]: 'jan-old',
    [TAG_EXPIRES_AT]: String(nowS - 60),
  });
  await create('fleetbench/jan-new/cass-cql', {
    [TAG_RUN_ID]: 'jan-new',
    [TAG_EXPIRES_AT]: String(nowS + 60),
  });
  // an external target's credentials: expired-looking tags, but no run tag / not a login's name
  await create('fleetbench/jan-ext/cass-cql', { [TAG_EXPIRES_AT]: String(nowS - 60) });
  await create('fleetbench/jan-redis', { [TAG_RUN_ID]: 'jan-redis', [TAG_EXPIRES_AT]: String(nowS - 60) });
  // named as run jan-a's login, tagged with another run
  await create('fleetbench/jan-a/cass-cql', { [TAG_RUN_ID]: 'jan-b', [TAG_EXPIRES_AT]: String(nowS - 60) });
  const out = await janitor({
    tables: noTables,
    fleet: noFleet,
    clock: { nowMs: () => nowS * 1000 },
    secrets: sm,
  });
  expect(out.deletedSecrets).toEqual(['fleetbench/jan-old/cass-cql']);
  expect(await sm.describeSecret('fleetbench/jan-old/cass-cql')).toBeNull();
  for (const kept of [
    'fleetbench/jan-new/cass-cql',
    'fleetbench/jan-ext/cass-cql',
    'fleetbench/jan-redis',
    'fleetbench/jan-a/cass-cql',
  ])
    expect(await sm.describeSecret(kept)).not.toBeNull();
});
