/**
 * DetectRegressions over the AWS adapters against a real moto server (PyPI moto[server]): the history
 * read from S3 partitions gives the same `changes` rows as over a local directory, and the alert is a
 * real SNS publish delivered to an HTTP subscriber.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { S3Store } from '../../lib/aws/s3-store';
import { SnsNotifier } from '../../lib/aws/sns-notifier';
import { detectRegressions } from '../../lib/core/pipeline/regressions';
import type { Notifier, ObjectStore } from '../../lib/core/common/ports';
import { tableObjectKey } from '../../lib/core/results/rows';
import { tableDef } from '../../lib/core/results/schema';
import { FsStore } from '../../lib/local/fs-store';
import { freePort, startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 2, 0, 0);
const SPEC = 'nightly-ddb';
const CELL = 'ddb.zipfian.r90.t500';
const runId = (i: number) => `nightly-ddb-${String(i).padStart(3, '0')}`;

let moto: MotoServer;
let s3: S3Client;
let sns: SNSClient;
let http: Server;
const delivered: Record<string, string>[] = [];
let tmp: string;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(moto.clientConfig);
  sns = new SNSClient(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'fleetbench-results' }));
  const port = await freePort();
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      try {
        delivered.push(JSON.parse(body) as Record<string, string>);
      } catch {
        /* not a notification */
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => http.listen(port, '127.0.0.1', r));
  tmp = mkdtempSync(path.join(tmpdir(), 'fleetbench-detect-aws-'));
});

afterAll(async () => {
  s3?.destroy();
  sns?.destroy();
  await new Promise((r) => http?.close(r));
  await moto?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function addRun(store: ObjectStore, i: number, p99: number): Promise<void> {
  const meta = { runId: runId(i), specName: SPEC, startedAtMs: T0 + i * DAY };
  const part = { run_date: new Date(meta.startedAtMs).toISOString().slice(0, 10), spec_name: SPEC };
  await store.put(
    tableObjectKey(tableDef('cells'), meta, `${runId(i)}.${CELL}`),
    JSON.stringify({
      ...part,
      run_id: runId(i),
      cell_id: CELL,
      target_id: 'ddb',
      window_start_ms: meta.startedAtMs + 60_000,
      all_intended_p99_us: p99,
      good_ops_per_sec: 500,
      incomplete: false,
    }) + '\n',
  );
  await store.put(
    tableObjectKey(tableDef('runs'), meta, runId(i)),
    JSON.stringify({ ...part, run_id: runId(i), started_at_ms: meta.startedAtMs }) + '\n',
  );
}

/** Runs 0..9, P99 +25 % from run 6, detection after each; returns the changes rows in key order. */
async function sequence(store: ObjectStore, notifier: Notifier): Promise<{ key: string; body: string }[]> {
  for (let i = 0; i < 10; i++) {
    await addRun(store, i, (i < 6 ? 4000 : 5000) * (1 + 0.01 * Math.cos(i * 2.3)));
    await detectRegressions(
      {
        run: {
          runId: runId(i),
          specName: SPEC,
          storeUri: store.uri,
          startedAtMs: T0 + i * DAY,
          cellCount: 1,
          tables: [],
        },
      },
      {
        store,
        notifier,
        metrics: { put: async () => undefined },
        clock: { nowMs: () => T0 + i * DAY + 3_600_000 },
      },
    );
  }
  const keys = await store.list('tables/changes/');
  return Promise.all(keys.map(async (key) => ({ key, body: (await store.get(key)).toString('utf8') })));
}

test('S3 history gives the same changes rows as a directory, and the alert reaches an SNS subscriber', async () => {
  const topic = await sns.send(new CreateTopicCommand({ Name: 'fleetbench-runs' }));
  await sns.send(
    new SubscribeCommand({
      TopicArn: topic.TopicArn!,
      Protocol: 'http',
      Endpoint: `http://127.0.0.1:${http.address() && (http.address() as { port: number }).port}/`,
    }),
  );
  const onS3 = await sequence(
    new S3Store('s3://fleetbench-results', { client: s3 }),
    new SnsNotifier(topic.TopicArn!, moto.clientConfig),
  );
  const local: string[] = [];
  const onDisk = await sequence(new FsStore(tmp), { publish: async (s) => void local.push(s) });

  expect(onS3.length).toBeGreaterThan(0);
  expect(onS3).toEqual(onDisk);
  const rows = onS3.flatMap((o) =>
    o.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  );
  expect(rows.filter((r) => r.status === 'confirmed')).toEqual([
    expect.objectContaining({
      metric: 'intended_p99_us',
      change_run_id: runId(6),
      run_id: runId(8),
      kind: 'regression',
    }),
  ]);

  // SNS delivered exactly the one alert (moto posts to HTTP subscribers as SNS does)
  const deadline = Date.now() + 10_000;
  while (!delivered.some((d) => d.Type === 'Notification') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  const notes = delivered.filter((d) => d.Type === 'Notification');
  expect(notes).toHaveLength(1);
  expect(notes[0]!.Subject).toBe(local[0]);
  expect(notes[0]!.Subject).toMatch(/^fleetbench regression: nightly-ddb intended_p99_us \+2\d\.\d%$/);
  expect(notes[0]!.Message).toContain(`intended_p99_us of cell ${CELL} (target ddb)`);
  expect(notes[0]!.Message).toContain(`began at run ${runId(6)} (2026-03-07T02:00:00.000Z)`);
  expect(notes[0]!.Message).toContain('s3://fleetbench-results/tables/changes/run_date=2026-03-09/');
});
