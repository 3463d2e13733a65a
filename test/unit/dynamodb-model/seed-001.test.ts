/**
 * The plan of examples/seed-001-zipfian.json against seed 001's published figures (ScyllaDB's 2023
 * "ScyllaDB vs DynamoDB" study): zipfian at best 39.72 % of 222 kops/s (88.19 kops/s good), at worst
 * 16.22 % of 125 kops/s (20.28 kops/s). Nothing in the model is fitted to these: the inputs are the
 * seed's own setup (1B records, 200K RCU / 250K WCU, consistent reads, 8 × 3 × 60 threads, 6.2 ms),
 * YCSB's generator, the AWS SDK retry policy the seed's binding used, and AWS's documented limits.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { validateSpec } from '../../../lib/core/spec';
import { planRun, type CellPlan } from '../../../lib/core/plan';
import { renderPlan } from '../../../lib/cli/commands/plan';
import { cellModelOf, predictSteadyState } from '../../../lib/core/dynamodb-model';
import type { DynamoDbTarget } from '../../../lib/core/spec/schema';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../../examples/seed-001-zipfian.json'), 'utf8')),
).spec;
const plan = planRun(spec);
const cell = (id: string): CellPlan => {
  const c = plan.cells.find((x) => x.id === id);
  if (!c) throw new Error(`no cell ${id}`);
  return c;
};
const pct = (c: CellPlan) => c.prediction!.attainment * 100;

describe('seed 001 from first principles', () => {
  it("the best zipfian cell (90% reads, 222K ops/s) is within 5 points of the seed's 39.72%", () => {
    const c = cell('dynamodb.zipfian.r90.t222000');
    expect(Math.abs(pct(c) - 39.72)).toBeLessThanOrEqual(5);
    // the hottest item's 3,000 RCU/s: 3,000 / (0.9 × 1/ZETAN) = 88,230 ops/s
    expect(c.prediction!.limitedBy).toBe('item');
    expect(c.prediction!.hottestPartitionShare).toBeCloseTo(0.03778, 4);
  });
  it("the worst zipfian cell (10% reads, 125K ops/s) is within 10 points of the seed's 16.22%", () => {
    const c = cell('dynamodb.zipfian.r10.t125000');
    expect(Math.abs(pct(c) - 16.22)).toBeLessThanOrEqual(10);
    expect(c.prediction!.limitedBy).toBe('item');
    // the threads wait in back-off on the hottest item: retries add latency
    expect(c.prediction!.addedLatencyMs).toBeGreaterThan(10);
  });
  it('the zipfian cells are the best and worst zipfian cells the seed ran (the ones within capacity)', () => {
    const ran = plan.cells.filter(
      (c) => c.distribution === 'zipfian' && c.id !== 'dynamodb.zipfian.r10.t222000',
    );
    const sorted = ran.map(pct).sort((a, b) => a - b);
    expect(sorted[0]).toBe(pct(cell('dynamodb.zipfian.r10.t125000')));
  });
  it('uniform and hotspot(1.3%, 95%) cells within the provisioned capacity are at least 95%', () => {
    const even = plan.cells.filter((c) => c.distribution !== 'zipfian');
    expect(even).toHaveLength(8);
    for (const c of even) {
      if (c.id.endsWith('r10.t222000')) {
        // 222,000 × 0.9 × 2 WCU = 399,600 WCU > 250,000 provisioned: the table limits it
        expect(c.prediction!.limitedBy).toBe('table-write');
        expect(c.prediction!.goodOpsPerSec).toBeCloseTo(250_000 / 2 / 0.9, -1);
      } else expect(pct(c)).toBeGreaterThanOrEqual(95);
    }
  });
  it('the plan warns on every cell predicted below 95%, with the reason', () => {
    const low = plan.cells.filter((c) => c.prediction!.attainment < 0.95).map((c) => c.id);
    expect(low.sort()).toEqual(
      [
        'dynamodb.uniform.r10.t222000',
        'dynamodb.hotspot-1p3-95.r10.t222000',
        'dynamodb.zipfian.r10.t125000',
        'dynamodb.zipfian.r10.t222000',
        'dynamodb.zipfian.r90.t125000',
        'dynamodb.zipfian.r90.t222000',
      ].sort(),
    );
    for (const id of low) {
      const w = plan.warnings.find((x) => x.startsWith(`cell "${id}": predicted`));
      expect(w).toMatch(/limited by (item|table-write)\): \S/);
    }
  });
  it("the plan's text table shows each cell's predicted attainment and limit", () => {
    const row = renderPlan(plan)
      .split('\n')
      .find((l) => l.includes('dynamodb.zipfian.r90.t222000'));
    expect(row).toMatch(/ 40\.0% item$/);
  });
  it("the seed's client paces per thread (upstream YCSB); the steady state is the same under the open loop", () => {
    const c = cell('dynamodb.zipfian.r10.t125000');
    expect(c.properties['fleetbench.schedule']).toBe('per-thread');
    const model = cellModelOf(spec, spec.targets[0] as DynamoDbTarget, c)!;
    expect(model.client.schedule).toBe('per-thread');
    // X = min(target, threads / E[T(X)]) is the mean of both schedules (solve.ts)
    const open = predictSteadyState({ ...model, client: { ...model.client, schedule: 'open' } });
    expect(open.attainment).toBe(c.prediction!.attainment);
  });
});
