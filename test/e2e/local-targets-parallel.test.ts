/**
 * Issue #33 item 4: a local study of two targets (a DynamoDB Local table and a loopback Redis), run with
 * `"execution": "parallel"` (the deployed state machine's Map over the targets, two at a time) and then with
 * "sequential" (one at a time): real YCSB on both. In parallel each target's cells run on its own loader group and the
 * two targets' cells overlap in time; the rows are the same cells with the same deterministic columns, and their
 * operation counts agree within the noise of a paced run.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { planRun } from '../../lib/core/plan';
import { capacityObjectKey } from '../../lib/core/results/capacity';
import { freePort } from '../support/ports';
import { strayJvms } from '../support/processes';

type Row = Record<string, string | number | boolean | null>;

const specOf = (execution: 'parallel' | 'sequential', redisPort: number) =>
  validateSpec({
    name: 'two-kinds',
    execution,
    targets: [
      { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 },
      {
        id: 'redis',
        kind: 'external',
        protocol: 'redis',
        endpoints: [`127.0.0.1:${redisPort}`],
        redis: { tls: false },
        price: { usdPerHour: 0.226 },
        expectedLatencyMs: 2,
      },
    ],
    dataset: { recordCount: 200, fieldCount: 2, fieldLength: 20, load: true },
    workload: {
      base: 'a',
      readProportions: [0.5],
      targetOpsPerSec: [40, 80],
      distributions: ['uniform'],
      durationSeconds: 6,
      warmupSeconds: 1,
      statusIntervalSeconds: 1,
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
  }).spec;

const read = (...p: string[]) => JSON.parse(readFileSync(path.join(...p), 'utf8'));

describe('execution "parallel": two targets side by side, each with its own loader group', () => {
  let ddb: DynamoDbLocal;
  let dir: string;
  const runs: Record<'parallel' | 'sequential', { result: LocalRunResult; rows: Row[] }> = {} as never;

  const rowsOf = (runId: string, cellIds: string[]): Row[] =>
    cellIds.map((id) => read(dir, 'runs', runId, 'cells', id, 'result.json').row as Row);

  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
    dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-par-'));
    for (const execution of ['parallel', 'sequential'] as const) {
      const spec = specOf(execution, await freePort());
      const runName = `two-kinds-${execution}`;
      const result = await runLocal({
        spec,
        resultsDir: dir,
        runName,
        dynamoDbLocal: ddb,
        out: () => undefined,
      });
      const cells = planRun(spec, { runId: runName }).cells.map((c) => c.id);
      runs[execution] = {
        result,
        rows: result.status === 'SUCCEEDED' ? rowsOf(runName, cells) : [],
      };
    }
  }, 240_000);
  afterAll(async () => {
    await ddb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('both runs succeed, and leave no YCSB process behind', () => {
    for (const { result } of Object.values(runs))
      expect({ status: result.status, error: result.error }).toEqual({
        status: 'SUCCEEDED',
        error: undefined,
      });
    expect(strayJvms(dir)).toEqual([]);
  });

  it("in parallel, each target's cells run on its own loader, and the two targets' cells overlap in time", () => {
    const { result, rows } = runs.parallel;
    const runDir = path.join(dir, 'runs', result.runId);
    const context = read(runDir, 'context.json');
    expect(context.targetConcurrency).toBe(2);
    expect(context.loaders).toBe(2);
    expect(context.targets.map((t: { id: string; loaders: number }) => [t.id, t.loaders])).toEqual([
      ['ddb', 1],
      ['redis', 1],
    ]);
    // each target's cells ran on its own loader: a cell's job documents are named by the loaders they went to
    const loadersOf = (target: string) => [
      ...new Set(
        rows
          .filter((x) => x.target_id === target)
          .flatMap((x) => readdirSync(path.join(runDir, 'cells', String(x.cell_id), 'jobs'))),
      ),
    ];
    const [ddbLoaders, redisLoaders] = [loadersOf('ddb'), loadersOf('redis')];
    expect([ddbLoaders.length, redisLoaders.length]).toEqual([1, 1]);
    expect(ddbLoaders[0]).not.toBe(redisLoaders[0]);
    // the capacity emulator's rows of a cell are its own table's: the DynamoDB cells have them, the Redis cells
    // (measured beside them) none
    const meta = { runId: result.runId, specName: 'two-kinds', startedAtMs: context.startedAtMs };
    const capacity = (cellId: string) => existsSync(path.join(dir, capacityObjectKey(meta, cellId)));
    expect(rows.map((x) => [x.cell_id, capacity(String(x.cell_id))])).toEqual(
      rows.map((x) => [x.cell_id, x.target_id === 'ddb']),
    );
    // each target's teardown terminated its own group's loader
    expect(read(runDir, 'teardown', 'ddb.json').terminated).toEqual(
      ddbLoaders.map((f) => f.replace(/\.json$/, '')),
    );
    expect(read(runDir, 'teardown', 'redis.json').terminated).toEqual(
      redisLoaders.map((f) => f.replace(/\.json$/, '')),
    );
    const window = (target: string) => {
      const own = rows.filter((r) => r.target_id === target);
      return {
        start: Math.min(...own.map((r) => r.window_start_ms as number)),
        end: Math.max(...own.map((r) => r.window_end_ms as number)),
      };
    };
    const [d, r] = [window('ddb'), window('redis')];
    // side by side: each target's measured windows begin before the other's end
    expect(d.start).toBeLessThan(r.end);
    expect(r.start).toBeLessThan(d.end);
    // in sequence the first target's last window ends before the second's first begins
    const seq = runs.sequential.rows;
    const lastDdb = Math.max(
      ...seq.filter((x) => x.target_id === 'ddb').map((x) => x.window_end_ms as number),
    );
    const firstRedis = Math.min(
      ...seq.filter((x) => x.target_id === 'redis').map((x) => x.window_start_ms as number),
    );
    expect(lastDdb).toBeLessThan(firstRedis);
  });

  it("the report's Targets section says how the targets were measured, from the cells' windows", () => {
    const html = (execution: 'parallel' | 'sequential') =>
      readFileSync(runs[execution].result.reportFile!, 'utf8');
    const overlap = /measured at the same time for (\d+) s/.exec(html('parallel'));
    expect(html('parallel')).toMatch(/<h2>Targets<\/h2>/);
    // the windows overlapped (the test above); the report says by how much: at most the 2 × 5 s each target measured
    expect(Number(overlap?.[1])).toBeGreaterThan(0);
    expect(Number(overlap?.[1])).toBeLessThanOrEqual(2 * 5);
    expect(html('sequential')).toMatch(/no two targets were measured at the same time/);
  });

  it('gives the same rows as the same study run in sequence', () => {
    const deterministic = [
      'cell_id',
      'target_id',
      'target_kind',
      'distribution',
      'read_proportion',
      'update_proportion',
      'target_ops_per_sec',
      'warmup_seconds',
      'loaders',
      'processes',
      'incomplete',
      'errors',
    ];
    const pick = (rows: Row[]) => rows.map((r) => Object.fromEntries(deterministic.map((k) => [k, r[k]])));
    expect(runs.parallel.rows).toHaveLength(4);
    expect(pick(runs.parallel.rows)).toEqual(pick(runs.sequential.rows));
    // the measured window: the spec's 6 s less the 1 s warm-up, as the span of the counted 1 s intervals (which
    // can differ from it by less than one interval)
    for (const rows of [runs.parallel.rows, runs.sequential.rows])
      for (const row of rows) expect(Math.abs((row.measured_seconds as number) - 5)).toBeLessThan(1);
    // paced at 40 and 80 ops/s for 6 s: each cell's rate within 10 % of its target in both runs
    for (const rows of [runs.parallel.rows, runs.sequential.rows])
      for (const row of rows)
        expect(
          Math.abs((row.achieved_ops_per_sec as number) / (row.target_ops_per_sec as number) - 1),
        ).toBeLessThan(0.1);
  });
});
