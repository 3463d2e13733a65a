/**
 * Issue #32: a long study survives faults (the local mode, real YCSB on DynamoDB Local). A YCSB JVM is killed with
 * SIGKILL a second into a cell, as a crash would; a loader is terminated between cells, as a lost instance would be.
 * - killed once: the cell is retried with fresh processes (its outputs under retry-1/) and the study completes;
 * - killed in both attempts: the cell is recorded incomplete with its reason and the next cell runs;
 * - a loader lost between cells: it is replaced by the same launch path before the cell runs, and recorded;
 * - a run stopped by a failed cell (onCellFailure: stop) is resumed: the data set is loaded again, exactly the
 *   missing cell runs, and the run's rows are one per planned cell, as a run that never failed has them.
 * Every run ends with nothing left running.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec, type RunSpec } from '../../lib/core/spec';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import type { LocalFleet } from '../../lib/local/fleet';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import type { RunSummary } from '../../lib/core/pipeline';
import { resumable } from '../../lib/core/pipeline/resume';
import { planRun } from '../../lib/core/plan';
import { FsStore } from '../../lib/local/fs-store';
import { strayJvms } from '../support/processes';

const spec: RunSpec = validateSpec({
  name: 'faults-study',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
  dataset: { recordCount: 200 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [40, 60],
    distributions: ['uniform'],
    durationSeconds: 5,
    warmupSeconds: 1,
    statusIntervalSeconds: 1,
  },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 2 },
}).spec;
const [CELL0, CELL1] = ['ddb.uniform.r50.t40', 'ddb.uniform.r50.t60'];

/** SIGKILLs one YCSB JVM of the run (its agent's work directory names the run); its pid, or null when none runs. */
function killOneJvm(runId: string): number | null {
  const line = strayJvms(`fleetbench-agent-${runId}-`)[0];
  if (!line) return null;
  const pid = Number(line.trim().split(/\s+/)[0]);
  execFileSync('kill', ['-KILL', String(pid)]);
  return pid;
}

/** Kills a JVM ~1 s into each of the given attempts (0, 1) of a cell: once its command is sent, as soon as a JVM runs. */
function killDuring(
  fleet: LocalFleet,
  runId: string,
  cellId: string,
  attempts: number[],
  killed: number[],
): void {
  let attempt = -1;
  const send = fleet.send.bind(fleet);
  fleet.send = async (req) => {
    const ids = await send(req);
    if (req.comment?.endsWith(` ${cellId}`) && attempts.includes(++attempt)) {
      const deadline = Date.now() + 20_000;
      const tick = () => {
        const pid = killOneJvm(runId);
        if (pid !== null) killed.push(pid);
        else if (Date.now() < deadline) setTimeout(tick, 200);
      };
      setTimeout(tick, 1000);
    }
    return ids;
  };
}

const read = (dir: string, ...p: string[]) => JSON.parse(readFileSync(path.join(dir, ...p), 'utf8'));

/** The phases each command was sent for (`load-ddb`, cell ids), in order. */
function phasesSent(f: LocalFleet, into: string[]): void {
  const send = f.send.bind(f);
  f.send = async (req) => {
    into.push(String(req.comment).split(' ').pop()!);
    return send(req);
  };
}

describe('a study survives faults (onCellFailure: retry-then-continue, the default for 2 cells)', () => {
  let ddb: DynamoDbLocal;
  const dirs: string[] = [];
  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
  }, 120_000);
  afterAll(async () => {
    await ddb?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function run(
    runName: string,
    onFleet: (f: LocalFleet) => void,
    o: { spec?: RunSpec; dir?: string; resume?: string } = {},
  ): Promise<{ result: LocalRunResult; dir: string; summary: RunSummary }> {
    const dir = o.dir ?? mkdtempSync(path.join(tmpdir(), 'fleetbench-cellfail-'));
    dirs.push(dir);
    const result = await runLocal({
      spec: o.spec ?? spec,
      resultsDir: dir,
      ...(o.resume ? { resume: o.resume } : { runName }),
      dynamoDbLocal: ddb,
      out: () => undefined,
      onFleet,
    });
    expect(strayJvms(dir)).toEqual([]);
    expect(strayJvms(`fleetbench-agent-${runName}-`)).toEqual([]);
    const summaryFile = path.join(dir, 'runs', result.runId, 'summary.json');
    return {
      result,
      dir,
      summary: existsSync(summaryFile) ? (read(summaryFile) as RunSummary) : (null as never),
    };
  }

  it('a JVM killed in the first attempt: the cell runs again and the study completes', async () => {
    const killed: number[] = [];
    const { result, dir, summary } = await run('kill-once', (f) =>
      killDuring(f, 'kill-once', CELL0, [0], killed),
    );
    expect(killed).toHaveLength(1);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.cellFailures).toHaveLength(1);
    expect(result.cellFailures![0]).toMatch(
      new RegExp(`^${CELL0.replace(/\./g, '\\.')} attempt 1: retry \\(`),
    );
    expect(summary.cells.map((c) => [c.cellId, c.incomplete])).toEqual([
      [CELL0, false],
      [CELL1, false],
    ]);
    const cellDir = path.join(dir, 'runs', 'kill-once', 'cells', CELL0);
    // the failed attempt is kept for diagnosis; the aggregate read the retry's outputs (both processes of it)
    expect(read(cellDir, 'failures', 'attempt-0.json').reason).toMatch(/loader command failed/);
    expect(readdirSync(path.join(cellDir, 'retry-1', 'raw', 'loader-0')).sort()).toEqual([
      'proc-0',
      'proc-1',
    ]);
    expect(read(cellDir, 'result.json').row.processes).toBe(2);
    expect(summary.cells[0]!.achievedOpsPerSec).toBeGreaterThan(0);
  }, 240_000);

  it('a JVM killed in both attempts: the cell is incomplete with its reason, the next cell runs', async () => {
    const killed: number[] = [];
    const { result, dir, summary } = await run('kill-twice', (f) =>
      killDuring(f, 'kill-twice', CELL0, [0, 1], killed),
    );
    expect(killed).toHaveLength(2);
    expect(result.status).toBe('SUCCEEDED');
    expect(result.cellFailures!.map((l) => l.split(':')[0])).toEqual([
      `${CELL0} attempt 1`,
      `${CELL0} attempt 2`,
    ]);
    expect(result.cellFailures![1]).toContain(': skip (');
    const [c0, c1] = summary.cells;
    expect(c0).toMatchObject({ cellId: CELL0, incomplete: true, achievedOpsPerSec: 0, intendedP99Us: null });
    expect(c0!.incompleteReason).toMatch(/failed 2 times/);
    expect(c1).toMatchObject({ cellId: CELL1, incomplete: false });
    expect(c1!.achievedOpsPerSec).toBeGreaterThan(0);
    // the row is in the cells table too, as Athena and `fleetbench query` read it
    const rows = readdirSync(path.join(dir, 'tables', 'cells'), { recursive: true }).filter((f) =>
      String(f).endsWith(`kill-twice.${CELL0}.jsonl`),
    );
    expect(rows).toHaveLength(1);
  }, 240_000);

  it('a loader lost between cells is replaced before the next cell, which completes', async () => {
    let fleet: LocalFleet | undefined;
    const { result, dir, summary } = await run('lost-loader', (f) => {
      fleet = f;
      // once the first cell's command has succeeded, its loader "instance" is terminated
      let first: string | undefined;
      const send = f.send.bind(f);
      f.send = async (req) => {
        const ids = await send(req);
        if (req.comment?.endsWith(` ${CELL0}`)) first = ids[0];
        return ids;
      };
      const status = f.status.bind(f);
      let done = false;
      f.status = async (ids) => {
        const inv = await status(ids);
        if (!done && first && ids.includes(first) && inv.length && inv.every((i) => i.status === 'Success')) {
          done = true;
          await f.terminate(inv.map((i) => i.instanceId));
        }
        return inv;
      };
    });
    expect(result.status).toBe('SUCCEEDED');
    expect(result.cellFailures).toHaveLength(1);
    expect(result.cellFailures![0]).toMatch(/1 loaders needed, 0 running/);
    expect(summary.cells.map((c) => c.incomplete)).toEqual([false, false]);
    expect(summary.loaderReplacements).toHaveLength(1);
    expect(summary.loaderReplacements[0]).toMatchObject({ missing: 1, launched: 1, lost: [] });
    const events = readdirSync(path.join(dir, 'runs', 'lost-loader', 'events'));
    expect(events).toHaveLength(1);
    // the replacement carries the run's tags, like every loader
    const live = await fleet!.list({ runId: 'lost-loader' });
    expect(live).toEqual([]); // torn down at the end
    expect(existsSync(path.join(dir, 'runs', 'lost-loader', 'teardown.json'))).toBe(true);
  }, 240_000);

  it('a run stopped by a failed cell is resumed: the data loaded again, only the missing cell run, one run', async () => {
    const stopSpec: RunSpec = { ...spec, onCellFailure: 'stop' };
    const killed: number[] = [];
    const first = await run('stopped', (f) => killDuring(f, 'stopped', CELL1, [0], killed), {
      spec: stopSpec,
    });
    expect(first.result).toMatchObject({ status: 'FAILED', failedState: 'CheckCell' });
    const cell0 = read(first.dir, 'runs', 'stopped', 'cells', CELL0, 'result.json');
    expect(cell0.row.incomplete).toBe(false);

    // the first execution's attempt leaves its objects under the cell's raw/ prefix, where the resumed attempt
    // writes again; a log of a name the new attempt does not write (an error log two hours before it) must not
    // be read as the new attempt's (the reader takes each process's files from its manifest)
    const proc0 = path.join(first.dir, 'runs', 'stopped', 'cells', CELL1, 'raw', 'loader-0', 'proc-0');
    const fixtureLog = path.join(
      __dirname,
      '..',
      'fixtures',
      'ycsb',
      'fleet-small',
      'loader-0',
      'proc-0',
      'READ.hdr',
    );
    mkdirSync(proc0, { recursive: true });
    writeFileSync(
      path.join(proc0, 'READ-ERROR.hdr'),
      readFileSync(fixtureLog, 'utf8')
        .replace(
          /StartTime: \d+\.(\d+)/,
          (_, f: string) => `StartTime: ${Math.floor(Date.now() / 1000) - 7200}.${f}`,
        )
        .replace('Logging for: READ]', 'Logging for: READ-ERROR]'),
    );

    const sent: string[] = [];
    const resumed = await run('stopped-resume', (f) => phasesSent(f, sent), {
      spec: stopSpec,
      dir: first.dir,
      resume: 'stopped',
    });
    expect(resumed.result).toMatchObject({ status: 'SUCCEEDED', runId: 'stopped' });
    // loaded again (new tables), then exactly the cell without a complete row
    expect(sent).toEqual(['load-ddb', CELL1]);
    const ids = planRun(stopSpec, { runId: 'stopped' }).cells.map((c) => c.id);
    expect(resumed.summary.cells.map((c) => [c.cellId, c.incomplete])).toEqual(ids.map((id) => [id, false]));
    // one row per planned cell in the run's partition, the first execution's cell untouched
    const rowFiles = readdirSync(path.join(first.dir, 'tables', 'cells'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.jsonl') && path.basename(f).startsWith('stopped.'))
      .map((f) => path.basename(f));
    expect(rowFiles.sort()).toEqual(ids.map((id) => `stopped.${id}.jsonl`).sort());
    expect(read(first.dir, 'runs', 'stopped', 'cells', CELL0, 'result.json')).toEqual(cell0);
    expect(read(first.dir, 'runs', 'stopped', 'resume.json')).toMatchObject({ cells: [1] });
    // the leftover is still there, and none of the resumed cell's time series comes from it
    expect(existsSync(path.join(proc0, 'READ-ERROR.hdr'))).toBe(true);
    const intervals = readdirSync(path.join(first.dir, 'tables', 'intervals'), { recursive: true })
      .map(String)
      .find((f) => path.basename(f) === `stopped.${CELL1}.jsonl`)!;
    const rows = readFileSync(path.join(first.dir, 'tables', 'intervals', intervals), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { op: string; offset_seconds: number });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.op === 'READ-ERROR')).toEqual([]);
    expect(Math.min(...rows.map((r) => r.offset_seconds))).toBeGreaterThan(-60);

    // a run is resumed once; a complete run has nothing to resume
    const store = new FsStore(first.dir);
    await expect(resumable(store, 'stopped')).rejects.toThrow(/resumed already, by execution stopped-resume/);
    const other = await run('complete', () => undefined);
    expect(other.result.status).toBe('SUCCEEDED');
    await expect(resumable(new FsStore(other.dir), 'complete')).rejects.toThrow(
      /complete row for every cell/,
    );
  }, 300_000);
});
