/**
 * The loader agent end to end: real YCSB JVMs (fleetbench binding) against a real DynamoDB Local,
 * outputs in a filesystem object store, HDR logs decoded by lib/core/hdr and checked against the
 * YCSB summaries.
 */
import { CreateTableCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../lib/open-store';
import { decodeInterval, parseIntervalLog } from '../../lib/core/hdr/log';
import { V2Decoder } from '../../lib/core/hdr/decode';
import { FsStore } from '../../lib/local/fs-store';
import {
  DYNAMODB_LOCAL_CREDENTIALS,
  DynamoDbLocal,
  startDynamoDbLocal,
} from '../../lib/local/dynamodb-local';
import { LoaderPaths, ensureLoaderBuilt } from '../../lib/build/maven';
import { JobInput } from '../../loader/agent/src/job';
import { ProcessManifest, YCSB_MAIN_CLASS, runJob } from '../../loader/agent/src/run-job';
import { operationCounts, parseSummary, returnCounts } from '../../lib/core/contract/summary';
import { parseManifest } from '../../lib/core/contract/manifest';

jest.setTimeout(15 * 60_000); // the first run may build the loader with Maven

let paths: LoaderPaths;
let ddb: DynamoDbLocal;
let client: DynamoDBClient;
let root: string;
let store: FsStore;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  ddb = await startDynamoDbLocal({ paths, heapMb: 512 });
  client = new DynamoDBClient({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  });
  await client.send(
    new CreateTableCommand({
      TableName: 'usertable',
      AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-agent-it-'));
  store = new FsStore(path.join(root, 'store'));
});

afterAll(async () => {
  client?.destroy();
  await ddb?.stop();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

const RECORDS = 20_000;
const RAW = (cell: string) => `${'file://' + path.join(root, 'store')}/runs/it/cells/${cell}/raw`;

function deps(lines: string[] = []) {
  return {
    classpath: paths.ycsbClasspath,
    openStore: (uri: string) => openStore(uri),
    out: (l: string) => lines.push(l),
    log: (l: string) => lines.push(l),
  };
}

async function countItems(): Promise<number> {
  let n = 0;
  let start: Record<string, never> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: 'usertable', Select: 'COUNT', ExclusiveStartKey: start }),
    );
    n += page.Count ?? 0;
    start = page.LastEvaluatedKey as typeof start;
  } while (start);
  return n;
}

/** Σ of the decoded interval counts of one HDR log in the store. */
async function hdrTotal(key: string): Promise<number> {
  const text = (await store.get(key)).toString('utf8');
  const log = parseIntervalLog(text, key);
  const decoder = new V2Decoder();
  return log.intervals.reduce((sum, iv) => sum + decodeInterval(decoder, key, iv).total, 0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Java processes whose command line mentions `needle` (e.g. a job's work directory). */
async function javaProcessesMentioning(needle: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').join(' ');
      if (cmd.includes(YCSB_MAIN_CLASS) && cmd.includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('loader agent against DynamoDB Local', () => {
  test('load phase: 2 processes insert 20,000 records in disjoint ranges', async () => {
    const half = RECORDS / 2;
    const common = {
      recordcount: RECORDS,
      threadcount: 8,
      'dynamodb.endpoint': ddb.endpoint,
      table: 'usertable',
    };
    const job: JobInput = {
      runId: 'it',
      cellId: 'load',
      loaderIndex: 0,
      phase: 'load',
      durationSeconds: 600,
      statusIntervalSeconds: 5,
      jvmArgs: ['-Xmx256m'],
      outputPrefix: RAW('load'),
      processes: [
        { ...common, insertstart: 0, insertcount: half },
        { ...common, insertstart: half, insertcount: half },
      ],
    };
    const lines: string[] = [];
    const result = await runJob(job, deps(lines));
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(true);
    expect(await countItems()).toBe(RECORDS);
    for (const m of result.manifests) {
      expect(m.counts).toEqual({ INSERT: { OK: half } });
      expect(m.exitCode).toBe(0);
    }
    const stored = (await store.getJson(
      'runs/it/cells/load/raw/loader-0/proc-1/manifest.json',
    )) as ProcessManifest;
    expect(stored).toMatchObject({
      loader: 0,
      process: 1,
      phase: 'load',
      exitCode: 0,
      error: null,
      operations: half,
    });
    expect(stored.endMs).toBeGreaterThan(stored.startMs);
    expect(lines.some((l) => l.startsWith('[progress]') && /phase=load/.test(l))).toBe(true);
  });

  test('run phase: 2 processes x 20 s, zipfian 50/50 at a modest target; HDR logs match the summaries', async () => {
    const target = 200;
    const duration = 20;
    const props = {
      recordcount: RECORDS,
      operationcount: 2_000_000_000,
      threadcount: 4,
      target,
      requestdistribution: 'zipfian',
      readproportion: 0.5,
      updateproportion: 0.5,
      scanproportion: 0,
      insertproportion: 0,
      'dynamodb.endpoint': ddb.endpoint,
    };
    const job: JobInput = {
      runId: 'it',
      cellId: 'run',
      loaderIndex: 1,
      phase: 'run',
      durationSeconds: duration,
      statusIntervalSeconds: 5,
      jvmArgs: ['-Xmx256m'],
      outputPrefix: RAW('run'),
      processes: [props, props],
    };
    const lines: string[] = [];
    const result = await runJob(job, deps(lines));
    expect(result.failed).toEqual([]);

    for (const j of [0, 1]) {
      const dir = `runs/it/cells/run/raw/loader-1/proc-${j}`;
      const keys = await store.list(dir + '/');
      for (const name of ['READ', 'UPDATE', 'Intended-READ', 'Intended-UPDATE']) {
        expect(keys).toContain(`${dir}/${name}.hdr`);
      }
      expect(keys).toEqual(
        expect.arrayContaining([`${dir}/summary.json`, `${dir}/stderr.log`, `${dir}/manifest.json`]),
      );
      expect(keys.some((k) => /-FAILED\.hdr$/.test(k))).toBe(false);

      const summary = parseSummary((await store.get(`${dir}/summary.json`)).toString('utf8'), 'summary.json');
      const returns = returnCounts(summary);
      const operations = operationCounts(summary);
      // no errors: every READ and UPDATE returned OK
      expect(Object.keys(returns).sort()).toEqual(['READ', 'UPDATE']);
      expect(Object.keys(returns.READ)).toEqual(['OK']);
      expect(Object.keys(returns.UPDATE)).toEqual(['OK']);
      for (const name of ['READ', 'UPDATE', 'Intended-READ', 'Intended-UPDATE']) {
        expect(await hdrTotal(`${dir}/${name}.hdr`)).toBe(operations[name]);
      }
      expect(operations.READ).toBe(returns.READ.OK);
      expect(operations.UPDATE).toBe(returns.UPDATE.OK);
      const ops = returns.READ.OK + returns.UPDATE.OK;
      // the target throttles YCSB: never (much) above target x duration; well above zero
      expect(ops).toBeLessThanOrEqual(target * (duration + 2));
      expect(ops).toBeGreaterThan(target * duration * 0.25);

      // the agent's manifest passes the schema the results reader parses it with
      const manifest = parseManifest(
        (await store.get(`${dir}/manifest.json`)).toString('utf8'),
        `${dir}/manifest.json`,
        { loader: 1, process: j },
      );
      expect(manifest).toMatchObject({
        runId: 'it',
        cellId: 'run',
        loader: 1,
        process: j,
        phase: 'run',
        error: null,
      });
      expect(manifest.counts).toEqual({ READ: returns.READ, UPDATE: returns.UPDATE });
      expect(manifest.operations).toBe(ops);
      // loader CPU (Linux /proc; absent elsewhere): the JVM's own CPU time and the machine's utilisation
      if (process.platform === 'linux') {
        const c = manifest.cpu!;
        expect(c.cores).toBe(os.cpus().length);
        expect(c.windowStartMs).toBeLessThanOrEqual(manifest.startMs);
        expect(c.windowEndMs).toBeGreaterThanOrEqual(manifest.endMs);
        // a JVM that ran YCSB for 20 s (start-up, JIT, 4 threads at 100 ops/s) spent well over 0.5 CPU-s
        expect(c.processCpuMs).toBeGreaterThan(500);
        expect(c.processPct).toBeCloseTo((c.processCpuMs! / (manifest.endMs - manifest.startMs)) * 100, 1);
        expect(c.processPct).toBeLessThanOrEqual(100 * c.cores);
        expect(c.machinePct).toBeGreaterThan(0);
        expect(c.machinePct).toBeLessThanOrEqual(100);
      } else expect(manifest.cpu).toBeUndefined();
    }
    expect(lines.some((l) => /^\[progress\] .*phase=run .*ops\/s=[1-9]/.test(l))).toBe(true);
  });

  test('deadline: JVMs that outlive duration + grace are killed and none is left behind', async () => {
    const pids: number[] = [];
    const workDir = path.join(root, 'work-deadline');
    const props = {
      recordcount: 1000,
      operationcount: 2_000_000_000,
      maxexecutiontime: 100_000,
      target: 50,
      'basicdb.verbose': false,
    };
    const result = await runJob(
      {
        runId: 'it',
        cellId: 'deadline',
        loaderIndex: 0,
        phase: 'run',
        durationSeconds: 3,
        graceSeconds: 0,
        killAfterSeconds: 3,
        statusIntervalSeconds: 1,
        db: 'site.ycsb.BasicDB',
        jvmArgs: ['-Xmx128m'],
        outputPrefix: RAW('deadline'),
        processes: [props, props],
      },
      { ...deps(), workDir, onSpawn: (_j, pid) => pids.push(pid) },
    );
    expect(pids).toHaveLength(2);
    expect(result.ok).toBe(false);
    expect(result.failed.map((f) => f.process)).toEqual([0, 1]);
    for (const f of result.failed) expect(f.reason).toMatch(/^killed at the deadline/);
    for (const m of result.manifests) expect(m.killed).toBe('deadline');
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(await javaProcessesMentioning(workDir)).toEqual([]);
    // what the killed processes left is still uploaded, with a manifest saying why they failed
    const m = (await store.getJson(
      'runs/it/cells/deadline/raw/loader-0/proc-0/manifest.json',
    )) as ProcessManifest;
    expect(m.error).toMatch(/killed at the deadline/);
    expect(await store.exists('runs/it/cells/deadline/raw/loader-0/proc-0/stderr.log')).toBe(true);
  });
});
