/**
 * DAX in the cost model, figures worked by hand from price book 2024-11: DynamoDB Standard on-demand $0.125 per
 * million read request units and $0.25 per GB-month (https://aws.amazon.com/dynamodb/pricing/), dax.r5.large
 * $0.269 and dax.t3.small $0.04 per node-hour (the book's third-party sources, named in its entries), 730 h a
 * month; DAX bills each partial node-hour as a full one
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-understanding-billing.html).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { headlineTotals, loadPriceBook, monthlyCost, type DynamoCostReport } from '../../../lib/core/cost';
import { estimateRunCost, ESTIMATE_ASSUMPTIONS } from '../../../lib/core/cost/estimate';
import { cellCostsFor } from '../../../lib/core/pipeline/costing';
import { planRun } from '../../../lib/core/plan';
import { headlineOf } from '../../../lib/core/contract/headline';
import { daxComparison, renderReport, type ReportData } from '../../../lib/core/report/html';
import { validateSpec } from '../../../lib/core/spec';
import { costDocument, renderCost } from '../../../lib/cli/commands/cost';
import { kindOf } from '../../../lib/core/targets/registry';

const book = loadPriceBook('2024-11');

// 1,000 eventually consistent reads/s of 1,000-byte items: 0.5 RRU each →
// 1,000 × 3,600 × 730 × 0.5 = 1,314,000,000 RRU × $0.125/M = $164.25; 10 GB × $0.25 = $2.50; total $166.75.
// DAX 3 × dax.r5.large: 3 × $0.269 × 730 = $589.11 a month; with DAX $755.86.
const input = (dax?: { nodeType: string; nodes: number }) => ({
  target: { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, ...(dax ? { dax } : {}) },
  throughput: { readsPerSec: 1000, writesPerSec: 0 },
  itemBytes: 1000,
  storageGb: 10,
});

describe('DAX cost', () => {
  it('a cost report shows DynamoDB alone and with DAX', () => {
    const r = monthlyCost(input({ nodeType: 'dax.r5.large', nodes: 3 }), book) as DynamoCostReport;
    expect(r.monthly.onDemand).toEqual({ writes: 0, reads: 164.25, storage: 2.5, total: 166.75 });
    expect(r.monthly.provisioned).toEqual({ writes: 0, reads: 47.45, storage: 2.5, total: 49.95 });
    expect(r.dax).toEqual({
      nodeType: 'dax.r5.large',
      nodes: 3,
      usdPerNodeHour: 0.269,
      monthly: 589.11,
      // provisioned: 500 RCU × $0.00013 × 730 = $47.45 + $2.50 storage = $49.95, + $589.11
      withDax: { provisioned: 639.06, onDemand: 755.86 },
    });
    // the headline (the cells' monthly cost columns) includes the cluster
    expect(headlineTotals(r).onDemand).toBe(755.86);
    const alone = monthlyCost(input(), book) as DynamoCostReport;
    expect(alone.dax).toBeUndefined();
    expect(headlineTotals(alone).onDemand).toBe(166.75);
  });

  it('`fleetbench cost` prints DynamoDB alone and with DAX', () => {
    const text = renderCost(costDocument(input({ nodeType: 'dax.r5.large', nodes: 3 }), book));
    expect(text).toContain(
      '  DAX: 3 × dax.r5.large at $0.269/node-hour = $589.11/month; DynamoDB alone vs with DAX: ' +
        'provisioned $49.95 → $639.06, on-demand $166.75 → $755.86/month',
    );
    expect(renderCost(costDocument(input(), book))).not.toContain('DAX');
  });

  it('an unknown node type is refused naming the field and the known types', () => {
    expect(() => monthlyCost(input({ nodeType: 'dax.r6g.large', nodes: 3 }), book)).toThrow(
      /target\.dax\.nodeType: price book "2024-11" has no DAX price for node type "dax\.r6g\.large"; it has dax\.t3\.small, dax\.r5\.large/,
    );
  });

  const spec = validateSpec({
    name: 'dax-cost',
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'on-demand' },
        dax: { nodeType: 'dax.t3.small', nodes: 1 },
      },
    ],
    dataset: { recordCount: 1000 },
    workload: { readProportions: [1], targetOpsPerSec: [100], durationSeconds: 600 },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
  }).spec;
  const plan = planRun(spec);

  it("a cell's monthly cost adds the cluster's node-hours to the table's", () => {
    const withDax = cellCostsFor(spec, book)(plan.cells[0]!, 1000);
    const noDaxTarget = { ...spec.targets[0]!, dax: undefined };
    const alone = cellCostsFor({ ...spec, targets: [noDaxTarget] }, book)(plan.cells[0]!, 1000);
    // dax.t3.small: 1 × $0.04 × 730 = $29.20
    expect(withDax.monthlyCostUsd! - alone.monthlyCostUsd!).toBeCloseTo(29.2, 9);
    expect(withDax.monthlyCostOnDemandUsd! - alone.monthlyCostOnDemandUsd!).toBeCloseTo(29.2, 9);
  });

  it("the run's estimate bills the cluster's node-hours from creation to deletion, whole hours", () => {
    const est = estimateRunCost(spec, plan, book);
    const line = est.items.find((i) => i.kind === 'dax')!;
    // setup 900 s + one 600 s cell + 60 s overhead (no load line time for on-demand of 1,000 items: see below)
    // + DAX's 1,800 s of creation and deletion, rounded up to whole hours per node
    const hours = Math.ceil((est.runHours * 3600 + ESTIMATE_ASSUMPTIONS.daxSetupSeconds) / 3600);
    expect(hours).toBe(1);
    expect(line).toMatchObject({ quantity: 1, unit: 'node-hour', unitUsd: 0.04, usd: 0.04, target: 'ddb' });
  });

  it("the report's DAX section prices the cluster through the dynamodb kind's cache hook: 3 × $0.269 × 730", () => {
    const [withDax, plain] = validateSpec({
      name: 'cache',
      targets: [
        {
          id: 'ddb',
          kind: 'dynamodb',
          billing: { mode: 'on-demand' },
          dax: { nodeType: 'dax.r5.large', nodes: 3 },
        },
        { id: 'plain', kind: 'dynamodb', billing: { mode: 'on-demand' } },
      ],
      dataset: { recordCount: 1000 },
      workload: { readProportions: [1], targetOpsPerSec: [100], durationSeconds: 60 },
      loaders: { count: 1 },
    }).spec.targets;
    expect(kindOf(withDax!).cache?.(withDax!, book)).toEqual({
      nodeType: 'dax.r5.large',
      nodes: 3,
      monthlyUsd: 589.11,
    });
    expect(kindOf(plain!).cache?.(plain!, book)).toBeUndefined();
  });

  it('the HTML report compares DynamoDB alone with DynamoDB and DAX per cell', () => {
    const cell = {
      ...headlineOf({
        cell_id: 'ddb.c1',
        target_id: 'ddb',
        monthly_cost_usd: 755.86,
        good_ops_per_sec: 1000,
      }),
    };
    const dax = [
      { target: 'ddb', nodeType: 'dax.r5.large', nodes: 3, monthlyUsd: 589.11, priceBook: '2024-11' },
    ];
    expect(daxComparison([cell], dax)).toEqual([
      {
        cellId: 'ddb.c1',
        target: 'ddb',
        cluster: '3 × dax.r5.large',
        tableUsd: 166.75,
        daxUsd: 589.11,
        withDaxUsd: 755.86,
      },
    ]);
    const html = renderReport({
      runId: 'r',
      specName: 's',
      startedAt: 'x',
      status: 'SUCCEEDED',
      cells: [cell],
      series: {},
      dax,
    } as ReportData);
    expect(html).toContain('DynamoDB alone vs with DAX');
    expect(html).toContain(
      '<tr><td>ddb.c1</td><td>3 × dax.r5.large</td><td>$166.75</td><td>$589.11</td><td>$755.86</td></tr>',
    );
  });
});

describe('examples/seed-000-dax.json', () => {
  it('compares the same table alone and behind 3 × dax.r5.large; the estimate bills the cluster per whole node-hour', () => {
    const file = path.join(__dirname, '..', '..', '..', 'examples', 'seed-000-dax.json');
    const { spec } = validateSpec(JSON.parse(readFileSync(file, 'utf8')));
    const [alone, cached] = spec.targets;
    expect(alone).not.toHaveProperty('dax');
    expect(cached).toMatchObject({ dax: { nodeType: 'dax.r5.large', nodes: 3 }, consistentReads: false });
    const plan = planRun(spec);
    const est = estimateRunCost(spec, plan, book);
    const dax = est.items.filter((i) => i.kind === 'dax');
    expect(dax).toHaveLength(1);
    // the two targets have the same cells and table, so the same life: in sequence the run is twice it, side by
    // side the run is it; the cluster is billed for its own target's life (not the run's)
    const side = estimateRunCost(spec, plan, book, 'parallel');
    expect(est.runHours).toBeCloseTo(2 * side.runHours, 3);
    expect(side.items.find((i) => i.kind === 'dax')).toEqual(dax[0]);
    const hours = Math.ceil((side.runHours * 3600 + ESTIMATE_ASSUMPTIONS.daxSetupSeconds) / 3600);
    // 3 nodes × whole hours × $0.269
    expect(dax[0]).toMatchObject({ target: 'dynamodb-dax', quantity: 3 * hours, unitUsd: 0.269 });
    expect(dax[0]!.usd).toBeCloseTo(Math.round(3 * hours * 0.269 * 100) / 100, 9);
  });
});
