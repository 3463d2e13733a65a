/**
 * Minimal, dependency-free SVG charts for the offline HTML report: line charts with linear or
 * log axes, and horizontal bar charts. Every chart carries `data-chart` and every series
 * `data-series`, so tests (and people) can find what was drawn.
 */

export interface Series {
  name: string;
  /** [x, y]; a null y is a gap: the line breaks there (no data is not zero). */
  points: [number, number | null][];
  /** Points to mark (e.g. change points), as x values present in `points`. */
  marks?: number[];
  /** a dashed line (e.g. service time beside intended) */
  dashed?: boolean;
  /** the palette colour to use (default: the series' position), so related series can share one */
  colorIndex?: number;
}

export interface LineChartOptions {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  logY?: boolean;
  width?: number;
  height?: number;
  /** Show x values as categories (evenly spaced) instead of a linear scale. */
  categoricalX?: boolean;
  /** Fixed x ticks (value on the chart's x scale, label) instead of nice numbers. */
  xTicks?: { value: number; label: string }[];
  /** How an x value reads on hover and in a table (default: fmtNum). */
  xFormat?: (x: number) => string;
  /** The y unit shown on hover. */
  yUnit?: string;
}

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

export function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** "Nice" tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const span = hi - lo;
  const raw = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Math.round(v / step) * step);
  return out;
}

/** Log-axis ticks (as log10 values) at 1, 2 and 5 × 10^k within [lo, hi]; decades only when the range is wide. */
export function logTicks(lo: number, hi: number): number[] {
  const mults = hi - lo > 3 ? [1] : [1, 2, 5];
  const out: number[] = [];
  for (let k = Math.floor(lo); k <= Math.ceil(hi); k++)
    for (const m of mults) {
      const t = Math.log10(m * Math.pow(10, k));
      if (t >= lo - 1e-9 && t <= hi + 1e-9) out.push(t);
    }
  return out;
}

export function fmtNum(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toFixed(2)}G`;
  if (a >= 1e6) return `${+(v / 1e6).toFixed(2)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
  return String(+v.toPrecision(3));
}

interface Frame {
  W: number;
  H: number;
  m: { l: number; r: number; t: number; b: number };
  pw: number;
  ph: number;
}

/** The plot's scales: where an x or y value is drawn, and the ticks of both axes. */
interface Scales {
  logY: boolean;
  xPos: (x: number) => number;
  yPos: (y: number) => number;
  yTicks: { pos: number; label: string }[];
  xTicks: { pos: number; label: string }[];
}

function frameOf(o: LineChartOptions): Frame {
  const W = o.width ?? 640;
  const H = o.height ?? 320;
  const m = { l: 64, r: 16, t: 28, b: 44 };
  return { W, H, m, pw: W - m.l - m.r, ph: H - m.t - m.b - 18 * Math.ceil(o.series.length / 3) };
}

function yScale(
  o: LineChartOptions,
  f: Frame,
  all: [number, number][],
): Pick<Scales, 'logY' | 'yPos' | 'yTicks'> {
  const logY = !!o.logY && all.every(([, y]) => y > 0);
  const ty = (y: number) => (logY ? Math.log10(y) : y);
  let yLo = Math.min(...all.map(([, y]) => ty(y)));
  let yHi = Math.max(...all.map(([, y]) => ty(y)));
  if (!logY) yLo = Math.min(0, yLo);
  if (yHi === yLo) yHi = yLo + 1;
  if (logY) {
    // pad to whole 1-2-5 steps so the lines never sit on the frame
    yLo = Math.log10(Math.pow(10, yLo) * 0.8);
    yHi = Math.log10(Math.pow(10, yHi) * 1.25);
  }
  const ticks = logY ? logTicks(yLo, yHi) : niceTicks(yLo, yHi);
  if (!logY) yHi = Math.max(yHi, ...ticks);
  const at = (t: number) => f.m.t + f.ph - ((t - yLo) / (yHi - yLo)) * f.ph;
  return {
    logY,
    yPos: (y: number) => at(ty(y)),
    yTicks: ticks.map((t) => ({ pos: at(t), label: fmtNum(logY ? Math.pow(10, t) : t) })),
  };
}

function xScale(o: LineChartOptions, f: Frame, all: [number, number][]): Pick<Scales, 'xPos' | 'xTicks'> {
  const xsSorted = [...new Set(all.map(([x]) => x))].sort((a, b) => a - b);
  const lo = Math.min(xsSorted[0]!, ...(o.xTicks ?? []).map((t) => t.value));
  const hi = Math.max(xsSorted[xsSorted.length - 1]!, ...(o.xTicks ?? []).map((t) => t.value));
  const xPos = (x: number) => {
    if (o.categoricalX) {
      const i = xsSorted.indexOf(x);
      return f.m.l + (xsSorted.length === 1 ? f.pw / 2 : (i / (xsSorted.length - 1)) * f.pw);
    }
    return f.m.l + (hi === lo ? f.pw / 2 : ((x - lo) / (hi - lo)) * f.pw);
  };
  const ticks = o.xTicks
    ? o.xTicks
    : (o.categoricalX || xsSorted.length <= 8 ? xsSorted : niceTicks(lo, hi, 6)).map((v) => ({
        value: v,
        label: fmtNum(v),
      }));
  return { xPos, xTicks: ticks.map((t) => ({ pos: xPos(t.value), label: t.label })) };
}

function axes(o: LineChartOptions, f: Frame, s: Scales): string[] {
  const { m, pw, ph } = f;
  const parts = [`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="#fff" stroke="#ccc"/>`];
  for (const t of s.yTicks) {
    const y = t.pos.toFixed(1);
    parts.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${y}" y2="${y}" stroke="#eee"/>`);
    parts.push(
      `<text x="${m.l - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" class="tick">${t.label}</text>`,
    );
  }
  for (const t of s.xTicks) {
    // a label at the right edge ends there (centred, it would be cut off)
    const anchor = t.pos > m.l + pw - 24 ? 'end' : 'middle';
    parts.push(
      `<text x="${t.pos.toFixed(1)}" y="${m.t + ph + 16}" text-anchor="${anchor}" class="tick">${escapeXml(t.label)}</text>`,
    );
  }
  parts.push(
    `<text x="${m.l + pw / 2}" y="${m.t + ph + 34}" text-anchor="middle" class="axis">${escapeXml(o.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(14 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle" class="axis">${escapeXml(o.yLabel)}${s.logY ? ' (log)' : ''}</text>`,
  );
  return parts;
}

/** One series: its line (broken at gaps), a dot per point with its values on hover, its marks and legend. */
function seriesParts(o: LineChartOptions, f: Frame, s: Scales, series: Series, i: number): string[] {
  const color = PALETTE[(series.colorIndex ?? i) % PALETTE.length]!;
  const sorted = series.points.filter(([x]) => Number.isFinite(x)).sort((a, b) => a[0] - b[0]);
  const drawable = (y: number | null): y is number => y !== null && Number.isFinite(y) && (!s.logY || y > 0);
  const pts = sorted.filter((p): p is [number, number] => drawable(p[1]));
  if (pts.length === 0) return [];
  // a gap (null y) ends the line; the next point starts a new one
  const d: string[] = [];
  let pen = false;
  for (const [x, y] of sorted) {
    if (!drawable(y)) {
      pen = false;
      continue;
    }
    d.push(`${pen ? 'L' : 'M'}${s.xPos(x).toFixed(1)},${s.yPos(y).toFixed(1)}`);
    pen = true;
  }
  const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
  const xText = o.xFormat ?? fmtNum;
  const parts = [`<g data-series="${escapeXml(series.name)}" data-points="${pts.length}">`];
  parts.push(`<path class="line" d="${d.join(' ')}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
  for (const [x, y] of pts)
    parts.push(
      `<circle cx="${s.xPos(x).toFixed(1)}" cy="${s.yPos(y).toFixed(1)}" r="3" fill="${color}"><title>${escapeXml(series.name)}: ${escapeXml(xText(x))} → ${fmtNum(y)}${o.yUnit ? ' ' + escapeXml(o.yUnit) : ''}</title></circle>`,
    );
  for (const mx of series.marks ?? []) {
    if (!pts.some(([x]) => x === mx)) continue;
    const x = s.xPos(mx).toFixed(1);
    parts.push(
      `<path class="mark" data-mark="${mx}" d="M${x},${f.m.t} L${x},${f.m.t + f.ph}" stroke="#d62728" stroke-dasharray="4 3"/>`,
    );
  }
  parts.push('</g>');
  const lx = f.m.l + (i % 3) * (f.pw / 3);
  const ly = f.H - 10 - 18 * (Math.ceil(o.series.length / 3) - 1 - Math.floor(i / 3));
  parts.push(
    `<line x1="${lx}" x2="${lx + 14}" y1="${ly - 7}" y2="${ly - 7}" stroke="${color}" stroke-width="3"${dash}/><text x="${lx + 18}" y="${ly - 4}" class="legend" dominant-baseline="middle">${escapeXml(series.name)}</text>`,
  );
  return parts;
}

/** The distinct x values the chart's series hold (where y is a number). */
export function distinctX(series: readonly Series[]): number[] {
  return [
    ...new Set(
      series.flatMap((s) => s.points.filter((p) => p[1] !== null && Number.isFinite(p[1])).map(([x]) => x)),
    ),
  ].sort((a, b) => a - b);
}

export function lineChart(o: LineChartOptions): string {
  const f = frameOf(o);
  const all = o.series
    .flatMap((s) => s.points)
    .filter((p): p is [number, number] => Number.isFinite(p[0]) && p[1] !== null && Number.isFinite(p[1]));
  if (all.length === 0) {
    return `<figure class="chart" data-chart="${escapeXml(o.id)}" data-empty="true"><figcaption>${escapeXml(o.title)}</figcaption><p class="empty">no data</p></figure>`;
  }
  const scales: Scales = { ...yScale(o, f, all), ...xScale(o, f, all) };
  const parts = axes(o, f, scales);
  o.series.forEach((s, i) => parts.push(...seriesParts(o, f, scales, s, i)));
  return (
    `<figure class="chart" data-chart="${escapeXml(o.id)}" data-x-values="${distinctX(o.series).length}"><figcaption>${escapeXml(o.title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.W} ${f.H}" width="${f.W}" height="${f.H}" role="img" aria-label="${escapeXml(o.title)}">${parts.join('')}</svg></figure>`
  );
}

/**
 * A line chart when its x axis has at least two values; otherwise (one x value says nothing as a chart) the
 * same figures as a compact table: one row per series.
 */
export function chartOrTable(o: LineChartOptions): string {
  const xs = distinctX(o.series);
  if (xs.length >= 2) return lineChart(o);
  const rows = o.series.flatMap((s) =>
    s.points
      .filter((p): p is [number, number] => p[1] !== null && Number.isFinite(p[1]))
      .map(
        ([x, y]) =>
          `<tr><td>${escapeXml(s.name)}</td><td>${escapeXml((o.xFormat ?? fmtNum)(x))}</td><td>${fmtNum(y)}</td></tr>`,
      ),
  );
  if (!rows.length)
    return `<figure class="chart-table" data-table="${escapeXml(o.id)}" data-empty="true"><figcaption>${escapeXml(o.title)}</figcaption><p class="empty">no data</p></figure>`;
  return (
    `<figure class="chart-table" data-table="${escapeXml(o.id)}"><figcaption>${escapeXml(o.title)}</figcaption>` +
    `<div class="scroll"><table class="compact"><thead><tr><th>series</th><th>${escapeXml(o.xLabel)}</th><th>${escapeXml(o.yLabel)}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></figure>`
  );
}

export interface Bar {
  label: string;
  value: number;
  group?: string;
}

export function barChart(o: {
  id: string;
  title: string;
  unit: string;
  bars: Bar[];
  width?: number;
}): string {
  if (o.bars.length < 2) {
    // one bar compares nothing: its figure as a one-row table
    const rows = o.bars.map(
      (b) =>
        `<tr><td>${escapeXml(b.label)}</td><td>${Number.isFinite(b.value) ? fmtNum(b.value) : '–'} ${escapeXml(o.unit)}</td></tr>`,
    );
    return `<figure class="chart-table" data-table="${escapeXml(o.id)}"><figcaption>${escapeXml(o.title)}</figcaption><div class="scroll"><table class="compact"><tbody>${rows.join('')}</tbody></table></div></figure>`;
  }
  const W = o.width ?? 640;
  const rowH = 22;
  const m = { l: 220, r: 90, t: 8 };
  const H = m.t + rowH * o.bars.length + 8;
  const max = Math.max(0, ...o.bars.map((b) => b.value).filter(Number.isFinite));
  const groups = [...new Set(o.bars.map((b) => b.group ?? ''))];
  const parts = o.bars.map((b, i) => {
    const w = max > 0 && Number.isFinite(b.value) ? (b.value / max) * (W - m.l - m.r) : 0;
    const y = m.t + i * rowH;
    const color = PALETTE[groups.indexOf(b.group ?? '') % PALETTE.length]!;
    return (
      `<g data-series="${escapeXml(b.label)}"><text x="${m.l - 6}" y="${y + rowH / 2}" text-anchor="end" dominant-baseline="middle" class="tick">${escapeXml(b.label)}</text>` +
      `<rect class="bar" x="${m.l}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${color}"><title>${escapeXml(b.label)}: ${Number.isFinite(b.value) ? fmtNum(b.value) : '–'} ${escapeXml(o.unit)}</title></rect>` +
      `<text x="${m.l + w + 4}" y="${y + rowH / 2}" dominant-baseline="middle" class="tick">${Number.isFinite(b.value) ? fmtNum(b.value) : '–'} ${escapeXml(o.unit)}</text></g>`
    );
  });
  return (
    `<figure class="chart" data-chart="${escapeXml(o.id)}" data-x-values="${o.bars.length}"><figcaption>${escapeXml(o.title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(o.title)}">${parts.join('')}</svg></figure>`
  );
}
