/**
 * Seed 004's cost comparison in the report: per target, its best measured cell and the cost of a billion good
 * operations at that rate. Reference: the seed's own method (monthly cost ÷ operations a month at the measured
 * throughput), worked by hand below.
 */
import { costComparison, type ReportCell } from '../../../lib/core/report/html';
import { headlineOf } from '../../../lib/core/contract/headline';

const cell = (
  target: string,
  id: string,
  goodOpsPerSec: number | null,
  monthlyCostUsd: number | null,
): ReportCell => ({
  ...headlineOf({
    cell_id: id,
    target_id: target,
    distribution: 'zipfian',
    read_proportion: 0.5,
    target_ops_per_sec: 100_000,
    good_ops_per_sec: goodOpsPerSec,
    monthly_cost_usd: monthlyCostUsd,
    errors: 3,
  }),
});

describe('cost per billion operations across targets', () => {
  it("takes each target's cell with the most good ops/s and divides its monthly cost by a month of them", () => {
    const rows = costComparison([
      cell('redis', 'redis.a.t50000', 49_000, 4634),
      cell('redis', 'redis.a.t100000', 98_700, 4634),
      cell('mongodb', 'mongodb.a.t100000', 58_290, 5026),
      // no price (a cell without a result): left out
      cell('couchbase', 'couchbase.a.t100000', 90_000, null),
    ]);
    expect(rows.map((r) => [r.target, r.cellId])).toEqual([
      ['redis', 'redis.a.t100000'],
      ['mongodb', 'mongodb.a.t100000'],
    ]);
    // Redis: 98,700 ops/s × 2,592,000 s = 255.83 billion ops a month; $4,634 ÷ 255.83 = $18.11 per billion
    expect(rows[0]!.usdPerBillionOps).toBeCloseTo(4634 / 255.8304, 3);
    expect(rows[0]!.usdPerBillionOps).toBeCloseTo(18.114, 2);
    // MongoDB: 58,290 × 2,592,000 = 151.09 billion; $5,026 ÷ 151.09 = $33.27 per billion
    expect(rows[1]!.usdPerBillionOps).toBeCloseTo(33.265, 2);
    expect(rows[1]!.errors).toBe(3);
  });

  it('leaves out targets with no good operations', () => {
    expect(costComparison([cell('ddb', 'ddb.a', 0, 100), cell('x', 'x.a', null, 100)])).toEqual([]);
  });
});
