/**
 * Per-target lifecycles in the estimate (issue #33): seed 002's staircase of four clusters, each billed from its
 * provisioning through its load and cells to its teardown. The expected figures are arithmetic in this file from the
 * spec's durations, the estimate's stated assumptions (900 s provisioning and teardown per target, 60 s around each
 * cell; docs/cost-model.md) and the 2024-11 price book's hourly prices, not the estimate's output.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadPriceBook, usd } from '../../../lib/core/cost/book';
import { planRun } from '../../../lib/core/plan';
import { renderPlan } from '../../../lib/cli/commands/plan';
import { validateSpec } from '../../../lib/core/spec';

const book = loadPriceBook('2024-11');
const file = path.join(__dirname, '..', '..', '..', 'examples', 'seed-002-staircase.json');
const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const seed = (extra: Record<string, unknown> = {}) => validateSpec({ ...raw, ...extra }).spec;

// 10K to 600K ops/s in 10K steps: 60 cells of 300 s per target, each with 60 s around it
const cellsPerTarget = 60;
const cellSeconds = cellsPerTarget * (300 + 60);
// load: 10 loaders × 10 processes × 40 threads = 4,000 threads; Little's law at the expected latency
// (1 ms ScyllaDB, 5 ms Cassandra) gives 4M and 800K rows/s for 10M rows: 2.5 s and 12.5 s
const lifeSeconds = { scylla: 900 + cellSeconds + 2.5, cassandra: 900 + cellSeconds + 12.5 };
const nodes = { 'scylla-3': 3, 'cassandra-3': 3, 'cassandra-9': 9, 'cassandra-15': 15 };
const lifeHours = (id: string) =>
  (id.startsWith('scylla') ? lifeSeconds.scylla : lifeSeconds.cassandra) / 3600;
const node = usd(book.ec2['i4i.4xlarge']!).toNumber();
const loader = usd(book.ec2['c5.2xlarge']!).toNumber();

describe('seed-002-staircase: a study costs what it measures', () => {
  const sequential = planRun(seed(), { priceBook: book });
  const parallel = planRun(seed({ execution: 'parallel' }), { priceBook: book });

  it('keeps the cells, durations and instance types; only the schedule differs', () => {
    expect(sequential.cells).toHaveLength(4 * cellsPerTarget);
    expect(parallel.cells.map((c) => c.id)).toEqual(sequential.cells.map((c) => c.id));
    expect(sequential.estimate.execution).toBe('sequential');
    expect(parallel.estimate.execution).toBe('parallel');
  });

  it('bills each cluster for its own life only (sequential, the default)', () => {
    const e = sequential.estimate;
    // the four lives one after the other
    const runHours = (lifeSeconds.scylla + 3 * lifeSeconds.cassandra) / 3600;
    expect(e.runHours).toBeCloseTo(runHours, 4);
    for (const [id, n] of Object.entries(nodes)) {
      const line = e.items.find((i) => i.kind === 'nodes' && i.target === id)!;
      expect(line.quantity).toBeCloseTo(n * lifeHours(id), 4);
      expect(line.usd).toBeCloseTo(Math.round(n * lifeHours(id) * node * 100) / 100, 2);
      expect(sequential.schedules.sequential.nodeHoursByTarget[id]).toBeCloseTo(n * lifeHours(id), 3);
    }
    // the one loader fleet for the whole run
    const loaders = e.items.filter((i) => i.kind === 'loaders');
    expect(loaders).toHaveLength(1);
    expect(loaders[0]!.usd).toBeCloseTo(Math.round(10 * runHours * loader * 100) / 100, 2);
    // 30 nodes × ~6.25 h instead of × the whole run (issue #33: $1,123.52 when all lived 24.26 h)
    expect(e.totalUsd).toBeLessThanOrEqual(400);
    expect(sequential.schedules.sequential.totalUsd).toBe(e.totalUsd);
  });

  it('side by side, the run takes the longest life, each target with its own loader group', () => {
    const e = parallel.estimate;
    expect(e.runHours).toBeCloseTo(lifeSeconds.cassandra / 3600, 4);
    expect(e.runHours).toBeLessThanOrEqual(7);
    const loaders = e.items.filter((i) => i.kind === 'loaders');
    expect(loaders.map((l) => l.target)).toEqual(Object.keys(nodes));
    for (const l of loaders) expect(l.quantity).toBeCloseTo(10 * lifeHours(l.target!), 4);
    // the same node-hours either way: each cluster lives as long
    expect(parallel.schedules.parallel.nodeHoursByTarget).toEqual(
      sequential.schedules.sequential.nodeHoursByTarget,
    );
    expect(parallel.schedules).toEqual(sequential.schedules);
  });

  it('plan prints both schedules, the chosen one marked, with node-hours per target', () => {
    const text = renderPlan(sequential);
    expect(text).toMatch(/sequential \(chosen\)\s+\$\d+\.\d\d\s+25\.\d+ h/);
    expect(text).toMatch(/parallel\s+\$\d+\.\d\d\s+6\.25\d* h/);
    expect(text).toContain('cassandra-15 node-h');
  });

  it('a single target: both schedules are the one life', () => {
    const one = planRun(seed({ targets: [(raw.targets as unknown[])[0]] }), { priceBook: book });
    expect(one.schedules.sequential).toEqual(one.schedules.parallel);
    expect(one.estimate.runHours).toBeCloseTo(lifeSeconds.scylla / 3600, 4);
  });
});
