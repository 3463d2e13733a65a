/** CI runs on Node 22: .ci/run puts what .ci/node22.sh prints first on PATH (Node 22 from the npm registry). */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

it("CI's node is Node 22", () => {
  const r = spawnSync('bash', [path.join(ROOT, '.ci', 'node22.sh')], { encoding: 'utf8', cwd: ROOT });
  expect(r.status).toBe(0);
  const dir = r.stdout.trim();
  const env = { ...process.env, PATH: dir ? `${dir}${path.delimiter}${process.env.PATH}` : process.env.PATH };
  const node = spawnSync('node', ['--version'], { encoding: 'utf8', env });
  expect(node.stdout).toMatch(/^v22\./);
}, 120_000);
