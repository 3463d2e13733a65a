/**
 * The memorydb kind's pure parts: its spec schema (defaults, the engine versions MemoryDB offers, the node limits),
 * the names of its resources (MemoryDB's naming rules), the endpoint properties the Redis binding gets, the local
 * mode's refusal, and its cost: node-hours and data written from the price book, or listed as unpriced.
 */
import { InputError } from '../../../lib/core/common/errors';
import { loadPriceBook, type PriceBook } from '../../../lib/core/cost/book';
import { estimateRunCost } from '../../../lib/core/cost/estimate';
import { monthlyCost } from '../../../lib/core/cost/report';
import { cellCostsFor } from '../../../lib/core/pipeline/costing';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { localIssues } from '../../../lib/core/targets/registry';
import {
  MEMORYDB_NAME_PATTERN,
  memoryDbResourceName,
  memoryDbSecretName,
} from '../../../lib/core/targets/memorydb/names';
import { memoryDbEndpointProperties } from '../../../lib/core/targets/memorydb/lifecycle';
import { runGbWritten } from '../../../lib/core/targets/memorydb/cost';

function spec(target: Record<string, unknown> = {}, over: Record<string, unknown> = {}) {
  return {
    name: 'mdb',
    targets: [{ id: 'mdb', kind: 'memorydb', ...target }],
    dataset: { recordCount: 1000, fieldCount: 10, fieldLength: 100 },
    workload: {
      readProportions: [0.95],
      targetOpsPerSec: [100],
      durationSeconds: 60,
      distributions: ['uniform'],
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
    ...over,
  };
}

function issuesOf(f: () => unknown) {
  try {
    f();
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('no InputError');
}

describe('WaitReady for a memorydb run', () => {
  it('waits up to 40 minutes, polled every minute (the default 15 minutes would fail a normal creation)', async () => {
    const { DEFAULT_READY_LIMITS, maxReadyChecks, runReadyLimits } =
      await import('../../../lib/core/plan/history');
    expect(runReadyLimits(validateSpec(spec()).spec)).toEqual({ timeoutSeconds: 2400, pollSeconds: 60 });
    expect(DEFAULT_READY_LIMITS.timeoutSeconds).toBe(900);
    // the history budget still counts the most checks any limit allows (MemoryDB's and DAX's 40 min / 60 s = 40;
    // the default is 15 min / 30 s = 30)
    expect(maxReadyChecks()).toBe(40);
  });
});

describe('the memorydb spec', () => {
  it('defaults: one shard of db.r7g.large with one replica, Valkey 7.2', () => {
    expect(validateSpec(spec()).spec.targets[0]).toMatchObject({
      kind: 'memorydb',
      nodeType: 'db.r7g.large',
      shards: 1,
      replicasPerShard: 1,
      engine: { engine: 'valkey', version: '7.2' },
    });
  });

  it("an engine without a version gets that engine's newest MemoryDB version (Redis OSS 7.1: Valkey's 7.2 is not Redis OSS's)", () => {
    expect(validateSpec(spec({ engine: { engine: 'redis' } })).spec.targets[0]).toMatchObject({
      engine: { engine: 'redis', version: '7.1' },
    });
    expect(validateSpec(spec({ engine: { engine: 'valkey' } })).spec.targets[0]).toMatchObject({
      engine: { engine: 'valkey', version: '7.2' },
    });
  });

  it('an engine version MemoryDB does not offer is refused, naming the field and the versions', () => {
    expect(issuesOf(() => validateSpec(spec({ engine: { engine: 'redis', version: '7.2' } })))).toEqual([
      {
        path: 'targets[0].engine.version',
        message: 'expected a redis version MemoryDB offers (7.1, 7.0, 6.2), found "7.2"',
      },
    ]);
    expect(validateSpec(spec({ engine: { engine: 'redis', version: '6.2' } })).spec.targets[0]).toMatchObject(
      {
        engine: { engine: 'redis', version: '6.2' },
      },
    );
  });

  it('a node type that is not db.<family>.<size>, and more than 5 replicas, are refused', () => {
    const issues = issuesOf(() => validateSpec(spec({ nodeType: 'cache.r7g.large', replicasPerShard: 6 })));
    expect(issues.map((i) => i.path).sort()).toEqual(['targets[0].nodeType', 'targets[0].replicasPerShard']);
  });

  it('more than 500 nodes in a cluster is an error; more than the default quota of 90 a warning', () => {
    expect(issuesOf(() => validateSpec(spec({ shards: 101, replicasPerShard: 4 })))).toEqual([
      {
        path: 'targets[0].shards',
        message:
          "expected at most 500 nodes per cluster (MemoryDB's limit), found 101 shards × 5 nodes = 505",
      },
    ]);
    const { warnings } = validateSpec(spec({ shards: 50, replicasPerShard: 1 }));
    expect(warnings.join('\n')).toMatch(/targets\[0\]: 100 nodes in one MemoryDB cluster; .* quota is 90/);
    expect(validateSpec(spec({ shards: 45, replicasPerShard: 1 })).warnings.join('\n')).not.toMatch(
      /MemoryDB/,
    );
  });

  it('the local mode takes it (its stand-in is lib/local/memorydb.ts)', () => {
    expect(localIssues(validateSpec(spec()).spec.targets)).toEqual([]);
  });
});

describe('names', () => {
  // MemoryDB's rule for cluster, ACL, user and subnet group names (API_CreateCluster.html, ClusterName)
  const valid = (n: string) =>
    n.length <= 40 && /^[a-z][a-z0-9-]*$/.test(n) && !n.endsWith('-') && !n.includes('--');

  it('fit MemoryDB for the longest run and target ids, and differ between runs and targets', () => {
    const runId = 'a'.repeat(31) + '-0123abcd';
    const target = 't'.repeat(32);
    const names = [
      memoryDbResourceName(runId, target),
      memoryDbResourceName('run-1', 'mdb'),
      memoryDbResourceName('run-2', 'mdb'),
      memoryDbResourceName('run-1', 'mdb2'),
    ];
    for (const n of names) {
      expect(valid(n)).toBe(true);
      expect(n).toMatch(MEMORYDB_NAME_PATTERN);
    }
    expect(new Set(names).size).toBe(4);
    expect(memoryDbResourceName('run-1', 'mdb')).toBe(memoryDbResourceName('run-1', 'mdb'));
    expect(memoryDbSecretName('run-1', 'mdb')).toBe('fleetbench/run-1/mdb-memorydb');
  });
});

it("the binding's endpoint properties: the cluster endpoint, cluster mode and TLS", () => {
  expect(
    memoryDbEndpointProperties({ host: 'clustercfg.x.memorydb.us-east-1.amazonaws.com', port: 6379 }),
  ).toEqual({
    'redis.host': 'clustercfg.x.memorydb.us-east-1.amazonaws.com:6379',
    'redis.cluster': 'true',
    'redis.tls': 'true',
  });
});

describe('cost', () => {
  // prices made up for the test (not AWS's): the arithmetic is what is checked here
  const book: PriceBook = {
    ...loadPriceBook(),
    memorydb: {
      valkey: {
        nodeHour: {
          'db.r7g.large': { usd: '0.5', unit: 'node-hour', region: 'test', date: '2026', source: 'test' },
        },
        dataWrittenGb: { usd: '0.1', unit: 'GB', region: 'test', date: '2026', source: 'test' },
      },
    },
  };

  it('data written: the load (every field) and the cells at their targets (an update writes one field)', () => {
    const s = validateSpec(spec()).spec;
    const p = planRun(s);
    // workload A's default proportions at read 0.95: update 0.05; 100 ops/s × 60 s = 6,000 ops → 300 updates
    const cell = p.cells[0]!;
    expect(cell.proportions).toMatchObject({ update: 0.05, insert: 0, readModifyWrite: 0 });
    // load: 1,000 records × 10 × 100 B = 1,000,000 B; cells: 300 × 100 B = 30,000 B
    expect(runGbWritten(s, 'mdb', p).toNumber()).toBeCloseTo(1_030_000 / 1e9, 12);
  });

  it("the run's estimate: every node for whole hours around the run, and the data written", () => {
    const s = validateSpec(spec({ shards: 2, replicasPerShard: 2 })).spec;
    const e = estimateRunCost(s, planRun(s), book);
    const nodes = e.items.find((i) =>
      i.label.startsWith('mdb: MemoryDB valkey cluster of 6 × db.r7g.large'),
    )!;
    // billed from creation to deletion: the run's hours plus half an hour of setup and removal, whole hours
    const hours = Math.ceil(e.runHours + 0.5);
    expect(nodes).toMatchObject({
      quantity: 6 * hours,
      unit: 'node-hour',
      unitUsd: 0.5,
      usd: 6 * hours * 0.5,
    });
    const written = e.items.find((i) => i.label.startsWith('mdb: data written'))!;
    expect(written.quantity).toBeCloseTo(0.00103, 9);
    expect(e.unpriced).toEqual([]);
  });

  it('a book without MemoryDB prices lists them as unpriced, naming the fields, and adds nothing', () => {
    const s = validateSpec(spec()).spec;
    const e = estimateRunCost(s, planRun(s), loadPriceBook());
    expect(e.items.filter((i) => /MemoryDB|data written/.test(i.label))).toEqual([]);
    expect(e.unpriced).toEqual([
      expect.stringMatching(/^targets\[0\]\.nodeType: no MemoryDB valkey price for "db.r7g.large"/),
      expect.stringMatching(/^targets\[0\]\.engine: no MemoryDB valkey data-written price/),
    ]);
  });

  it("a cell's cost columns: empty when the book has no MemoryDB price (unknown, not $0), priced otherwise", () => {
    const s = validateSpec(spec()).spec;
    const cell = planRun(s).cells[0]!;
    expect(cellCostsFor(s, loadPriceBook())(cell, 100)).toEqual({});
    const priced = cellCostsFor(s, book)(cell, 100);
    // 2 nodes (1 shard, 1 replica) × $0.5 × hours, and 100 ops/s × 5 % updates = 5 writes/s of 1,000 B at $0.1/GB
    const hpm = book.hoursPerMonth;
    expect(priced.monthlyCostUsd).toBeCloseTo(2 * 0.5 * hpm + ((5 * 1000 * 3600 * hpm) / 1e9) * 0.1, 2);
  });

  it('fleetbench cost: a month of every node and of the data written at the write rate', () => {
    const r = monthlyCost(
      {
        target: { kind: 'memorydb', nodeType: 'db.r7g.large', shards: 1, replicasPerShard: 1 },
        throughput: { readsPerSec: 900, writesPerSec: 100 },
        itemBytes: 1000,
      },
      book,
    );
    const hpm = book.hoursPerMonth;
    // 2 nodes × $0.5 × hours; 100 writes/s × 1,000 B × 3,600 s × hours / 1e9 GB × $0.1
    expect(r.monthly).toMatchObject({
      nodes: 2 * 0.5 * hpm,
      dataWritten: expect.closeTo(((100 * 1000 * 3600 * hpm) / 1e9) * 0.1, 6),
    });
    expect(() =>
      monthlyCost({ target: { kind: 'memorydb', nodeType: 'db.x9.large' }, throughput: {} }, book),
    ).toThrow(/no MemoryDB valkey price for node type "db.x9.large"; it has db.r7g.large/);
  });
});
