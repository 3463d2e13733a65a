/**
 * The local mode end to end: the synthesized state machine, real YCSB against DynamoDB Local,
 * result rows, named queries, and the HTML report in headless Chromium.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NAMED_QUERIES } from '../../lib/core/pipeline';
import { validateSpec } from '../../lib/core/spec';
import { openLocalDb } from '../../lib/local/query';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { launchChromium } from '../support/chromium';

const spec = validateSpec({
  name: 'e2e',
  targets: [
    {
      id: 'ddb',
      kind: 'dynamodb',
      billing: { mode: 'provisioned', rcu: 1000, wcu: 1000 },
      consistentReads: true,
      expectedLatencyMs: 20,
    },
  ],
  dataset: { recordCount: 10000 },
  workload: {
    readProportions: [0.5],
    targetOpsPerSec: [120],
    distributions: ['uniform', 'zipfian'],
    durationSeconds: 15,
    warmupSeconds: 3,
  },
  loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 8 },
}).spec;

function manifests(dir: string): { operations: number; counts: Record<string, Record<string, number>> }[] {
  const out: { operations: number; counts: Record<string, Record<string, number>> }[] = [];
  for (const l of readdirSync(dir))
    for (const p of readdirSync(path.join(dir, l))) {
      const f = path.join(dir, l, p, 'manifest.json');
      if (existsSync(f)) out.push(JSON.parse(readFileSync(f, 'utf8')));
    }
  return out;
}

describe('local mode end to end (2 cells × 15 s, 10,000 records)', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-e2e-'));
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    result = await runLocal({ spec, resultsDir, runName: 'e2e-run', out: (l) => lines.push(l) });
  }, 600_000);

  it('succeeds, with a row for every cell whose op counts equal the YCSB summaries', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    const db = await openLocalDb(resultsDir);
    try {
      const rows = await db.query(
        "SELECT cell_id, status_ok + status_error + status_not_found + status_throttled + status_other AS ops, status_ok, errors, incomplete, good_ops_per_sec, monthly_cost_provisioned_usd FROM cells WHERE run_id = 'e2e-run' ORDER BY cell_id",
      );
      expect(rows.map((r) => r.cell_id)).toEqual(['ddb.uniform.r50.t120', 'ddb.zipfian.r50.t120']);
      for (const r of rows) {
        const ms = manifests(path.join(resultsDir, 'runs', 'e2e-run', 'cells', String(r.cell_id), 'raw'));
        expect(ms).toHaveLength(2);
        const fromSummaries = ms.reduce(
          (a, m) =>
            a + Object.values(m.counts).reduce((b, c) => b + Object.values(c).reduce((x, y) => x + y, 0), 0),
          0,
        );
        expect(Number(r.ops)).toBe(fromSummaries);
        expect(Number(r.ops)).toBeGreaterThan(1000);
        expect(r.incomplete).toBe(false);
        expect(Number(r.good_ops_per_sec)).toBeGreaterThan(0);
        expect(Number(r.monthly_cost_provisioned_usd)).toBeGreaterThan(0);
      }
      const runs = await db.query("SELECT status, cells_total FROM runs WHERE run_id = 'e2e-run'");
      expect(runs).toEqual([{ status: 'SUCCEEDED', cells_total: '2' }]);
      const intervals = await db.query(
        "SELECT count(*) AS n FROM intervals WHERE run_id = 'e2e-run' AND op = 'Intended-READ'",
      );
      expect(Number(intervals[0]!.n)).toBeGreaterThan(2);
      // loader CPU (Linux /proc) reaches the row through DuckDB, and the verdict follows its rule
      if (process.platform === 'linux') {
        const cpu = await db.query(
          "SELECT cell_id, loader_cpu_max_pct, loader_cpu_json, schedule_delay_p99_us, suspect, suspect_reason FROM cells WHERE run_id = 'e2e-run' ORDER BY cell_id",
        );
        for (const r of cpu) {
          const max = Number(r.loader_cpu_max_pct);
          expect(max).toBeGreaterThan(0);
          expect(max).toBeLessThanOrEqual(100);
          const loaders = JSON.parse(String(r.loader_cpu_json)) as { loader: number; machine_pct: number }[];
          expect(loaders.map((l) => l.loader)).toEqual([0]);
          expect(loaders[0]!.machine_pct).toBe(max); // one figure, rounded once (lib/core/results/loader-cpu.ts)
          const behind = r.schedule_delay_p99_us !== null && Number(r.schedule_delay_p99_us) > 10_000;
          expect(r.suspect).toBe(max > 70 || behind);
          if (max > 70) expect(String(r.suspect_reason)).toMatch(/^loader-0 .*CPU/);
        }
      }
    } finally {
      db.close();
    }
  });

  it("runs the Athena workgroup's named queries locally and they return rows (history ones: none yet)", async () => {
    const db = await openLocalDb(resultsDir);
    try {
      for (const q of NAMED_QUERIES) {
        const rows = await db.query(q.sql, Array(q.parameters).fill('e2e'));
        // a first run has no history, so no change points (test/timing/local-regression.test.ts has them)
        expect({ name: q.name, rows: rows.length > 0 }).toEqual({ name: q.name, rows: !q.needsHistory });
      }
    } finally {
      db.close();
    }
  });

  it('showed progress and tore down', () => {
    expect(lines.some((l) => /\[StartCell\] cell 2 of 2/.test(l))).toBe(true);
    expect(lines.some((l) => /ops\/s=/.test(l))).toBe(true);
    expect(existsSync(path.join(resultsDir, 'runs', 'e2e-run', 'teardown.json'))).toBe(true);
  });

  it('writes an HTML report whose charts draw in headless Chromium', async () => {
    expect(result.reportFile).toBe(path.join(resultsDir, 'runs', 'e2e-run', 'report.html'));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(result.reportFile!).href);
      const drawn = await page.$$eval('figure[data-chart]', (figs) =>
        figs.map((f) => ({
          id: f.getAttribute('data-chart'),
          lines: f.querySelectorAll('path.line, rect.bar').length,
        })),
      );
      expect(drawn.length).toBeGreaterThanOrEqual(6);
      for (const d of drawn) expect({ id: d.id, drawn: d.lines > 0 }).toEqual({ id: d.id, drawn: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});
