/**
 * CellFailed (lib/core/pipeline/cell-failure.ts) over a real stored plan (the Plan step on an FsStore) and in-memory
 * fleet/command ports: what the failure policy makes of a failed cell, what it records, and the plan's worst case.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { plan, readPlan, type RunContext } from '../../../lib/core/pipeline';
import { cellFailed, failureReason, waitLoaders } from '../../../lib/core/pipeline/cell-failure';
import { TAG_LOADER_GROUP } from '../../../lib/core/pipeline/run-context';
import {
  TAG_ROLE,
  TAG_RUN_ID,
  type CommandRunner,
  type FleetAdmin,
  type LaunchRequest,
} from '../../../lib/core/common/ports';
import { FsStore } from '../../../lib/local/fs-store';
import { validateSpec } from '../../../lib/core/spec';
import { planRun } from '../../../lib/core/plan';
import { ESTIMATE_ASSUMPTIONS } from '../../../lib/core/cost/estimate';
import { loadSpecFile } from '../../../lib/cli/spec-file';
import {
  HISTORY_EVENT_LIMIT,
  eventsPerReplacement,
  eventsPerRetry,
  historyBudget,
  readyChecksOf,
} from '../../../lib/core/plan/history';

const T0 = 1_800_000_000_000;
const clock = { nowMs: () => T0 };

function specOf(cells: number, extra: Record<string, unknown> = {}) {
  return {
    name: 'cf',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
    dataset: { recordCount: 100 },
    workload: {
      readProportions: [0.5],
      targetOpsPerSec: Array.from({ length: cells }, (_, i) => 10 * (i + 1)),
      distributions: ['uniform'],
      durationSeconds: 60,
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
    ...extra,
  };
}

/** One loader of the run, online; `lose()` takes it away as a terminated instance. */
function world(runId: string) {
  const loaders = new Map<string, { id: string; state: string; tags: Record<string, string> }>();
  const launched: LaunchRequest[] = [];
  const cancelled: string[][] = [];
  let n = 0;
  const add = (tags: Record<string, string>) => {
    const id = `i-${++n}`;
    loaders.set(id, { id, state: 'running', tags });
    return id;
  };
  add({ [TAG_RUN_ID]: runId, [TAG_ROLE]: 'loader' });
  const fleet: FleetAdmin = {
    launch: async (r) => {
      launched.push(r);
      return Array.from({ length: r.count }, () => add(r.tags));
    },
    list: async (f) => [...loaders.values()].filter((i) => !f.runId || i.tags[TAG_RUN_ID] === f.runId),
    terminate: async (ids) => ids.forEach((id) => loaders.delete(id)),
  };
  const commands = {
    online: async (ids: string[]) => ids.filter((id) => loaders.has(id)),
    cancel: async (ids: string[]) => void cancelled.push(ids),
  } as unknown as CommandRunner;
  return { fleet, commands, launched, cancelled, lose: () => loaders.clear() };
}

describe('CellFailed', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  async function setUp(spec: Record<string, unknown>) {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cf-'));
    dirs.push(dir);
    const store = new FsStore(dir);
    const run: RunContext = await plan({ executionName: 'cf-run', spec }, { store, clock });
    const w = world(run.runId);
    const deps = { store, clock, fleet: w.fleet, commands: w.commands };
    const fail = (index: number, attempt: number, Cause = 'StartCell: 1 loaders needed, 0 running') =>
      cellFailed(
        { run, cursor: { index, attempt }, error: { Error: 'StepFailedError', Cause }, job: {} },
        deps,
      );
    return { dir, store, run, w, fail };
  }

  it('one cell: the default policy stops the run, the failure kept with its reason', async () => {
    const { dir, fail } = await setUp(specOf(1));
    const r = await fail(0, 0);
    expect(r).toMatchObject({
      action: 'stop',
      attempt: 0,
      reason: 'StepFailedError: StartCell: 1 loaders needed, 0 running',
      // the run fails with the step's own cause
      cause: 'StartCell: 1 loaders needed, 0 running',
    });
    const rec = JSON.parse(
      readFileSync(path.join(dir, 'runs/cf-run/cells', r.cellId, 'failures/attempt-0.json'), 'utf8'),
    );
    expect(rec).toMatchObject({ attempt: 0, atMs: T0, reason: r.reason });
    expect(existsSync(path.join(dir, 'runs/cf-run/cells', r.cellId, 'result.json'))).toBe(false);
  });

  it('several cells: retried once, then recorded incomplete (unmeasured row, cells table) and skipped', async () => {
    const { dir, fail, w } = await setUp(specOf(4));
    const first = await fail(0, 0);
    expect(first).toMatchObject({ action: 'retry', attempt: 1, index: 0 });
    // the loader still answers: nothing replaced, no wait
    expect(first.loaders).toMatchObject({ replacement: null, waitSeconds: 0 });
    expect(w.launched).toEqual([]);
    const second = await fail(0, 1, 'CheckCell: the loader command failed on 1 of 1 loaders');
    expect(second.action).toBe('skip');
    expect(second.reason).toMatch(/failed 2 times\)$/);
    const result = JSON.parse(
      readFileSync(path.join(dir, 'runs/cf-run/cells', second.cellId, 'result.json'), 'utf8'),
    );
    expect(result.failed.reason).toBe(second.reason);
    expect(result.row).toMatchObject({
      incomplete: true,
      incomplete_reason: second.reason,
      achieved_ops_per_sec: 0,
      all_intended_p99_us: null,
      attainment: null,
      loaders: 0,
      target_ops_per_sec: 10,
    });
  });

  it('three cells failing in a row stop the run', async () => {
    const { fail } = await setUp(specOf(4));
    for (const i of [0, 1]) {
      expect((await fail(i, 0)).action).toBe('retry');
      expect((await fail(i, 1)).action).toBe('skip');
    }
    expect((await fail(2, 0)).action).toBe('retry');
    const third = await fail(2, 1);
    expect(third.action).toBe('stop');
    expect(third.reason).toMatch(/^3 cells in a row failed/);
    expect(third.cause).toBe(third.reason);
  });

  it("in parallel, another target's failed cells do not add to a target's streak", async () => {
    const spec = {
      ...specOf(3),
      targets: ['a', 'b'].map((id) => ({ id, kind: 'dynamodb', billing: { mode: 'on-demand' } })),
      execution: 'parallel',
    };
    const { fail, run } = await setUp(spec);
    const a = run.targets!.find((t) => t.id === 'a')!;
    const b = run.targets!.find((t) => t.id === 'b')!;
    // a's last two cells fail twice each; then b's first cell, its first failure of the run
    for (const i of [a.cellEnd - 2, a.cellEnd - 1]) {
      expect((await fail(i, 0)).action).toBe('retry');
      expect((await fail(i, 1)).action).toBe('skip');
    }
    expect((await fail(b.cellStart, 0)).action).toBe('retry');
    const r = await fail(b.cellStart, 1);
    expect(r.action).toBe('skip');
    expect(r.reason).toMatch(/failed 2 times\)$/);
  });

  it('a lost loader is replaced with the run tags before the retry; the event is recorded', async () => {
    const { dir, fail, w, run } = await setUp(specOf(2));
    w.lose();
    const r = await fail(1, 0);
    expect(r.action).toBe('retry');
    expect(w.launched).toHaveLength(1);
    expect(w.launched[0]).toMatchObject({ runId: run.runId, count: 1 });
    expect(w.launched[0]!.tags).toMatchObject({ [TAG_RUN_ID]: run.runId, [TAG_ROLE]: 'loader' });
    expect(r.loaders.replacement).toMatchObject({ missing: 1, launched: 1, lost: [] });
    // c5.2xlarge at $0.34/h (the 2024-11 book, https://aws.amazon.com/ec2/pricing/on-demand/) × 15 min of boot wait
    expect(r.loaders.replacement!.worstCaseUsd).toBeCloseTo(0.34 * 0.25, 6);
    expect(r.loaders.deadlineMs).toBe(T0 + 15 * 60_000);
    expect(existsSync(path.join(dir, 'runs/cf-run/events', `loader-replacement-${T0}.json`))).toBe(true);
  });

  it('a replacement the budget cannot pay for stops the run, naming budget.maxUsd', async () => {
    const probe = planRun(validateSpec(specOf(2)).spec);
    const cap = probe.estimate.totalUsd + probe.onCellFailure.worstCase.extraUsd + 0.01;
    const { fail, w } = await setUp(specOf(2, { budget: { maxUsd: cap } }));
    w.lose();
    await expect(fail(1, 0)).rejects.toThrow(/budget\.maxUsd/);
    expect(w.launched).toEqual([]);
  });

  it('cancels a command still running for the failed cell', async () => {
    const { run, store, w } = await setUp(specOf(2));
    await cellFailed(
      {
        run,
        cursor: { index: 1, attempt: 0 },
        error: null,
        job: { phase: 'run', index: 1, commandIds: ['c-9'] },
      },
      { store, clock, fleet: w.fleet, commands: w.commands },
    );
    expect(w.cancelled).toEqual([['c-9']]);
  });

  it("a parallel run: only the failed cell's loader group is looked at, replaced and waited for", async () => {
    const twoTargets = {
      ...specOf(2),
      targets: ['a', 'b'].map((id) => ({ id, kind: 'dynamodb', billing: { mode: 'on-demand' } })),
      execution: 'parallel',
    };
    const { run, store, w } = await setUp(twoTargets);
    expect(run.targets?.map((t) => [t.id, t.loaders])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    // each group's loader, tagged with its target; b's has just been launched and is not online in SSM yet
    w.lose();
    const [a1] = await w.fleet.launch({
      runId: run.runId,
      count: 1,
      instanceType: 'c5.large',
      tags: { [TAG_RUN_ID]: run.runId, [TAG_ROLE]: 'loader', [TAG_LOADER_GROUP]: 'a' },
    });
    const [b1] = await w.fleet.launch({
      runId: run.runId,
      count: 1,
      instanceType: 'c5.large',
      tags: { [TAG_RUN_ID]: run.runId, [TAG_ROLE]: 'loader', [TAG_LOADER_GROUP]: 'b' },
    });
    w.launched.length = 0;
    const commands = {
      ...w.commands,
      online: async (ids: string[]) => ids.filter((id) => id !== b1),
    } as CommandRunner;
    const deps = { store, clock, fleet: w.fleet, commands };
    const cellOf = (target: string) => run.targets!.find((t) => t.id === target)!.cellStart;
    const failA = await cellFailed(
      { run, cursor: { index: cellOf('a'), attempt: 0 }, error: null, job: {} },
      deps,
    );
    // a's loader answers: nothing to replace; b's booting loader is not a's business
    expect(failA.loaders).toMatchObject({ replacement: null, group: 'a' });
    expect((await w.fleet.list({ runId: run.runId })).map((i) => i.id).sort()).toEqual([a1, b1].sort());
    expect(await waitLoaders({ run, loaders: failA.loaders }, deps)).toMatchObject({
      ready: true,
      online: 1,
    });
    // a's loader gone: one launched in group a only, b's left alone
    await w.fleet.terminate([a1!]);
    const again = await cellFailed(
      { run, cursor: { index: cellOf('a'), attempt: 0 }, error: null, job: {} },
      deps,
    );
    expect(again.loaders.replacement).toMatchObject({ missing: 1, launched: 1, lost: [] });
    expect(w.launched.map((l) => [l.count, l.tags[TAG_LOADER_GROUP]])).toEqual([[1, 'a']]);
    expect((await w.fleet.list({ runId: run.runId })).some((i) => i.id === b1)).toBe(true);
  });

  it("two targets' cells failing at once each count their retry (one record per retry, none overwritten)", async () => {
    const twoTargets = {
      ...specOf(2),
      targets: ['a', 'b'].map((id) => ({ id, kind: 'dynamodb', billing: { mode: 'on-demand' } })),
      execution: 'parallel',
    };
    const { dir, run, store, w } = await setUp(twoTargets);
    const deps = { store, clock, fleet: w.fleet, commands: w.commands };
    const first = (t: string) => run.targets!.find((x) => x.id === t)!.cellStart;
    const both = await Promise.all(
      ['a', 'b'].map((t) =>
        cellFailed({ run, cursor: { index: first(t), attempt: 0 }, error: null, job: {} }, deps),
      ),
    );
    expect(both.map((r) => r.action)).toEqual(['retry', 'retry']);
    const retriesDir = path.join(dir, 'runs', run.runId, 'retries', run.runId);
    const held = () =>
      readdirSync(retriesDir)
        .map((f) => JSON.parse(readFileSync(path.join(retriesDir, f), 'utf8')) as { cellId: string })
        .map((r) => r.cellId)
        .sort();
    expect(readdirSync(retriesDir).sort()).toEqual(['slot-0.json', 'slot-1.json']);
    expect(held()).toEqual(both.map((r) => r.cellId).sort());
    // the same step run again (a Lambda retry) finds its own slot: still two
    expect(
      (await cellFailed({ run, cursor: { index: first('a'), attempt: 0 }, error: null, job: {} }, deps))
        .action,
    ).toBe('retry');
    expect(held()).toEqual(both.map((r) => r.cellId).sort());
  });

  it('two cells racing for the last retry: one gets it, the other is recorded incomplete', async () => {
    const twoTargets = {
      ...specOf(2),
      targets: ['a', 'b'].map((id) => ({ id, kind: 'dynamodb', billing: { mode: 'on-demand' } })),
      execution: 'parallel',
    };
    const { dir, run, store, w } = await setUp(twoTargets);
    // a plan whose history budget leaves one retry (plan.onCellFailure.retries)
    const p = await readPlan(store, run.runId);
    await store.putJson(`runs/${run.runId}/plan.json`, {
      ...p,
      onCellFailure: { ...p.onCellFailure!, retries: 1 },
    });
    const deps = { store, clock, fleet: w.fleet, commands: w.commands };
    const first = (t: string) => run.targets!.find((x) => x.id === t)!.cellStart;
    const both = await Promise.all(
      ['a', 'b'].map((t) =>
        cellFailed({ run, cursor: { index: first(t), attempt: 0 }, error: null, job: {} }, deps),
      ),
    );
    expect(both.map((r) => r.action).sort()).toEqual(['retry', 'skip']);
    expect(both.find((r) => r.action === 'skip')!.reason).toMatch(
      /not retried: the run's 1 retries are spent/,
    );
    expect(readdirSync(path.join(dir, 'runs', run.runId, 'retries', run.runId))).toEqual(['slot-0.json']);
  });

  it("keeps a Lambda error's message, not its JSON", () => {
    expect(
      failureReason({ Error: 'Error', Cause: '{"errorType":"Error","errorMessage":"boom at StartCell"}' }),
    ).toBe('Error: boom at StartCell');
  });

  it('a plan stored before the policy existed stops, as those runs did', async () => {
    const { store, run, fail } = await setUp(specOf(3));
    const p = await readPlan(store, run.runId);
    await store.putJson(`runs/${run.runId}/plan.json`, { ...p, onCellFailure: undefined });
    expect((await fail(0, 0)).action).toBe('stop');
  });
});

describe("the plan's failure policy (seed 002's staircase)", () => {
  const { spec } = loadSpecFile(path.join(__dirname, '../../../examples/seed-002-staircase.json'));
  const p = planRun(spec);
  const f = p.onCellFailure;

  it('retries by default, within the execution history', () => {
    expect(f.policy).toBe('retry-then-continue');
    expect(f.retries).toBeGreaterThan(0);
    const loads = p.load?.targets.length ?? 0;
    const events =
      historyBudget({
        cells: p.cells.length,
        loads,
        targets: spec.targets.length,
        readyChecks: readyChecksOf(spec.targets),
      }).events +
      f.retries * eventsPerRetry() +
      f.replacements * eventsPerReplacement();
    expect(events).toBeLessThanOrEqual(HISTORY_EVENT_LIMIT);
    // one more retry would not fit
    expect(events + eventsPerRetry()).toBeGreaterThan(HISTORY_EVENT_LIMIT);
  });

  it("states the worst case's extra hours: the longest cells again, each with its overhead, and the loader waits", () => {
    const longest = [...p.cells].sort((a, b) => b.durationSeconds - a.durationSeconds).slice(0, f.retries);
    const seconds =
      longest.reduce((s, c) => s + c.durationSeconds + ESTIMATE_ASSUMPTIONS.perCellOverheadSeconds, 0) +
      f.replacements * 15 * 60;
    expect(f.worstCase.extraHours).toBeCloseTo(seconds / 3600, 3);
    expect(f.worstCase.extraUsd).toBeGreaterThan(0);
  });

  it('"stop" makes no retries and costs nothing extra', () => {
    const stop = planRun({ ...spec, onCellFailure: 'stop' }).onCellFailure;
    expect(stop).toMatchObject({
      policy: 'stop',
      attempts: 1,
      retries: 0,
      worstCase: { extraUsd: 0, extraHours: 0 },
    });
  });
});
