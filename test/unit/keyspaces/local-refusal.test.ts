/**
 * `fleetbench run --local` with an Amazon Keyspaces target is refused before anything starts (no Maven build,
 * no DynamoDB Local, nothing in the results directory), naming the target's field and what it needs.
 * Runs the real executable.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseSpec, withValue } from '../spec/fixtures';

const root = join(__dirname, '..', '..', '..');
let tmp: string;
beforeAll(() => (tmp = mkdtempSync(join(tmpdir(), 'fleetbench-ks-local-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it('run --local refuses a keyspaces target, naming targets[i].kind and the AWS account it needs', () => {
  const spec = withValue(baseSpec(), 'targets', [
    { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } },
    { id: 'ks', kind: 'keyspaces', capacity: { mode: 'on-demand' } },
  ]);
  const file = join(tmp, 'ks.json');
  writeFileSync(file, JSON.stringify(spec));
  const results = join(tmp, 'results');
  const r = spawnSync(
    process.execPath,
    [join(root, 'bin', 'fleetbench.js'), 'run', '--local', file, '--results', results],
    { encoding: 'utf8', cwd: root },
  );
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split('\n')).toEqual([
    'targets[1].kind: "keyspaces" is Amazon Keyspaces, an AWS service with no local stand-in (no emulator serves ' +
      'its API, its SigV4 authentication or its TLS CQL endpoint): it needs an AWS account with the stack deployed ' +
      '(fleetbench start)',
  ]);
  // refused before anything started: no build step announced, no results written
  expect(r.stdout).not.toMatch(/building|DynamoDB Local/);
  expect(existsSync(results) ? readdirSync(results) : []).toEqual([]);
});
