/**
 * The one cell headline shape (lib/core/contract/headline.ts): read from a real cell's `cells` row (the
 * real-YCSB fixture test/fixtures/ycsb/fleet-small, aggregated), and the views built on it — CloudWatch
 * metrics, the CLI's summary table, the report's cells.
 */
import * as path from 'node:path';
import { CellHeadlineSchema, headlineOf, noResultHeadline } from '../../../lib/core/contract/headline';
import { cellMetrics } from '../../../lib/core/contract/cell-metrics';
import { aggregateCell, type CellAggregate } from '../../../lib/core/results/aggregate';
import { buildCellRow, type Row } from '../../../lib/core/results/rows';
import { summaryRows } from '../../../lib/core/results/run-summary';
import { reportCellOf } from '../../../lib/core/report/data';
import { readCellDir } from '../../../lib/local/cell-dir';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
const META = {
  runId: 'r1',
  specName: 's',
  startedAtMs: Date.UTC(2026, 10, 23),
  cellId: 'ddb.zipfian.r50.t1200',
  targetId: 'ddb',
  targetKind: 'dynamodb',
  distribution: 'zipfian',
  readProportion: 0.5,
  updateProportion: 0.5,
};
let agg: CellAggregate;
let row: Row;
beforeAll(async () => {
  agg = await aggregateCell(await readCellDir(FIXTURE), { warmupSeconds: 1, targetOpsPerSec: 1200 });
  row = buildCellRow(META, agg, {
    monthlyCostProvisionedUsd: 12.5,
    monthlyCostOnDemandUsd: null,
    monthlyCostUsd: 12.5,
    hoursPerMonth: 730,
  });
});

describe('cell headline', () => {
  it('is the aggregate’s figures, read from the cells row', () => {
    const h = headlineOf(row);
    expect(CellHeadlineSchema.parse(h)).toEqual(h); // the schema is strict: no other field
    expect(h).toEqual({
      cellId: 'ddb.zipfian.r50.t1200',
      target: 'ddb',
      distribution: 'zipfian',
      readProportion: 0.5,
      targetOpsPerSec: 1200,
      achievedOpsPerSec: agg.achievedOpsPerSec,
      goodOpsPerSec: agg.goodOpsPerSec,
      attainment: agg.goodOpsPerSec / 1200,
      intendedP50Us: agg.families.ALL.intended.p50,
      intendedP99Us: agg.families.ALL.intended.p99,
      intendedP999Us: agg.families.ALL.intended.p999,
      serviceP50Us: agg.families.ALL.service.p50,
      serviceP99Us: agg.families.ALL.service.p99,
      serviceP999Us: agg.families.ALL.service.p999,
      errors: agg.failedOps,
      throttles: agg.throttledAttempts,
      monthlyCostProvisionedUsd: 12.5,
      monthlyCostOnDemandUsd: null,
      monthlyCostUsd: 12.5,
      // $12.50 ÷ (good ops/s × 730 h × 3,600 s ÷ 10⁶)
      costPerMillionOpsUsd: expect.closeTo(12.5 / ((agg.goodOpsPerSec * 730 * 3600) / 1e6), 12),
      incomplete: false,
      incompleteReason: null,
      // no loader CPU in the fixture's manifests, and it ran per-thread paced (no SCHEDULE-DELAY)
      suspect: false,
      suspectReason: null,
    });
    // the fixture has failures and throttles (FlakyDB), so these figures are not trivially 0
    expect(h.errors).toBeGreaterThan(10);
    expect(h.throttles).toBeGreaterThan(10);
    expect(h.intendedP99Us!).toBeGreaterThanOrEqual(h.serviceP99Us!);
  });

  it('reads rows a query engine typed differently (bigint, text) to the same headline', () => {
    const typed = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : typeof v === 'number' ? String(v) : v,
      ]),
    );
    expect(headlineOf(typed)).toEqual(headlineOf(row));
  });

  it('an incomplete cell carries its reason; a cell without result has null figures', () => {
    expect(
      headlineOf({ ...row, incomplete: true, incomplete_reason: 'loader-0/proc-1: no manifest.json' }),
    ).toMatchObject({
      incomplete: true,
      incompleteReason: 'loader-0/proc-1: no manifest.json',
    });
    const none = noResultHeadline({
      id: 'c2',
      target: 'ddb',
      distributionLabel: 'uniform',
      readProportion: 0.9,
      targetOpsPerSec: 50,
    });
    expect(CellHeadlineSchema.parse(none)).toEqual(none);
    expect(none).toMatchObject({
      cellId: 'c2',
      readProportion: 0.9,
      targetOpsPerSec: 50,
      achievedOpsPerSec: null,
      errors: null,
      incomplete: true,
    });
  });
});

describe('views of the headline', () => {
  it('CloudWatch metrics: the headline figures with their units, attainment in percent', () => {
    const h = headlineOf(row);
    const m = cellMetrics(h, { specName: 's', cell: { id: META.cellId, targetOpsPerSec: 1200 } })!;
    expect(m.dimensions).toEqual({
      Spec: 's',
      Target: 'ddb',
      Distribution: 'zipfian',
      ReadRatio: '0.5',
      TargetOpsPerSec: '1200',
    });
    expect(Object.fromEntries(m.data.map((d) => [d.name, [d.value, d.unit]]))).toEqual({
      IntendedP50: [h.intendedP50Us, 'Microseconds'],
      IntendedP99: [h.intendedP99Us, 'Microseconds'],
      IntendedP999: [h.intendedP999Us, 'Microseconds'],
      Throughput: [h.achievedOpsPerSec, 'Count/Second'],
      GoodThroughput: [h.goodOpsPerSec, 'Count/Second'],
      Attainment: [h.attainment! * 100, 'Percent'],
      Errors: [h.errors, 'Count'],
      Throttles: [h.throttles, 'Count'],
      // on-demand cost is null: not sent
      MonthlyCostProvisioned: [12.5, 'None'],
    });
  });

  it('the CLI table row', () => {
    const h = {
      ...headlineOf(row),
      achievedOpsPerSec: 1187.46,
      attainment: 0.9876,
      intendedP50Us: 4100,
      intendedP99Us: 12345,
      intendedP999Us: null,
      errors: 31,
      throttles: 7,
      monthlyCostOnDemandUsd: 1234.5,
    };
    expect(summaryRows([h, { ...h, incomplete: true }])).toEqual([
      [
        'ddb.zipfian.r50.t1200',
        'ddb',
        'zipfian',
        '0.5',
        '1,200',
        '1,187.5',
        '98.8%',
        '4.10',
        '12.35',
        '–',
        '31',
        '7',
        '$12.50',
        '$1,234.50',
      ],
      [
        'ddb.zipfian.r50.t1200 (incomplete)',
        'ddb',
        'zipfian',
        '0.5',
        '1,200',
        '1,187.5',
        '98.8%',
        '4.10',
        '12.35',
        '–',
        '31',
        '7',
        '$12.50',
        '$1,234.50',
      ],
    ]);
  });

  it('the report cell is the headline', () => {
    expect(reportCellOf(row)).toEqual({ ...headlineOf(row), loaderCpu: [] });
  });
});
