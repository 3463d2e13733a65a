/**
 * A Redis target in the local mode (#17): the spec's external Redis target on a loopback redis-server
 * that the run starts itself, real YCSB with the Redis binding, and every operation's latency merged
 * exactly — the row's percentiles equal HdrHistogram's Java merge of the same interval logs.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { readCellDir } from '../../lib/local/cell-dir';
import { aggregateCell } from '../../lib/core/results/aggregate';
import { oracleMerge } from '../oracle/oracle';
import { freePort } from '../support/ports';

const root = path.join(__dirname, '..', '..');

describe('examples/local-redis.json on a loopback redis-server', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-redis-e2e-'));
  let result: LocalRunResult;
  let port: number;
  const lines: string[] = [];

  beforeAll(async () => {
    port = await freePort();
    const doc = JSON.parse(readFileSync(path.join(root, 'examples', 'local-redis.json'), 'utf8'));
    doc.targets[0].endpoints = [`127.0.0.1:${port}`];
    doc.workload.distributions = ['zipfian'];
    doc.workload.durationSeconds = 12;
    doc.workload.warmupSeconds = 3;
    // one process: its schedule's end is the window's (the Java merge below takes one window)
    doc.loaders.processesPerLoader = 1;
    result = await runLocal({
      spec: validateSpec(doc).spec,
      resultsDir,
      runName: 'redis-e2e',
      out: (l) => lines.push(l),
    });
  }, 600_000);

  it('succeeds with every operation OK, and stops the server it started', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    expect(lines).toContain(`  Redis (redis-server) for redis on 127.0.0.1:${port}`);
    const cellDir = path.join(resultsDir, 'runs', result.runId, 'cells', 'redis.zipfian.r50.t300');
    const { row } = JSON.parse(readFileSync(path.join(cellDir, 'result.json'), 'utf8')) as {
      row: Record<string, number | boolean | null>;
    };
    expect(row.errors).toBe(0);
    expect(row.status_other).toBe(0);
    expect(row.incomplete).toBe(false);
    expect(row.all_service_count as number).toBeGreaterThan(1000);
    // the server is gone once the run has ended
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(false)));
      s.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it("the row's READ and UPDATE percentiles are HdrHistogram Java's merge of the same logs", async () => {
    const raw = path.join(resultsDir, 'runs', result.runId, 'cells', 'redis.zipfian.r50.t300', 'raw');
    const input = await readCellDir(raw);
    const agg = await aggregateCell(input, { warmupSeconds: 3, durationSeconds: 12, keepHistograms: true });
    const workloadStart = input.processes[0]!.manifest!.workloadStartMs!;
    // intervals from the warm-up's end to the schedule's (0.5 s slack for YCSB's ticks): no drain
    const java = oracleMerge(raw, {
      fromMs: agg.window.startMs,
      toMs: workloadStart + 12_000 - 500,
      percentiles: ['50', '99', '99.9'],
    });
    for (const name of ['READ', 'UPDATE', 'Intended-READ', 'Intended-UPDATE']) {
      expect({ name, count: agg.ops[name]!.count }).toEqual({ name, count: java.ops[name]!.count });
      expect([agg.ops[name]!.p50, agg.ops[name]!.p99, agg.ops[name]!.p999]).toEqual(
        ['50', '99', '99.9'].map((p) => java.ops[name]!.percentiles[p]),
      );
    }
    const { row } = JSON.parse(readFileSync(path.join(raw, '..', 'result.json'), 'utf8')) as {
      row: Record<string, number>;
    };
    expect(row.read_service_p99_us).toBe(java.ops.READ!.percentiles['99']);
    // the agent recorded when YCSB's workload began; the window ends where its 12-s schedule did (no drain)
    const m = JSON.parse(readFileSync(path.join(raw, 'loader-0', 'proc-0', 'manifest.json'), 'utf8')) as {
      startMs: number;
      endMs: number;
      workloadStartMs: number;
    };
    expect(m.workloadStartMs).toBeGreaterThan(m.startMs);
    expect(m.workloadStartMs + 12_000).toBeLessThanOrEqual(m.endMs);
    const starts = input.processes.map((p) => p.manifest!.workloadStartMs!);
    expect(row.window_end_ms).toBe(
      Math.min(Math.max(...input.processes.map((p) => p.manifest!.endMs)), Math.max(...starts) + 12_000),
    );
  });
});
