/**
 * The report's SLO search sections (lib/core/report/searches.ts): the answer beside the prediction, the probes, the
 * cheapest target meeting the SLO at the required rate, and cost against throughput with SLO-passing probes marked.
 */
import { searchSections } from '../../../lib/core/report/searches';
import type { CellHeadline } from '../../../lib/core/contract/headline';

const probes = (id: string, rates: [number, boolean][]) =>
  JSON.stringify(
    rates.map(([rate, pass], i) => ({
      cell_id: `${id}.probe${i + 1}`,
      rate,
      pass,
      latency_us: pass ? 4000 : 25_000,
      attainment: pass ? 1 : 0.8,
      error_rate: 0,
      reasons: pass ? [] : ['intended P99 of all operations (failed ones included) ≤ 10 ms missed: 25.00 ms'],
    })),
  );

const search = (target: string, found: number, cost: number, costAtRequired: number, meets: boolean) => ({
  search_id: `${target}.uniform.r50`,
  target_id: target,
  slo: 'intended P99 of all operations (failed ones included) ≤ 10 ms',
  outcome: 'converged',
  found_ops_per_sec: found,
  predicted_limit_ops_per_sec: target === 'ddb' ? 1100 : null,
  probes: 2,
  probes_planned: 9,
  found_latency_us: 4000,
  monthly_cost_usd: cost,
  cost_per_million_ops_usd: 0.5,
  required_ops_per_sec: 900,
  meets_required: meets,
  monthly_cost_at_required_usd: costAtRequired,
  probes_json: probes(`${target}.uniform.r50`, [
    [found, true],
    [found * 2, false],
  ]),
});

const cell = (cellId: string, ops: number, usd: number): CellHeadline =>
  ({ cellId, achievedOpsPerSec: ops, monthlyCostUsd: usd }) as CellHeadline;

describe('searchSections', () => {
  const searches = [search('ddb', 1000, 700, 650, true), search('scylla', 1200, 500, 480, true)];
  const cells = [
    cell('ddb.uniform.r50.probe1', 1000, 700),
    cell('ddb.uniform.r50.probe2', 1900, 1300),
    cell('scylla.uniform.r50.probe1', 1200, 500),
    cell('scylla.uniform.r50.probe2', 2400, 500),
  ];
  const html = searchSections(searches, cells).join('\n');

  it('shows the answer against the prediction and every probe', () => {
    expect(html).toContain('data-table="searches"');
    // 1,000 found against 1,100 predicted: 90.9 %
    expect(html).toContain('<td>1,000</td><td>1,100</td><td>90.9 %</td><td>2 (9)</td>');
    expect(html).toContain('data-table="probes-ddb.uniform.r50"');
    expect(html).toContain('25.00 ms');
  });

  it('names the cheapest target meeting the SLO at the required rate', () => {
    expect(html).toContain('data-cheapest="scylla.uniform.r50"');
    expect(html).toMatch(
      /Cheapest meeting the SLO at 900 ops\/s: <strong>scylla<\/strong>.*\$480\.00.*ddb \$650\.00/,
    );
  });

  it('draws cost against throughput, one line per target, the passing probes marked', () => {
    expect(html).toContain('data-chart="frontier"');
    expect(html).toContain('data-series="ddb.uniform.r50 (marked: meets the SLO)"');
    expect(html).toContain('data-series="scylla.uniform.r50 (marked: meets the SLO)"');
    // the passing probes (at 1,000 and 1,200 ops/s) are marked, the failing ones (1,900, 2,400) are not
    expect([...html.matchAll(/data-mark="(\d+)"/g)].map((m) => Number(m[1]))).toEqual([1000, 1200]);
  });

  it('notes a suspect probe (loader CPU) without changing its verdict; older rows without the field show none', () => {
    const note = 'loader CPU suspect: loader-0 CPU 93.0 % > 70 % of its 2 CPUs';
    const json = JSON.parse(String(searches[0]!.probes_json)) as Record<string, unknown>[];
    json[0]!.suspect = note;
    const one = searchSections([{ ...searches[0]!, probes_json: JSON.stringify(json) }], cells).join('\n');
    expect(one).toContain('<th>loader (pass/fail unchanged)</th>');
    expect(one).toMatch(
      /<tr class="pass">.*<td>pass<\/td>.*<td class="flag">loader CPU suspect: loader-0 CPU 93\.0 % &gt; 70 %/,
    );
    expect(html).not.toContain('class="flag"');
  });

  it('is absent without searches', () => {
    expect(searchSections(undefined, cells)).toEqual([]);
    expect(searchSections([], cells)).toEqual([]);
  });
});
