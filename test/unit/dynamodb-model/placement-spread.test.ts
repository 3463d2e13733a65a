/**
 * The placement's spread (docs/dynamodb-model.md, "The placement's spread"): `cells[].prediction.placementSpread`
 * of examples/seed-003-split-for-heat.json against an independent computation of where 200 values fall.
 *
 * Reference: a client held at its hottest partition runs at that partition's 4,500 units over its share of the
 * queries, 4,500 × 200 / (values on it) (the post's own arithmetic, seeds/003; test/unit/dynamodb-model/seed-003.test.ts
 * "the post's figures fit a client held at its hottest partition"). The hottest count is drawn here by its own
 * generator (a plain 32-bit LCG, Numerical Recipes' constants, another seed, many more draws) from the multinomial
 * of 200 values on n equally likely partitions, never from the module under test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpecText, validateSpec } from '../../../lib/core/spec';
import { planRun } from '../../../lib/core/plan';
import { renderPlan } from '../../../lib/cli/commands/plan';
import { hasPlacementSpread, type Percentiles, type CellModel } from '../../../lib/core/dynamodb-model';

const examples = join(__dirname, '..', '..', '..', 'examples');
const planOf = (text: string, file: string) => planRun(validateSpec(parseSpecText(text, file)).spec);
const seed003File = join(examples, 'seed-003-split-for-heat.json');
const seed003 = readFileSync(seed003File, 'utf8');

/** The example with the AWS SDK for Java's DynamoDB retries: a client held at its hottest partition (seed-003.test.ts). */
const held = (() => {
  const sdk = JSON.parse(seed003) as { workload: { extraProperties?: Record<string, string> } };
  sdk.workload.extraProperties = {
    ...sdk.workload.extraProperties,
    'dynamodb.maxRetries': '10',
    'dynamodb.retryBaseDelayMs': '500',
    'dynamodb.retryMaxDelayMs': '20000',
  };
  return planOf(JSON.stringify(sdk), seed003File);
})();
const spreadOf = (plan: ReturnType<typeof planRun>, target: string) =>
  plan.cells.find((c) => c.target === target)!.prediction!.placementSpread;

/** 32-bit LCG (Numerical Recipes: a = 1664525, c = 1013904223), its high bits picking one of n partitions. */
function lcg(seed: number) {
  let x = seed >>> 0;
  return (n: number) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return Math.floor((x / 2 ** 32) * n);
  };
}

/** Values (of 200) on the hottest of n partitions, `draws` times. */
function hottestCounts(n: number, draws: number, seed: number): number[] {
  const next = lcg(seed);
  return Array.from({ length: draws }, () => {
    const count = new Array<number>(n).fill(0);
    for (let v = 0; v < 200; v++) count[next(n)]! += 1;
    return Math.max(...count);
  });
}

/** p-th percentile by linear interpolation between order statistics (not the module's nearest rank). */
function quantile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const i = (p / 100) * (s.length - 1);
  const lo = Math.floor(i);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (i - lo);
}

const within10 = (spread: Percentiles, reference: number[]) => {
  expect(Math.abs(spread.p10 / quantile(reference, 10) - 1)).toBeLessThanOrEqual(0.1);
  expect(Math.abs(spread.p50 / quantile(reference, 50) - 1)).toBeLessThanOrEqual(0.1);
  expect(Math.abs(spread.p90 / quantile(reference, 90) - 1)).toBeLessThanOrEqual(0.1);
};

describe('the start of test 2 (200 values on 4 partitions) over random placements', () => {
  const spread = spreadOf(held, 'od-200-pk')!;
  const reference = hottestCounts(4, 5_000, 20_261_127).map((h) => (4_500 * 200) / h);

  it('is 4,500 × 200 / (values on the hottest partition), within 10 % at p10, p50 and p90', () => {
    expect(spread.partitions).toBe(4);
    within10(spread.start.consumedReadUnits, reference);
    // two eventually consistent queries per read unit
    within10(
      spread.start.goodOpsPerSec,
      reference.map((u) => 2 * u),
    );
  });
  it("holds the post's 15,000 units within its p10–p90", () => {
    expect(spread.start.consumedReadUnits.p10).toBeLessThanOrEqual(15_000);
    expect(spread.start.consumedReadUnits.p90).toBeGreaterThanOrEqual(15_000);
  });
  it("puts the model's own 65 values (its hash's draw) in the upper tail: fewer on the hottest at p90", () => {
    expect(spread.modelHottestValues).toBe(65);
    expect(spread.hottestValues.p90).toBeLessThan(65);
    // as often as the independent draws put exactly 65 on the hottest of four (rarely: about 1 %), ± 0.1
    const p65 = hottestCounts(4, 5_000, 7).filter((h) => h === 65).length / 5_000;
    expect(p65).toBeLessThan(0.05);
    expect(Math.abs(spread.modelHottestFraction - p65)).toBeLessThanOrEqual(0.1);
  });
});

describe('the start of test 3 (200 values on 168 partitions) over random placements', () => {
  const spread = spreadOf(held, 'prov-500k')!;
  const counts = hottestCounts(168, 5_000, 99_991);

  it('is 4,500 × 200 / (values on the hottest partition), within 10 % at p10, p50 and p90', () => {
    expect(spread.partitions).toBe(168);
    within10(
      spread.start.consumedReadUnits,
      counts.map((h) => (4_500 * 200) / h),
    );
  });
  it("counts the placements whose hottest partition holds the model's 5 values as often as the draws do (± 0.2)", () => {
    expect(spread.modelHottestValues).toBe(5);
    const p5 = counts.filter((h) => h === 5).length / counts.length;
    expect(Math.abs(spread.modelHottestFraction - p5)).toBeLessThanOrEqual(0.2);
  });
  it('doubles after 15 minutes on every placement, and ends at the table limit (500,000 × 1.5) on every one', () => {
    expect(spread.afterFirstDoubling!.tSeconds).toEqual({ p10: 900, p50: 900, p90: 900 });
    expect(spread.final.consumedReadUnits).toEqual({ p10: 750_000, p50: 750_000, p90: 750_000 });
  });
});

describe('cells with nothing to place', () => {
  it('a table with one partition-key value (test 1) has no spread', () => {
    expect(spreadOf(held, 'od-one-pk')).toBeUndefined();
    expect(spreadOf(held, 'od-200-pk')).toBeDefined();
  });
  it('a table with one value per item (seed 001, no key design) has no spread', () => {
    const file = join(examples, 'seed-001-zipfian.json');
    const plan = planOf(readFileSync(file, 'utf8'), file);
    const predicted = plan.cells.filter((c) => c.prediction);
    expect(predicted.length).toBeGreaterThan(0);
    expect(predicted.every((c) => c.prediction!.placementSpread === undefined)).toBe(true);
  });
  it('a paced cell has none (its grid may hold hundreds; 25 simulations each would outlast the Plan step)', () => {
    const paced = JSON.parse(seed003) as { workload: Record<string, unknown> };
    paced.workload.targetOpsPerSec = [10_000, 20_000];
    const plan = planOf(JSON.stringify(paced), seed003File);
    const od200 = plan.cells.filter((c) => c.target === 'od-200-pk');
    expect(od200.length).toBe(2);
    expect(od200.every((c) => c.prediction && c.prediction.placementSpread === undefined)).toBe(true);
  });

  it('N values as many as the records is one per item', () => {
    const model = (values: number) =>
      ({ table: { recordCount: 1_000, partitionKeyValues: values } }) as unknown as CellModel;
    expect(hasPlacementSpread(model(1_000))).toBe(false);
    expect(hasPlacementSpread(model(1))).toBe(false);
    expect(hasPlacementSpread(model(200))).toBe(true);
  });
});

describe("`fleetbench plan`'s text", () => {
  it('prints one line per cell with a spread, its start p10–p90 beside the cell id', () => {
    const text = renderPlan(held);
    const lines = text.split('\n').filter((l) => /over random placements|: start /.test(l));
    expect(lines).toHaveLength(3); // the heading and the two 200-value cells
    const s = spreadOf(held, 'od-200-pk')!.start.consumedReadUnits;
    const f = (x: number) => Math.round(x).toLocaleString('en-US');
    expect(text).toContain(`od-200-pk.uniform.r0.tmax: start ${f(s.p10)}–${f(s.p90)}, after 10 min`);
    expect(text).not.toMatch(/od-one-pk\.uniform\.r0\.tmax: start/);
  });
});
