/**
 * Seed 004's cost comparison in the report: per target, its best measured cell and the cost of a billion good
 * operations at that rate. Reference: the seed's own method (monthly cost ÷ operations a month at the measured
 * throughput), worked by hand below with AWS's month of 730 hours (the hours the monthly costs are priced for:
 * "730 hours in a month", https://aws.amazon.com/dynamodb/pricing/provisioned/ and the AWS Pricing Calculator).
 * The report takes the figure from the cells row (`cost_per_million_ops_usd`), which the row builder computes.
 */
import { costComparison, type ReportCell } from '../../../lib/core/report/html';
import { headlineOf } from '../../../lib/core/contract/headline';
import { buildCellRow } from '../../../lib/core/results/rows';
import * as path from 'node:path';
import { aggregateCell, type CellAggregate } from '../../../lib/core/results/aggregate';
import { readCellDir } from '../../../lib/local/cell-dir';

/** a real cell's aggregate (the real-YCSB fixture), its good ops/s set to each case's */
let fixture: CellAggregate;
beforeAll(async () => {
  fixture = await aggregateCell(await readCellDir(path.join(__dirname, '../../fixtures/ycsb/fleet-small')), {
    warmupSeconds: 1,
    targetOpsPerSec: 1200,
  });
});

/** A cell's report line as the pipeline makes it: its `cells` row (built from an aggregate) read back. */
const cell = (
  target: string,
  id: string,
  goodOpsPerSec: number | null,
  monthlyCostUsd: number | null,
): ReportCell => {
  const agg: CellAggregate = { ...fixture, goodOpsPerSec: goodOpsPerSec ?? 0, failedOps: 3 };
  const row = buildCellRow(
    {
      runId: 'r1',
      specName: 'seed-004',
      startedAtMs: Date.UTC(2026, 10, 23),
      cellId: id,
      targetId: target,
      targetKind: 'external',
      distribution: 'zipfian',
      readProportion: 0.5,
      updateProportion: 0.5,
    },
    agg,
    monthlyCostUsd === null
      ? {}
      : { monthlyCostProvisionedUsd: null, monthlyCostOnDemandUsd: null, monthlyCostUsd, hoursPerMonth: 730 },
  );
  return headlineOf({ ...row, good_ops_per_sec: goodOpsPerSec });
};

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
    // Redis: 98,700 ops/s × 730 h × 3,600 s = 259.38 billion ops a month; $4,634 ÷ 259.3836 = $17.865 per billion
    expect(rows[0]!.usdPerBillionOps).toBeCloseTo(4634 / 259.3836, 3);
    expect(rows[0]!.usdPerBillionOps).toBeCloseTo(17.865, 3);
    // MongoDB: 58,290 × 730 × 3,600 = 153.19 billion; $5,026 ÷ 153.18612 = $32.810 per billion
    expect(rows[1]!.usdPerBillionOps).toBeCloseTo(32.81, 2);
    expect(rows[1]!.errors).toBe(3);
  });

  it('leaves out incomplete cells and SLO-search probes that failed their SLO', () => {
    // a search's probes: 1,000 ops/s passed, 1,200 ops/s failed the SLO (it served more, but is no answer)
    const search = {
      search_id: 'redis.zipfian.r50',
      probes_json: JSON.stringify([
        {
          cell_id: 'redis.p1',
          rate: 1000,
          pass: true,
          latency_us: 4000,
          attainment: 1,
          error_rate: 0,
          reasons: [],
        },
        {
          cell_id: 'redis.p2',
          rate: 1200,
          pass: false,
          latency_us: 25000,
          attainment: 0.9,
          error_rate: 0,
          reasons: [],
        },
      ]),
    };
    const missingLoader = { ...cell('mongodb', 'mongodb.t2', 80_000, 5026), incomplete: true };
    const rows = costComparison(
      [
        cell('redis', 'redis.p1', 1000, 100),
        cell('redis', 'redis.p2', 1080, 100),
        cell('mongodb', 'mongodb.t1', 50_000, 5026),
        missingLoader,
      ],
      [search],
    );
    expect(rows.map((r) => [r.target, r.cellId])).toEqual([
      ['redis', 'redis.p1'],
      ['mongodb', 'mongodb.t1'],
    ]);
    // without the searches (a run without one) the failed probe would be taken: it served the most
    expect(
      costComparison([cell('redis', 'redis.p1', 1000, 100), cell('redis', 'redis.p2', 1080, 100)])[0]!.cellId,
    ).toBe('redis.p2');
  });

  it('leaves out targets with no good operations', () => {
    expect(costComparison([cell('ddb', 'ddb.a', 0, 100), cell('x', 'x.a', null, 100)])).toEqual([]);
  });
});
