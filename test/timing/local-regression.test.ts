/**
 * Regression detection end to end in the local mode: six runs of a one-cell spec on one DynamoDB Local,
 * the last three slowed by the binding's injected delay (`fleetbench.injectDelayUs`). The DetectRegressions
 * Task state of each run (the pipeline's step code) must report the change at the first slowed run —
 * confirmed once three slowed runs exist, alerted once — and the CLI and the HTML report must show it.
 *
 * Delay: 200 ms per operation. Measured on this 2-core machine (shared) with DynamoDB Local warm (after
 * one warm-up run of another spec): intended P50 9–28 ms without delay, 107–112 ms with a 100 ms delay;
 * the cold first run of a fresh DynamoDB Local reached 147 ms, hence the warm-up run outside the spec's
 * history. With 3 + 3 runs the t-test needs p < 0.001 at 4 degrees of freedom: 200 ms keeps that even if
 * one baseline run is 5× slower than the others. 16 threads keep 40 ops/s below the slowed capacity
 * (16 / 0.21 s ≈ 76 ops/s), so the change is in latency, not a throughput collapse.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NAMED_QUERIES } from '../../lib/core/pipeline';
import { validateSpec, type RunSpec } from '../../lib/core/spec';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { openLocalDb } from '../../lib/local/query';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { rowsOf } from '../support/rows';

const DELAY_US = 200_000;
const SLOWED_FROM = 3;
const RUNS = 6;

function specOf(name: string, delayUs: number): RunSpec {
  return validateSpec({
    name,
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
    dataset: { recordCount: 200 },
    workload: {
      readProportions: [0.5],
      targetOpsPerSec: [40],
      distributions: ['uniform'],
      durationSeconds: 5,
      warmupSeconds: 1,
      // an HDR interval per second: the 4-s window holds whole intervals however fast the JVM starts
      statusIntervalSeconds: 1,
      ...(delayUs ? { extraProperties: { 'fleetbench.injectDelayUs': String(delayUs) } } : {}),
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 16 },
  }).spec;
}

const runId = (i: number) => `regress-${i}`;

describe(`local runs slowed from run ${SLOWED_FROM} by ${DELAY_US / 1000} ms per operation`, () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-regress-'));
  const results: LocalRunResult[] = [];
  const outputs: string[][] = [];
  let ddb: DynamoDbLocal | undefined;
  let seconds = 0;

  beforeAll(async () => {
    const t0 = Date.now();
    ddb = await startDynamoDbLocal();
    try {
      // warm DynamoDB Local and the synthesized definition with a spec outside the history
      const warm = await runLocal({
        spec: specOf('regress-warmup', 0),
        resultsDir,
        runName: 'warmup',
        waitMs: 500,
        dynamoDbLocal: ddb,
        out: () => undefined,
      });
      expect(warm.status).toBe('SUCCEEDED');
      for (let i = 0; i < RUNS; i++) {
        const lines: string[] = [];
        results.push(
          await runLocal({
            spec: specOf('regress', i >= SLOWED_FROM ? DELAY_US : 0),
            resultsDir,
            runName: runId(i),
            waitMs: 500,
            dynamoDbLocal: ddb,
            out: (l) => lines.push(l),
          }),
        );
        outputs.push(lines);
      }
    } finally {
      await ddb.stop();
      seconds = (Date.now() - t0) / 1000;
      console.log(`local regression sequence: ${RUNS} runs + warm-up in ${seconds.toFixed(0)} s`);
    }
  }, 400_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('every run succeeded, and the delay reached the binding of the slowed runs only', () => {
    expect(results.map((r) => [r.runId, r.status, r.warnings])).toEqual(
      results.map((_, i) => [runId(i), 'SUCCEEDED', undefined]),
    );
    const cells = rowsOf(path.join(resultsDir, 'tables', 'cells')).filter((r) => r.spec_name === 'regress');
    const service = (i: number) => cells.find((r) => r.run_id === runId(i))!.all_service_p50_us as number;
    for (let i = 0; i < RUNS; i++) {
      // every operation sleeps DELAY_US in the binding: the median service time cannot be below it
      if (i >= SLOWED_FROM) expect(service(i)).toBeGreaterThanOrEqual(DELAY_US);
      else expect(service(i)).toBeLessThan(DELAY_US / 2);
    }
  });

  it('DetectRegressions recorded the change at the first slowed run, confirmed after the third', () => {
    const rows = rowsOf(path.join(resultsDir, 'tables', 'changes'));
    const confirmed = rows.filter((r) => r.status === 'confirmed');
    const p50 = confirmed.find((r) => r.metric === 'intended_p50_us');
    expect(p50).toMatchObject({
      spec_name: 'regress',
      run_id: runId(RUNS - 1),
      change_run_id: runId(SLOWED_FROM),
      previous_run_id: runId(SLOWED_FROM - 1),
      kind: 'regression',
      n_before: SLOWED_FROM,
      n_after: RUNS - SLOWED_FROM,
    });
    expect((p50!.mean_after as number) / (p50!.mean_before as number)).toBeGreaterThan(4);
    expect(p50!.p_value as number).toBeLessThan(0.001);
    // whatever else was confirmed began at the same run
    expect([...new Set(confirmed.map((r) => r.change_run_id))]).toEqual([runId(SLOWED_FROM)]);
    // no change was recorded before the slowdown began
    expect(rows.filter((r) => Number(String(r.run_id).split('-')[1]) < SLOWED_FROM)).toEqual([]);
  });

  it('alerted once, after the run that confirmed it, naming the metric, the cell, the run and the magnitude', () => {
    const alerts = outputs.map((lines) => lines.filter((l) => /notify: fleetbench regression:/.test(l)));
    expect(alerts.map((a) => a.length > 0)).toEqual(outputs.map((_, i) => i === RUNS - 1));
    expect(alerts[RUNS - 1]!.join('\n')).toMatch(
      /notify: fleetbench regression: regress intended_p\d+_us \+\d+/,
    );
  });

  it("the workgroup's regressions named query returns it (DuckDB, as Athena would)", async () => {
    const q = NAMED_QUERIES.find((n) => n.name === 'regressions')!;
    const db = await openLocalDb(resultsDir);
    try {
      const rows = (await db.query(q.sql, ['regress'])).filter((r) => r.metric === 'intended_p50_us');
      expect(rows).toEqual([
        expect.objectContaining({
          change_run_id: runId(SLOWED_FROM),
          kind: 'regression',
          status: 'confirmed',
          last_detected_by: runId(RUNS - 1),
        }),
      ]);
    } finally {
      db.close();
    }
  });

  it('fleetbench regressions --local lists it', () => {
    const r = spawnSync(
      process.execPath,
      [
        path.join(__dirname, '..', '..', 'bin', 'fleetbench.js'),
        'regressions',
        '--local',
        '--results',
        resultsDir,
        '--spec',
        'regress',
        '--metric',
        'intended_p50_us',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout);
    expect(doc.changes).toEqual([
      expect.objectContaining({ runId: runId(SLOWED_FROM), kind: 'regression', confirmed: true }),
    ]);
  });

  it("the last run's HTML report has a history chart per metric with the change marked", () => {
    const html = readFileSync(results[RUNS - 1]!.reportFile!, 'utf8');
    const figure = /<figure[^>]*data-chart="history-intended_p50_us"[\s\S]*?<\/figure>/.exec(html);
    expect(figure).not.toBeNull();
    // run numbers start at 1: the first slowed run is number SLOWED_FROM + 1
    expect(figure![0].match(/data-mark="(\d+)"/g)).toEqual([`data-mark="${SLOWED_FROM + 1}"`]);
    expect(html).toContain('data-chart="history-good_ops_per_sec"');
  });
});
