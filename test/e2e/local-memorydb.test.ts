/**
 * A memorydb target in the local mode: the run creates its cluster on the local stand-in (a real redis-server in
 * cluster mode, TLS only, the run's ACL user only: lib/local/memorydb.ts), keeps the login in the local Secrets
 * Manager, and real YCSB processes with the Redis binding load it and run a cell against it, reaching it only
 * through the cluster endpoint, TLS and the login StartLoad/StartCell hand them. Teardown removes the cluster and
 * the login.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { memoryDbResourceName, memoryDbSecretName } from '../../lib/core/targets/memorydb/names';

describe('a memorydb target on the local stand-in', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-memorydb-e2e-'));
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    const doc = {
      name: 'local-memorydb',
      targets: [{ id: 'mdb', kind: 'memorydb', nodeType: 'db.r7g.large', shards: 1, replicasPerShard: 1 }],
      dataset: { recordCount: 2000, fieldCount: 10, fieldLength: 100, load: true },
      workload: {
        base: 'a',
        readProportions: [0.5],
        targetOpsPerSec: [200],
        distributions: ['uniform'],
        durationSeconds: 8,
        warmupSeconds: 2,
        statusIntervalSeconds: 1,
      },
      loaders: { instanceType: 'c5.large', count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
    };
    result = await runLocal({
      spec: validateSpec(doc).spec,
      resultsDir,
      runName: 'memorydb-e2e',
      out: (l) => lines.push(l),
    });
  }, 900_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('succeeds: every load insert and every cell operation OK, through TLS as the run user', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    const name = memoryDbResourceName(result.runId, 'mdb');
    const started = lines.find((l) => l.includes('MemoryDB stand-in'))!;
    expect(started).toMatch(/for mdb on 127\.0\.0\.1:\d+$/);
    const cellDir = path.join(resultsDir, 'runs', result.runId, 'cells', 'mdb.uniform.r50.t200');
    const { row } = JSON.parse(readFileSync(path.join(cellDir, 'result.json'), 'utf8')) as {
      row: Record<string, number | boolean | null>;
    };
    expect(row.errors).toBe(0);
    expect(row.status_other).toBe(0);
    expect(row.incomplete).toBe(false);
    // 200 ops/s for 6 measured seconds: about 1,200 operations, half reads, half updates
    expect(row.all_service_count as number).toBeGreaterThan(800);
    expect(row.read_service_count as number).toBeGreaterThan(300);
    expect(row.update_service_count as number).toBeGreaterThan(300);
    // the server refuses plain text and anonymous users: these operations went over TLS as the run's user.
    // Teardown removed the cluster and the login, and the server is gone
    const teardown = JSON.parse(
      readFileSync(path.join(resultsDir, 'runs', result.runId, 'teardown.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(teardown).toMatchObject({
      deletedMemoryDbClusters: [name],
      deletedMemoryDbSecrets: [memoryDbSecretName(result.runId, 'mdb')],
    });
    const port = Number(/:(\d+)$/.exec(started)![1]);
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(false)));
      s.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
