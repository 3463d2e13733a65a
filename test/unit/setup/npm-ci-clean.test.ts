/**
 * `npm ci` has nothing to warn about: every dependency's install script is decided in package.json's
 * allowScripts (npm 11 warns about each one that is not), and the CLI bundle is built by `prepare`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

it('no dependency has an install script left undecided', () => {
  const r = spawnSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8', cwd: ROOT });
  if (/Unknown command/i.test(r.stdout + r.stderr)) {
    // an npm without allowScripts runs them (and says nothing): the decisions are still recorded
    expect(Object.keys(pkg.allowScripts ?? {}).sort()).toEqual(['@parcel/watcher', 'esbuild']);
    return;
  }
  expect(r.stdout.trim()).toBe('No packages with unreviewed install scripts.');
}, 60_000);

it("npm ci builds the CLI bundle (the project's prepare script)", () => {
  expect(pkg.scripts.prepare).toBe('node bin/build-cli.js');
});
