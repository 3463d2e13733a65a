/**
 * Fault injection: each Task state of the definition fails in turn. Every failure must end in
 * teardown (tables deleted, loader agents and their JVMs gone, DynamoDB Local stopped), and the
 * result directory must say which step failed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NON_FATAL_STATES, TASK_STATES, type TaskStateName } from '../../lib/core/pipeline';
import { validateSpec } from '../../lib/core/spec';
import { localDefinition, taskStates } from '../../lib/local/definition';
import type { LocalFleet } from '../../lib/local/fleet';
import { runLocal } from '../../lib/local/runner';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { pidAlive, strayJvms } from '../support/processes';

const spec = validateSpec({
  name: 'faults',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
  dataset: { recordCount: 300 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [40],
    distributions: ['uniform'],
    durationSeconds: 4,
    warmupSeconds: 1,
    statusIntervalSeconds: 1,
  },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
}).spec;

describe('every Task state of the definition has a local implementation', () => {
  it('maps each Task state to a step', () => {
    const states = taskStates(localDefinition());
    expect(states.length).toBeGreaterThanOrEqual(12);
    for (const s of states) expect(Object.keys(TASK_STATES)).toContain(s);
  });
});

// TeardownAfterFailure, CellFailed and WaitLoaders run only after another failure: each fails together with a cell
// (WaitLoaders only on a retry: a spec whose single cell is retried). The run fails in the state named last.
const AFTER_A_FAILURE: TaskStateName[] = ['TeardownAfterFailure', 'CellFailed', 'WaitLoaders'];
const cases: [string, TaskStateName[], TaskStateName, typeof spec][] = (
  Object.keys(TASK_STATES) as TaskStateName[]
)
  .filter((s) => !AFTER_A_FAILURE.includes(s))
  .map((s) => [s, [s], s, spec]);
cases.push([
  'TeardownAfterFailure (after StartCell)',
  ['StartCell', 'TeardownAfterFailure'],
  'StartCell',
  spec,
]);
cases.push(['CellFailed (after StartCell)', ['StartCell', 'CellFailed'], 'CellFailed', spec]);
cases.push([
  'WaitLoaders (retrying StartCell)',
  ['StartCell', 'WaitLoaders'],
  'WaitLoaders',
  { ...spec, onCellFailure: 'retry-then-continue' },
]);

// one DynamoDB Local for the cases (each run's tables are its own and its teardown deletes them); the first case
// starts and stops its own, as a run does by default
let shared: DynamoDbLocal | undefined;
beforeAll(async () => {
  shared = await startDynamoDbLocal();
}, 120_000);
afterAll(async () => {
  await shared?.stop();
});

describe.each(cases)('a failure in %s', (name, failAt, failedState, runSpec) => {
  it('ends in teardown with nothing left running', async () => {
    const ownDynamoDb = name === cases[0]![0];
    // a run id per case: a Provision branch still creating its table after the other failed (a late arrival, the
    // janitor's on AWS) must not meet the next case in the shared DynamoDB Local
    const runId = `fault-${cases.findIndex((c) => c[0] === name)}`;
    const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-fault-'));
    let fleet: LocalFleet | undefined;
    const pids: number[] = [];
    const result = await runLocal({
      spec: runSpec,
      resultsDir,
      runName: runId,
      failAt,
      fastRetries: true,
      waitMs: 500,
      ...(ownDynamoDb ? {} : { dynamoDbLocal: shared }),
      out: () => undefined,
      onFleet: (f) => {
        fleet = f;
        const orig = f.send.bind(f);
        f.send = async (req) => {
          const ids = await orig(req);
          pids.push(...f.runningPids());
          return ids;
        };
      },
    });
    // a non-fatal state (regression detection) fails alone: the run goes on to the normal teardown
    const nonFatal = NON_FATAL_STATES.includes(failAt[0]!);
    expect(result.status).toBe(nonFatal ? 'SUCCEEDED' : 'FAILED');
    expect(result.failedState).toBe(nonFatal ? undefined : failedState);
    if (nonFatal) expect(result.warnings).toEqual([`${failAt[0]}: fault injected by the test`]);
    // no agent or JVM survives
    expect(fleet?.runningPids() ?? []).toEqual([]);
    for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
    expect(strayJvms(resultsDir)).toEqual([]);
    // the result directory says which step failed
    const local = JSON.parse(readFileSync(path.join(resultsDir, 'runs', runId, 'local-result.json'), 'utf8'));
    expect(local).toMatchObject(
      nonFatal ? { status: 'SUCCEEDED', warnings: result.warnings } : { status: 'FAILED', failedState },
    );
    // teardown ran (for TeardownAfterFailure: the runner's backstop, as the EventBridge rule on AWS)
    if (!nonFatal) {
      const failure = JSON.parse(readFileSync(path.join(resultsDir, 'runs', runId, 'failure.json'), 'utf8'));
      expect(JSON.stringify(failure)).toContain(failedState);
    }
    const teardown = JSON.parse(readFileSync(path.join(resultsDir, 'runs', runId, 'teardown.json'), 'utf8'));
    expect(teardown).toMatchObject({ runId, failed: !nonFatal });
    // the table the run created is gone (or was never created)
    expect(teardown.keptTables).toEqual([]);
    // the run's row of table runs: Report's on success, the failure path's teardown's on failure; none when Plan
    // refused the run (nothing planned)
    const rowsDir = path.join(resultsDir, 'tables', 'runs');
    const rowFiles = existsSync(rowsDir)
      ? readdirSync(rowsDir, { recursive: true }).filter((f) => String(f).endsWith(`/${runId}.jsonl`))
      : [];
    const statuses = rowFiles.map(
      (f) => JSON.parse(readFileSync(path.join(rowsDir, String(f)), 'utf8')).status as string,
    );
    expect(statuses).toEqual(failedState === 'Plan' ? [] : [nonFatal ? 'SUCCEEDED' : 'FAILED']);
    if (failAt[0] === 'TeardownTarget') {
      // the target's teardown failed: the run's measured cells were reported, and the run's Teardown deleted its table
      const summary = JSON.parse(readFileSync(path.join(resultsDir, 'runs', runId, 'summary.json'), 'utf8'));
      expect(summary.targetTeardownFailures).toEqual([
        { target: 'ddb', error: 'StepFailedError: TeardownTarget: fault injected by the test' },
      ]);
      expect(teardown.deletedTables).toEqual([`fleetbench-faults.ddb.${runId}`]);
    }
  }, 240_000);
});
