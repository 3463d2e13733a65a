/**
 * `npx tsx test/bench/staircase.bench.ts`: the local staircase of issue #28 end to end, outside the test suite
 * (about 70 s): YCSB (the loader bundle, through fleetbench's Launcher) loads a composite-key table with one
 * partition-key value in BatchWriteItem batches, then queries it unpaced (no target) through the capacity proxy
 * with a time scale, in front of DynamoDB Local. The proxy's admitted queries per second should climb
 * 1 → 2 → 4 → 8 partitions' worth, a step every SPLIT_FOR_HEAT_SECONDS ÷ timeScale (provisioned: 900 s ÷ 60 =
 * 15 s); the bench prints the series and each step's time against the scaled rule, and exits 1 when a step is
 * more than 20 % off or missing.
 *
 * Environment: BENCH_TIME_SCALE (60), BENCH_SECONDS (55), BENCH_THREADS (16), BENCH_RECORDS (2000).
 * The retries are off (dynamodb.maxRetries=0) so the threads keep the demand far above every step: with the
 * binding's back-offs 16 threads would ask fewer queries than the third step admits.
 */
import { spawn } from 'node:child_process';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DYNAMODB_LOCAL_CREDENTIALS, startDynamoDbLocal } from '../../lib/local/dynamodb-local';
import { startCapacityProxy } from '../../lib/local/capacity-proxy';
import { ensureLoaderBuilt } from '../../lib/build/maven';
import { PARTITION_READ_UNITS_PER_SEC, SPLIT_FOR_HEAT_SECONDS } from '../../lib/core/dynamodb-model';

const TIME_SCALE = Number(process.env.BENCH_TIME_SCALE ?? 60);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 55);
const THREADS = Number(process.env.BENCH_THREADS ?? 16);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 2000);
const SCALE = 0.01;

/** Runs Java with these arguments; resolves with its stdout once it exits (non-zero exit: rejected). */
function java(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`java exit ${code}\n${err.slice(-2000)}`)),
    );
  });
}

/** The first second from `after` on whose count, and the next one's, are ≥ 1.5 × the 3 seconds before `after`. */
function stepAfter(series: number[], after: number): number {
  const before = series.slice(after - 3, after).reduce((a, b) => a + b, 0) / 3;
  for (let s = after; s + 1 < series.length; s++)
    if (series[s]! >= 1.5 * before && series[s + 1]! >= 1.5 * before) return s;
  return -1;
}

async function main(): Promise<void> {
  const paths = await ensureLoaderBuilt({ log: (l) => process.stderr.write(l + '\n') });
  const ddb = await startDynamoDbLocal({ paths });
  const proxy = await startCapacityProxy({ upstream: ddb.endpoint, timeScale: TIME_SCALE });
  try {
    const admin = new DynamoDBClient({
      endpoint: ddb.endpoint,
      region: 'us-east-1',
      credentials: DYNAMODB_LOCAL_CREDENTIALS,
    });
    await admin.send(
      new CreateTableCommand({
        TableName: 'usertable',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'p', AttributeType: 'S' },
          { AttributeName: 's', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'p', KeyType: 'HASH' },
          { AttributeName: 's', KeyType: 'RANGE' },
        ],
      }),
    );
    admin.destroy();
    const p = (kv: Record<string, string | number>) =>
      Object.entries(kv).flatMap(([k, v]) => ['-p', `${k}=${v}`]);
    const common = [
      '-cp',
      paths.ycsbClasspath,
      'dev.fleetbench.ycsb.Launcher',
      '-db',
      'dev.fleetbench.ycsb.DynamoDbClient',
      ...p({
        workload: 'site.ycsb.workloads.CoreWorkload',
        table: 'usertable',
        'dynamodb.endpoint': proxy.endpoint,
        'dynamodb.region': 'us-east-1',
        recordcount: RECORDS,
        'fleetbench.dynamodb.partitionKeyValues': 1,
        'dynamodb.consistentReads': 'true',
      }),
    ];
    const loaded = await java([...common, '-load', ...p({ threadcount: 4, 'dynamodb.batchInserts': 25 })]);
    console.log('load:', (loaded.match(/\[INSERT\], Return=\w+, \d+/g) ?? []).join(' '));
    proxy.setTable('usertable', {
      model: {
        billing: { mode: 'provisioned', rcu: 100_000, wcu: 1_000 }, // the table far above one partition
        recordCount: RECORDS,
        itemBytes: 1084,
        storedItemBytes: 1184,
        capacityScale: SCALE,
      },
      keyAttribute: 'p',
      compositeKey: { partitionKeyValues: 1, sortKeyAttribute: 's' },
    });
    proxy.arm();
    const series: number[] = [];
    let prev = 0;
    const timer = setInterval(() => {
      const n = proxy.counters('usertable')!.admitted;
      series.push(n - prev);
      prev = n;
    }, 1000);
    const ran = await java([
      ...common,
      '-t',
      ...p({
        threadcount: THREADS,
        operationcount: 100_000_000,
        maxexecutiontime: SECONDS,
        readproportion: 0,
        updateproportion: 0,
        queryproportion: 1,
        requestdistribution: 'uniform',
        'dynamodb.maxRetries': 0,
      }),
    ]);
    clearInterval(timer);
    console.log('admitted queries per second:', series.join(' '));
    console.log('emulator:', JSON.stringify(proxy.counters('usertable')));
    console.log((ran.match(/\[QUERY\], Return=\w+, \d+/g) ?? []).join(' '));
    const delay = SPLIT_FOR_HEAT_SECONDS.provisioned / TIME_SCALE;
    const partition = PARTITION_READ_UNITS_PER_SEC * SCALE;
    let ok = true;
    let after = 5;
    for (let k = 1; k * delay + 5 < SECONDS; k++) {
      const t = stepAfter(series, after);
      const off = t < 0 ? Infinity : Math.abs(t - k * delay) / (k * delay);
      const level = t < 0 ? NaN : series.slice(t + 1, t + 6).reduce((a, b) => a + b, 0) / 5;
      console.log(
        `step ${k}: at ${t} s (rule ${k * delay} s, ${(off * 100).toFixed(0)} % off); ` +
          `then ${level.toFixed(0)}/s (${2 ** k} partitions: ${2 ** k * partition}/s)`,
      );
      if (!(off <= 0.2)) ok = false;
      after = t + 4;
    }
    process.exitCode = ok ? 0 : 1;
  } finally {
    await proxy.stop();
    await ddb.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
