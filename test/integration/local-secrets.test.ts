/**
 * The local mode's secrets (lib/local/secrets.ts): what the loader agent reads with its Secrets Manager
 * client (lib/aws/secrets.ts, as on AWS) is what the run created; other ids are refused.
 */
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { ConflictError } from '../../lib/core/common/ports';
import { LocalSecrets } from '../../lib/local/secrets';

it('serves GetSecretValue by ARN or name to the AWS SDK; create refuses a name twice; delete removes', async () => {
  const local = new LocalSecrets();
  const endpoint = await local.start();
  try {
    const arn = await local.createSecret({
      name: 'fleetbench/r1/cass-cql',
      value: '{"username":"u","password":"p"}',
      tags: { 'fleetbench:run-id': 'r1' },
    });
    expect(arn).toMatch(/^arn:aws:secretsmanager:/);
    const sdk = new SecretsManagerSecrets({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    expect(await sdk.secretString(arn)).toBe('{"username":"u","password":"p"}');
    expect(await sdk.secretString('fleetbench/r1/cass-cql')).toBe('{"username":"u","password":"p"}');
    await expect(sdk.secretString('fleetbench/other')).rejects.toThrow();
    await expect(
      local.createSecret({ name: 'fleetbench/r1/cass-cql', value: '{}', tags: {} }),
    ).rejects.toThrow(ConflictError);
    expect(await local.describeSecret('fleetbench/r1/cass-cql')).toEqual({
      arn,
      tags: { 'fleetbench:run-id': 'r1' },
    });
    await local.deleteSecret(arn);
    expect(await local.describeSecret('fleetbench/r1/cass-cql')).toBeNull();
    await expect(sdk.secretString(arn)).rejects.toThrow();
    sdk.client.destroy();
  } finally {
    await local.stop();
  }
});

it('lists by name prefix with tags, as the janitor reads Secrets Manager; deleted ones are gone', async () => {
  const local = new LocalSecrets();
  const a = await local.createSecret({ name: 'fleetbench/r2/a-cql', value: '{}', tags: { k: 'v' } });
  const b = await local.createSecret({ name: 'fleetbench/r2/b-cql', value: '{}', tags: {} });
  await local.createSecret({ name: 'elsewhere/fleetbench/r2/c-cql', value: '{}', tags: {} });
  await local.deleteSecret(b);
  expect(await local.listSecrets('fleetbench/r2/')).toEqual([
    { name: 'fleetbench/r2/a-cql', arn: a, tags: { k: 'v' } },
  ]);
});
