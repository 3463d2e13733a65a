import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FsStore } from '../../../lib/local/fs-store';
import { openStore } from '../../../lib/open-store';
import { InputError } from '../../../lib/core/common/errors';
import { parseStoreUri, splitObjectUri } from '../../../lib/core/common/store';
import { storeContract } from './store-contract';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

storeContract('FsStore', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-fsstore-'));
  dirs.push(dir);
  return new FsStore(`file://${dir}`);
});

describe('FsStore layout', () => {
  test('key a/b/c is the file <dir>/a/b/c and no temporary file is left', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-fsstore-'));
    dirs.push(dir);
    const store = new FsStore(dir);
    expect(store.uri).toBe(`file://${dir}`);
    await store.put('runs/r1/cells/c1/x.json', '{}');
    expect(await fs.readFile(path.join(dir, 'runs', 'r1', 'cells', 'c1', 'x.json'), 'utf8')).toBe('{}');
    expect(await fs.readdir(path.join(dir, 'runs', 'r1', 'cells', 'c1'))).toEqual(['x.json']);
  });
});

describe('store URIs', () => {
  test('parseStoreUri', () => {
    expect(parseStoreUri('s3://my-bucket/runs/r1/')).toEqual({
      scheme: 's3',
      bucket: 'my-bucket',
      prefix: 'runs/r1',
    });
    expect(parseStoreUri('s3://my-bucket')).toEqual({ scheme: 's3', bucket: 'my-bucket', prefix: '' });
    expect(parseStoreUri('file:///tmp/x%20y/')).toEqual({ scheme: 'file', dir: '/tmp/x y' });
    for (const bad of ['http://x/y', 's3://A_B/x', 'file://relative/x', 's3://bucket/a//b', 'bucket/key']) {
      const err = (() => {
        try {
          parseStoreUri(bad, 'job.outputPrefix');
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).issues[0].path).toBe('job.outputPrefix');
    }
  });

  test('splitObjectUri', () => {
    expect(splitObjectUri('s3://b-1/runs/r1/job.json')).toEqual({
      root: 's3://b-1/runs/r1',
      key: 'job.json',
    });
    expect(splitObjectUri('s3://b-1/job.json')).toEqual({ root: 's3://b-1', key: 'job.json' });
    expect(splitObjectUri('file:///tmp/jobs/j.json')).toEqual({ root: 'file:///tmp/jobs', key: 'j.json' });
    expect(() => splitObjectUri('s3://b-1')).toThrow(InputError);
  });

  test('openStore picks the implementation by scheme', () => {
    expect(openStore('file:///tmp/x')).toBeInstanceOf(FsStore);
    expect(openStore('/tmp/x').uri).toBe('file:///tmp/x');
    expect(openStore('s3://bucket-a/p', { clientConfig: { region: 'us-east-1' } }).uri).toBe(
      's3://bucket-a/p',
    );
    expect(() => openStore('gs://bucket/x')).toThrow(InputError);
  });

  test("a local object's link is its file URI (nothing to sign)", async () => {
    const store = new FsStore('/tmp/fb results');
    expect(await store.link('runs/r1/report.html', 3600)).toBe(
      'file:///tmp/fb%20results/runs/r1/report.html',
    );
    await expect(store.link('../x', 3600)).rejects.toThrow(InputError);
  });
});
