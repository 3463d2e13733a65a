/** S3Store against a real moto server (PyPI moto[server]), not a client mock. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { aggregateCell } from '../../lib/core/results/aggregate';
import { readCell } from '../../lib/core/results/input';
import { readCellDir } from '../../lib/local/cell-dir';
import { S3Store } from '../../lib/aws/s3-store';
import { NotFoundError, StoreError } from '../../lib/core/common/store';
import { MOTO_INSTALL_HINT, MotoServer, startMoto } from '../support/moto';
import { storeContract } from '../unit/agent/store-contract';

jest.setTimeout(60000);

let moto: MotoServer;
let client: S3Client;

beforeAll(async () => {
  moto = await startMoto();
  client = new S3Client(moto.clientConfig);
  await client.send(new CreateBucketCommand({ Bucket: 'fleetbench-test' }));
});
afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

storeContract('S3Store (root of bucket)', async () => new S3Store('s3://fleetbench-test', { client }));
storeContract(
  'S3Store (under a prefix)',
  async () => new S3Store('s3://fleetbench-test/deep/prefix', { client }),
);

describe('S3Store specifics', () => {
  test('keys land under the prefix in the bucket', async () => {
    const store = new S3Store('s3://fleetbench-test/p1', { client });
    await store.put('runs/r9/x.txt', 'x');
    const raw = new S3Store('s3://fleetbench-test', { client });
    expect((await raw.get('p1/runs/r9/x.txt')).toString()).toBe('x');
  });

  test('more than one page of keys is listed completely', async () => {
    const store = new S3Store('s3://fleetbench-test/many', { client });
    const keys = Array.from({ length: 1005 }, (_, i) => `k/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, '')));
    }
    expect(await store.list('k/')).toEqual(keys);
  });

  test('a missing bucket is a StoreError, not a NotFoundError', async () => {
    const store = new S3Store('s3://no-such-bucket-here', { client });
    const err = await store.get('a.json').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err).not.toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toContain('s3://no-such-bucket-here/a.json');
    expect((err as Error).message).toContain('bucket does not exist');
  });

  test("a cell's raw outputs aggregate straight from S3 to the same figures as from disk", async () => {
    const fixture = path.join(__dirname, '../fixtures/ycsb/fleet-small');
    const store = new S3Store('s3://fleetbench-test/agg', { client });
    const files = fs
      .readdirSync(fixture, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(fixture, path.join(e.parentPath, e.name)));
    for (const f of files) await store.putFile(`runs/r1/cells/c1/raw/${f}`, path.join(fixture, f));
    const options = { warmupSeconds: 3, targetOpsPerSec: 1200 };
    const fromS3 = await aggregateCell(await readCell(store, 'runs/r1/cells/c1/raw'), options);
    const fromDisk = await aggregateCell(await readCellDir(fixture), options);
    expect(fromS3.intervalsRead).toBe(fromDisk.intervalsRead);
    expect(fromS3.processes.map((p) => p.label)).toEqual([
      'loader-0/proc-0',
      'loader-0/proc-1',
      'loader-1/proc-0',
      'loader-1/proc-1',
    ]);
    expect(fromS3).toEqual(fromDisk);
    // a prefix holding no loader output is named by its S3 URI
    const empty = (await readCell(store, 'runs/r1/cells/none/raw').catch((e: unknown) => e)) as Error;
    expect(empty.message).toContain(
      's3://fleetbench-test/agg/runs/r1/cells/none/raw: empty: no loader output',
    );
  });

  test('startMoto tells how to install moto when it is missing', async () => {
    await expect(startMoto({ command: '/nonexistent/moto_server' })).rejects.toThrow(MOTO_INSTALL_HINT);
  });
});
