/**
 * The local mode's loader cap is the machine's, for a whole run: a parallel run's groups launch together, and a
 * replacement's launch counts the loaders still running. A plan over the cap is refused before anything starts.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { loadSpecFile } from '../../../lib/cli/spec-file';
import { InputError } from '../../../lib/core/common/errors';
import { CapacityError, type LaunchRequest } from '../../../lib/core/common/ports';
import { launchedLoaders, planRun } from '../../../lib/core/plan';
import { assertRunnable } from '../../../lib/local/runner';
import { LOCAL_MAX_LOADERS, LocalFleet } from '../../../lib/local/fleet';
import type { RunSpec } from '../../../lib/core/spec';

const example = (name: string): RunSpec =>
  loadSpecFile(path.join(__dirname, '../../../examples', `${name}.json`)).spec;

/** Four DynamoDB targets of `loaders` loaders each: quickstart's target four times over. */
function fourTargets(execution: 'sequential' | 'parallel', loaders: number): RunSpec {
  const quick = example('quickstart');
  const t = quick.targets[0]!;
  return {
    ...quick,
    execution,
    targets: ['a', 'b', 'c', 'd'].map((id) => ({ ...t, id })),
    loaders: { ...quick.loaders, count: loaders },
  };
}

describe('assertRunnable: loaders at once in local mode', () => {
  it('accepts every local example', () => {
    for (const name of [
      'quickstart',
      'local-redis',
      'local-throttling',
      'local-split-for-heat',
      'local-spike',
    ])
      expect(() => assertRunnable(example(name))).not.toThrow();
  });

  it('accepts four targets of 2 loaders one after another (2 at once)', () => {
    const spec = fourTargets('sequential', 2);
    expect(launchedLoaders(planRun(spec))).toBe(2);
    expect(() => assertRunnable(spec)).not.toThrow();
  });

  it('refuses four targets of 3 loaders side by side (12 at once), naming loaders.count and the groups', () => {
    const spec = fourTargets('parallel', 3);
    expect(launchedLoaders(planRun(spec))).toBe(12);
    let err: unknown;
    try {
      assertRunnable(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    const issue = (err as InputError).issues.find((i) => i.path === 'loaders.count');
    expect(issue?.message).toContain(`at most ${LOCAL_MAX_LOADERS} loaders`);
    expect(issue?.message).toContain('found 12');
    expect(issue?.message).toContain('"execution": "parallel"');
  });
});

describe('LocalFleet: the cap counts the loaders still running', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fleetbench-cap-'));
  const fleet = () => new LocalFleet({ bundleDir: dir, endpoint: 'http://x', logDir: dir, maxLoaders: 4 });
  const req = (count: number): LaunchRequest => ({
    runId: 'cap-1',
    count,
    instanceType: 'c5.large',
    tags: { 'fleetbench:run-id': 'cap-1' },
  });

  it('refuses a launch that would run more than the cap beside the live ones, and allows it after a terminate', async () => {
    const f = fleet();
    const first = await f.launch(req(3));
    expect(first).toHaveLength(3);
    await expect(f.launch(req(2))).rejects.toThrow(CapacityError);
    await expect(f.launch(req(2))).rejects.toThrow('beside 3 running');
    await f.terminate(first.slice(0, 1));
    expect(await f.launch(req(2))).toHaveLength(2);
    expect(await f.list({ runId: 'cap-1' })).toHaveLength(4);
  });
});
