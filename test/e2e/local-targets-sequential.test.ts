/**
 * Issue #33: a study costs what it measures. Two DynamoDB targets in the local mode (real YCSB on DynamoDB Local,
 * the deployed state machine's definition): the first target's table is created, loaded, measured and deleted before
 * the second's is created; the loaders serve both; the run's rows are one per planned cell, and the run's Teardown
 * finds nothing of the targets left.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import type { LocalTableAdmin } from '../../lib/local/local-tables';
import { runLocal } from '../../lib/local/runner';
import type { RunSummary } from '../../lib/core/pipeline';
import { planRun } from '../../lib/core/plan';
import { strayJvms } from '../support/processes';

const target = (id: string) => ({
  id,
  kind: 'dynamodb',
  billing: { mode: 'on-demand' },
  expectedLatencyMs: 20,
});
const spec = validateSpec({
  name: 'two-targets',
  targets: [target('first'), target('second')],
  dataset: { recordCount: 100 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [50],
    distributions: ['uniform'],
    durationSeconds: 3,
    warmupSeconds: 1,
    statusIntervalSeconds: 1,
  },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
}).spec;

const read = (...p: string[]) => JSON.parse(readFileSync(path.join(...p), 'utf8'));

describe('execution "sequential" (the default): one target at a time', () => {
  let ddb: DynamoDbLocal;
  let dir: string;
  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
    dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-seq-'));
  }, 120_000);
  afterAll(async () => {
    await ddb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("deletes the first target's table before the second's is created; rows for both", async () => {
    let tables: LocalTableAdmin | undefined;
    const result = await runLocal({
      spec,
      resultsDir: dir,
      runName: 'seq-two',
      dynamoDbLocal: ddb,
      out: () => undefined,
      onTables: (t) => (tables = t),
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(strayJvms(dir)).toEqual([]);
    const p = planRun(spec, { runId: 'seq-two' });
    const [first, second] = [p.tables.first!, p.tables.second!];
    expect(tables!.log.map((e) => [e.op, e.name])).toEqual([
      ['create', first],
      ['delete', first],
      ['create', second],
      ['delete', second],
    ]);
    // each target's teardown removed its own table, not the other's
    const runDir = path.join(dir, 'runs', 'seq-two');
    expect(read(runDir, 'teardown', 'first.json')).toMatchObject({ target: 'first', deletedTables: [first] });
    expect(read(runDir, 'teardown', 'second.json')).toMatchObject({
      target: 'second',
      deletedTables: [second],
    });
    // the run's Teardown found no table left (its record lists the targets' deletes) and terminated the loader
    const teardown = read(runDir, 'teardown.json');
    expect(teardown).toMatchObject({ deletedTables: [first, second], failed: false });
    expect(teardown.terminated).toHaveLength(1);
    // one row per planned cell, each measured
    const summary = read(runDir, 'summary.json') as RunSummary;
    expect(summary.cells.map((c) => c.cellId)).toEqual(p.cells.map((c) => c.id));
    for (const c of summary.cells) {
      expect(c.incomplete).toBe(false);
      expect(c.achievedOpsPerSec).toBeGreaterThan(0);
    }
  }, 180_000);
});
