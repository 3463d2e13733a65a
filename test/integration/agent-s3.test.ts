/**
 * The agent as on AWS: the job document is read from S3 and the raw outputs go to S3 (a real moto
 * server), with YCSB's BasicDB as the database so no DynamoDB is needed.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Store } from '../../lib/aws/s3-store';
import { openStore } from '../../lib/open-store';
import { NotFoundError } from '../../lib/core/common/store';
import { LoaderPaths, ensureLoaderBuilt } from '../../lib/build/maven';
import { loadJob } from '../../loader/agent/src/job';
import { runJob } from '../../loader/agent/src/run-job';
import { parseSummary, returnCounts } from '../../lib/core/contract/summary';
import { parseManifest } from '../../lib/core/contract/manifest';
import { MotoServer, startMoto } from '../support/moto';

jest.setTimeout(15 * 60_000);

let paths: LoaderPaths;
let moto: MotoServer;
let client: S3Client;

beforeAll(async () => {
  paths = await ensureLoaderBuilt();
  moto = await startMoto();
  client = new S3Client(moto.clientConfig);
  await client.send(new CreateBucketCommand({ Bucket: 'fb-results' }));
});
afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

test('job from s3://, outputs to s3:// under the run layout', async () => {
  const open = (uri: string) => openStore(uri, { client });
  const bucket = new S3Store('s3://fb-results', { client });
  await bucket.putJson('runs/s3run/jobs/cell-a/loader-0.json', {
    runId: 's3run',
    execution: 's3run-resume',
    cellId: 'cell-a',
    loaderIndex: 0,
    phase: 'run',
    durationSeconds: 30,
    statusIntervalSeconds: 1,
    db: 'site.ycsb.BasicDB',
    jvmArgs: ['-Xmx128m'],
    outputPrefix: 's3://fb-results/runs/s3run/cells/cell-a/raw',
    processes: [{ recordcount: 100, operationcount: 300, target: 200, 'basicdb.verbose': false }],
  });
  await expect(loadJob('s3://fb-results/runs/s3run/jobs/cell-a/missing.json', open)).rejects.toBeInstanceOf(
    NotFoundError,
  );
  const { job } = await loadJob('s3://fb-results/runs/s3run/jobs/cell-a/loader-0.json', open);
  const result = await runJob(job, {
    classpath: paths.ycsbClasspath,
    openStore: open,
    out: () => undefined,
    log: () => undefined,
  });
  expect(result.failed).toEqual([]);
  expect(result.outputPrefix).toBe('s3://fb-results/runs/s3run/cells/cell-a/raw');

  const dir = 'runs/s3run/cells/cell-a/raw/loader-0/proc-0';
  const keys = await bucket.list(dir + '/');
  expect(keys).toEqual(
    expect.arrayContaining([
      `${dir}/READ.hdr`,
      `${dir}/Intended-READ.hdr`,
      `${dir}/summary.json`,
      `${dir}/manifest.json`,
    ]),
  );
  // the agent's manifest passes the schema the results reader parses it with
  const manifest = parseManifest((await bucket.get(`${dir}/manifest.json`)).toString(), 'manifest.json', {
    loader: 0,
    process: 0,
  });
  const summary = parseSummary((await bucket.get(`${dir}/summary.json`)).toString(), 'summary.json');
  // BasicDB answers OK to everything: 300 operations, all counted in the manifest
  expect(manifest.operations).toBe(300);
  expect(manifest.counts).toEqual(returnCounts(summary));
  expect(manifest.files!.map((f) => `${dir}/${f}`).sort()).toEqual(keys);
  // the job's execution, which AggregateCell reads the process for (lib/core/results/input.ts)
  expect(manifest.execution).toBe('s3run-resume');
});
