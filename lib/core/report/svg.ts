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

export function lineChart(o: LineChartOptions): string {
  const W = o.width ?? 640;
  const H = o.height ?? 320;
  const m = { l: 64, r: 16, t: 28, b: 44 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b - 18 * Math.ceil(o.series.length / 3);
  const all = o.series
    .flatMap((s) => s.points)
    .filter((p): p is [number, number] => Number.isFinite(p[0]) && p[1] !== null && Number.isFinite(p[1]));
  if (all.length === 0) {
    return `<figure class="chart" data-chart="${escapeXml(o.id)}" data-empty="true"><figcaption>${escapeXml(o.title)}</figcaption><p class="empty">no data</p></figure>`;
  }
  const xsSorted = [...new Set(all.map(([x]) => x))].sort((a, b) => a - b);
  const logY = o.logY && all.every(([, y]) => y > 0);
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
  const yTicks = logY ? logTicks(yLo, yHi) : niceTicks(yLo, yHi);
  if (!logY) yHi = Math.max(yHi, ...yTicks);
  const xPos = (x: number) => {
    if (o.categoricalX) {
      const i = xsSorted.indexOf(x);
      return m.l + (xsSorted.length === 1 ? pw / 2 : (i / (xsSorted.length - 1)) * pw);
    }
    const lo = xsSorted[0]!;
    const hi = xsSorted[xsSorted.length - 1]!;
    return m.l + (hi === lo ? pw / 2 : ((x - lo) / (hi - lo)) * pw);
  };
  const yPos = (y: number) => m.t + ph - ((ty(y) - yLo) / (yHi - yLo)) * ph;
  const yTickPos = (t: number) => m.t + ph - ((t - yLo) / (yHi - yLo)) * ph;
  const xTicks =
    o.categoricalX || xsSorted.length <= 8
      ? xsSorted
      : niceTicks(xsSorted[0]!, xsSorted[xsSorted.length - 1]!, 6);

  const parts: string[] = [];
  parts.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="#fff" stroke="#ccc"/>`);
  for (const t of yTicks) {
    const y = yTickPos(t).toFixed(1);
    parts.push(`<line x1="${m.l}" x2="${m.l + pw}" y1="${y}" y2="${y}" stroke="#eee"/>`);
    parts.push(
      `<text x="${m.l - 6}" y="${y}" text-anchor="end" dominant-baseline="middle" class="tick">${fmtNum(logY ? Math.pow(10, t) : t)}</text>`,
    );
  }
  for (const t of xTicks) {
    const x = xPos(t).toFixed(1);
    parts.push(`<text x="${x}" y="${m.t + ph + 16}" text-anchor="middle" class="tick">${fmtNum(t)}</text>`);
  }
  parts.push(
    `<text x="${m.l + pw / 2}" y="${m.t + ph + 34}" text-anchor="middle" class="axis">${escapeXml(o.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(14 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle" class="axis">${escapeXml(o.yLabel)}${logY ? ' (log)' : ''}</text>`,
  );
  o.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const sorted = s.points.filter(([x]) => Number.isFinite(x)).sort((a, b) => a[0] - b[0]);
    const drawable = (y: number | null): y is number => y !== null && Number.isFinite(y) && (!logY || y > 0);
    const pts = sorted.filter((p): p is [number, number] => drawable(p[1]));
    if (pts.length === 0) return;
    // a gap (null y) ends the line; the next point starts a new one
    const d: string[] = [];
    let pen = false;
    for (const [x, y] of sorted) {
      if (!drawable(y)) {
        pen = false;
        continue;
      }
      d.push(`${pen ? 'L' : 'M'}${xPos(x).toFixed(1)},${yPos(y).toFixed(1)}`);
      pen = true;
    }
    parts.push(`<g data-series="${escapeXml(s.name)}" data-points="${pts.length}">`);
    parts.push(`<path class="line" d="${d.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const [x, y] of pts) {
      parts.push(
        `<circle cx="${xPos(x).toFixed(1)}" cy="${yPos(y).toFixed(1)}" r="2.5" fill="${color}"><title>${escapeXml(s.name)}: ${fmtNum(x)} → ${fmtNum(y)}</title></circle>`,
      );
    }
    for (const mx of s.marks ?? []) {
      const p = pts.find(([x]) => x === mx);
      if (!p) continue;
      parts.push(
        `<path class="mark" data-mark="${mx}" d="M${xPos(mx).toFixed(1)},${m.t} L${xPos(mx).toFixed(1)},${m.t + ph}" stroke="#d62728" stroke-dasharray="4 3"/>`,
      );
    }
    parts.push('</g>');
    const lx = m.l + (i % 3) * (pw / 3);
    const ly = H - 10 - 18 * (Math.ceil(o.series.length / 3) - 1 - Math.floor(i / 3));
    parts.push(
      `<rect x="${lx}" y="${ly - 9}" width="12" height="4" fill="${color}"/><text x="${lx + 16}" y="${ly - 4}" class="legend" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
    );
  });
  return (
    `<figure class="chart" data-chart="${escapeXml(o.id)}"><figcaption>${escapeXml(o.title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(o.title)}">${parts.join('')}</svg></figure>`
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
      `<rect class="bar" x="${m.l}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${color}"/>` +
      `<text x="${m.l + w + 4}" y="${y + rowH / 2}" dominant-baseline="middle" class="tick">${Number.isFinite(b.value) ? fmtNum(b.value) : '–'} ${escapeXml(o.unit)}</text></g>`
    );
  });
  return (
    `<figure class="chart" data-chart="${escapeXml(o.id)}"><figcaption>${escapeXml(o.title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeXml(o.title)}">${parts.join('')}</svg></figure>`
  );
}
