/**
 * External targets' credentials: the job names a Secrets Manager secret (moto server), the agent
 * fetches it at job start and hands it to the YCSB JVMs in their environment; the secret's values
 * appear in no uploaded object (job, manifest, properties, logs) and in none of the agent's lines.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { S3Store } from '../../lib/aws/s3-store';
import { openStore } from '../../lib/open-store';
import { SecretsManagerSecrets } from '../../lib/aws/secrets';
import { CloudError } from '../../lib/core/common/ports';
import { ensureLoaderBuilt, type LoaderPaths } from '../../lib/build/maven';
import { loadJob } from '../../loader/agent/src/job';
import { credentialEnv, runJob } from '../../loader/agent/src/run-job';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(10 * 60_000);

const ACCESS_KEY = 'AKIAFLEETBENCHSECRET1';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYsecretVALUE';
let paths: LoaderPaths;
let moto: MotoServer;
let s3: S3Client;
let secrets: SecretsManagerSecrets;
let dynamoSecretArn: string;
let cqlSecretArn: string;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  moto = await startMoto();
  s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'fb-secrets' }));
  const sm = new SecretsManagerClient(moto.clientConfig);
  dynamoSecretArn = (
    await sm.send(
      new CreateSecretCommand({
        Name: 'fleetbench/alternator-cloud',
        SecretString: JSON.stringify({ accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY }),
      }),
    )
  ).ARN!;
  cqlSecretArn = (
    await sm.send(
      new CreateSecretCommand({
        Name: 'fleetbench/cql-cloud',
        SecretString: JSON.stringify({ username: 'scylla', password: 'cql-Pa55word' }),
      }),
    )
  ).ARN!;
  secrets = new SecretsManagerSecrets(moto.clientConfig);
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
});

describe('the Secrets Manager adapter', () => {
  it('reads a secret string; an unknown secret is a CloudError naming the call', async () => {
    expect(JSON.parse(await secrets.secretString(cqlSecretArn))).toEqual({
      username: 'scylla',
      password: 'cql-Pa55word',
    });
    const missing = dynamoSecretArn.replace('alternator-cloud', 'nope');
    await expect(secrets.secretString(missing)).rejects.toThrow(CloudError);
    await expect(secrets.secretString(missing)).rejects.toThrow(/GetSecretValue/);
  });

  it('maps secrets to the JVM environment per protocol, and names missing fields (not values)', async () => {
    const fetch = (arn: string) => secrets.secretString(arn);
    expect(await credentialEnv({ secretArn: dynamoSecretArn, binding: 'dynamodb' }, fetch)).toEqual({
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    });
    expect(await credentialEnv({ secretArn: cqlSecretArn, binding: 'cql' }, fetch)).toEqual({
      FLEETBENCH_CQL_USERNAME: 'scylla',
      FLEETBENCH_CQL_PASSWORD: 'cql-Pa55word',
    });
    const wrong = credentialEnv({ secretArn: cqlSecretArn, binding: 'dynamodb' }, fetch);
    await expect(wrong).rejects.toThrow(/lacks "accessKeyId", "secretAccessKey"/);
    await expect(wrong).rejects.not.toThrow(/cql-Pa55word/);
  });
});

test('a job with credentials: the JVMs get them in their environment, no uploaded object or log line has them', async () => {
  const open = (uri: string) => openStore(uri, { client: s3 });
  const bucket = new S3Store('s3://fb-secrets', { client: s3 });
  // a java wrapper that records what the JVM's environment holds, then runs the real java
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-secrets-'));
  const probe = path.join(dir, 'env-seen');
  const wrapper = path.join(dir, 'java');
  writeFileSync(
    wrapper,
    `#!/bin/sh\nprintf '%s|%s' "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" > '${probe}'\nexec "${process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java'}" "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  await bucket.putJson('runs/sec/cells/c/jobs/i-1.json', {
    runId: 'sec',
    cellId: 'c',
    loaderIndex: 0,
    phase: 'run',
    durationSeconds: 30,
    statusIntervalSeconds: 1,
    db: 'site.ycsb.BasicDB',
    jvmArgs: ['-Xmx128m'],
    credentials: { secretArn: dynamoSecretArn, binding: 'dynamodb' },
    outputPrefix: 's3://fb-secrets/runs/sec/cells/c/raw',
    processes: [{ recordcount: 100, operationcount: 200, target: 200, 'basicdb.verbose': false }],
  });
  const { job } = await loadJob('s3://fb-secrets/runs/sec/cells/c/jobs/i-1.json', open);
  const lines: string[] = [];
  const result = await runJob(job, {
    classpath: paths.ycsbClasspath,
    java: wrapper,
    openStore: open,
    fetchSecret: (arn) => secrets.secretString(arn),
    out: (l) => lines.push(l),
    log: (l) => lines.push(l),
  });
  expect(result.failed).toEqual([]);
  expect(readFileSync(probe, 'utf8')).toBe(`${ACCESS_KEY}|${SECRET_KEY}`);

  const keys = await bucket.list('runs/sec/');
  expect(keys).toEqual(expect.arrayContaining(['runs/sec/cells/c/raw/loader-0/proc-0/manifest.json']));
  expect(keys.length).toBeGreaterThan(3);
  for (const key of keys) {
    const text = (await bucket.get(key)).toString('latin1');
    expect({ key, leaks: text.includes(SECRET_KEY) || text.includes(ACCESS_KEY) }).toEqual({
      key,
      leaks: false,
    });
  }
  const log = lines.join('\n');
  expect(log).toContain(dynamoSecretArn); // the reference is logged ...
  expect(log).not.toContain(SECRET_KEY); // ... never the values
  expect(log).not.toContain(ACCESS_KEY);
});

test('a job with credentials on an agent that cannot fetch secrets fails before any JVM starts', async () => {
  const open = (uri: string) => openStore(uri, { client: s3 });
  const job = {
    runId: 'sec2',
    cellId: 'c',
    loaderIndex: 0,
    phase: 'run',
    durationSeconds: 30,
    db: 'site.ycsb.BasicDB',
    credentials: { secretArn: cqlSecretArn, binding: 'cql' },
    outputPrefix: 's3://fb-secrets/runs/sec2/cells/c/raw',
    processes: [{ recordcount: 100, operationcount: 200 }],
  };
  await expect(
    runJob(job, {
      classpath: paths.ycsbClasspath,
      openStore: open,
      out: () => undefined,
      log: () => undefined,
    }),
  ).rejects.toThrow(/job.credentials: this agent cannot fetch secrets/);
  expect(await new S3Store('s3://fb-secrets', { client: s3 }).list('runs/sec2/')).toEqual([]);
});
