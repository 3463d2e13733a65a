/**
 * examples/local-slo-search.json end to end: an SLO search through the state machine definition with real YCSB
 * against DynamoDB Local behind the capacity emulator. The emulated hot key admits 100 WCU/s (1,000 × scale 0.1);
 * half the updates (2 WCU each) go to it and none are retried, so a cell at r ops/s attains 1/2 + 50/r: 95 % up to
 * 111 ops/s (worked in the example and docs/slo-search.md; the plan's model says the same). The search must find
 * that limit within 10 % in at most 8 probes, and its frontier row must say so. About 2 minutes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { openLocalDb } from '../../lib/local/query';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';

const spec = validateSpec(
  JSON.parse(readFileSync(path.join(__dirname, '../../examples/local-slo-search.json'), 'utf8')),
).spec;
/** The hot key's limit worked by hand: 1/2 + 50/r ≥ 0.95 ⇔ r ≤ 50 / 0.45. */
const HAND_LIMIT = Math.floor(50 / 0.45);

describe('local SLO search (examples/local-slo-search.json)', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-slo-'));
  let result: LocalRunResult;
  const lines: string[] = [];

  beforeAll(async () => {
    result = await runLocal({ spec, resultsDir, runName: 'slo-run', out: (l) => lines.push(l) });
  }, 400_000);

  it('finds the emulated limit within 10 % of the predicted one in at most 8 probes', async () => {
    expect({ status: result.status, error: result.error }).toEqual({ status: 'SUCCEEDED', error: undefined });
    const db = await openLocalDb(resultsDir);
    try {
      const [f] = await db.queryJson("SELECT * FROM frontier WHERE run_id = 'slo-run'");
      const cells = await db.queryJson(
        "SELECT cell_id, target_ops_per_sec, attainment, error_rate, all_intended_p99_us, all_intended_incl_failed_p99_us, good_ops_per_sec, monthly_cost_usd FROM cells WHERE run_id = 'slo-run' ORDER BY window_start_ms",
      );
      console.log(
        `found ${String(f!.found_ops_per_sec)} ops/s (predicted ${String(f!.predicted_limit_ops_per_sec)}) in ${String(f!.probes)} probes: ` +
          cells
            .map((c) => `${String(c.target_ops_per_sec)} → ${(Number(c.attainment) * 100).toFixed(1)} %`)
            .join(', '),
      );
      expect(f).toMatchObject({
        search_id: 'ddb.hotspot-1-50.r0',
        target_id: 'ddb',
        outcome: 'converged',
        predicted_limit_ops_per_sec: HAND_LIMIT,
        probes_planned: 9,
        slo_column: 'all_intended_incl_failed_p99_us',
      });
      const found = Number(f!.found_ops_per_sec);
      expect(Math.abs(found - HAND_LIMIT) / HAND_LIMIT).toBeLessThanOrEqual(0.1);
      expect(Number(f!.probes)).toBeLessThanOrEqual(8);
      // the probes that ran are the cells of the run, one row each; the skipped ones left none
      expect(cells).toHaveLength(Number(f!.probes));
      // the search starts at the ramp rate below the prediction (20 × 2² = 80), then the bracket above it
      expect(cells[0]!.target_ops_per_sec).toBe(80);
      // the found rate's own row meets the SLO and the conditions; the first failing rate is within the resolution
      const at = cells.find((c) => c.target_ops_per_sec === found)!;
      expect(Number(at.attainment)).toBeGreaterThanOrEqual(0.95);
      expect(Number(at.error_rate)).toBeLessThanOrEqual(0.05);
      // the SLO's percentile is of all operations, failed ones included (its column): at most the bound, and the
      // frontier's latency is that row's figure
      expect(Number(at.all_intended_incl_failed_p99_us)).toBeLessThanOrEqual(1_000_000);
      expect(f!.found_latency_us).toBe(at.all_intended_incl_failed_p99_us);
      expect(Number(f!.failed_ops_per_sec) - found).toBeLessThanOrEqual(10);
      // the found probe's own cost (a provisioned table costs what its capacity costs, at any rate it serves), per
      // million of the good operations it measured (AWS's month of 730 h)
      expect(Number(f!.monthly_cost_usd)).toBeGreaterThan(0);
      expect(f!.monthly_cost_usd).toBe(at.monthly_cost_usd);
      expect(f!.found_good_ops_per_sec).toBe(at.good_ops_per_sec);
      expect(Number(f!.cost_per_million_ops_usd)).toBeCloseTo(
        Number(f!.monthly_cost_usd) / ((Number(at.good_ops_per_sec) * 730 * 3600) / 1e6),
        4,
      );
    } finally {
      db.close();
    }
    const html = readFileSync(result.reportFile!, 'utf8');
    expect(html).toContain('data-table="searches"');
    expect(html).toContain('data-table="probes-ddb.hotspot-1-50.r0"');
    expect(html).toMatch(/data-chart="frontier"|data-table="frontier"/);
  });
});
