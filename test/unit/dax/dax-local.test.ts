/** A local run with a DAX target is refused before anything starts, naming the field and what it needs. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { assertRunnable } from '../../../lib/local/runner';

const root = path.join(__dirname, '..', '..', '..');
const raw = {
  name: 'local-dax',
  targets: [
    { id: 'plain', kind: 'dynamodb', billing: { mode: 'on-demand' } },
    {
      id: 'cached',
      kind: 'dynamodb',
      billing: { mode: 'on-demand' },
      dax: { nodeType: 'dax.t3.small', nodes: 1 },
    },
  ],
  dataset: { recordCount: 100 },
  workload: { readProportions: [0.5], targetOpsPerSec: [10], durationSeconds: 10 },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 1 },
};
const EXPECTED =
  "DAX runs only in a VPC of an AWS account (a cluster in the loaders' subnets) and nothing local stands in for it: " +
  'run this spec on AWS (fleetbench start), or remove "dax" to run the table alone here';

describe('local mode with DAX', () => {
  it('assertRunnable refuses the DAX target by its path', () => {
    const { spec } = validateSpec(raw);
    let err: unknown;
    try {
      assertRunnable(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues).toEqual([{ path: 'targets[1].dax', message: EXPECTED }]);
    // the same spec without dax is runnable here
    expect(() => assertRunnable(validateSpec({ ...raw, targets: [raw.targets[0]] }).spec)).not.toThrow();
  });

  it('`fleetbench run --local` exits with the message and writes no results', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-dax-local-'));
    try {
      const file = path.join(dir, 'spec.json');
      writeFileSync(file, JSON.stringify(raw));
      const results = path.join(dir, 'results');
      const r = spawnSync(
        process.execPath,
        [path.join(root, 'bin', 'fleetbench.js'), 'run', file, '--local', '--results', results],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(r.status).not.toBe(0);
      expect(r.stderr + r.stdout).toContain(`targets[1].dax: ${EXPECTED}`);
      expect(readdirSync(dir)).toEqual(['spec.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
