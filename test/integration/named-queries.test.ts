/**
 * The Athena named queries over `cells` with failed cells and SLO probes in the history, run as SQL in DuckDB (the
 * local mode's engine, lib/local/query.ts). A failed cell's row (CellFailed: unmeasuredCellRow) holds 0 in its
 * non-null figures; no query may count it as a measured 0 ops/s or show it without its flag.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NAMED_QUERIES } from '../../lib/core/pipeline/named-queries';
import {
  buildRunRow,
  tableObjectKey,
  toJsonLines,
  unmeasuredCellRow,
  type Row,
} from '../../lib/core/results/rows';
import { tableDef } from '../../lib/core/results/schema';
import { openLocalDb, type SqlRow } from '../../lib/local/query';

const SPEC = 's';
const CELL = 't.uniform.r50.t10000';
const OTHER = 't.uniform.r90.t10000';
const PROBE = 't.uniform.r50.probe1';

/** Four runs of the spec, 100 s apart: r2's CELL failed, r4's (the latest) OTHER failed; each ran a probe at its own rate. */
const RUNS = [
  { id: 'r1', failed: [] as string[], probeOps: 400 },
  { id: 'r2', failed: [CELL], probeOps: 800 },
  { id: 'r3', failed: [], probeOps: 200 },
  { id: 'r4', failed: [OTHER], probeOps: 50 },
].map((r, i) => ({ ...r, at: Date.UTC(2026, 10, 20) + i * 100_000 }));

function cellRow(run: (typeof RUNS)[number], cellId: string, goodOps: number): Row {
  const meta = {
    runId: run.id,
    specName: SPEC,
    startedAtMs: run.at,
    cellId,
    targetId: 't',
    targetKind: 'dynamodb',
    distribution: 'uniform',
    readProportion: cellId === OTHER ? 0.9 : 0.5,
    updateProportion: cellId === OTHER ? 0.1 : 0.5,
  };
  const row = unmeasuredCellRow(meta, {
    targetOpsPerSec: goodOps,
    atMs: run.at,
    reason: 'cell failed: loader-0 lost',
  });
  if (run.failed.includes(cellId)) return row;
  return {
    ...row,
    incomplete: false,
    incomplete_reason: null,
    measured_seconds: 60,
    achieved_ops_per_sec: goodOps,
    good_ops_per_sec: goodOps,
    attainment: 1,
    all_intended_p50_us: 1_000,
    all_intended_p99_us: 2_000,
    monthly_cost_usd: 100,
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-nq-'));
beforeAll(() => {
  for (const run of RUNS) {
    const meta = { runId: run.id, specName: SPEC, startedAtMs: run.at };
    const rows = [cellRow(run, CELL, 10_000), cellRow(run, OTHER, 10_000), cellRow(run, PROBE, run.probeOps)];
    const runRow = buildRunRow(
      {
        ...meta,
        endedAtMs: run.at + 1,
        status: 'SUCCEEDED',
        mode: 'local',
        region: null,
        priceBook: null,
        cellsTotal: rows.length,
        runCostEstimateUsd: null,
      },
      rows,
    );
    const tables: ['cells' | 'runs', Row[]][] = [
      ['cells', rows],
      ['runs', [runRow]],
    ];
    for (const [t, content] of tables) {
      const file = path.join(dir, tableObjectKey(tableDef(t), meta, run.id));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, toJsonLines(tableDef(t), content));
    }
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(name: string): Promise<SqlRow[]> {
  const q = NAMED_QUERIES.find((x) => x.name === name)!;
  const db = await openLocalDb(dir);
  try {
    return await db.queryJson(q.sql, Array<string>(q.parameters).fill(SPEC));
  } finally {
    db.close();
  }
}

describe('named queries with failed cells and probes in the history', () => {
  it('latest-run-vs-previous: the previous mean is over measured runs (10,000 ops/s, not 6,666.67 with a failed run as 0)', async () => {
    const rows = await run('latest-run-vs-previous');
    expect(rows.find((r) => r.cell_id === CELL)).toMatchObject({
      latest_incomplete: false,
      latest_good_ops_per_sec: 10_000,
      latest_p99_ms: 2,
      previous_mean_good_ops_per_sec: 10_000,
      previous_mean_p99_ms: 2,
      previous_runs: 2,
    });
  });

  it('latest-run-vs-previous: a failed latest cell is flagged with its reason, no figure, and no probe is compared', async () => {
    const rows = await run('latest-run-vs-previous');
    expect(rows.map((r) => r.cell_id)).toEqual([CELL, OTHER]);
    expect(rows.find((r) => r.cell_id === OTHER)).toMatchObject({
      latest_incomplete: true,
      latest_incomplete_reason: 'cell failed: loader-0 lost',
      latest_good_ops_per_sec: null,
      latest_p99_ms: null,
      previous_mean_good_ops_per_sec: 10_000,
      previous_runs: 3,
    });
  });

  it.each(['p99-by-distribution-and-read-ratio', 'monthly-cost-per-target', 'attainment-errors-throttles'])(
    '%s: a failed cell shows its flag and reason and no figure (never 0 ops/s)',
    async (name) => {
      const rows = await run(name);
      const failed = rows.filter((r) => r.incomplete === true);
      // the latest run's OTHER (and, in the every-run query, r2's CELL)
      expect(failed.length).toBe(name === 'attainment-errors-throttles' ? 2 : 1);
      for (const r of failed) {
        expect(r.incomplete_reason).toBe('cell failed: loader-0 lost');
        expect(r.good_ops_per_sec).toBeNull();
        for (const col of ['p99_ms', 'monthly_cost_usd', 'errors', 'attainment'])
          if (col in r) expect([col, r[col]]).toEqual([col, null]);
      }
      // the measured cells keep their figures
      expect(rows.filter((r) => r.incomplete === false).every((r) => Number(r.good_ops_per_sec) > 0)).toBe(
        true,
      );
    },
  );
});
