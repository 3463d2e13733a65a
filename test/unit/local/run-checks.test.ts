/**
 * The checks before a local run (lib/local/run-checks.ts): the Plan step over the results directory with its writes
 * kept in memory (lib/local/dry-store.ts), so an accepted spec leaves the directory as it was and a refused one too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateSpec } from '../../../lib/core/spec';
import { DryStore } from '../../../lib/local/dry-store';
import { FsStore } from '../../../lib/local/fs-store';
import { checkLocalRun, withMavenStandIns } from '../../../lib/local/run-checks';

let tmp: string;
beforeAll(() => (tmp = mkdtempSync(join(tmpdir(), 'fb-run-checks-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const spec = (cells: number) =>
  validateSpec({
    name: 'checks',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'provisioned', rcu: 1000, wcu: 1000 } }],
    dataset: { recordCount: 1000 },
    workload: {
      readProportions: [0.5],
      targetOpsPerSec: { start: 10, stop: 9 + cells, step: 1 },
      distributions: ['uniform'],
      durationSeconds: 20,
      warmupSeconds: 5,
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
  }).spec;

/** Every path under `dir`, relative. */
const tree = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(String).sort();

describe('checkLocalRun', () => {
  it('accepts a spec Plan accepts and writes nothing: an existing directory unchanged, a new one not created', async () => {
    const existing = join(tmp, 'existing');
    mkdirSync(join(existing, 'runs', 'earlier'), { recursive: true });
    writeFileSync(join(existing, 'runs', 'earlier', 'spec.json'), '{}');
    const before = tree(existing);
    await checkLocalRun({ spec: spec(2), executionName: 'checks-1', resultsDir: existing });
    expect(tree(existing)).toEqual(before);
    const fresh = join(tmp, 'fresh');
    await checkLocalRun({ spec: spec(2), executionName: 'checks-2', resultsDir: fresh });
    expect(existsSync(fresh)).toBe(false);
  });

  it('refuses what Plan refuses (300 cells: over the history budget), writing nothing', async () => {
    const dir = join(tmp, 'refused');
    await expect(
      checkLocalRun({ spec: spec(300), executionName: 'checks-3', resultsDir: dir }),
    ).rejects.toThrow(/^workload: the plan has 300 cells/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('DryStore', () => {
  it('reads the store beneath and its own writes, and writes nothing beneath', async () => {
    const dir = join(tmp, 'dry');
    mkdirSync(join(dir, 'a'), { recursive: true });
    writeFileSync(join(dir, 'a', 'x.json'), '{"v":1}');
    const dry = new DryStore(new FsStore(dir));
    expect(dry.uri).toBe(new FsStore(dir).uri);
    await dry.putJson('a/y.json', { v: 2 });
    expect(await dry.createJson('a/x.json', { v: 3 })).toBe(false);
    expect(await dry.createJson('b/z.json', { v: 4 })).toBe(true);
    expect(await dry.getJson('a/x.json')).toEqual({ v: 1 });
    expect(await dry.getJson('a/y.json')).toEqual({ v: 2 });
    expect(await dry.list('a/')).toEqual(['a/x.json', 'a/y.json']);
    expect(await dry.exists('b/z.json')).toBe(true);
    expect(tree(dir)).toEqual(['a', join('a', 'x.json')]);
  });
});

describe('withMavenStandIns', () => {
  it("adds one stand-in jar per Maven coordinate after the binding's own jars; other targets as they were", () => {
    const raw = {
      targets: [
        { id: 'ddb', kind: 'dynamodb' },
        { id: 'mine', binding: { jars: ['file:///opt/mine.jar'], maven: ['g:a:1', 'g:b:2'] } },
      ],
    };
    const out = withMavenStandIns(raw);
    expect(out.targets[0]).toBe(raw.targets[0]);
    const jars = (out.targets[1] as { binding: { jars: string[] } }).binding.jars;
    expect(jars).toHaveLength(3);
    expect(jars[0]).toBe('file:///opt/mine.jar');
    expect(raw.targets[1]!.binding!.jars).toEqual(['file:///opt/mine.jar']); // not changed in place
  });
});
