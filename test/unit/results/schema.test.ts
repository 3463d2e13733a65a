import * as fs from 'node:fs';
import * as path from 'node:path';
import { RESULTS_SCHEMA_DOC, renderSchemaMarkdown } from '../../../bin/results-schema-doc';
import { TABLES, tableDef, glueColumns, duckdbViewSql } from '../../../lib/core/results/schema';
import {
  buildCellRow,
  buildIntervalRows,
  buildRunRow,
  tableObjectKey,
  toJsonLines,
  validateRow,
} from '../../../lib/core/results/rows';
import { aggregateCell, type CellAggregate } from '../../../lib/core/results/aggregate';
import { readCellDir } from '../../../lib/local/cell-dir';

const ROOT = path.join(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/ycsb/fleet-small');

describe('result schema', () => {
  it('docs/results-schema.md is generated from the code (run `npm run docs:results-schema` when this fails)', () => {
    expect(fs.readFileSync(path.join(ROOT, RESULTS_SCHEMA_DOC), 'utf8')).toBe(renderSchemaMarkdown());
  });

  it('has unique column names and the columns the cells table must carry', async () => {
    for (const t of TABLES) {
      const names = [...t.partitionKeys, ...t.columns].map((c) => c.name);
      expect(new Set(names).size).toBe(names.length);
    }
    const cells = tableDef('cells').columns.map((c) => c.name);
    for (const c of [
      'run_id',
      'cell_id',
      'target_id',
      'target_kind',
      'distribution',
      'read_proportion',
      'update_proportion',
      'target_ops_per_sec',
      'achieved_ops_per_sec',
      'good_ops_per_sec',
      'attainment',
      'read_service_p99_us',
      'update_intended_p9999_us',
      'all_service_max_us',
      'status_ok',
      'errors',
      'throttled_attempts',
      'incomplete',
      'incomplete_reason',
      'monthly_cost_provisioned_usd',
      'monthly_cost_on_demand_usd',
      'monthly_cost_usd',
      'cost_per_million_ops_usd',
    ]) {
      expect(cells).toContain(c);
    }
    expect(glueColumns('cells').partitionKeys.map((c) => c.Name)).toEqual(['run_date', 'spec_name']);
    expect(duckdbViewSql('intervals', '/r')).toContain("read_json('/r/tables/intervals/**/*.jsonl'");
  });
});

describe('rows from a real aggregation', () => {
  let agg: CellAggregate;
  beforeAll(async () => {
    agg = await aggregateCell(await readCellDir(FIXTURE), { warmupSeconds: 3, targetOpsPerSec: 1200 });
  });
  const meta = {
    runId: 'r-1',
    specName: 'fixture',
    startedAtMs: Date.UTC(2026, 10, 22, 17, 5),
    cellId: 'c-0',
    targetId: 'basic',
    targetKind: 'dynamodb-local',
    distribution: 'zipfian',
    readProportion: 0.5,
    updateProportion: 0.5,
  };

  it('builds a valid cells row whose figures come from the aggregation', () => {
    const row = buildCellRow(meta, agg, {
      monthlyCostProvisionedUsd: null,
      monthlyCostOnDemandUsd: null,
      monthlyCostUsd: 100,
      hoursPerMonth: 730,
    });
    expect(row.run_date).toBe('2026-11-22');
    expect(row.read_service_p99_us).toBe(agg.ops.READ.p99);
    expect(row.update_intended_max_us).toBe(agg.ops['Intended-UPDATE'].max);
    expect(row.all_service_count).toBe(agg.ops.READ.count + agg.ops.UPDATE.count);
    expect(row.status_ok).toBe(agg.statuses.READ.OK + agg.statuses.UPDATE.OK);
    expect(row.attainment).toBeCloseTo(agg.goodOpsPerSec / 1200, 12);
    expect(row.incomplete).toBe(false);
    expect(row.monthly_cost_on_demand_usd).toBeNull();
    // 100 USD over a month (730 h, the price book's) of good ops at the achieved rate
    expect(row.cost_per_million_ops_usd).toBeCloseTo(100 / ((agg.goodOpsPerSec * 730 * 3600) / 1e6), 12);
  });

  it('builds interval rows and a runs row, serialised as JSON lines', async () => {
    const rows = buildIntervalRows(meta, agg);
    // one row per (bucket, measurement name)
    expect(rows).toHaveLength(agg.series.reduce((a, b) => a + Object.keys(b.ops).length, 0));
    expect(rows.length).toBe(new Set(rows.map((r) => `${r.offset_seconds}/${r.op}`)).size);
    expect(rows.some((r) => r.in_window === false)).toBe(true);
    const total = rows.filter((r) => r.op === 'READ').reduce((a, r) => a + (r.count as number), 0);
    expect(total).toBe((await aggregateCell(await readCellDir(FIXTURE), {})).ops.READ.count);
    const cell = buildCellRow(meta, agg);
    const run = buildRunRow(
      {
        ...meta,
        endedAtMs: null,
        status: 'SUCCEEDED',
        mode: 'local',
        region: null,
        priceBook: null,
        cellsTotal: 1,
        runCostEstimateUsd: null,
      },
      [cell],
    );
    expect(run.cells_incomplete).toBe(0);
    const lines = toJsonLines(tableDef('cells'), [cell]).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(Object.keys(JSON.parse(lines[0]))[0]).toBe('run_id');
    expect(tableObjectKey(tableDef('cells'), meta, 'c-0')).toBe(
      'tables/cells/run_date=2026-11-22/spec_name=fixture/c-0.jsonl',
    );
  });

  it('rejects rows that do not match the table', () => {
    const row = buildCellRow(meta, agg);
    expect(() => validateRow(tableDef('cells'), { ...row, bogus: 1 })).toThrow(/bogus: not a column/);
    expect(() => validateRow(tableDef('cells'), { ...row, run_id: null })).toThrow(/run_id: null/);
    expect(() => validateRow(tableDef('cells'), { ...row, errors: 1.5 })).toThrow(
      /errors: expected an integer/,
    );
  });
});
