/**
 * The Plan step refuses what the loaders would refuse (issue 26, item 7): a binding jar outside the results bucket's
 * bindings/ prefix once its URI is parsed, and any job the loader agent's own job check would refuse at StartLoad or
 * StartCell, after nodes and loaders were launched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { estimateRunUsd, plan } from '../../../lib/core/pipeline';
import { plannedJobIssues } from '../../../lib/core/pipeline/plan-checks';
import type { RunContext } from '../../../lib/core/pipeline/context';
import * as planner from '../../../lib/core/plan';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { FsStore } from '../../../lib/local/fs-store';
import { baseSpec, withValue } from '../spec/fixtures';

const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-plan-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The results store as the Lambda sees it (s3://), on a directory. */
class S3LikeStore extends FsStore {
  constructor(d: string) {
    super(d);
    (this as { uri: string }).uri = 's3://fb-results';
  }
}

const planIssues = (spec: unknown): Promise<string[]> =>
  plan(
    { executionName: `c-${Math.random().toString(36).slice(2, 8)}`, spec },
    {
      store: new S3LikeStore(dir),
      clock: { nowMs: () => Date.UTC(2026, 0, 1) },
      maxRunSeconds: 8 * 24 * 3600,
      estimateRunUsd,
    },
  ).then(
    () => [],
    (e: InputError) => e.issues.map((i) => `${i.path}: ${i.message}`),
  );

const withJar = (jar: string) =>
  withValue(baseSpec(), 'targets', [
    {
      id: 'cb',
      kind: 'external',
      protocol: 'custom',
      endpoints: ['cb.example.com'],
      binding: { dbClass: 'a.B', jars: [jar] },
      price: { usdPerHour: 1 },
    },
  ]);

describe('Plan: binding jars, parsed before the prefix check', () => {
  it('takes a jar under bindings/', async () => {
    // Plan records each jar's SHA-256 (lib/core/pipeline/binding-digests.ts): the jar is there
    await new S3LikeStore(dir).put('bindings/abc/b.jar', Buffer.from('PK\u0003\u0004 a jar'));
    expect(await planIssues(withJar('s3://fb-results/bindings/abc/b.jar'))).toEqual([]);
  });

  it('refuses a jar whose key only looks like it is under bindings/', async () => {
    expect(await planIssues(withJar('s3://fb-results/bindings//b.jar'))).toEqual([
      'targets[0].binding.jars[0]: invalid object key "bindings//b.jar": must not contain empty segments (//) or end with /',
    ]);
    expect(await planIssues(withJar('s3://fb-results/bindings/../x.jar'))).toEqual([
      expect.stringMatching(/^targets\[0\]\.binding\.jars\[0\]: .*"\.\." path segment/),
    ]);
    expect(await planIssues(withJar('s3://fb-results/bindingsx/b.jar'))).toEqual([
      'targets[0].binding.jars[0]: the loaders read binding jars under s3://fb-results/bindings/ only; got s3://fb-results/bindingsx/b.jar',
    ]);
  });
});

describe("Plan: the loader agent's job check on one job per cell and per load", () => {
  it('refuses a load the agent would refuse (a job longer than its 7-day limit), naming the spec field', async () => {
    // 1.6 M records at 10 ops/s: a 640,000-s load deadline, within the state machine's 8 days, beyond a job's 7
    const spec = withValue(
      withValue(baseSpec(), 'dataset.recordCount', 1_600_000),
      'dataset.loadTargetOpsPerSec',
      10,
    );
    (spec.targets as Record<string, unknown>[])[0]!.billing = { mode: 'on-demand' };
    (spec.workload as Record<string, unknown>).readProportions = [0.5];
    (spec.workload as Record<string, unknown>).distributions = ['uniform'];
    (spec.workload as Record<string, unknown>).targetOpsPerSec = [100];
    const found = await planIssues(spec);
    expect(found).toEqual([
      expect.stringMatching(
        /^dataset\.loadTargetOpsPerSec: the loader agent would refuse the job of "load-ddb": job\.durationSeconds: expected a number at most 604,800, found number 640320 \(the load deadline/,
      ),
    ]);
  });

  it('maps a refused property back to the spec field it came from, once for all cells', () => {
    const { spec } = validateSpec(baseSpec());
    // what validate refuses, slipped past it: the agent's check in Plan still refuses it
    spec.workload.extraProperties = { db: 'x.Y' };
    const p = planRun(spec, { runId: 'r1' });
    const run = { runId: 'r1', storeUri: 's3://fb-results', loadTargets: ['ddb'] } as RunContext;
    expect(plannedJobIssues(run, p, spec)).toEqual([
      {
        path: 'workload.extraProperties.db',
        message:
          'the loader agent would refuse the job of cell "ddb.uniform.r50.t100": job.processes[0].db: is set by the agent; ' +
          'remove it from the job',
      },
    ]);
  });
});

describe("Plan: the execution's history budget, from the grid counted", () => {
  it('refuses a 10,000-cell grid (within the cell limit) before planning it', async () => {
    const spec = withValue(baseSpec(), 'workload', {
      base: 'a',
      readProportions: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
      targetOpsPerSec: { start: 100, stop: 100_000, step: 100 },
      durationSeconds: 60,
    });
    (spec.targets as Record<string, unknown>[])[0]!.billing = { mode: 'on-demand' };
    const planned = jest.spyOn(planner, 'planRun');
    try {
      // 730,392: 10,000 × 73, the load, the ready checks and the fixed states: the targets' Map (4 events) and the
      // target's iteration (its start and end, TargetSpan, ProvisionTarget, the loops' entries, TeardownTarget, the
      // pass that ends it)
      expect(await planIssues(spec)).toEqual([
        'workload: the plan has 10000 cells; at up to 73 history events per cell the run could reach 730392 events, ' +
          'above the 20000 this pipeline allows (Step Functions stops at 25,000): split the spec into smaller runs ' +
          '(fewer read proportions, distributions or throughput steps)',
      ]);
      expect(planned).not.toHaveBeenCalled();
    } finally {
      planned.mockRestore();
    }
  });
});
