import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NAMED_QUERIES } from '../../lib/core/pipeline';
import { tableDef, type TableDef } from '../../lib/core/results/schema';
import { tableObjectKey, toJsonLines, validateRow, type Row } from '../../lib/core/results/rows';
import { openLocalDb } from '../../lib/local/query';
import { InputError } from '../../lib/core/common/errors';

/** A row with every column of the table: nulls where allowed, zeros/empties otherwise, then `values`. */
function row(t: TableDef, values: Row): Row {
  const r: Row = {};
  for (const c of [...t.partitionKeys, ...t.columns]) {
    r[c.name] = c.nullable ? null : c.type === 'string' ? '' : c.type === 'boolean' ? false : 0;
  }
  return validateRow(t, { ...r, ...values });
}

function writeTable(
  dir: string,
  t: TableDef,
  meta: { runId: string; specName: string; startedAtMs: number },
  rows: Row[],
) {
  const file = join(dir, tableObjectKey(t, meta, meta.runId));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, toJsonLines(t, rows));
}

describe('local SQL over the result tables (DuckDB)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetbench-query-'));
  const cells = tableDef('cells');
  const runs = tableDef('runs');
  const runsMeta = [
    { runId: 'r1', specName: 'nightly', startedAtMs: Date.UTC(2026, 10, 20) },
    { runId: 'r2', specName: 'nightly', startedAtMs: Date.UTC(2026, 10, 21) },
    { runId: 'r3', specName: 'nightly', startedAtMs: Date.UTC(2026, 10, 22) },
  ];
  const p99 = { r1: 10_000, r2: 12_000, r3: 22_000 } as Record<string, number>;
  for (const m of runsMeta) {
    const part = { run_date: new Date(m.startedAtMs).toISOString().slice(0, 10), spec_name: m.specName };
    writeTable(dir, runs, m, [
      row(runs, {
        ...part,
        run_id: m.runId,
        started_at_ms: m.startedAtMs,
        status: 'SUCCEEDED',
        mode: 'local',
        cells_total: 1,
      }),
    ]);
    writeTable(dir, cells, m, [
      row(cells, {
        ...part,
        run_id: m.runId,
        cell_id: 'ddb.zipfian.r50.t300',
        target_id: 'ddb',
        distribution: 'zipfian',
        read_proportion: 0.5,
        update_proportion: 0.5,
        target_ops_per_sec: 300,
        good_ops_per_sec: 299,
        attainment: 299 / 300,
        all_intended_p99_us: p99[m.runId]!,
        monthly_cost_provisioned_usd: 12.5,
      }),
    ]);
  }

  it('exposes runs, cells and intervals with the Athena column names', async () => {
    const db = await openLocalDb(dir);
    try {
      const rows = await db.query('SELECT run_id, all_intended_p99_us, spec_name FROM cells ORDER BY run_id');
      expect(rows).toEqual([
        { run_id: 'r1', all_intended_p99_us: 10000, spec_name: 'nightly' },
        { run_id: 'r2', all_intended_p99_us: 12000, spec_name: 'nightly' },
        { run_id: 'r3', all_intended_p99_us: 22000, spec_name: 'nightly' },
      ]);
      // no interval rows written: the view exists and is empty
      expect(await db.query('SELECT count(*) AS n FROM intervals')).toEqual([{ n: '0' }]);
    } finally {
      db.close();
    }
  });

  it('exposes the changes table written by regression detection', async () => {
    const changes = tableDef('changes');
    const m = runsMeta[2]!;
    writeTable(dir, changes, m, [
      row(changes, {
        run_date: '2026-11-22',
        spec_name: 'nightly',
        run_id: 'r3',
        detected_at_ms: m.startedAtMs + 1000,
        target_id: 'ddb',
        cell_id: 'ddb.zipfian.r50.t300',
        metric: 'intended_p99_us',
        better: 'lower',
        kind: 'regression',
        status: 'suspect',
        change_run_id: 'r3',
        change_run_at_ms: m.startedAtMs,
        mean_before: 11_000,
        mean_after: 22_000,
        n_before: 2,
        n_after: 1,
        magnitude: 1,
        forward_change: 1,
        method: 'guard',
        options_json: '{}',
      }),
    ]);
    const db = await openLocalDb(dir);
    try {
      expect(
        await db.query(
          "SELECT change_run_id, status, forward_change, p_value FROM changes WHERE spec_name = 'nightly'",
        ),
      ).toEqual([{ change_run_id: 'r3', status: 'suspect', forward_change: 1, p_value: null }]);
    } finally {
      db.close();
    }
  });

  it('runs every named query of the Athena workgroup', async () => {
    const db = await openLocalDb(dir);
    try {
      for (const q of NAMED_QUERIES) {
        const rows = await db.query(q.sql, Array(q.parameters).fill('nightly'));
        // the only changes row here is a suspect, which the regressions query leaves out
        expect({ name: q.name, rows: rows.length > 0 }).toEqual({
          name: q.name,
          rows: q.name !== 'regressions',
        });
      }
      const q = NAMED_QUERIES.find((x) => x.name === 'latest-run-vs-previous')!;
      const [latest] = await db.query(q.sql, Array(q.parameters).fill('nightly'));
      // r3 (22 ms) against the mean of r1 (10 ms) and r2 (12 ms)
      expect(latest).toMatchObject({ latest_p99_ms: 22, previous_mean_p99_ms: 11, previous_runs: '2' });
    } finally {
      db.close();
    }
  });

  it('bad SQL is an input error naming the problem', async () => {
    const db = await openLocalDb(dir);
    try {
      await expect(db.query('SELECT nope FROM cells')).rejects.toThrow(InputError);
    } finally {
      db.close();
    }
  });
});
