/** Behaviour every ObjectStore must have; run against the filesystem store and S3 (moto). */
import { InputError } from '../../../lib/core/common/errors';
import { NotFoundError, ObjectStore } from '../../../lib/core/common/store';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function storeContract(name: string, open: () => Promise<ObjectStore>): void {
  describe(`${name}: ObjectStore contract`, () => {
    let store: ObjectStore;
    beforeAll(async () => {
      store = await open();
    });

    test('put then get returns the same bytes; exists turns true', async () => {
      const bytes = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
      expect(await store.exists('runs/r1/a.bin')).toBe(false);
      await store.put('runs/r1/a.bin', bytes);
      expect(await store.exists('runs/r1/a.bin')).toBe(true);
      expect(Buffer.compare(await store.get('runs/r1/a.bin'), bytes)).toBe(0);
      await store.put('runs/r1/a.bin', 'replaced');
      expect((await store.get('runs/r1/a.bin')).toString()).toBe('replaced');
    });

    test('putJson/getJson round-trip', async () => {
      const doc = { runId: 'r1', n: [1, 2.5, null], nested: { ok: true, s: 'é' } };
      await store.putJson('runs/r1/doc.json', doc);
      expect(await store.getJson('runs/r1/doc.json')).toEqual(doc);
    });

    test('putFile uploads a local file', async () => {
      const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-store-'));
      const file = path.join(tmp, 'READ.hdr');
      await fs.writeFile(file, '#[Logging for: READ]\n0.1,1.0,0.002,HISTFAAA\n');
      await store.putFile('runs/r1/raw/READ.hdr', file);
      expect((await store.get('runs/r1/raw/READ.hdr')).toString()).toContain('Logging for: READ');
      await fs.rm(tmp, { recursive: true, force: true });
    });

    test('missing key -> NotFoundError naming the URI; exists is false', async () => {
      const err = await store.get('runs/none/x.json').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).uri).toBe(store.uriOf('runs/none/x.json'));
      expect((err as Error).message).toContain('runs/none/x.json');
      await expect(store.getJson('runs/none/y.json')).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.exists('runs/none/x.json')).toBe(false);
    });

    test('getJson on bad JSON -> InputError naming the object', async () => {
      await store.put('runs/r1/bad.json', '{"a": 1,');
      const err = await store.getJson('runs/r1/bad.json').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).issues[0].path).toBe(store.uriOf('runs/r1/bad.json'));
    });

    test('list is recursive, relative, sorted and filters by string prefix', async () => {
      for (const k of [
        'runs/r2/b/2.txt',
        'runs/r2/a.txt',
        'runs/r2/b/1.txt',
        'runs/r20/x.txt',
        'tables/t/p.txt',
      ]) {
        await store.put(k, k);
      }
      expect(await store.list('runs/r2/')).toEqual(['runs/r2/a.txt', 'runs/r2/b/1.txt', 'runs/r2/b/2.txt']);
      expect(await store.list('runs/r2')).toEqual([
        'runs/r2/a.txt',
        'runs/r2/b/1.txt',
        'runs/r2/b/2.txt',
        'runs/r20/x.txt',
      ]);
      expect(await store.list('runs/nothing/')).toEqual([]);
      const all = await store.list();
      expect(all).toContain('tables/t/p.txt');
      expect(all).toEqual([...all].sort());
    });

    test('child store sees keys under its prefix', async () => {
      const child = store.child('runs/r2');
      expect(child.uri).toBe(store.uriOf('runs/r2'));
      expect(await child.list()).toEqual(['a.txt', 'b/1.txt', 'b/2.txt']);
      await child.put('c.txt', 'c');
      expect((await store.get('runs/r2/c.txt')).toString()).toBe('c');
    });

    test('createJson writes only when the key is free: of writers racing for one key, exactly one wins', async () => {
      expect(await store.createJson('claims/slot-0.json', { by: 'first' })).toBe(true);
      expect(await store.createJson('claims/slot-0.json', { by: 'second' })).toBe(false);
      expect(await store.getJson('claims/slot-0.json')).toEqual({ by: 'first' });
      const wins = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((by) => store.createJson('claims/slot-1.json', { by })),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const winner = ['a', 'b', 'c', 'd', 'e'][wins.indexOf(true)];
      expect(await store.getJson('claims/slot-1.json')).toEqual({ by: winner });
      // nothing else left behind (no temporary objects listed)
      expect(await store.list('claims/')).toEqual(['claims/slot-0.json', 'claims/slot-1.json']);
    });

    test('invalid keys are refused before any I/O', async () => {
      for (const bad of ['', '/abs', 'a//b', 'a/../b', './a', 'a/']) {
        await expect(store.put(bad, 'x')).rejects.toBeInstanceOf(InputError);
      }
    });
  });
}
