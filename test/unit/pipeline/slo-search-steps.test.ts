/**
 * The SLO search through the pipeline's steps (docs/slo-search.md): StartCell runs each probe at the rate its
 * search decides from the rows of the probes before it, skips the probes a finished search no longer needs (no
 * loader command, CheckCell passes the job on, AggregateCell writes nothing), and the frontier row follows the
 * last probe that ran. The target is an oracle: a probe passes at or below 1,000 ops/s. The real FsStore; the
 * rows AggregateCell would write stand in for YCSB's output (aggregation itself is tested elsewhere).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  aggregateCellStep,
  checkPhase,
  plan,
  readPlan,
  report,
  startPhase,
} from '../../../lib/core/pipeline';
import { cellKey } from '../../../lib/core/pipeline/keys';
import { finishSearch, frontierKey } from '../../../lib/core/pipeline/probe';
import { cellFailed } from '../../../lib/core/pipeline/cell-failure';
import { FsStore } from '../../../lib/local/fs-store';
import type { JobInput } from '../../../lib/core/contract/job';

const spec = {
  name: 'slo',
  targets: [
    {
      id: 'ext',
      kind: 'external',
      protocol: 'redis',
      endpoints: ['127.0.0.1:6379'],
      redis: { tls: false },
      price: { usdPerHour: 1 },
    },
  ],
  dataset: { recordCount: 1000, load: false },
  workload: {
    readProportions: [0.5],
    search: {
      slo: { percentile: 99, maxMs: 10 },
      startOpsPerSec: 100,
      maxOpsPerSec: 1600,
      resolutionOpsPerSec: 50,
      requiredOpsPerSec: 900,
    },
    durationSeconds: 60,
  },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 8 },
};

let dir: string;
beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-slo-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fleet = {
  launch: async () => [],
  list: async () => [{ id: 'loader-0', state: 'running', tags: {} }],
  terminate: async () => undefined,
  online: async (ids: string[]) => ids,
};
const clock = { nowMs: () => 0 };
const costAt = () => ({
  monthlyCostProvisionedUsd: null,
  monthlyCostOnDemandUsd: null,
  monthlyCostUsd: 730,
  hoursPerMonth: 730,
});

/** Plans the spec and runs its cell loop against an oracle passing at or below `limit`; the rates run. */
async function runSearch(
  store: FsStore,
  name: string,
  limit: number,
  opts: { failViaCellFailed?: boolean } = {},
) {
  const run = await plan({ executionName: name, spec }, { store, clock });
  const planned = await readPlan(store, run.runId);
  let sent = 0;
  const commands = {
    send: async () => (sent++, ['cmd']),
    status: async () => [{ commandId: 'cmd', instanceId: 'loader-0', status: 'Success' as const }],
    cancel: async () => undefined,
    online: async (ids: string[]) => ids,
  };
  const rates: (number | 'skipped')[] = [];
  for (let i = 0; i < run.cellCount; i++) {
    const cell = planned.cells[i]!;
    const before = sent;
    const job = await startPhase('run', { run, index: i }, { store, fleet, commands, clock });
    if (sent === before) {
      // skipped: done at once with nothing sent; CheckCell hands it on; AggregateCell writes nothing
      expect(job).toMatchObject({ done: true, commandIds: [], waitSeconds: 0 });
      const noCall = { ...commands, status: async () => Promise.reject(new Error('no call')) };
      expect(await checkPhase(job, { commands: noCall, clock })).toBe(job);
      const agg = await aggregateCellStep(
        { run, index: i },
        { store, metrics: { put: async () => undefined } },
      );
      expect(agg).toEqual({ index: i, next: i + 1, cellId: cell.id, incomplete: false });
      expect(await store.exists(cellKey(run.runId, cell.id, 'result.json'))).toBe(false);
      rates.push('skipped');
      continue;
    }
    const loaderJob = (await store.getJson(`runs/${name}/cells/${cell.id}/jobs/loader-0.json`)) as JobInput;
    const rate = Number(loaderJob.processes[0]!.target);
    rates.push(rate);
    // what AggregateCell would write for the oracle's answer at this rate: a passing probe serves 97 % of its rate
    // (above the default minimum attainment of 95 %), its cost priced at the rate it achieved ($0.70 per ops/s
    // a month) and its cost per million operations over its good operations (730 h a month)
    const pass = rate <= limit;
    if (!pass && opts.failViaCellFailed) {
      // the overloaded target makes the probe's step fail (its errors over maxErrorFraction, a JVM killed), twice:
      // CellFailed retries it, then records it incomplete; the search counts it failed and may end on it
      const deps = { store, commands, fleet, clock };
      const error = { Error: 'StepFailed', Cause: 'proc-0: 60 of 100 database calls returned an error' };
      const first = await cellFailed({ run, cursor: { index: i, attempt: 0 }, error }, deps);
      const again = await cellFailed({ run, cursor: { index: i, attempt: first.attempt }, error }, deps);
      expect([first.action, again.action]).toEqual(['retry', 'skip']);
      // its incomplete row is at the rate it ran, not the plan's placeholder
      const failed = (await store.getJson(cellKey(run.runId, cell.id, 'result.json'))) as {
        row: Record<string, unknown>;
      };
      expect(failed.row).toMatchObject({ incomplete: true, target_ops_per_sec: rate });
      continue;
    }
    const good = pass ? rate * 0.97 : rate * 0.6;
    await store.putJson(cellKey(run.runId, cell.id, 'result.json'), {
      cellId: cell.id,
      row: {
        cell_id: cell.id,
        target_ops_per_sec: rate,
        good_ops_per_sec: good,
        achieved_ops_per_sec: good,
        monthly_cost_usd: 0.7 * good,
        cost_per_million_ops_usd: (0.7 * good) / ((good * 730 * 3600) / 1e6),
        attainment: good / rate,
        error_rate: 0,
        all_intended_incl_failed_p99_us: pass ? 4000 : 25_000,
        incomplete: false,
      },
    });
    const stored = (await store.getJson(`runs/${name}/spec.json`)) as never;
    await finishSearch(store, { run, plan: planned, spec: stored, cell, costAt });
  }
  const row = (await store.getJson(frontierKey(run.runId, 'ext.zipfian.r50'))) as Record<string, unknown>;
  return { run, rates, row };
}

it('decides each probe from the ones before and writes the frontier row after the last', async () => {
  const store = new FsStore(dir);
  const { run, rates, row } = await runSearch(store, 'slo-1', 1000);
  // ramp 100..1600 (5), then [800, 1600] halved to 50 (4): 9 probes at the worst case
  expect(run.cellCount).toBe(9);
  // worked by hand: 100..800 pass, 1600 fails, then 1200 F, 1000 P, 1100 F, 1050 F (1050 − 1000 ≤ 50)
  expect(rates).toEqual([100, 200, 400, 800, 1600, 1200, 1000, 1100, 1050]);
  expect(row).toMatchObject({
    outcome: 'converged',
    found_ops_per_sec: 1000,
    failed_ops_per_sec: 1050,
    found_latency_us: 4000,
    probes: 9,
    probes_planned: 9,
    predicted_limit_ops_per_sec: null,
    found_good_ops_per_sec: 970,
    meets_required: true,
    monthly_cost_at_required_usd: 730,
  });
  // the found probe's own figures, not the cost model at the found target: its cost at the 970 ops/s it served
  // ($679 a month, not costAt(1000)'s $730), and per million good operations: 970 ops/s over 730 h are
  // 2,549.16 million operations, $679 ÷ 2,549.16 = $0.26636 (the target's 1,000 ops/s would give $0.2778)
  expect(row.monthly_cost_usd).toBeCloseTo(679, 6);
  const perMillion = (row.monthly_cost_usd as number) / ((970 * 730 * 3600) / 1e6);
  expect(row.cost_per_million_ops_usd).toBeCloseTo(perMillion, 9);
  expect(row.cost_per_million_ops_usd).toBeCloseTo(0.266362, 6);
});

it('skips the probes a search no longer needs; the report leaves them out', async () => {
  const store = new FsStore(dir);
  // 100 P, 200 F, then [100, 200]: 150 P; 200 − 150 ≤ 50
  const { run, rates, row } = await runSearch(store, 'slo-2', 160);
  expect(rates).toEqual([100, 200, 150, ...Array(6).fill('skipped')]);
  expect(row).toMatchObject({
    found_ops_per_sec: 150,
    failed_ops_per_sec: 200,
    probes: 3,
    meets_required: false,
  });
  const out = await report({ run }, { store, notifier: { publish: async () => undefined }, clock });
  expect(out).toMatchObject({ cells: 3, incomplete: 0 });
});

it('a probe that failed (CellFailed, not a row) counts as failing, and the search that ends on it has its row', async () => {
  const store = new FsStore(dir);
  // the same oracle as above; the probes over 1,000 ops/s fail as steps instead of measuring a slow row
  const { rates, row } = await runSearch(store, 'slo-3', 1000, { failViaCellFailed: true });
  expect(rates).toEqual([100, 200, 400, 800, 1600, 1200, 1000, 1100, 1050]);
  expect(row).toMatchObject({
    outcome: 'converged',
    found_ops_per_sec: 1000,
    failed_ops_per_sec: 1050,
    probes: 9,
  });
});

it("three probes failing one after another do not stop the run (a search fails probes above the target's limit by design)", async () => {
  const store = new FsStore(dir);
  // limit 900: 1600, 1200 and 1000 fail in a row, each through CellFailed (which would stop after 3 ordinary cells)
  const { rates, row } = await runSearch(store, 'slo-4', 900, { failViaCellFailed: true });
  expect(rates.slice(0, 8)).toEqual([100, 200, 400, 800, 1600, 1200, 1000, 900]);
  expect(row).toMatchObject({ outcome: 'converged', found_ops_per_sec: 900, failed_ops_per_sec: 950 });
});
