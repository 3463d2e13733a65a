/** The report's predicted-vs-measured attainment (the DynamoDB capacity model's prediction per cell). */
import { renderReport, type ReportCell } from '../../../lib/core/report/html';

const cell = (
  id: string,
  attainment: number,
  predicted: ReportCell['predicted'],
  aws: ReportCell['predictedAws'],
): ReportCell => ({
  cellId: id,
  target: 'ddb',
  distribution: id.split('.')[1]!,
  readProportion: 0.1,
  targetOpsPerSec: 100,
  achievedOpsPerSec: attainment * 100,
  goodOpsPerSec: attainment * 100,
  attainment,
  intendedP50Us: 1000,
  intendedP99Us: 2000,
  intendedP999Us: 3000,
  serviceP50Us: 900,
  serviceP99Us: 1900,
  serviceP999Us: 2900,
  errors: 0,
  throttles: 0,
  monthlyCostProvisionedUsd: 1,
  monthlyCostOnDemandUsd: 2,
  monthlyCostUsd: 1,
  costPerMillionOpsUsd: 1 / (attainment * 360 * 730),
  incomplete: false,
  incompleteReason: null,
  suspect: false,
  suspectReason: null,
  predicted,
  predictedAws: aws,
});

describe('report: predicted vs measured attainment', () => {
  const html = renderReport({
    runId: 'r',
    specName: 's',
    startedAt: 'x',
    status: 'SUCCEEDED',
    series: {},
    cells: [
      cell(
        'ddb.zipfian.r10.t100',
        0.729,
        { attainment: 0.755, limitedBy: 'item', reason: 'the hottest item …' },
        { attainment: 1, limitedBy: 'none' },
      ),
      cell('ddb.uniform.r10.t100', 1.0, null, null),
    ],
  });
  it('has both prediction columns with the limit named, and "–" where there is none', () => {
    expect(html).toContain('<th>predicted</th><th>predicted on AWS</th>');
    expect(html).toMatch(
      /<td class="predicted" title="item: the hottest item …">75\.5% <small>item<\/small><\/td><td class="predicted" title="none">100\.0%<\/td>/,
    );
    expect(html).toMatch(/<td>100\.0%<\/td><td>–<\/td><td>–<\/td>/);
  });
  it('charts measured against predicted for the modelled cells only', () => {
    const chart = html.slice(html.indexOf('data-chart="attainment-predicted"'));
    expect(chart).toContain('ddb.zipfian.r10.t100 measured');
    expect(chart).toContain('ddb.zipfian.r10.t100 predicted');
    expect(chart.slice(0, chart.indexOf('</figure>'))).not.toContain('ddb.uniform');
  });
});
