/** Plan records each binding jar's SHA-256 from the store; the jobs carry them for the agent to verify. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { addJarDigests, storeJarReader } from '../../../lib/core/pipeline/binding-digests';
import type { Plan } from '../../../lib/core/plan';
import { FsStore } from '../../../lib/local/fs-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fb-digests-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const planWith = (jars: string[]): Plan =>
  ({
    bindings: {
      mine: { binding: 'custom', db: 'com.example.Db', properties: {}, jars },
      ddb: { binding: 'dynamodb', db: 'x.Y', properties: {} },
    },
  }) as unknown as Plan;

test('each jar of a binding gets its SHA-256, in order; bindings without jars get none', async () => {
  const store = new FsStore(dir);
  await store.put('bindings/a.jar', Buffer.from('jar a'));
  await store.put('bindings/b.jar', Buffer.from('jar b'));
  const p = planWith([`${store.uri}/bindings/a.jar`, `${store.uri}/bindings/b.jar`]);
  await addJarDigests(p, storeJarReader(store));
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  expect(p.bindings.mine!.jarSha256).toEqual([sha('jar a'), sha('jar b')]);
  expect(p.bindings.ddb!.jarSha256).toBeUndefined();
});

test('a jar Plan cannot read is refused, naming it', async () => {
  const store = new FsStore(dir);
  const p = planWith([`${store.uri}/bindings/missing.jar`, 's3://elsewhere/bindings/x.jar']);
  const err = (await addJarDigests(p, storeJarReader(store)).catch((e: unknown) => e)) as InputError;
  expect(err).toBeInstanceOf(InputError);
  expect(err.issues.map((i) => i.message)).toEqual([
    expect.stringMatching(/^cannot read file:\/\/.*\/bindings\/missing\.jar to record its SHA-256: /),
    `cannot read s3://elsewhere/bindings/x.jar to record its SHA-256: not under ${store.uri}/`,
  ]);
});
