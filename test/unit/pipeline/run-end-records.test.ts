/**
 * What a run's end leaves in the store: the `runs` row (Report on success, the failure path's teardown on a failed
 * or aborted run) with the run's price book and the plan's estimate, a failure record per execution (a resumed run
 * that fails is reported with its own error, not its first execution's), and a failed target teardown said in the
 * report's notification and summary. Plan writes the run's records (spec, plan, price book, context) in a real
 * FsStore; teardown runs over the in-memory fleet and tables of ../../support/teardown-world.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { plan, readPlan, report, teardown, type RunContext } from '../../../lib/core/pipeline';
import { resumeRun } from '../../../lib/core/pipeline/resume';
import { failureKey, summaryKey, targetTeardownKey } from '../../../lib/core/pipeline/keys';
import { TAG_RUN_ID } from '../../../lib/core/common/ports';
import { fromJsonLines, tableObjectKey } from '../../../lib/core/results/rows';
import { tableDef } from '../../../lib/core/results/schema';
import { FsStore } from '../../../lib/local/fs-store';
import { teardownWorld, type Instance } from '../../support/teardown-world';

const quickstart = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'quickstart.json'), 'utf8'),
) as Record<string, unknown>;

let dir: string;
let store: FsStore;
let now: number;
const clock = { nowMs: () => now };
let messages: { subject: string; body: string }[];
const notifier = { publish: async (subject: string, body: string) => void messages.push({ subject, body }) };

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-run-end-'));
  store = new FsStore(dir);
  now = Date.UTC(2026, 10, 27, 9);
  messages = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Plan's records for a run of the quickstart spec; `aws`: its context says an S3 store (the row's mode). */
async function planned(runId: string, aws = true): Promise<RunContext> {
  const ctx = await plan({ executionName: runId, spec: quickstart }, { store, clock });
  if (!aws) return ctx;
  const run = { ...ctx, storeUri: 's3://fleetbench-results/r' };
  await store.putJson(`runs/${runId}/context.json`, run);
  return run;
}

async function runRow(run: RunContext): Promise<Record<string, unknown>> {
  const key = tableObjectKey(tableDef('runs'), run, run.runId);
  const rows = fromJsonLines([{ text: (await store.get(key)).toString('utf8'), source: key }]);
  expect(rows).toHaveLength(1);
  return rows[0]!.row;
}

function ports(run: RunContext | null, loaders = new Map<string, Instance>()) {
  const tables = new Map<string, Record<string, string>>();
  for (const r of run?.resources ?? [])
    if ((r as { type?: string; name?: string }).type === 'dynamodb-table')
      tables.set((r as { name: string }).name, { [TAG_RUN_ID]: run!.runId });
  const w = teardownWorld({ loaders, nodes: new Map(), tables });
  return { store, clock, notifier, fleet: w.fleet, tables: w.tableAdmin, world: w };
}

describe('the runs row', () => {
  it("Report fills price_book with the run's book and run_cost_estimate_usd with the plan's estimate (AWS)", async () => {
    const run = await planned('row-aws-1');
    const p = (await readPlan(store, run.runId)) as unknown as {
      estimate: { totalUsd: number; priceBook: string };
    };
    // the book Plan kept with the run and priced its estimate with
    const book = (await store.getJson(`runs/${run.runId}/price-book.json`)) as { id: string };
    expect(book.id).toBe(p.estimate.priceBook);
    expect(p.estimate.totalUsd).toBeGreaterThan(0);
    now += 60_000;
    await report({ run, region: 'us-east-1' }, { store, clock, notifier });
    expect(await runRow(run)).toMatchObject({
      status: 'SUCCEEDED',
      mode: 'aws',
      region: 'us-east-1',
      price_book: book.id,
      run_cost_estimate_usd: p.estimate.totalUsd,
      ended_at_ms: now,
      cells_total: 2,
      cells_incomplete: 2, // no cell was aggregated
    });
  });

  it('in local mode: the price book, and no AWS cost estimate (nothing is billed)', async () => {
    const run = await planned('row-local-1', false);
    await report({ run, region: null }, { store, clock, notifier });
    const book = (await store.getJson(`runs/${run.runId}/price-book.json`)) as { id: string };
    expect(await runRow(run)).toMatchObject({
      mode: 'local',
      region: null,
      price_book: book.id,
      run_cost_estimate_usd: null,
    });
  });

  it('a failed run gets its FAILED row from TeardownAfterFailure, ended when that pass ran; the abort rule’s pass keeps it', async () => {
    const run = await planned('row-fail-1');
    now += 120_000;
    const failedAt = now;
    await teardown(
      { run, executionName: run.runId, error: { Error: 'StepFailedError', Cause: 'WaitReady: not ready' } },
      ports(run),
    );
    const p = (await readPlan(store, run.runId)) as unknown as { estimate: { totalUsd: number } };
    const expected = {
      status: 'FAILED',
      mode: 'aws',
      region: 'us-east-1', // the spec's (Plan's default)
      ended_at_ms: failedAt,
      cells_total: 2,
      cells_incomplete: 2,
      run_cost_estimate_usd: p.estimate.totalUsd,
    };
    expect(await runRow(run)).toMatchObject(expected);
    // EventBridge's FAILED event, a minute later: the same execution, the same row
    now += 60_000;
    await teardown(
      { executionName: run.runId, status: 'FAILED', error: { Error: 'StepFailedError', Cause: 'x' } },
      ports(null),
    );
    expect(await runRow(run)).toMatchObject(expected);
  });

  it('an aborted run gets an ABORTED row; a timed-out one a FAILED row', async () => {
    const aborted = await planned('row-abort-1');
    await teardown(
      { executionName: aborted.runId, status: 'ABORTED', error: { Error: 'ABORTED' } },
      ports(null),
    );
    expect(await runRow(aborted)).toMatchObject({ status: 'ABORTED' });
    const timedOut = await planned('row-timeout-1');
    await teardown(
      { executionName: timedOut.runId, status: 'TIMED_OUT', error: { Error: 'TIMED_OUT' } },
      ports(null),
    );
    expect(await runRow(timedOut)).toMatchObject({ status: 'FAILED' });
    expect(await store.getJson(failureKey(timedOut.runId))).toMatchObject({ status: 'TIMED_OUT' });
  });

  it('a teardown that fails after Report turns the SUCCEEDED row into a FAILED one (the execution fails)', async () => {
    const run = await planned('row-late-1');
    await report({ run, region: 'us-east-1' }, { store, clock, notifier });
    expect(await runRow(run)).toMatchObject({ status: 'SUCCEEDED' });
    now += 10_000;
    await teardown(
      {
        run,
        executionName: run.runId,
        error: { Error: 'Error', Cause: 'teardown of run row-late-1 incomplete' },
      },
      ports(run),
    );
    expect(await runRow(run)).toMatchObject({ status: 'FAILED', ended_at_ms: now });
  });
});

describe('a resumed run that fails', () => {
  it("is recorded and notified with its own execution's error; the first execution's stays under it", async () => {
    const run = await planned('resume-fail-1', false);
    const loaders = new Map<string, Instance>([
      ['i-1', { id: 'i-1', state: 'running', tags: { [TAG_RUN_ID]: run.runId } }],
    ]);
    const first = { Error: 'StepFailedError', Cause: 'FIRST: WaitReady not ready after 900 s' };
    await teardown({ run, executionName: run.runId, error: first }, ports(run, loaders));
    expect(messages).toHaveLength(1);
    expect(messages[0]!.body).toContain('FIRST');

    now += 3_600_000;
    const resumed = await resumeRun(
      { resume: run.runId, executionName: `${run.runId}-resume` },
      { store, clock },
    );
    now += 3_600_000;
    loaders.set('i-2', { id: 'i-2', state: 'running', tags: { [TAG_RUN_ID]: run.runId } });
    const second = { Error: 'States.TaskFailed', Cause: 'SECOND: MemoryDB quota exceeded' };
    await teardown(
      { run: resumed, executionName: `${run.runId}-resume`, error: second },
      ports(resumed, loaders),
    );
    expect(await store.getJson(failureKey(run.runId))).toEqual({
      runId: run.runId,
      executionName: `${run.runId}-resume`,
      status: 'FAILED',
      error: 'States.TaskFailed',
      cause: second.Cause,
      failedAtMs: now,
      atMs: now,
      earlierExecutions: [
        expect.objectContaining({ executionName: run.runId, error: 'StepFailedError', cause: first.Cause }),
      ],
    });
    expect(messages).toHaveLength(2);
    expect(messages[1]!.body.split('\n')[0]).toBe(
      `Run ${run.runId} ended FAILED: States.TaskFailed SECOND: MemoryDB quota exceeded`,
    );
    expect(messages[1]!.body).toContain('terminated 1 loader (i-2)');

    // the abort rule's pass of the resumed execution: nothing left to remove, the same error, no second message
    now += 30_000;
    await teardown(
      { executionName: `${run.runId}-resume`, status: 'FAILED', error: { Error: 'States.TaskFailed' } },
      ports(null, loaders),
    );
    expect(messages).toHaveLength(2);
    expect(await store.getJson(failureKey(run.runId))).toMatchObject({
      cause: second.Cause,
      failedAtMs: now - 30_000,
    });
  });

  it('a resumed run whose teardown removed nothing still tells of its failure', async () => {
    const run = await planned('resume-fail-2', false);
    await teardown({ run, executionName: run.runId, error: { Error: 'A', Cause: 'first' } }, ports(run));
    now += 1000;
    const resumed = await resumeRun(
      { resume: run.runId, executionName: `${run.runId}-resume` },
      { store, clock },
    );
    now += 1000;
    await teardown(
      { run: resumed, executionName: `${run.runId}-resume`, error: { Error: 'B', Cause: 'second' } },
      ports(resumed),
    );
    expect(messages.map((m) => m.body.split('\n')[0])).toEqual([
      `Run ${run.runId} ended FAILED: A first`,
      `Run ${run.runId} ended FAILED: B second`,
    ]);
  });

  it("a resumed run that succeeds is not recorded failed for its first execution's failure", async () => {
    const run = await planned('resume-ok-1', false);
    await teardown({ run, executionName: run.runId, error: { Error: 'A', Cause: 'first' } }, ports(run));
    now += 1000;
    const resumed = await resumeRun(
      { resume: run.runId, executionName: `${run.runId}-resume` },
      { store, clock },
    );
    now += 1000;
    await teardown({ run: resumed, executionName: `${run.runId}-resume` }, ports(resumed));
    expect(await store.getJson(`runs/${run.runId}/teardown.json`)).toMatchObject({
      failed: false,
      passes: 2,
    });
  });
});

describe("a target's failed teardown", () => {
  it("is said by Report's notification and summary, with what its record says it left", async () => {
    const run = await planned('target-td-1', false);
    now += 5000;
    const left = 'tables: DynamoDB DeleteTable fleetbench-x: ResourceInUseException: Table is being updated';
    await store.putJson(targetTeardownKey(run.runId, 'ddb'), {
      runId: run.runId,
      target: 'ddb',
      deletedTables: [],
      errors: [left],
      atMs: now,
    });
    // a Lambda's error as Step Functions passes it on: its Cause is the error's JSON
    const cause = JSON.stringify({
      errorType: 'Error',
      errorMessage: `teardown of target ddb incomplete: ${left}`,
    });
    await report(
      {
        run,
        region: null,
        targetTeardowns: [{ target: 'ddb', teardownError: { Error: 'Error', Cause: cause } }],
      },
      { store, clock, notifier },
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]!.body).toContain(
      `Target ddb: its teardown failed (Error: teardown of target ddb incomplete: ${left}). It could not remove: ${left}.`,
    );
    expect(await store.getJson(summaryKey(run.runId))).toMatchObject({
      status: 'SUCCEEDED',
      targetTeardownFailures: [{ target: 'ddb', left: [left] }],
    });
    const html = (await store.get(`runs/${run.runId}/report.html`)).toString('utf8');
    expect(html).toContain('Target ddb: its teardown failed');
  });

  it('refuses a malformed targetTeardowns with the field named', async () => {
    const run = await planned('target-td-2', false);
    await expect(
      report({ run, targetTeardowns: [{ teardownError: {} }] }, { store, clock, notifier }),
    ).rejects.toThrow('targetTeardowns[0].target: a target id');
    await expect(report({ run, targetTeardowns: 'x' }, { store, clock, notifier })).rejects.toThrow(
      /^targetTeardowns: a list/,
    );
  });

  it("the run's Teardown after it tells what it removed of what was left", async () => {
    const run = await planned('target-td-3', false);
    const { world, ...deps } = ports(run);
    const table = [...world.tables.keys()][0]!;
    await teardown(
      {
        run,
        executionName: run.runId,
        targetTeardowns: [{ target: 'ddb', teardownError: { Error: 'Error', Cause: 'DeleteTable refused' } }],
      },
      deps,
    );
    expect(world.tables.size).toBe(0);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.subject).toBe(`fleetbench run ${run.runId}: SUCCEEDED, a target teardown failed`);
    expect(messages[0]!.body).toContain('The teardown of target ddb had failed (Error: DeleteTable refused)');
    expect(messages[0]!.body).toContain(`deleted 1 DynamoDB table (${table})`);
  });
});
