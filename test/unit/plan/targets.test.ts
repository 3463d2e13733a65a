/**
 * The binding descriptors (lib/core/contract/bindings.ts) and the descriptor per target kind
 * (lib/core/plan/targets.ts): which binding a target's loaders run, the properties the planner sets once,
 * the credentials reference, and the refusals of settings that do not belong to a target's protocol.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BINDINGS } from '../../../lib/core/contract/bindings';
import { estimateRunUsd, plan } from '../../../lib/core/pipeline';
import { FsStore } from '../../../lib/local/fs-store';
import { InputError } from '../../../lib/core/common/errors';
import { cellProcesses, loadProcesses, planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { credentialEnv } from '../../../loader/agent/src/run-job';
import { baseSpec, withValue } from '../spec/fixtures';

const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetbench/db-AbCdEf';
const external = (extra: Record<string, unknown>) =>
  withValue(baseSpec(), 'targets', [
    { id: 'db', kind: 'external', price: { usdPerHour: 1 }, credentialsSecretArn: SECRET, ...extra },
  ]);
const issues = (spec: unknown): string[] => {
  try {
    validateSpec(spec);
    return [];
  } catch (e) {
    return (e as InputError).issues.map((i) => `${i.path}: ${i.message}`);
  }
};

describe('redis targets', () => {
  const spec = external({
    protocol: 'redis',
    endpoints: ['10.0.0.5:6379', '10.0.0.6:6379'],
    redis: { cluster: true },
  });

  it('run the Redis binding with the endpoints as seed nodes, in every process of every phase', () => {
    const p = planRun(validateSpec(spec).spec, { runId: 'r1' });
    expect(p.bindings.db).toEqual({
      binding: 'redis',
      db: 'dev.fleetbench.ycsb.RedisClient',
      properties: {
        table: 'fleetbench-unit.db.r1',
        'redis.host': '10.0.0.5:6379,10.0.0.6:6379',
        'redis.cluster': 'true',
        // TLS unless the spec turns it off
        'redis.tls': 'true',
      },
      credentials: { secretArn: SECRET, binding: 'redis' },
    });
    expect(cellProcesses(p.cells[0]!)[1]!.properties['redis.host']).toBe('10.0.0.5:6379,10.0.0.6:6379');
    // the load plan shares its properties across targets; the binding's are added per target by StartLoad
    expect(loadProcesses(p.load!)[0]!.properties['redis.host']).toBeUndefined();
  });

  it('refuse Redis settings on another protocol, naming the field', () => {
    expect(issues(external({ protocol: 'cql', endpoints: ['h:9042'], redis: { tls: true } }))).toEqual([
      'targets[0].redis: Redis settings on a "cql" target: remove them or set protocol "redis"',
    ]);
  });

  it('take a password-only secret (Redis `default` user) into the JVMs environment', async () => {
    const env = await credentialEnv({ secretArn: SECRET, binding: 'redis' }, async () =>
      JSON.stringify({ password: 'pw' }),
    );
    expect(env).toEqual({ FLEETBENCH_REDIS_PASSWORD: 'pw' });
    await expect(
      credentialEnv({ secretArn: SECRET, binding: 'redis' }, async () => JSON.stringify({ username: 'u' })),
    ).rejects.toThrow(/lacks "password" \(a redis secret has password\)/);
  });
});

describe('mongodb targets', () => {
  const url = 'mongodb+srv://cluster0.example.mongodb.net/ycsb';
  it('run the MongoDB binding on the one connection string, with the write concern and read preference', () => {
    const spec = external({ protocol: 'mongodb', endpoints: [url], mongodb: { writeConcern: 'majority' } });
    const p = planRun(validateSpec(spec).spec, { runId: 'r1' });
    expect(p.bindings.db!.db).toBe(BINDINGS.mongodb.dbClass);
    expect(p.cells[0]!.properties).toMatchObject({
      'mongodb.url': url,
      'mongodb.writeConcern': 'majority',
      'mongodb.readPreference': 'primary',
      table: 'fleetbench-unit.db.r1',
    });
  });

  it('refuse two connection strings, a non-MongoDB URL and credentials in the URL, without echoing them', () => {
    const bad = issues(
      external({ protocol: 'mongodb', endpoints: ['mongodb://bench:s3cret@h1/ycsb', 'http://h2'] }),
    );
    expect(bad).toEqual([
      'targets[0].endpoints: a MongoDB target takes one connection string (mongodb:// or mongodb+srv://), found 2',
      'targets[0].endpoints[0]: credentials in the connection string: put them in the credentialsSecretArn secret instead',
      'targets[0].endpoints[1]: expected a mongodb:// or mongodb+srv:// connection string',
    ]);
    expect(bad.join(' ')).not.toContain('s3cret');
  });

  it('map the secret to the binding variables', async () => {
    const env = await credentialEnv({ secretArn: SECRET, binding: 'mongodb' }, async () =>
      JSON.stringify({ username: 'bench', password: 'pw' }),
    );
    expect(env).toEqual({ FLEETBENCH_MONGODB_USERNAME: 'bench', FLEETBENCH_MONGODB_PASSWORD: 'pw' });
  });
});

describe("a user's binding (protocol custom)", () => {
  const binding = {
    dbClass: 'site.ycsb.db.couchbase2.Couchbase2Client',
    jars: ['s3://my-bucket/bindings/couchbase2-binding-0.17.0.jar', 's3://my-bucket/bindings/deps.jar'],
    properties: { 'couchbase.host': 'cb.example.cloud', 'couchbase.bucket': 'ycsb' },
  };

  it('runs the named class from its jars with its properties, and the job carries the jars', () => {
    const p = planRun(
      validateSpec(external({ protocol: 'custom', endpoints: ['cb.example.cloud'], binding })).spec,
      {
        runId: 'r1',
      },
    );
    expect(p.bindings.db).toMatchObject({
      binding: 'custom',
      db: 'site.ycsb.db.couchbase2.Couchbase2Client',
      jars: binding.jars,
      credentials: { secretArn: SECRET, binding: 'custom' },
    });
    expect(p.cells[0]!.properties).toMatchObject(binding.properties);
  });

  it('needs a binding block exactly with protocol custom, and keeps fleetbench’s own properties', () => {
    expect(issues(external({ protocol: 'custom', endpoints: ['h'] }))).toEqual([
      'targets[0].binding: required when protocol is "custom": the binding\'s dbClass and jars',
    ]);
    const owned = { ...binding, properties: { exportfile: '/tmp/x', recordcount: '5' } };
    expect(issues(external({ protocol: 'custom', endpoints: ['h'], binding: owned }))).toEqual([
      'targets[0].binding.properties.exportfile: is set by fleetbench (the planner or the loader agent); remove it',
      'targets[0].binding.properties.recordcount: is set by fleetbench (the planner or the loader agent); remove it',
    ]);
  });

  it('hands the secret to the binding as properties text in one variable', async () => {
    const env = await credentialEnv({ secretArn: SECRET, binding: 'custom' }, async () =>
      JSON.stringify({ 'couchbase.password': 'p=w:d', ignored: 7 }),
    );
    expect(env).toEqual({ FLEETBENCH_BINDING_SECRET_PROPERTIES: 'couchbase.password=p\\=w\\:d\n' });
  });
});

describe("a user's binding at the Plan step", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-binding-plan-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The results store as the Lambda sees it (s3://), on a directory. */
  class S3LikeStore extends FsStore {
    constructor(d: string) {
      super(d);
      (this as { uri: string }).uri = 's3://fb-results';
    }
  }
  const planWith = (store: FsStore, binding: Record<string, unknown>) =>
    plan(
      {
        executionName: `b-${Math.random().toString(36).slice(2, 8)}`,
        spec: external({ protocol: 'custom', endpoints: ['h'], binding }),
      },
      { store, clock: { nowMs: () => Date.UTC(2026, 0, 1) }, maxRunSeconds: 8 * 24 * 3600, estimateRunUsd },
    );
  const issuesOf = async (p: Promise<unknown>): Promise<string[]> =>
    p.then(
      () => [],
      (e: InputError) => e.issues.map((i) => `${i.path}: ${i.message}`),
    );

  it('on AWS takes jars under the results bucket bindings/ only, and refuses Maven coordinates left unresolved', async () => {
    const store = new S3LikeStore(dir);
    await store.put('bindings/abc/b.jar', Buffer.from('a jar')); // Plan reads it for its SHA-256
    expect(
      await issuesOf(planWith(store, { dbClass: 'a.B', jars: ['s3://fb-results/bindings/abc/b.jar'] })),
    ).toEqual([]);
    expect(await issuesOf(planWith(store, { dbClass: 'a.B', jars: ['s3://other-bucket/b.jar'] }))).toEqual([
      'targets[0].binding.jars[0]: the loaders read binding jars under s3://fb-results/bindings/ only; got s3://other-bucket/b.jar',
    ]);
    expect(await issuesOf(planWith(store, { dbClass: 'a.B', maven: ['com.example:b:1.0'] }))).toEqual([
      'targets[0].binding.maven: Maven coordinates are resolved into jars by the CLI (fleetbench start, fleetbench run --local); ' +
        'a start from the console or a schedule needs binding.jars (uploaded under s3://fb-results/bindings/)',
    ]);
  });
});
