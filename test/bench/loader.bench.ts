/**
 * `npm run bench:loader`: how fast one loader drives DynamoDB Local at saturation (no target), and what
 * it costs in loader CPU, for 1 and 2 YCSB processes. Figures only, no assertions.
 *
 *   ops/s                 Σ of the processes' YCSB [OVERALL] Throughput(ops/sec)
 *   loader CPU-s / 1k ops (user+sys CPU of every YCSB JVM, measured by a shell wrapper's `times`,
 *                          plus the agent's own CPU) per 1,000 operations
 *   DynamoDB Local CPU-s  CPU used by the DynamoDB Local JVM during the phase (it shares the machine)
 *
 * Environment: BENCH_SECONDS (default 15), BENCH_THREADS per process (default 16), BENCH_RECORDS (10000).
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore } from '../../lib/open-store';
import { FsStore } from '../../lib/local/fs-store';
import { DYNAMODB_LOCAL_CREDENTIALS, startDynamoDbLocal } from '../../lib/local/dynamodb-local';
import { ensureLoaderBuilt } from '../../lib/local/maven';
import { defaultJava, runJob } from '../../loader/agent/src/run-job';
import { parseSummary } from '../../loader/agent/src/ycsb-output';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const THREADS = Number(process.env.BENCH_THREADS ?? 16);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const TICKS = 100; // USER_HZ on Linux

/** user+sys CPU seconds of a live process from /proc/<pid>/stat. */
function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** `times` prints the shell's and then its children's user/sys: "0m1.234s 0m0.100s". */
function parseTimes(text: string): number {
  const lines = text.trim().split('\n');
  const child = lines[lines.length - 1];
  return [...child.matchAll(/(\d+)m([\d.]+)s/g)].reduce((s, m) => s + Number(m[1]) * 60 + Number(m[2]), 0);
}

async function main(): Promise<void> {
  const paths = await ensureLoaderBuilt({ log: (l) => process.stderr.write(l + '\n') });
  const ddb = await startDynamoDbLocal({ paths, heapMb: 1024 });
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-bench-loader-'));
  const client = new DynamoDBClient({
    endpoint: ddb.endpoint,
    region: 'us-east-1',
    credentials: DYNAMODB_LOCAL_CREDENTIALS,
  });
  // A java wrapper that records the JVM's CPU time in its working directory (the process dir).
  const wrapper = path.join(root, 'java-with-times.sh');
  await fs.writeFile(
    wrapper,
    `#!/bin/bash\n"${defaultJava()}" "$@"\nrc=$?\ntimes > cpu-times.txt\nexit $rc\n`,
    {
      mode: 0o755,
    },
  );
  try {
    await client.send(
      new CreateTableCommand({
        TableName: 'usertable',
        AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const storeUri = `file://${root}/store`;
    const quiet = { out: () => undefined, log: () => undefined };
    const load = await runJob(
      {
        runId: 'bench',
        cellId: 'load',
        loaderIndex: 0,
        phase: 'load',
        durationSeconds: 1800,
        jvmArgs: ['-Xmx512m'],
        outputPrefix: `${storeUri}/runs/bench/cells/load/raw`,
        processes: [{ recordcount: RECORDS, threadcount: THREADS, 'dynamodb.endpoint': ddb.endpoint }],
      },
      { classpath: paths.ycsbClasspath, openStore, ...quiet },
    );
    if (!load.ok) throw new Error(`load failed: ${JSON.stringify(load.failed)}`);

    const rows: string[] = [];
    for (const p of [1, 2]) {
      const cell = `p${p}`;
      const workDir = path.join(root, `work-${cell}`);
      const props = {
        recordcount: RECORDS,
        operationcount: 2_000_000_000,
        threadcount: THREADS,
        requestdistribution: 'uniform',
        readproportion: 0.5,
        updateproportion: 0.5,
        'dynamodb.endpoint': ddb.endpoint,
      };
      const agentCpu0 = process.cpuUsage();
      const ddbCpu0 = procCpuSeconds(ddb.pid);
      const result = await runJob(
        {
          runId: 'bench',
          cellId: cell,
          loaderIndex: 0,
          phase: 'run',
          durationSeconds: SECONDS,
          statusIntervalSeconds: 5,
          jvmArgs: ['-Xmx512m'],
          outputPrefix: `${storeUri}/runs/bench/cells/${cell}/raw`,
          processes: Array.from({ length: p }, () => props),
        },
        { classpath: paths.ycsbClasspath, openStore, java: wrapper, workDir, keepWorkDir: true, ...quiet },
      );
      const agentCpu = process.cpuUsage(agentCpu0);
      const ddbCpu = procCpuSeconds(ddb.pid) - ddbCpu0;
      if (!result.ok) throw new Error(`run with ${p} process(es) failed: ${JSON.stringify(result.failed)}`);
      const store = new FsStore(path.join(root, 'store'));
      let throughput = 0;
      let ops = 0;
      let jvmCpu = 0;
      for (let j = 0; j < p; j++) {
        const s = parseSummary(
          (await store.get(`runs/bench/cells/${cell}/raw/loader-0/proc-${j}/summary.json`)).toString(),
        );
        throughput += s.throughput ?? 0;
        ops += result.manifests[j].operations;
        jvmCpu += parseTimes(await fs.readFile(path.join(workDir, `proc-${j}`, 'cpu-times.txt'), 'utf8'));
      }
      const loaderCpu = jvmCpu + (agentCpu.user + agentCpu.system) / 1e6;
      rows.push(
        [
          String(p).padStart(5),
          String(THREADS * p).padStart(7),
          String(ops).padStart(8),
          throughput.toFixed(0).padStart(7),
          loaderCpu.toFixed(2).padStart(10),
          ((loaderCpu / ops) * 1000).toFixed(3).padStart(15),
          ddbCpu.toFixed(2).padStart(14),
        ].join(' '),
      );
    }
    process.stdout.write(
      `bench:loader — YCSB 50/50 uniform, no target, ${SECONDS} s per run, ${RECORDS} records, ` +
        `${THREADS} threads/process, DynamoDB Local on ${os.cpus().length} cores\n` +
        'procs threads      ops   ops/s loaderCPU-s CPU-s/1k-ops DDBLocal-CPU-s\n' +
        rows.join('\n') +
        '\n',
    );
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
