/** The report's time series: an empty bucket is a gap (no ops means no latency, not 0). */
import { lineChart } from '../../../lib/core/report/svg';
import { seriesOf } from '../../../lib/core/report/data';

const row = (
  op: string,
  t: number,
  count: number,
  opsPerSec: number,
  p50: number | null,
  p99: number | null,
) => ({
  op,
  offset_seconds: t,
  count,
  ops_per_sec: opsPerSec,
  p50_us: p50,
  p99_us: p99,
});

describe('gaps', () => {
  it('a null y breaks the line: two pieces, only the real points drawn', () => {
    const svg = lineChart({
      id: 'c',
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: 's',
          points: [
            [0, 1],
            [1, null],
            [2, 3],
            [3, 4],
          ],
        },
      ],
    });
    const d = /<path class="line" d="([^"]+)"/.exec(svg)![1]!;
    expect(d.match(/[ML]/g)).toEqual(['M', 'M', 'L']);
    expect(svg).toContain('data-points="3"');
    expect(svg.match(/<circle /g)).toHaveLength(3);
  });

  it('a series of gaps only is "no data", not a line at zero', () => {
    const svg = lineChart({
      id: 'c',
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [{ name: 's', points: [[0, null]] }],
    });
    expect(svg).toContain('data-empty="true"');
  });

  it('seriesOf: a bucket without base operations has null ops/s and latency', () => {
    const pts = seriesOf([
      row('READ', 0, 100, 10, 900, 1500),
      row('Intended-READ', 0, 100, 10, 1000, 2000),
      row('READ', 10, 0, 0, null, null),
      row('Intended-READ', 10, 0, 0, null, null),
      row('READ', 20, 5, 20, 800, 800),
      row('Intended-READ', 20, 5, 20, 850, 900),
    ]);
    expect(pts).toEqual([
      { t: 0, opsPerSec: 10, p50: 1000, p99: 2000 },
      { t: 10, opsPerSec: null, p50: null, p99: null },
      { t: 20, opsPerSec: 20, p50: 850, p99: 900 },
    ]);
  });
});
