import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DYNAMODB_LOCAL_CREDENTIALS,
  freeLoopbackPort,
  startDynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { cassandraAssetName } from '../../lib/core/targets/cassandra-ec2/node';
import { resolveMavenJars, withResolvedBindings } from '../../lib/local/binding-artifacts';
import { cassandraAssetPath, ensureCassandraAsset } from '../../lib/build/cassandra-asset';
import { ensureLoaderBuilt, loaderPaths, staleReason, type LoaderPaths } from '../../lib/build/maven';
import { pidAlive } from '../support/processes';

// The first run builds the Java side with Maven (downloads included): allow for it.
jest.setTimeout(15 * 60_000);

let paths: LoaderPaths;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('ensureLoaderBuilt', () => {
  it('lays out the loader bundle with HdrHistogram 2.1.12 (not 2.1.4) and DynamoDB Local', () => {
    expect(staleReason(paths)).toBeNull();
    const jars = fs.readdirSync(paths.bundleLibDir);
    expect(jars).toContain('HdrHistogram-2.1.12.jar');
    expect(jars).not.toContain('HdrHistogram-2.1.4.jar');
    expect(jars).toContain('core-0.17.0.jar');
    expect(jars.some((j) => j.startsWith('fleetbench-ycsb-binding-'))).toBe(true);
    // the binding speaks DynamoDB's JSON protocol itself: the SDK resolves credentials (auth); its DynamoDB
    // module ships only as the model the DAX client (dynamodb.daxEndpoint) uses, and no Apache HTTP client
    expect(jars.some((j) => j.startsWith('auth-2.'))).toBe(true);
    expect(jars.filter((j) => j.startsWith('dynamodb-2.'))).toEqual(['dynamodb-2.25.50.jar']);
    expect(jars.some((j) => j.startsWith('amazon-dax-client-'))).toBe(true);
    expect(jars.filter((j) => j.startsWith('apache-client-'))).toEqual([]);
    expect(fs.statSync(paths.bundleArchive).size).toBeGreaterThan(0);
    expect(paths.ycsbClasspath).toBe(path.join(paths.bundleLibDir, '*'));
    expect(fs.readdirSync(paths.dynamodbLocalNativeDir).some((f) => f.includes('linux-amd64'))).toBe(true);
  });

  it('does not rebuild when nothing changed', async () => {
    const t0 = Date.now();
    await ensureLoaderBuilt({ mvn: '/nonexistent/mvn' }); // would fail if it tried to build
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

/**
 * A scratch repository root with loader POMs and a fake `mvn` that lays out what each build makes (the loader,
 * the Cassandra asset, a binding's jars) and logs when each run begins and ends.
 */
function fakeRoot(): { root: string; mvn: string; runs: () => number; log: () => string[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-mvn-'));
  const loader = path.join(root, 'loader');
  for (const d of ['ycsb-binding/src/main/java', 'dynamodb-local', 'cassandra-node'])
    fs.mkdirSync(path.join(loader, d), { recursive: true });
  for (const f of [
    'pom.xml',
    'ycsb-binding/pom.xml',
    'dynamodb-local/pom.xml',
    'cassandra-node/pom.xml',
    'ycsb-binding/src/main/java/A.java',
  ]) {
    fs.writeFileSync(path.join(loader, f), 'x');
  }
  const mvn = path.join(root, 'mvn');
  fs.writeFileSync(
    mvn,
    [
      '#!/bin/sh',
      // the flags (MAVEN_FLAGS) come first, then -f <pom> <goal> [properties]
      'while [ "$1" != "-f" ]; do shift; done',
      `echo "begin $2 $3" >> "${root}/runs"`,
      'sleep 1',
      'case "$3" in',
      `  package) case "$2" in *cassandra-node*) mkdir -p "${loader}/cassandra-node/target" && touch "${loader}/cassandra-node/target/${cassandraAssetName()}";;`,
      `    *) cd "${loader}"`,
      '      mkdir -p ycsb-binding/target/bundle/lib dynamodb-local/target/lib dynamodb-local/target/native',
      '      touch ycsb-binding/target/bundle/lib/fleetbench-ycsb-binding-0.1.0.jar ycsb-binding/target/fleetbench-loader-bundle.tar.gz',
      '      touch dynamodb-local/target/lib/DynamoDBLocal-2.5.4.jar dynamodb-local/target/native/libsqlite4java-linux-amd64-1.0.392.so;;',
      '    esac;;',
      '  dependency:copy-dependencies) out="${4#-DoutputDirectory=}"; mkdir -p "$out" && touch "$out/user-dep-1.0.jar";;',
      'esac',
      `echo end >> "${root}/runs"`,
    ].join('\n') + '\n',
    { mode: 0o755 },
  );
  const log = (): string[] =>
    fs.existsSync(path.join(root, 'runs'))
      ? fs.readFileSync(path.join(root, 'runs'), 'utf8').split('\n').filter(Boolean)
      : [];
  const runs = (): number => log().filter((l) => l.startsWith('begin')).length;
  return { root, mvn, runs, log };
}

describe('ensureLoaderBuilt (fake mvn)', () => {
  it('builds once for parallel callers, then only when a source changes', async () => {
    const { root, mvn, runs } = fakeRoot();
    expect(staleReason(loaderPaths(root))).toBe('never built');
    await Promise.all([
      ensureLoaderBuilt({ root, mvn }),
      ensureLoaderBuilt({ root, mvn }),
      ensureLoaderBuilt({ root, mvn }),
    ]);
    expect(runs()).toBe(1);
    expect(staleReason(loaderPaths(root))).toBeNull();
    await ensureLoaderBuilt({ root, mvn });
    expect(runs()).toBe(1);

    // inputs written 2 min ago, last build 1 min ago, one source edited 30 s ago
    const ago = (s: number): Date => new Date(Date.now() - s * 1000);
    for (const f of ['pom.xml', 'ycsb-binding/pom.xml', 'dynamodb-local/pom.xml']) {
      fs.utimesSync(path.join(root, 'loader', f), ago(120), ago(120));
    }
    fs.utimesSync(path.join(root, 'loader/target/.fleetbench-built'), ago(60), ago(60));
    fs.utimesSync(path.join(root, 'loader/ycsb-binding/src/main/java/A.java'), ago(30), ago(30));
    expect(staleReason(loaderPaths(root))).toMatch(/A\.java changed since the last build/);
    await ensureLoaderBuilt({ root, mvn });
    expect(runs()).toBe(2);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("serialises every Maven run of the repository (the loader, the Cassandra asset, a binding's jars): one at a time, each once", async () => {
    const { root, mvn, runs, log } = fakeRoot();
    const cacheDir = path.join(root, 'bindings');
    const coords = ['org.example:user-dep:1.0'];
    const [, asset, jarsA, jarsB] = await Promise.all([
      ensureLoaderBuilt({ root, mvn }),
      ensureCassandraAsset(root, { mvn }),
      resolveMavenJars(coords, { root, mvn, cacheDir }),
      resolveMavenJars(coords, { root, mvn, cacheDir }),
    ]);
    // three runs (the two resolutions of the same coordinates are one), never two at once
    expect(runs()).toBe(3);
    expect(log().map((l) => l.split(' ')[0])).toEqual(['begin', 'end', 'begin', 'end', 'begin', 'end']);
    expect(
      log()
        .filter((l) => l.startsWith('begin'))
        .map((l) => l.split(' ')[2]),
    ).toEqual(expect.arrayContaining(['package', 'package', 'dependency:copy-dependencies']));
    expect(asset).toBe(cassandraAssetPath(root));
    expect(fs.existsSync(asset)).toBe(true);
    expect(jarsA).toEqual(jarsB);
    expect(jarsA.map((j) => path.relative(cacheDir, j).split(path.sep).slice(1))).toEqual([
      ['lib', 'user-dep-1.0.jar'],
    ]);

    // a spec's binding in one walk: its file:// jar and the resolved one placed, its s3:// jar kept
    const placed: string[] = [];
    const doc = (await withResolvedBindings(
      {
        targets: [
          { id: 'ddb', kind: 'dynamodb' },
          {
            id: 'x',
            binding: { jars: ['file:///opt/my-binding.jar', 's3://b/bindings/k/dep.jar'], maven: coords },
          },
        ],
      },
      async (jar) => {
        placed.push(jar);
        return `s3://b/placed/${path.basename(jar)}`;
      },
      { root, mvn, cacheDir },
    )) as { targets: { binding?: { jars: string[]; maven: string[] } }[] };
    expect(placed).toEqual(['/opt/my-binding.jar', jarsA[0]]);
    expect(doc.targets[1]!.binding).toEqual({
      jars: ['s3://b/placed/my-binding.jar', 's3://b/bindings/k/dep.jar', 's3://b/placed/user-dep-1.0.jar'],
      maven: coords,
    });
    expect(doc.targets[0]).toEqual({ id: 'ddb', kind: 'dynamodb' });
    expect(runs()).toBe(3); // resolved from the cache
    // a file:// URI that names no local file: the field, nothing placed
    await expect(
      withResolvedBindings({ targets: [{ binding: { jars: ['file://elsewhere/x.jar'] } }] }),
    ).rejects.toThrow(/^targets\[0\]\.binding\.jars\[0\]: expected a file:\/\/ URI of a local jar/);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('says what to install when mvn is missing', async () => {
    const { root } = fakeRoot();
    await expect(ensureLoaderBuilt({ root, mvn: path.join(root, 'no-such-mvn') })).rejects.toThrow(
      /not found on PATH\. Install Maven 3\.8\+ and a JDK 17/,
    );
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('startDynamoDbLocal', () => {
  it('serves CreateTable/PutItem/GetItem on a loopback port and stops cleanly', async () => {
    const ddb = await startDynamoDbLocal({ paths });
    const client = new DynamoDBClient({
      endpoint: ddb.endpoint,
      region: 'us-east-1',
      credentials: DYNAMODB_LOCAL_CREDENTIALS,
    });
    try {
      expect(ddb.endpoint).toBe(`http://127.0.0.1:${ddb.port}`);
      await client.send(
        new CreateTableCommand({
          TableName: 'usertable',
          AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await client.send(
        new PutItemCommand({ TableName: 'usertable', Item: { p: { S: 'user1' }, field0: { S: 'hello' } } }),
      );
      const got = await client.send(
        new GetItemCommand({ TableName: 'usertable', Key: { p: { S: 'user1' } } }),
      );
      expect(got.Item).toEqual({ p: { S: 'user1' }, field0: { S: 'hello' } });

      // -sharedDb: other credentials and regions see the same tables (the Java binding uses its own)
      const other = new DynamoDBClient({
        endpoint: ddb.endpoint,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'other', secretAccessKey: 'other' },
      });
      expect((await other.send(new ListTablesCommand({}))).TableNames).toEqual(['usertable']);
      other.destroy();
    } finally {
      client.destroy();
      await ddb.stop();
    }
    expect(await portOpen(ddb.port)).toBe(false);
    expect(pidAlive(ddb.pid)).toBe(false);
    await ddb.stop(); // idempotent
  });

  it('fails with the server output when the port is taken', async () => {
    const port = await freeLoopbackPort();
    const blocker = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => blocker.listen(port, '0.0.0.0', () => r()));
    try {
      await expect(startDynamoDbLocal({ paths, port, startTimeoutMs: 30_000 })).rejects.toThrow(
        /DynamoDB Local exited .* before answering on port \d+/,
      );
    } finally {
      blocker.close();
    }
  });
});
