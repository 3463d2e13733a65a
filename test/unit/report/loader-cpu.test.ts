/** The report's loader CPU: per loader in its own table, the highest per cell, suspect cells flagged with why. */
import { reportCellOf } from '../../../lib/core/report/data';
import { renderReport } from '../../../lib/core/report/html';
import { loaderCpuJson } from '../../../lib/core/results/loader-cpu';
import type { Row } from '../../../lib/core/results/rows';

const row = (id: string, over: Row): Row => ({
  cell_id: id,
  target_id: 'ddb',
  distribution: 'uniform',
  read_proportion: 0.5,
  target_ops_per_sec: 100,
  achieved_ops_per_sec: 100,
  good_ops_per_sec: 100,
  attainment: 1,
  errors: 0,
  throttled_attempts: 0,
  incomplete: false,
  incomplete_reason: null,
  ...over,
});

describe('report: loader CPU', () => {
  const hot = row('ddb.uniform.r50.t100', {
    loader_cpu_max_pct: 85.2,
    loader_cpu_json: loaderCpuJson([
      { loader: 0, host: 'ip-10-0-0-5', cores: 8, machinePct: 41.04, jvmPct: 30.2 },
      { loader: 1, host: 'ip-10-0-0-6', cores: 8, machinePct: 85.2, jvmPct: 72.9 },
    ]),
    suspect: true,
    suspect_reason: 'loader-1 (ip-10-0-0-6) CPU 85.2 % > 70 % of its 8 CPUs',
  });
  const cool = row('ddb.uniform.r50.t200', { suspect: false, suspect_reason: null, loader_cpu_json: null });
  const cells = [reportCellOf(hot), reportCellOf(cool)];
  const html = renderReport({
    runId: 'r',
    specName: 's',
    startedAt: 'x',
    status: 'SUCCEEDED',
    series: {},
    cells,
  });

  it('reads the row: the reason and the per-loader figures', () => {
    expect(cells[0]!.suspect).toBe(true);
    expect(cells[0]!.suspectReason).toBe('loader-1 (ip-10-0-0-6) CPU 85.2 % > 70 % of its 8 CPUs');
    expect(cells[0]!.loaderCpu).toEqual([
      { loader: 0, host: 'ip-10-0-0-5', cores: 8, machinePct: 41, jvmPct: 30.2 },
      { loader: 1, host: 'ip-10-0-0-6', cores: 8, machinePct: 85.2, jvmPct: 72.9 },
    ]);
    expect(cells[1]!).toMatchObject({ suspect: false, suspectReason: null, loaderCpu: [] });
  });

  it('flags the suspect cell with its reason and shows its hottest loader', () => {
    const hotRow =
      /<tr class="suspect"><td>ddb\.uniform\.r50\.t100 <span class="flag" title="([^"]+)">suspect<\/span><\/td>.*?<\/tr>/.exec(
        html,
      );
    expect(hotRow?.[1]).toBe('loader-1 (ip-10-0-0-6) CPU 85.2 % &gt; 70 % of its 8 CPUs');
    expect(hotRow![0]).toContain('<td title="loader-0: 41.0%, loader-1: 85.2%" class="hot">85.2%</td>');
    const coolRow = /<tr><td>ddb\.uniform\.r50\.t200<\/td>.*?<\/tr>/.exec(html);
    expect(coolRow?.[0]).not.toContain('suspect');
  });

  it('has a table per loader: machine and JVM CPU, the hot one marked', () => {
    const table = /<h2>Loader CPU<\/h2>.*?<table class="loaders">(.*?)<\/table>/s.exec(html)?.[1] ?? '';
    const rows = [
      ...table.matchAll(
        /<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>(\d+)<\/td><td( class="hot")?>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map((m) => [m[1], m[2], m[3], m[4], m[5] ? 'hot' : '', m[6], m[7]]);
    expect(rows).toEqual([
      ['ddb.uniform.r50.t100', 'loader-0', 'ip-10-0-0-5', '8', '', '41.0%', '30.2%'],
      ['ddb.uniform.r50.t100', 'loader-1', 'ip-10-0-0-6', '8', 'hot', '85.2%', '72.9%'],
    ]);
  });

  it('no loader measured: no loader CPU section', () => {
    const none = renderReport({
      runId: 'r',
      specName: 's',
      startedAt: 'x',
      status: 'SUCCEEDED',
      series: {},
      cells: [cells[1]!],
    });
    expect(none).not.toContain('<h2>Loader CPU</h2>');
  });
});
