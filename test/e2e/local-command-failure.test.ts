/**
 * "A command that fails on one loader", end to end through the state machine (local mode: the
 * synthesized definition under aws-local-stepfunctions, real loader agents running real YCSB JVMs
 * against DynamoDB Local). moto cannot show this: its SSM always reports Success and does not
 * implement ListCommandInvocations.
 *
 * Two loaders run the cell; loader 2's command fails while loader 1's is still running. CheckCell
 * must see the failure, cancel the command on loader 1, and the run must end FAILED through
 * TeardownAfterFailure with nothing left: no table, no agent, no JVM.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateSpec } from '../../lib/core/spec';
import type { LocalFleet } from '../../lib/local/fleet';
import { runLocal } from '../../lib/local/runner';
import { pidAlive, strayJvms } from '../support/processes';

const spec = validateSpec({
  name: 'one-loader-fails',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
  dataset: { recordCount: 300 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [40],
    distributions: ['uniform'],
    // long enough that loader 1 is still running when loader 2 has failed
    durationSeconds: 60,
    warmupSeconds: 1,
  },
  loaders: { count: 2, processesPerLoader: 1, threadsPerProcess: 2 },
}).spec;

it('one loader fails in a cell: CheckCell fails the run, the other loader is stopped, teardown leaves nothing', async () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cmdfail-'));
  let fleet: LocalFleet | undefined;
  const pids: number[] = [];
  const lines: string[] = [];
  let cellSends = 0;
  let cellSentAt = 0;
  const result = await runLocal({
    spec,
    resultsDir,
    runName: 'cmd-fail',
    fastRetries: true,
    waitMs: 500,
    out: (l) => lines.push(l),
    onFleet: (f) => {
      fleet = f;
      const orig = f.send.bind(f);
      f.send = async (req) => {
        if (req.jobPrefix.includes('/cells/')) {
          cellSends++;
          cellSentAt = Date.now();
          // loader 2 gets a job whose YCSB workload class does not exist: its process cannot start,
          // its agent exits 1 (the job as the planner wrote it goes to loader 1 unchanged)
          const file = path.join(fileURLToPath(req.jobPrefix), `${req.instanceIds[1]}.json`);
          const job = JSON.parse(readFileSync(file, 'utf8')) as { processes: Record<string, string>[] };
          job.processes = job.processes.map((p) => ({
            ...p,
            workload: 'site.ycsb.workloads.NoSuchWorkload',
          }));
          writeFileSync(file, JSON.stringify(job));
        }
        const ids = await orig(req);
        pids.push(...f.runningPids());
        return ids;
      };
    },
  });
  const afterCellStart = (Date.now() - cellSentAt) / 1000;

  expect(cellSends).toBe(1);
  expect(result.status).toBe('FAILED');
  expect(result.failedState).toBe('CheckCell');
  // well before loader 1's 60 s cell would have ended: it was stopped, not waited for
  expect(afterCellStart).toBeLessThan(40);
  expect(result.error).toMatch(
    /the loader command failed on 1 of 2 loaders: local-cmd-fail-1 Failed \(.*NoSuchWorkload/,
  );

  // nothing left: agents, their JVMs, the run's table
  expect(fleet?.runningPids() ?? []).toEqual([]);
  expect(pids.length).toBeGreaterThanOrEqual(2);
  for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
  expect(strayJvms(resultsDir)).toEqual([]);
  const runDir = path.join(resultsDir, 'runs', 'cmd-fail');
  const failure = JSON.parse(readFileSync(path.join(runDir, 'failure.json'), 'utf8'));
  expect(JSON.stringify(failure)).toContain('failed on 1 of 2 loaders');
  const teardown = JSON.parse(readFileSync(path.join(runDir, 'teardown.json'), 'utf8'));
  expect(teardown).toMatchObject({ runId: 'cmd-fail', failed: true, keptTables: [] });
  expect(lines.some((l) => l.includes('[TeardownAfterFailure]'))).toBe(true);
  expect(lines.some((l) => l.includes('[AggregateCell]'))).toBe(false);
}, 180_000);

it("one loader's agent is killed (SIGKILL) mid-cell: the run fails through teardown and no JVM survives", async () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cmdkill-'));
  let fleet: LocalFleet | undefined;
  const pids: number[] = [];
  let killed: number | undefined;
  const result = await runLocal({
    spec,
    resultsDir,
    runName: 'cmd-kill',
    fastRetries: true,
    waitMs: 500,
    out: () => undefined,
    onFleet: (f) => {
      fleet = f;
      const orig = f.send.bind(f);
      f.send = async (req) => {
        const ids = await orig(req);
        const running = f.runningPids();
        pids.push(...running);
        if (req.jobPrefix.includes('/cells/')) {
          // the agent of loader 2 (the last one started) dies without any chance to clean up
          const victim = running[running.length - 1]!;
          setTimeout(() => {
            killed = victim;
            process.kill(victim, 'SIGKILL');
          }, 4000);
        }
        return ids;
      };
    },
  });
  // the pid killed was one of the agents the fleet had started
  expect(pids).toContain(killed);
  expect(result.status).toBe('FAILED');
  expect(result.failedState).toBe('CheckCell');
  expect(result.error).toMatch(/failed on 1 of 2 loaders: local-cmd-kill-1 Failed \(/);
  expect(fleet?.runningPids() ?? []).toEqual([]);
  for (const pid of pids) expect({ pid, alive: pidAlive(pid) }).toEqual({ pid, alive: false });
  expect(strayJvms(resultsDir)).toEqual([]);
  const teardown = JSON.parse(
    readFileSync(path.join(resultsDir, 'runs', 'cmd-kill', 'teardown.json'), 'utf8'),
  );
  expect(teardown).toMatchObject({ runId: 'cmd-kill', failed: true, keptTables: [] });
}, 180_000);
