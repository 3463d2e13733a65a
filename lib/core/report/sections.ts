/**
 * The report's sections for issue #31: the comparison with a baseline run and the percentile spectrum (latency
 * by percentile on a 1/(1−p) axis, as HdrHistogram users read it).
 */
import { escapeXml, fmtNum, lineChart, type Series } from './svg';
import { cellFlags, COMPARE_METRICS, pctText, type Comparison } from './compare';
import type { FamilySpectrum, Spectrum } from '../results/aggregate';
import type { CellHeadline } from '../contract/headline';

/** x on the spectrum's axis: log10(1 / (1 − p)), so 90 %, 99 %, 99.9 % … are evenly spaced. */
export const spectrumX = (percentile: number): number => Math.log10(1 / (1 - percentile / 100));

const percentileLabel = (x: number): string => `${+(100 * (1 - Math.pow(10, -x))).toPrecision(6)}%`;

/** The spectrum's points in ms; the maximum (100 %, infinitely far on this axis) is left out. */
function points(s: Spectrum): [number, number][] {
  return s.filter(([p]) => p < 100).map(([p, us]) => [spectrumX(p), us / 1000]);
}

const FAMILIES = ['READ', 'UPDATE', 'ALL'] as const;

/** The operation families with data in any of the cells: READ and UPDATE, or ALL when neither has any. */
function familiesOf(spectra: Record<string, FamilySpectrum>[]): string[] {
  const has = (f: string) =>
    spectra.some((s) => (s[f]?.intended.length ?? 0) + (s[f]?.service.length ?? 0) > 0);
  const ops = FAMILIES.filter((f) => f !== 'ALL' && has(f));
  return ops.length ? ops : has('ALL') ? ['ALL'] : [];
}

/**
 * One chart per cell shape (distribution × read ratio × throughput target) and operation: a line per
 * target, intended solid and service time dashed in the target's colour.
 */
export function spectrumSection(
  cells: readonly CellHeadline[],
  spectra: Record<string, Record<string, FamilySpectrum>>,
): string[] {
  const withSpectrum = cells.filter((c) => spectra[c.cellId]);
  if (!withSpectrum.length) return [];
  const shapes = new Map<string, CellHeadline[]>();
  for (const c of withSpectrum) {
    const key = `${c.distribution}, read ${c.readProportion}, ${fmtNum(c.targetOpsPerSec)} ops/s`;
    shapes.set(key, [...(shapes.get(key) ?? []), c]);
  }
  const out = [
    '<h2>Percentile spectrum</h2>',
    "<p>Latency by percentile from each cell's merged histogram, on a 1/(1−p) axis: intended (coordinated-omission corrected) solid, service time dashed, one colour per target.</p>",
    '<div class="grid">',
  ];
  for (const [shape, group] of shapes) {
    for (const family of familiesOf(group.map((c) => spectra[c.cellId]!))) {
      const series: Series[] = group.flatMap((c, k) => {
        const s = spectra[c.cellId]![family];
        if (!s) return [];
        return [
          { name: `${c.target} intended`, points: points(s.intended), colorIndex: k },
          { name: `${c.target} service`, points: points(s.service), colorIndex: k, dashed: true },
        ].filter((x) => x.points.length > 0);
      });
      const maxX = Math.max(...series.flatMap((s) => s.points.map(([x]) => x)));
      const ticks = [0, 90, 99, 99.9, 99.99, 99.999]
        .map((p) => ({ value: spectrumX(p), label: `${p}%` }))
        .filter((t) => t.value <= Math.ceil(maxX));
      const id = `spectrum-${group.map((c) => c.cellId).join('+')}-${family}`;
      out.push(
        `<div class="spectrum" data-cells="${escapeXml(group.map((c) => c.cellId).join(' '))}" data-op="${family}">` +
          lineChart({
            id,
            title: `${family === 'ALL' ? 'All operations' : family}: latency by percentile — ${shape}`,
            xLabel: 'percentile',
            yLabel: 'latency (ms)',
            yUnit: 'ms',
            series,
            logY: true,
            xTicks: ticks,
            xFormat: percentileLabel,
          }) +
          '</div>',
      );
    }
  }
  out.push('</div>');
  return out;
}

const value = (v: number | null, unit: string): string =>
  v === null
    ? '–'
    : unit === 'USD'
      ? `$${v.toFixed(2)}`
      : unit === 'µs'
        ? `${fmtNum(v / 1000)} ms`
        : fmtNum(v);

/** The comparison with the baseline run: per cell and metric, the change, its 95 % interval and the verdict. */
export function comparisonSection(c: Comparison | undefined): string[] {
  if (!c) return [];
  const rows = c.cells.flatMap((cell) =>
    cell.metrics.map((m) => {
      const def = COMPARE_METRICS.find((d) => d.id === m.metric)!;
      const cls = m.verdict === 'worse' ? ' class="worse"' : m.verdict === 'better' ? ' class="better"' : '';
      return (
        `<tr data-cell="${escapeXml(cell.cellId)}" data-metric="${m.metric}" data-verdict="${m.verdict}"><td>${escapeXml(cell.cellId)}</td><td>${escapeXml(def.label)}</td>` +
        `<td>${value(m.baseline, m.unit)}</td><td>${value(m.run, m.unit)}</td><td>${m.change === null ? '–' : pctText(m.change)}</td>` +
        `<td${m.note ? ` title="${escapeXml(m.note)}"` : ''}>${m.ci ? `${pctText(m.ci[0])} … ${pctText(m.ci[1])}` : '–'}</td><td${cls}>${m.verdict}</td></tr>`
      );
    }),
  );
  const only = [
    ...cellFlags(c).map((f) => `<li>${escapeXml(f)}</li>`),
    ...(c.onlyInRun.length ? [`<li>only in this run: ${escapeXml(c.onlyInRun.join(', '))}</li>`] : []),
    ...(c.onlyInBaseline.length
      ? [`<li>only in the baseline: ${escapeXml(c.onlyInBaseline.join(', '))}</li>`]
      : []),
  ];
  return [
    `<h2>Against baseline <code>${escapeXml(c.baselineId)}</code></h2>`,
    `<p>Change of this run against the baseline, per cell: 95 % intervals from a ${c.method.kind} over the cells' status intervals ` +
      `(${c.method.resamples} resamples, seed ${c.method.seed}); a verdict only where the interval excludes no change. ` +
      '<code>fleetbench compare</code> prints the same.</p>',
    `<div class="scroll"><table class="comparison"><thead><tr><th>cell</th><th>metric</th><th>baseline</th><th>this run</th><th>change</th><th>95 % interval</th><th>verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`,
    ...(only.length ? [`<ul>${only.join('')}</ul>`] : []),
  ];
}
