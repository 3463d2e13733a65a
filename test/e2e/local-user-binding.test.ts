/**
 * A user's YCSB binding through a local run end to end (#17): a binding compiled here, in the test, into its
 * own jar (not a class of fleetbench's bundle), with its dependency (Jedis) named by Maven coordinates and
 * resolved by the local mode with its own; the agent fetches them, the Launcher loads them in their own class loader, YCSB runs the
 * load and a cell against a real redis-server, and the results pipeline counts its operations as for the
 * built-in bindings.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateSpec } from '../../lib/core/spec';
import { ensureLoaderBuilt } from '../../lib/build/maven';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { freePort } from '../support/ports';

const HASH_DB = `package userredis;
import java.util.*;
import redis.clients.jedis.Jedis;
import site.ycsb.*;
/** A minimal Redis binding: a hash per record, like upstream's, without scans. */
public class HashDb extends DB {
  private Jedis jedis;
  @Override public void init() throws DBException {
    Properties p = getProperties();
    jedis = new Jedis(p.getProperty("userredis.host"), Integer.parseInt(p.getProperty("userredis.port")));
  }
  @Override public void cleanup() { jedis.close(); }
  @Override public Status read(String t, String k, Set<String> f, Map<String, ByteIterator> r) {
    Map<String, String> v = jedis.hgetAll(k);
    if (v.isEmpty()) return Status.NOT_FOUND;
    StringByteIterator.putAllAsByteIterators(r, v);
    return Status.OK;
  }
  @Override public Status scan(String t, String s, int n, Set<String> f, Vector<HashMap<String, ByteIterator>> r) {
    return Status.NOT_IMPLEMENTED;
  }
  @Override public Status update(String t, String k, Map<String, ByteIterator> v) {
    jedis.hset(k, StringByteIterator.getStringMap(v));
    return Status.OK;
  }
  @Override public Status insert(String t, String k, Map<String, ByteIterator> v) { return update(t, k, v); }
  @Override public Status delete(String t, String k) { return jedis.del(k) == 1 ? Status.OK : Status.NOT_FOUND; }
}
`;

describe("a user's binding jar through a local run", () => {
  const work = mkdtempSync(path.join(tmpdir(), 'fleetbench-user-binding-'));
  let redis: ChildProcess;
  let port: number;
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    const { bundleLibDir } = await ensureLoaderBuilt();
    // the binding, compiled and jarred here
    const src = path.join(work, 'src', 'userredis');
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'HashDb.java'), HASH_DB);
    const classes = path.join(work, 'classes');
    execFileSync('javac', [
      '-d',
      classes,
      '-cp',
      path.join(bundleLibDir, '*'),
      path.join(src, 'HashDb.java'),
    ]);
    const jars = path.join(work, 'jars');
    mkdirSync(jars);
    execFileSync('jar', [
      '--create',
      '--file',
      path.join(jars, 'user-redis-binding.jar'),
      '-C',
      classes,
      '.',
    ]);

    port = await freePort();
    redis = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
      if (up) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const spec = validateSpec({
      name: 'user-binding',
      targets: [
        {
          id: 'mine',
          kind: 'external',
          protocol: 'custom',
          endpoints: [`127.0.0.1:${port}`],
          binding: {
            dbClass: 'userredis.HashDb',
            jars: [pathToFileURL(path.join(jars, 'user-redis-binding.jar')).href],
            // its dependency by Maven coordinates: the local mode resolves it with its own (commons-pool2, ...)
            maven: ['redis.clients:jedis:5.2.0'],
            properties: { 'userredis.host': '127.0.0.1', 'userredis.port': String(port) },
          },
          price: { usdPerHour: 0.1 },
          expectedLatencyMs: 2,
        },
      ],
      dataset: { recordCount: 2000 },
      workload: {
        readProportions: [0.5],
        targetOpsPerSec: [200],
        distributions: ['uniform'],
        durationSeconds: 10,
        warmupSeconds: 2,
        statusIntervalSeconds: 1,
      },
      loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
    }).spec;
    result = await runLocal({
      spec,
      resultsDir: path.join(work, 'results'),
      runName: 'user-binding',
      out: (l) => lines.push(l),
    });
  }, 600_000);

  afterAll(() => redis?.kill('SIGKILL'));

  it('loads every record into Redis through the user binding and runs the cell without a failed operation', () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    // the binding really wrote to this Redis: one hash per record
    const dbsize = execFileSync('redis-cli', ['-p', String(port), 'DBSIZE'], { encoding: 'utf8' }).trim();
    expect(Number(dbsize)).toBe(2000);
    const cell = path.join(work, 'results', 'runs', result.runId, 'cells', 'mine.uniform.r50.t200');
    const { row } = JSON.parse(readFileSync(path.join(cell, 'result.json'), 'utf8')) as {
      row: Record<string, number | boolean>;
    };
    expect(row.errors).toBe(0);
    expect(row.incomplete).toBe(false);
    expect(row.read_service_count as number).toBeGreaterThan(300);
    expect(row.update_service_count as number).toBeGreaterThan(300);
    // the job named the user's class and jars; the agent put them in a directory of their own
    const job = JSON.parse(
      readFileSync(path.join(cell, 'jobs', readdirSync(path.join(cell, 'jobs'))[0]!), 'utf8'),
    );
    expect(job.db).toBe('userredis.HashDb');
    // the user's jar, then Jedis and its runtime dependencies as Maven resolved them
    const names = (job.bindingJars as string[]).map((u) => u.split('/').pop());
    expect(names[0]).toBe('user-redis-binding.jar');
    expect(names).toEqual(expect.arrayContaining(['jedis-5.2.0.jar', 'commons-pool2-2.12.0.jar']));
    const props = readFileSync(path.join(cell, 'raw', 'loader-0', 'proc-0', 'process.properties'), 'utf8');
    expect(props).toMatch(/^fleetbench\.binding\.classpath=.*binding$/m);
  });
});
