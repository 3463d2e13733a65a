import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { definitionSourceHash, localDefinition } from '../../../lib/local/definition';

describe('the local state machine definition cache', () => {
  let root: string;
  const write = (rel: string, text: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };

  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'fb-defcache-'));
    write('stacks/fleetbench-stack.ts', 'export const a = 1;\n');
    write('lib/constructs/x.ts', 'export const b = 2;\n');
    write('lib/core/plan/y.ts', 'export const c = 3;\n');
    write('package-lock.json', '{"lockfileVersion": 3}\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('changes with any source the stack is built from, and only with those', () => {
    const h0 = definitionSourceHash(root);
    write('stacks/README.md', 'docs are not an input\n');
    write('lib/local/runner.ts', 'export const notAnInput = 1;\n');
    expect(definitionSourceHash(root)).toBe(h0);
    write('lib/core/plan/y.ts', 'export const c = 4;\n');
    const h1 = definitionSourceHash(root);
    expect(h1).not.toBe(h0);
    write('package-lock.json', '{"lockfileVersion": 3, "x": 1}\n');
    expect(definitionSourceHash(root)).not.toBe(h1);
    // back to the first contents: the first hash; a renamed file is a different input set
    write('lib/core/plan/y.ts', 'export const c = 3;\n');
    write('package-lock.json', '{"lockfileVersion": 3}\n');
    expect(definitionSourceHash(root)).toBe(h0);
    rmSync(path.join(root, 'lib/constructs/x.ts'));
    write('lib/constructs/z.ts', 'export const b = 2;\n');
    expect(definitionSourceHash(root)).not.toBe(h0);
  });

  it('returns the cached definition for unchanged sources without synthesizing', () => {
    const fake = { StartAt: 'Only', States: { Only: { Type: 'Succeed' } } };
    write(`.tmp/definition-cache/${definitionSourceHash(root)}.json`, JSON.stringify(fake));
    // synthesizing would give the real stack's definition, never this fake: equality proves the cache was used
    expect(localDefinition({ root })).toEqual(fake);
  });
});
