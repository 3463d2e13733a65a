/**
 * Planning an SLO search (docs/slo-search.md): its worst-case probes are ordinary cells planned at the upper bound,
 * so the run's duration, cost estimate, budget and history budget are the worst case's; a DynamoDB target's
 * search carries the capacity model's predicted limit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpecText, validateSpec, type RunSpec } from '../../../lib/core/spec';
import { planRun } from '../../../lib/core/plan';
import { cellGrid } from '../../../lib/core/plan/grid';
import { budgetIssues } from '../../../lib/core/cost/estimate';
import { historyBudget } from '../../../lib/core/plan/history';
import { cellCount } from '../../../lib/core/spec/grid-size';
import { isProbeCellId } from '../../../lib/core/search/probe';

const example = (file: string): RunSpec =>
  validateSpec(parseSpecText(readFileSync(join(__dirname, '../../../examples', file), 'utf8'), file)).spec;

describe('seed-002-slo: ScyllaDB and Cassandra, intended P99 ≤ 10 ms', () => {
  const spec = example('seed-002-slo.json');
  const plan = planRun(spec);

  it('plans each search as its worst-case probes at the upper bound', () => {
    // ramp 20K..640K is 6 rates; the bound failing leaves [320K, 640K], halved 5 times to 10K: 11 probes
    expect(plan.searches?.map((s) => [s.id, s.worstCaseProbes, s.cells.length])).toEqual([
      ['scylla-3.uniform.r50', 11, 11],
      ['cassandra-3.uniform.r50', 11, 11],
    ]);
    expect(plan.cells).toHaveLength(22);
    expect(plan.cells[0]).toMatchObject({
      id: 'scylla-3.uniform.r50.probe1',
      targetOpsPerSec: 640_000,
      probe: { search: 'scylla-3.uniform.r50', index: 1 },
    });
    expect(plan.cells[21]!.id).toBe('cassandra-3.uniform.r50.probe11');
    // the grid validation counts is the plan's, cell by cell
    expect(cellGrid(spec).map((c) => c.id)).toEqual(plan.cells.map((c) => c.id));
    // no capacity model for EC2 clusters
    expect(plan.searches!.every((s) => s.predictedLimitOpsPerSec === null)).toBe(true);
    // 22 probes of 300 s: the measurement's worst case
    expect(plan.cellSeconds).toBe(22 * 300);
  });

  it('costs the worst case: the same estimate as 11 fixed cells per target at the upper bound', () => {
    const fixed: RunSpec = {
      ...spec,
      workload: { ...spec.workload, search: undefined, targetOpsPerSec: Array(11).fill(640_000) },
    };
    expect(planRun(fixed).estimate.totalUsd).toBeCloseTo(plan.estimate.totalUsd, 6);
  });

  it('is refused by a budget below its worst case, and passes one above it', () => {
    expect(budgetIssues(spec, plan.estimate)).toEqual([]);
    const tight = { ...spec, budget: { maxUsd: plan.estimate.totalUsd / 2 } };
    const issues = budgetIssues(tight, plan.estimate);
    expect(issues.map((i) => i.path)).toEqual(['budget.maxUsd']);
    expect(issues[0]!.message).toMatch(/over the budget/);
  });

  it('counts its worst-case probes against the Step Functions history budget', () => {
    expect(cellCount(spec)).toBe(22);
    const b = historyBudget({ cells: cellCount(spec), loads: 2 });
    expect(b.events).toBeLessThanOrEqual(b.limit);
    // a study of 30 such targets would not fit one execution: 330 probes at the worst case (~71 events each)
    const many: RunSpec = {
      ...spec,
      targets: Array.from({ length: 30 }, (_, i) => ({ ...spec.targets[0]!, id: `scylla-${i}` })),
    };
    const big = historyBudget({ cells: cellCount(many), loads: 30 });
    expect(big.events).toBeGreaterThan(big.limit);
  });
});

describe('local-slo-search: a DynamoDB search starts where the capacity model predicts the limit', () => {
  const spec = example('local-slo-search.json');
  const plan = planRun(spec);

  it("predicts the hot key's limit the example works out by hand", () => {
    // half the updates (2 WCU each) on one key whose limit is 1,000 WCU/s × scale: above r/2 × 2 = limit, the cell
    // attains 1/2 + (limit/2)/r; 95 % ⇒ r ≤ (limit/2)/0.45: 111 ops/s at scale 0.1, 1,111 on AWS (above the bound: 400)
    const s = plan.searches![0]!;
    expect(s.localPredictedLimitOpsPerSec).toBe(Math.floor(50 / 0.45));
    expect(s.predictedLimitOpsPerSec).toBe(400);
    // from any start the search takes at most 9 probes: ramp 20..400 (6), then [320, 400] halved 3 times to 10
    expect(s.worstCaseProbes).toBe(9);
    expect(plan.cells.every((c) => c.prediction === undefined)).toBe(true);
  });
});

describe('isProbeCellId (what regression detection leaves out)', () => {
  it("is true for a search's cells and false for a grid's, A/A repeats included", () => {
    expect(planRun(example('seed-002-slo.json')).cells.every((c) => isProbeCellId(c.id))).toBe(true);
    for (const file of ['quickstart.json', 'seed-002-staircase.json', 'nightly-regression.json'])
      expect(planRun(example(file)).cells.some((c) => isProbeCellId(c.id))).toBe(false);
    expect(isProbeCellId('ddb.uniform.r50.t1000.aa2')).toBe(false);
  });
});
