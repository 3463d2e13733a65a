/**
 * `npm run bench:loader`: loader CPU per operation and saturation throughput of YCSB bindings driving DynamoDB
 * Local on this machine, measured side by side (interleaved repeats, medians). Figures only, no assertions.
 *
 * Bindings (BENCH_BINDINGS, comma list; default all that are available):
 *   fleetbench      dev.fleetbench.ycsb.DynamoDbClient, default settings (the loader bundle)
 *   upstream        upstream YCSB's site.ycsb.db.DynamoDBClient (AWS SDK v1) as upstream ships it: its dynamodb
 *                   module's sources and resources (log4j.properties, root logger at INFO), built by
 *                   test/bench/reference-ycsb-dynamodb (see its pom.xml for where the files come from). Without
 *                   that log4j.properties, log4j 1.2 runs at its default level DEBUG and upstream builds debug
 *                   strings on every operation: the bench refuses such a reference.
 *   basic           YCSB core's site.ycsb.BasicDB (no I/O): the floor, the YCSB machinery alone
 *
 * Every run is one YCSB JVM (no extra JVM flags unless BENCH_JVM_ARGS), workload a (50/50 read/update,
 * zipfian), the measurement properties the loader agent writes (HDR file output, measurement.interval=both,
 * JSON array export, status interval). CPU is the JVM's own user+sys time from /proc/<pid>/stat, read when each
 * `-s` status line arrives, so a window's CPU and its operation count come from the same instants.
 *
 *   rate  target BENCH_RATE ops/s (1,500) for BENCH_RATE_SECONDS (60):
 *         "whole"  CPU-ms per 1,000 ops over the whole run, JVM start-up and JIT included
 *         "warm"   CPU-ms per 1,000 ops over the second half of the run
 *   sat   no target for BENCH_SAT_SECONDS (60): ops/s (YCSB's [OVERALL] Throughput) and CPU-ms per 1,000 ops
 *         in the second half. 60, not 20: on a loaded machine upstream's JIT (~6 CPU-s) was still compiling in
 *         the second half of a 20-s run, and its saturation CPU read ~190 CPU-ms per 1,000 ops instead of ~66
 *
 * Environment: BENCH_REPEATS (3), BENCH_THREADS (16), BENCH_RECORDS (10000), BENCH_STATUS_SECONDS (5).
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs, readFileSync, readdirSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DYNAMODB_LOCAL_CREDENTIALS, startDynamoDbLocal } from '../../lib/local/dynamodb-local';
import { ensureLoaderBuilt, repoRoot } from '../../lib/build/maven';
import { toPropertiesText } from '../../loader/agent/src/properties';
import { defaultJava } from '../../loader/agent/src/run-job';
import { parseStatusLine } from '../../loader/agent/src/ycsb-output';
import { parseSummary } from '../../lib/core/contract/summary';

const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const THREADS = Number(process.env.BENCH_THREADS ?? 16);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 1500);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 60);
const SAT_SECONDS = Number(process.env.BENCH_SAT_SECONDS ?? 60);
const STATUS_SECONDS = Number(process.env.BENCH_STATUS_SECONDS ?? 5);
const JVM_ARGS = (process.env.BENCH_JVM_ARGS ?? '').split(' ').filter(Boolean);
const TICKS = 100; // USER_HZ on Linux

type Props = Record<string, string | number | boolean>;

interface Binding {
  name: string;
  db: string;
  classpath: string;
  props: (endpoint: string, root: string) => Props;
}

interface Sample {
  elapsedS: number;
  ops: number;
  cpuS: number;
  /** CPU of the JIT compiler threads (C1/C2) so far */
  jitS: number;
  /** CPU so far by thread group (JIT, GC, YCSB clients, other) */
  threads: Record<string, number>;
}

interface RunResult {
  samples: Sample[];
  throughput: number;
}

/** user+sys CPU seconds of a live process from /proc/<pid>/stat. */
function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Thread groups of a HotSpot JVM running YCSB, by thread name. */
const THREAD_GROUPS: [string, RegExp][] = [
  ['JIT', /^C[12] CompilerThre/],
  ['GC', /^(GC Thread|G1 |VM Thread|VM Periodic)/],
  ['YCSB clients', /^Thread-\d+$/],
];

/** user+sys CPU seconds of a live JVM's threads, summed by THREAD_GROUPS (the rest under "other"). */
function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = { JIT: 0, GC: 0, 'YCSB clients': 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const group = THREAD_GROUPS.find(([, re]) => re.test(name))?.[0] ?? 'other';
      out[group] += (Number(fields[11]) + Number(fields[12])) / TICKS;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Files under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * Builds the upstream reference module when its files are there (again when any of them or the pom is newer
 * than the built jar); its classpath, or why it is missing.
 */
function referenceClasspath(): string | { missing: string } {
  const dir = path.join(repoRoot(), 'test', 'bench', 'reference-ycsb-dynamodb');
  const needed = [
    path.join(dir, 'src', 'main', 'java', 'site', 'ycsb', 'db', 'DynamoDBClient.java'),
    // upstream ships the binding with this file (root logger INFO); without it log4j 1.2 logs at DEBUG
    path.join(dir, 'src', 'main', 'resources', 'log4j.properties'),
  ];
  for (const f of needed)
    if (!existsSync(f)) return { missing: `no ${path.relative(repoRoot(), f)} (see that module's pom.xml)` };
  const lib = path.join(dir, 'target', 'lib');
  const jar = existsSync(lib)
    ? readdirSync(lib).find((f) => f.startsWith('reference-ycsb-dynamodb'))
    : undefined;
  const built = jar ? statSync(path.join(lib, jar)).mtimeMs : 0;
  const inputs = [path.join(dir, 'pom.xml'), ...filesUnder(path.join(dir, 'src'))];
  if (inputs.some((f) => statSync(f).mtimeMs > built)) {
    const r = spawnSync(
      'mvn',
      ['-q', '-B', '--strict-checksums', '-f', path.join(dir, 'pom.xml'), 'package'],
      {
        stdio: 'inherit',
      },
    );
    if (r.status !== 0) return { missing: `building ${dir} failed (exit ${r.status})` };
  }
  return path.join(lib, '*');
}

function bindings(bundle: string): { use: Binding[]; missing: string[] } {
  const all: Binding[] = [
    {
      name: 'fleetbench',
      db: 'dev.fleetbench.ycsb.DynamoDbClient',
      classpath: bundle,
      props: (endpoint) => ({ 'dynamodb.endpoint': endpoint }),
    },
    {
      name: 'basic',
      db: 'site.ycsb.BasicDB',
      classpath: bundle,
      props: () => ({ 'basicdb.verbose': false }),
    },
  ];
  const missing: string[] = [];
  const ref = referenceClasspath();
  if (typeof ref === 'string') {
    all.splice(1, 0, {
      name: 'upstream',
      db: 'site.ycsb.db.DynamoDBClient',
      classpath: ref,
      props: (endpoint, root) => ({
        'dynamodb.endpoint': endpoint,
        'dynamodb.region': 'us-east-1',
        'dynamodb.primaryKey': 'p',
        'dynamodb.awsCredentialsFile': path.join(root, 'aws-credentials.properties'),
      }),
    });
  } else {
    missing.push(`upstream: ${ref.missing}`);
  }
  const wanted = process.env.BENCH_BINDINGS?.split(',').map((s) => s.trim());
  return { use: wanted ? all.filter((b) => wanted.includes(b.name)) : all, missing };
}

/** One YCSB JVM; resolves with its status-line samples and overall throughput. */
async function runYcsb(b: Binding, dir: string, props: Props, phase: 'load' | 'run'): Promise<RunResult> {
  await fs.mkdir(dir, { recursive: true });
  const all: Props = {
    workload: 'site.ycsb.workloads.CoreWorkload',
    'measurement.interval': 'both',
    'hdrhistogram.percentiles': '50,90,95,99,99.9,99.99',
    ...props,
    measurementtype: 'hdrhistogram',
    'hdrhistogram.fileoutput': true,
    'hdrhistogram.output.path': dir + path.sep,
    exporter: 'site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter',
    exportfile: path.join(dir, 'summary.json'),
    'status.interval': STATUS_SECONDS,
  };
  const file = path.join(dir, 'bench.properties');
  await fs.writeFile(file, toPropertiesText(all));
  const args = [...JVM_ARGS, '-cp', b.classpath, 'site.ycsb.Client', '-db', b.db, '-s', '-P', file];
  args.push(phase === 'load' ? '-load' : '-t');
  const child = spawn(defaultJava(), args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const samples: Sample[] = [];
  const tail: string[] = [];
  let log4jUnconfigured = false;
  let buf = '';
  child.stderr.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const s = parseStatusLine(line);
      if (s && child.pid) {
        try {
          const threads = threadCpuSeconds(child.pid);
          samples.push({
            elapsedS: s.elapsedSeconds,
            ops: s.totalOps,
            cpuS: procCpuSeconds(child.pid),
            jitS: threads.JIT,
            threads,
          });
        } catch {
          // the JVM is already gone
        }
      } else {
        if (line.startsWith('log4j:WARN No appenders could be found')) log4jUnconfigured = true;
        tail.push(line);
        if (tail.length > 30) tail.shift();
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`${b.name} ${phase} exited ${code}:\n${tail.join('\n')}`);
  if (log4jUnconfigured)
    throw new Error(
      `${b.name} ran with log4j 1.2 unconfigured (no log4j.properties on its classpath), so at its default ` +
        'level DEBUG: not the binding as shipped',
    );
  const summary = parseSummary(await fs.readFile(path.join(dir, 'summary.json'), 'utf8'), 'summary.json');
  return { samples, throughput: summary.throughput ?? 0 };
}

/**
 * The warm window's CPU-ms per 1,000 ops by thread group. It ends one status interval before the final status
 * line: around the end the client threads exit, and an exited thread's CPU is no longer under /proc/<pid>/task.
 */
function groupsPerKiloOps(samples: Sample[], fromS: number): Record<string, number> {
  const end = (samples[samples.length - 1]?.elapsedS ?? 0) - STATUS_SECONDS;
  const last = samples.filter((s) => s.elapsedS <= end).pop();
  const first = samples.find((s) => s.elapsedS >= fromS);
  const out: Record<string, number> = {};
  if (!last || !first || last.ops <= first.ops) return out;
  for (const g of Object.keys(last.threads))
    out[g] = ((last.threads[g]! - (first.threads[g] ?? 0)) / (last.ops - first.ops)) * 1e6;
  return out;
}

/** CPU-ms per 1,000 ops between the first sample at or after `fromS` and the last sample. */
function cpuPerKiloOps(samples: Sample[], fromS: number): number {
  const last = samples[samples.length - 1];
  const first =
    fromS <= 0 ? { elapsedS: 0, ops: 0, cpuS: 0, jitS: 0 } : samples.find((s) => s.elapsedS >= fromS);
  if (!last || !first || last.ops <= first.ops) return NaN;
  return ((last.cpuS - first.cpuS) / (last.ops - first.ops)) * 1e6;
}

function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function fmt(x: number, digits = 0): string {
  return Number.isNaN(x)
    ? 'n/a'
    : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function main(): Promise<void> {
  const paths = await ensureLoaderBuilt({ log: (l) => process.stderr.write(l + '\n') });
  const { use, missing } = bindings(paths.ycsbClasspath);
  for (const m of missing) process.stderr.write(`bench:loader: reference not measured — ${m}\n`);
  const ddb = await startDynamoDbLocal({ paths, heapMb: 1024 });
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-bench-loader-'));
  await fs.writeFile(
    path.join(root, 'aws-credentials.properties'),
    `accessKey=${DYNAMODB_LOCAL_CREDENTIALS.accessKeyId}\nsecretKey=${DYNAMODB_LOCAL_CREDENTIALS.secretAccessKey}\n`,
  );
  const client = new DynamoDBClient({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  });
  const workload: Props = {
    recordcount: RECORDS,
    threadcount: THREADS,
    readproportion: 0.5,
    updateproportion: 0.5,
    scanproportion: 0,
    insertproportion: 0,
    requestdistribution: 'zipfian',
  };
  try {
    await client.send(
      new CreateTableCommand({
        TableName: 'usertable',
        AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const loader = use.find((b) => b.name === 'fleetbench') ?? use[0];
    await runYcsb(
      loader,
      path.join(root, 'load'),
      { ...workload, ...loader.props(ddb.endpoint, root), operationcount: RECORDS },
      'load',
    );

    const rate = new Map<
      string,
      { whole: number[]; warm: number[]; jit: number[]; groups: Record<string, number>[] }
    >();
    const sat = new Map<string, { ops: number[]; cpu: number[] }>();
    for (const b of use) {
      rate.set(b.name, { whole: [], warm: [], jit: [], groups: [] });
      sat.set(b.name, { ops: [], cpu: [] });
    }
    for (let r = 0; r < REPEATS; r++) {
      for (const b of use) {
        const base = { ...workload, ...b.props(ddb.endpoint, root), operationcount: 2_000_000_000 };
        const fixed = await runYcsb(
          b,
          path.join(root, `${b.name}-rate-${r}`),
          { ...base, target: RATE, maxexecutiontime: RATE_SECONDS },
          'run',
        );
        rate.get(b.name)!.whole.push(cpuPerKiloOps(fixed.samples, 0));
        rate.get(b.name)!.jit.push(fixed.samples[fixed.samples.length - 1]?.jitS ?? NaN);
        rate.get(b.name)!.groups.push(groupsPerKiloOps(fixed.samples, RATE_SECONDS / 2));
        rate.get(b.name)!.warm.push(cpuPerKiloOps(fixed.samples, RATE_SECONDS / 2));
        const open = await runYcsb(
          b,
          path.join(root, `${b.name}-sat-${r}`),
          { ...base, maxexecutiontime: SAT_SECONDS },
          'run',
        );
        sat.get(b.name)!.ops.push(open.throughput);
        sat.get(b.name)!.cpu.push(cpuPerKiloOps(open.samples, SAT_SECONDS / 2));
        process.stderr.write(
          `[repeat ${r + 1}/${REPEATS}] ${b.name}: rate whole ${fmt(rate.get(b.name)!.whole[r])} warm ` +
            `${fmt(rate.get(b.name)!.warm[r])} CPU-ms/1k; sat ${fmt(open.throughput)} ops/s, ` +
            `${fmt(sat.get(b.name)!.cpu[r])} CPU-ms/1k\n`,
        );
      }
    }

    const row = (name: string, cells: string[]): string =>
      [name.padEnd(16), ...cells.map((c) => c.padStart(14))].join(' ');
    const lines = [
      `bench:loader — workload a (50/50, zipfian), ${RECORDS} records, ${THREADS} threads, DynamoDB Local, ` +
        `${os.cpus().length} cores; median of ${REPEATS} interleaved repeats; CPU = the YCSB JVM's user+sys`,
      `rate: target ${RATE} ops/s for ${RATE_SECONDS} s (warm = second half); sat: no target for ${SAT_SECONDS} s ` +
        `(CPU over the second half)${JVM_ARGS.length ? `; JVM args ${JVM_ARGS.join(' ')}` : ''}`,
      row('binding', ['rate whole', 'rate warm', 'rate JIT', 'sat ops/s', 'sat CPU']),
      row('', ['CPU-ms/1k ops', 'CPU-ms/1k ops', 'CPU-s (C1+C2)', '', 'CPU-ms/1k ops']),
    ];
    const med = (name: string) => ({
      whole: median(rate.get(name)!.whole),
      jit: median(rate.get(name)!.jit),
      warm: median(rate.get(name)!.warm),
      ops: median(sat.get(name)!.ops),
      cpu: median(sat.get(name)!.cpu),
    });
    for (const b of use) {
      const m = med(b.name);
      lines.push(row(b.name, [fmt(m.whole, 1), fmt(m.warm, 1), fmt(m.jit, 1), fmt(m.ops), fmt(m.cpu, 1)]));
    }
    if (sat.has('upstream')) {
      const up = med('upstream');
      for (const name of ['fleetbench'].filter((n) => sat.has(n))) {
        const m = med(name);
        lines.push(
          row(`${name}/upstream`, [
            `${fmt(m.whole / up.whole, 2)}x`,
            `${fmt(m.warm / up.warm, 2)}x`,
            `${fmt(m.jit / up.jit, 2)}x`,
            `${fmt(m.ops / up.ops, 2)}x`,
            `${fmt(m.cpu / up.cpu, 2)}x`,
          ]),
        );
      }
    }
    const groups = ['YCSB clients', 'JIT', 'GC', 'other'];
    lines.push('', "where the warm rate run's CPU goes, CPU-ms per 1,000 ops by JVM thread group (median):");
    lines.push(row('binding', groups));
    for (const b of use) {
      const runs = rate.get(b.name)!.groups;
      lines.push(
        row(
          b.name,
          groups.map((g) => fmt(median(runs.map((r) => r[g] ?? NaN)), 1)),
        ),
      );
    }
    for (const m of missing) lines.push(`(not measured: ${m})`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    client.destroy();
    await ddb.stop();
    await fs.rm(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:loader failed: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
