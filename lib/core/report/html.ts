/**
 * The run report: one self-contained HTML file (inline CSS and SVG, no scripts, no network) with
 * the comparison with a baseline run when the spec names one, the percentile spectrum per cell, the seeds'
 * charts — latency percentiles against read ratio and against throughput target per distribution —
 * latency and ops/s over time per cell, measured against predicted over time (DynamoDB cells with a predicted
 * timeline), attainment, and the cost comparison. A chart whose x axis would have
 * one value is a compact table instead; every drawn value shows on hover (SVG <title>). docs/report.md.
 */
import { barChart, chartOrTable, escapeXml, fmtNum, lineChart, type Series } from './svg';
import type { FamilySpectrum } from '../results/aggregate';
import type { Comparison } from './compare';
import { comparisonSection, spectrumSection } from './sections';
import { probesOf, searchSections, type ReportSearch } from './searches';
import { scheduleSections, type ReportSchedule } from './schedules';
import { timelineSection, type ReportTimeline } from './timeline';
import { executionSection, type ReportExecution } from './targets';
import type { NoiseCalibration } from '../regression/noise';
import { LOADER_CPU_SUSPECT_PCT, type LoaderCpu } from '../results/loader-cpu';
import type { CellHeadline } from '../contract/headline';

/** A cell in the report: its headline (lib/core/contract/headline.ts) and the capacity model's predictions. */
export interface ReportCell extends CellHeadline {
  /** Per-loader CPU over the phase (lib/core/results/loader-cpu.ts); absent or empty: not measured. */
  loaderCpu?: LoaderCpu[];
  /**
   * The capacity model's prediction (docs/dynamodb-model.md) for this run: on AWS the plan's, locally
   * the emulator's (scaled limits); null when not modelled (not DynamoDB, or no emulation locally).
   */
  predicted?: { attainment: number; limitedBy: string; reason: string } | null;
  /** The plan's prediction for the same cell on AWS (unscaled limits), DynamoDB cells only. */
  predictedAws?: { attainment: number; limitedBy: string } | null;
}

export interface ReportPoint {
  /** Seconds since the cell's measured window began. */
  t: number;
  /** null when the bucket holds no operation (drawn as a gap) */
  opsPerSec: number | null;
  p50: number | null;
  p99: number | null;
}

export interface ReportHistory {
  metric: string;
  unit: string;
  /** (run number, value) */
  points: [number, number][];
  /** run numbers where a change began */
  changes: number[];
  /** one line per cell instead of `points`/`changes` (run numbers shared by all cells) */
  series?: { name: string; points: [number, number][]; changes: number[] }[];
}

export interface ReportData {
  runId: string;
  specName: string;
  startedAt: string;
  status: string;
  cells: ReportCell[];
  series: Record<string, ReportPoint[]>;
  history?: ReportHistory[];
  /** the spec's newest A/A calibration (lib/core/regression/noise.ts) */
  noise?: NoiseCalibration;
  notes?: string[];
  /** DAX clusters in front of dynamodb targets: their monthly cost (included in the cells' monthly costs). */
  dax?: ReportDax[];
  /** per cell, per operation family (READ, UPDATE, ALL): latency by percentile (lib/core/results/buckets.ts) */
  spectra?: Record<string, Record<string, FamilySpectrum>>;
  /** this run against the spec's baseline run (lib/core/report/compare.ts) */
  comparison?: Comparison;
  /** DynamoDB cells with a predicted timeline: measured against predicted over time (lib/core/report/timeline.ts) */
  timelines?: Record<string, ReportTimeline>;
  /** the SLO searches' frontier rows (lib/core/report/searches.ts) */
  searches?: ReportSearch[];
  /** rate-schedule cells: offered over served over time, spikes, the on-demand model (lib/core/report/schedules.ts) */
  schedules?: ReportSchedule[];
  /** how the targets were measured: in sequence or side by side (lib/core/report/targets.ts) */
  execution?: ReportExecution;
}

export interface ReportDax {
  target: string;
  nodeType: string;
  nodes: number;
  /** nodes × price per node-hour × the book's hours per month */
  monthlyUsd: number;
  priceBook: string;
  /** The book's date, the node-hour price and where it comes from (priceSourceText: the Price List, or what the book cites). */
  price?: { bookDate: string; usdPerNodeHour: number; source: string };
}

/** DynamoDB alone vs with DAX, per cell of a DAX target: the cell's monthly cost (which includes DAX) less the cluster. */
export function daxComparison(
  cells: readonly ReportCell[],
  dax: readonly ReportDax[],
): {
  cellId: string;
  target: string;
  cluster: string;
  tableUsd: number;
  daxUsd: number;
  withDaxUsd: number;
}[] {
  return cells.flatMap((c) => {
    const d = dax.find((x) => x.target === c.target);
    if (!d || c.monthlyCostUsd === null) return [];
    return [
      {
        cellId: c.cellId,
        target: c.target,
        cluster: `${d.nodes} × ${d.nodeType}`,
        tableUsd: Math.round((c.monthlyCostUsd - d.monthlyUsd) * 100) / 100,
        daxUsd: d.monthlyUsd,
        withDaxUsd: c.monthlyCostUsd,
      },
    ];
  });
}

/** A table in a box of its own that scrolls sideways: the page never does. */
const scroll = (tableHtml: string): string => `<div class="scroll">${tableHtml}</div>`;

/** Which book priced the DAX node-hours, and where each node type's price comes from, as the book says. */
function daxPriceText(dax: readonly ReportDax[]): string {
  const first = dax[0]!;
  const seen = new Set<string>();
  const each = dax.flatMap((x) => {
    if (!x.price || seen.has(x.nodeType)) return [];
    seen.add(x.nodeType);
    return [`${x.nodeType} at $${x.price.usdPerNodeHour} per node-hour, from ${x.price.source}`];
  });
  const dated = first.price ? `, dated ${first.price.bookDate}` : '';
  return escapeXml(
    `DAX node-hours from price book ${first.priceBook}${dated}${each.length ? `: ${each.join('; ')}` : ''}.`,
  );
}

function daxSection(d: ReportData): string[] {
  const rows = daxComparison(d.cells, d.dax ?? []);
  if (!rows.length) return [];
  return [
    '<h3>DynamoDB alone vs with DAX (monthly, at the measured throughput)</h3>',
    `<p>${daxPriceText(d.dax!)} The table's cost assumes every read reaches it; reads DAX serves from its cache cost the table nothing.</p>`,
    scroll(
      '<table class="dax-comparison"><thead><tr><th>cell</th><th>DAX cluster</th><th>DynamoDB alone</th><th>DAX</th><th>with DAX</th></tr></thead><tbody>' +
        rows
          .map(
            (r) =>
              `<tr><td>${escapeXml(r.cellId)}</td><td>${escapeXml(r.cluster)}</td><td>${usd(r.tableUsd)}</td><td>${usd(r.daxUsd)}</td><td>${usd(r.withDaxUsd)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>',
    ),
  ];
}

const ms = (us: number | null) => (us === null ? null : us / 1000);
const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const usd = (x: number | null) =>
  x === null ? '–' : `$${x.toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })}`;
const num = (x: number | null, digits = 1) =>
  x === null ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits });

const cpuPct = (x: number | null) => (x === null ? '–' : `${x.toFixed(1)}%`);

/** The highest loader's machine CPU utilisation; the per-loader figures in the tooltip. */
function loaderCpuCell(loaders: LoaderCpu[] | undefined): string {
  if (!loaders?.length) return '<td>–</td>';
  const max = Math.max(...loaders.map((l) => l.machinePct ?? -1));
  const title = loaders.map((l) => `loader-${l.loader}: ${cpuPct(l.machinePct)}`).join(', ');
  return `<td title="${escapeXml(title)}"${max > LOADER_CPU_SUSPECT_PCT ? ' class="hot"' : ''}>${cpuPct(max < 0 ? null : max)}</td>`;
}

/** Loader CPU utilisation per loader and cell: machine (what a loader's CloudWatch CPUUtilization shows) and YCSB JVMs. */
function loaderCpuSection(cells: ReportCell[]): string[] {
  const rows = cells.flatMap((c) =>
    (c.loaderCpu ?? []).map(
      (l) =>
        `<tr><td>${escapeXml(c.cellId)}</td><td>loader-${l.loader}</td><td>${escapeXml(l.host ?? '–')}</td><td>${l.cores}</td>` +
        `<td${l.machinePct !== null && l.machinePct > LOADER_CPU_SUSPECT_PCT ? ' class="hot"' : ''}>${cpuPct(l.machinePct)}</td><td>${cpuPct(l.jvmPct)}</td></tr>`,
    ),
  );
  if (!rows.length) return [];
  return [
    '<h2>Loader CPU</h2>',
    `<p>CPU utilisation of each loader over the phase, % of its CPUs: the whole machine (/proc/stat) and its YCSB JVMs ` +
      `(/proc/&lt;pid&gt;/stat). A loader above ${LOADER_CPU_SUSPECT_PCT} % makes its cell suspect: its own queueing is in the latencies. ` +
      `Locally the machine is shared with the target.</p>`,
    scroll(
      '<table class="loaders"><thead><tr><th>cell</th><th>loader</th><th>host</th><th>CPUs</th><th>machine CPU</th><th>YCSB JVMs CPU</th></tr></thead><tbody>' +
        rows.join('') +
        '</tbody></table>',
    ),
  ];
}

/** One target's line of the cost comparison: its cell with the most good ops/s, and what a billion of them cost. */
export interface CostComparisonRow {
  target: string;
  cellId: string;
  goodOpsPerSec: number;
  errors: number | null;
  monthlyCostUsd: number;
  /** monthly cost ÷ the good operations of the same month at that rate (the cells row's cost per million × 1,000) */
  usdPerBillionOps: number;
}

/**
 * Seed 004's comparison across systems: per target, its best measured cell (most good ops/s) and the cost of
 * a billion good operations at that rate. Only complete cells count, and no SLO-search probe that failed its SLO
 * (the searches' frontier rows say which): a probe past the target's limit serves the most and is no answer.
 * Targets without such a priced cell with good operations are left out.
 */
export function costComparison(
  cells: readonly ReportCell[],
  searches: readonly ReportSearch[] = [],
): CostComparisonRow[] {
  const failedProbes = new Set(
    searches.flatMap((s) =>
      probesOf(s)
        .filter((p) => !p.pass)
        .map((p) => p.cell_id),
    ),
  );
  const best = new Map<string, ReportCell>();
  for (const c of cells) {
    if (
      c.incomplete ||
      failedProbes.has(c.cellId) ||
      c.monthlyCostUsd === null ||
      c.costPerMillionOpsUsd === null ||
      !c.goodOpsPerSec ||
      c.goodOpsPerSec <= 0
    )
      continue;
    const b = best.get(c.target);
    if (!b || c.goodOpsPerSec > b.goodOpsPerSec!) best.set(c.target, c);
  }
  return [...best.values()].map((c) => ({
    target: c.target,
    cellId: c.cellId,
    goodOpsPerSec: c.goodOpsPerSec!,
    errors: c.errors,
    monthlyCostUsd: c.monthlyCostUsd!,
    usdPerBillionOps: c.costPerMillionOpsUsd! * 1000,
  }));
}

function costComparisonSection(cells: readonly ReportCell[], searches?: readonly ReportSearch[]): string[] {
  const rows = costComparison(cells, searches);
  if (rows.length < 1) return [];
  return [
    "<h3>Cost per billion operations at each target's best measured throughput</h3>",
    scroll(
      '<table class="cost-comparison"><thead><tr><th>target</th><th>cell</th><th>good ops/s</th><th>errors</th>' +
        '<th>monthly cost</th><th>$ per billion ops</th></tr></thead><tbody>' +
        rows
          .map(
            (r) =>
              `<tr><td>${escapeXml(r.target)}</td><td>${escapeXml(r.cellId)}</td><td>${num(r.goodOpsPerSec)}</td>` +
              `<td>${r.errors ?? '–'}</td><td>${usd(r.monthlyCostUsd)}</td><td>${usd(r.usdPerBillionOps)}</td></tr>`,
          )
          .join('') +
        '</tbody></table>',
    ),
  ];
}

/** A prediction as a table cell: the attainment, what limits it in the tooltip and below. */
function predictedCell(
  p: { attainment: number; limitedBy: string; reason?: string } | null | undefined,
): string {
  if (!p) return '<td>–</td>';
  const why = p.reason ? `${p.limitedBy}: ${p.reason}` : p.limitedBy;
  return `<td class="predicted" title="${escapeXml(why)}">${pct(p.attainment)}${p.limitedBy !== 'none' ? ` <small>${escapeXml(p.limitedBy)}</small>` : ''}</td>`;
}

function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function percentileSeries(
  cells: ReportCell[],
  x: (c: ReportCell) => number,
  seriesKey: (c: ReportCell) => string,
): Series[] {
  const out: Series[] = [];
  for (const key of uniq(cells.map(seriesKey))) {
    const group = cells.filter((c) => seriesKey(c) === key);
    for (const [label, pick] of [
      ['P50', (c: ReportCell) => c.intendedP50Us],
      ['P99', (c: ReportCell) => c.intendedP99Us],
      ['P99.9', (c: ReportCell) => c.intendedP999Us],
    ] as const) {
      const points = group
        .filter((c) => pick(c) !== null)
        .map((c) => [x(c), ms(pick(c))!] as [number, number]);
      if (points.length) out.push({ name: `${key} ${label}`, points });
    }
  }
  return out;
}

function cellRow(c: ReportCell): string {
  return (
    `<tr${c.incomplete ? ' class="incomplete"' : c.suspect ? ' class="suspect"' : ''}><td>${escapeXml(c.cellId)}${c.incomplete ? ` <span class="flag" title="${escapeXml(c.incompleteReason ?? 'incomplete')}">incomplete</span>` : ''}${c.suspect ? ` <span class="flag" title="${escapeXml(c.suspectReason ?? 'suspect')}">suspect</span>` : ''}</td>` +
    `<td>${escapeXml(c.target)}</td><td>${escapeXml(c.distribution)}</td><td>${c.readProportion}</td>` +
    `<td>${num(c.targetOpsPerSec, 0)}</td><td>${num(c.achievedOpsPerSec)}</td><td>${num(c.goodOpsPerSec)}</td><td>${pct(c.attainment)}</td>` +
    `${predictedCell(c.predicted)}${predictedCell(c.predictedAws)}` +
    `<td>${num(ms(c.intendedP50Us), 3)}</td><td>${num(ms(c.intendedP99Us), 3)}</td><td>${num(ms(c.intendedP999Us), 3)}</td>` +
    `<td>${c.errors ?? '–'}</td><td>${c.throttles ?? '–'}</td>${loaderCpuCell(c.loaderCpu)}<td>${usd(c.monthlyCostProvisionedUsd)}</td><td>${usd(c.monthlyCostOnDemandUsd)}</td><td>${usd(c.monthlyCostUsd)}</td></tr>`
  );
}

function cellsSection(cells: ReportCell[]): string[] {
  return [
    '<h2>Cells</h2>',
    scroll(
      '<table class="cells"><thead><tr><th>cell</th><th>target</th><th>distribution</th><th>read</th><th>target ops/s</th>' +
        '<th>achieved ops/s</th><th>good ops/s</th><th>attainment</th><th>predicted</th><th>predicted on AWS</th><th>intended P50 ms</th><th>P99 ms</th><th>P99.9 ms</th>' +
        '<th>errors</th><th>throttles</th><th>loader CPU</th><th>$/month provisioned</th><th>$/month on-demand</th><th>$/month</th></tr></thead><tbody>' +
        cells.map(cellRow).join('') +
        '</tbody></table>',
    ),
  ];
}

/** The seeds' charts for one distribution: latency against read ratio and against throughput target. */
function distributionSection(d: ReportData, dist: string): string[] {
  const cells = d.cells.filter((c) => c.distribution === dist);
  const throughputs = uniq(cells.map((c) => c.targetOpsPerSec)).sort((a, b) => a - b);
  const reads = uniq(cells.map((c) => c.readProportion)).sort((a, b) => a - b);
  const out = [`<h2>Distribution: ${escapeXml(dist)}</h2><div class="grid">`];
  for (const ops of throughputs.slice(-3)) {
    const atOps = cells.filter((c) => c.targetOpsPerSec === ops);
    out.push(
      chartOrTable({
        id: `latency-vs-read-${dist}-${ops}`,
        title: `Intended latency vs read ratio — ${dist}, ${fmtNum(ops)} ops/s target`,
        xLabel: 'read proportion',
        yLabel: 'latency (ms)',
        yUnit: 'ms',
        series: percentileSeries(
          atOps,
          (c) => c.readProportion,
          (c) => c.target,
        ),
        logY: true,
        categoricalX: reads.length > 1,
      }),
    );
  }
  for (const r of reads) {
    const atRead = cells.filter((c) => c.readProportion === r);
    out.push(
      chartOrTable({
        id: `latency-vs-target-${dist}-${r}`,
        title: `Intended latency vs throughput target — ${dist}, read ${r}`,
        xLabel: 'target ops/s',
        yLabel: 'latency (ms)',
        yUnit: 'ms',
        series: percentileSeries(
          atRead,
          (c) => c.targetOpsPerSec,
          (c) => c.target,
        ),
        logY: true,
      }),
    );
    out.push(
      chartOrTable({
        id: `ops-vs-target-${dist}-${r}`,
        title: `Good ops/s vs target ("asked vs performed") — ${dist}, read ${r}`,
        xLabel: 'target ops/s',
        yLabel: 'good ops/s',
        yUnit: 'ops/s',
        series: [
          ...uniq(atRead.map((c) => c.target)).map((t) => ({
            name: t,
            points: atRead
              .filter((c) => c.target === t && c.goodOpsPerSec !== null)
              .map((c) => [c.targetOpsPerSec, c.goodOpsPerSec!] as [number, number]),
          })),
          {
            name: 'target',
            points: atRead.map((c) => [c.targetOpsPerSec, c.targetOpsPerSec] as [number, number]),
          },
        ],
      }),
    );
  }
  out.push('</div>');
  return out;
}

function attainmentSections(cells: ReportCell[]): string[] {
  const out = [
    '<h2>Attainment (good ops/s ÷ target)</h2>',
    barChart({
      id: 'attainment',
      title: 'Attainment per cell',
      unit: '%',
      bars: cells.map((c) => ({
        label: c.cellId,
        value: c.attainment === null ? NaN : c.attainment * 100,
        group: c.target,
      })),
    }),
  ];
  // predicted vs measured (DynamoDB cells the capacity model predicts)
  const predicted = cells.filter((c) => c.predicted);
  if (!predicted.length) return out;
  out.push('<h2>Attainment: measured vs predicted (DynamoDB capacity model, docs/dynamodb-model.md)</h2>');
  out.push(
    barChart({
      id: 'attainment-predicted',
      title: 'Measured and predicted attainment per DynamoDB cell',
      unit: '%',
      bars: predicted.flatMap((c) => [
        {
          label: `${c.cellId} measured`,
          value: c.attainment === null ? NaN : c.attainment * 100,
          group: 'measured',
        },
        { label: `${c.cellId} predicted`, value: c.predicted!.attainment * 100, group: 'predicted' },
      ]),
    }),
  );
  return out;
}

function overTimeSection(d: ReportData): string[] {
  const out = ['<h2>Over time</h2><div class="grid">'];
  for (const c of d.cells) {
    const pts = d.series[c.cellId] ?? [];
    out.push(
      chartOrTable({
        id: `time-ops-${c.cellId}`,
        title: `${c.cellId}: ops/s over time`,
        xLabel: 'seconds',
        yLabel: 'ops/s',
        yUnit: 'ops/s',
        series: [{ name: 'ops/s', points: pts.map((p) => [p.t, p.opsPerSec] as [number, number | null]) }],
        height: 240,
      }),
    );
    out.push(
      chartOrTable({
        id: `time-latency-${c.cellId}`,
        title: `${c.cellId}: latency over time`,
        xLabel: 'seconds',
        yLabel: 'latency (ms)',
        yUnit: 'ms',
        series: [
          // an empty bucket has no latency: a gap in the line, not a zero
          { name: 'P50', points: pts.map((p) => [p.t, ms(p.p50)] as [number, number | null]) },
          { name: 'P99', points: pts.map((p) => [p.t, ms(p.p99)] as [number, number | null]) },
        ],
        logY: true,
        height: 240,
      }),
    );
  }
  out.push('</div>');
  return out;
}

function costSection(d: ReportData): string[] {
  const costBars = d.cells.flatMap((c) => [
    ...(c.monthlyCostProvisionedUsd !== null
      ? [{ label: `${c.cellId} provisioned`, value: c.monthlyCostProvisionedUsd, group: 'provisioned' }]
      : []),
    ...(c.monthlyCostOnDemandUsd !== null
      ? [{ label: `${c.cellId} on-demand`, value: c.monthlyCostOnDemandUsd, group: 'on-demand' }]
      : []),
    ...(c.monthlyCostProvisionedUsd === null && c.monthlyCostOnDemandUsd === null && c.monthlyCostUsd !== null
      ? [{ label: c.cellId, value: c.monthlyCostUsd, group: 'fixed' }]
      : []),
  ]);
  return [
    '<h2>Monthly cost at the measured throughput</h2>',
    costBars.length
      ? barChart({ id: 'cost', title: 'Monthly cost (USD)', unit: 'USD', bars: costBars })
      : '<p>No cost figures.</p>',
    ...costComparisonSection(d.cells, d.searches),
    ...daxSection(d),
  ];
}

function historySection(history: ReportHistory[] | undefined): string[] {
  if (!history?.length) return [];
  const out = ['<h2>History</h2><div class="grid">'];
  for (const h of history)
    out.push(
      lineChart({
        id: `history-${h.metric}`,
        title: `${h.metric} over runs`,
        xLabel: 'run',
        yLabel: h.unit,
        yUnit: h.unit,
        series: h.series?.length
          ? h.series.map((s) => ({ name: s.name, points: s.points, marks: s.changes }))
          : [{ name: h.metric, points: h.points, marks: h.changes }],
        height: 240,
      }),
    );
  out.push('</div>');
  return out;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}
td:first-child,th:first-child,td:nth-child(2),td:nth-child(3){text-align:left}
table.compact td:nth-child(2),table.comparison td:nth-child(3){text-align:right}table.comparison th:nth-child(2){text-align:left}
tr.incomplete,tr.suspect{background:#fff4e5}.flag{color:#b45309;font-weight:600}td.hot{color:#b91c1c;font-weight:600}
td.worse{color:#b91c1c;font-weight:600}td.better{color:#15803d;font-weight:600}
.grid{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0;max-width:100%}figcaption{font-weight:600;font-size:13px}
svg{max-width:100%;height:auto}
.tick{font-size:10px;fill:#555}.axis{font-size:11px;fill:#333}.legend{font-size:11px}`;

export function renderReport(d: ReportData): string {
  const sections: string[] = [
    ...comparisonSection(d.comparison),
    ...searchSections(d.searches, d.cells),
    ...executionSection(d.execution),
    ...cellsSection(d.cells),
    ...loaderCpuSection(d.cells),
    ...spectrumSection(d.cells, d.spectra ?? {}),
    ...uniq(d.cells.map((c) => c.distribution)).flatMap((dist) => distributionSection(d, dist)),
    ...attainmentSections(d.cells),
    ...overTimeSection(d),
    ...scheduleSections(d.schedules),
    ...timelineSection(d.timelines),
    ...costSection(d),
    ...historySection(d.history),
  ];
  if (d.noise?.series.length) sections.push(noiseSection(d.noise));
  const notes = (d.notes ?? []).map((n) => `<li>${escapeXml(n)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>fleetbench — ${escapeXml(d.specName)} — ${escapeXml(d.runId)}</title>
<style>
${STYLE}
</style></head><body>
<h1>fleetbench report — ${escapeXml(d.specName)}</h1>
<p>Run <code>${escapeXml(d.runId)}</code>, started ${escapeXml(d.startedAt)}, status <strong>${escapeXml(d.status)}</strong>.
Latencies are intended (coordinated-omission corrected) unless marked service time; percentiles are merged from every process's HdrHistogram, never averaged.</p>
${notes ? `<ul class="notes">${notes}</ul>` : ''}
${sections.join('\n')}
</body></html>
`;
}

/**
 * The noise band of each metric from the spec's newest A/A run: mean ± factor × CV, the relative change
 * below which detection ignores a step (its minMagnitude).
 */
function noiseSection(c: NoiseCalibration): string {
  const f = (x: number) => fmtNum(x);
  const rows = c.series.map((s) => {
    // every metric is non-negative (latencies, rates, counts): a band wider than the mean stops at 0
    const band =
      s.cv === null
        ? '–'
        : `${f(Math.max(0, s.mean * (1 - c.factor * s.cv)))} – ${f(s.mean * (1 + c.factor * s.cv))}`;
    return (
      `<tr data-noise="${escapeXml(`${s.target}/${s.cell}/${s.metric}`)}"><td>${escapeXml(s.metric)}</td>` +
      `<td>${escapeXml(s.target)}</td><td>${escapeXml(s.cell)}</td><td>${s.n}</td><td>${f(s.mean)}</td>` +
      `<td>${f(s.std)}</td><td>${s.cv === null ? '–' : `${(s.cv * 100).toFixed(2)}%`}</td><td>${band}</td>` +
      `<td>${s.minMagnitude === null ? '–' : `${(s.minMagnitude * 100).toFixed(2)}%`}</td></tr>`
    );
  });
  return (
    `<h2>Noise bands (A/A run <code>${escapeXml(c.runId)}</code>)</h2>` +
    `<p>Each metric's spread over ${escapeXml(String(Math.max(...c.series.map((s) => s.n))))} repeats of the same cell: ` +
    `detection ignores a change smaller than ${c.factor} × CV (min magnitude), i.e. within the band.</p>` +
    scroll(
      '<table><tr><th>metric</th><th>target</th><th>cell</th><th>repeats</th><th>mean</th><th>std</th><th>CV</th>' +
        `<th>band (mean ± ${c.factor} × CV)</th><th>min magnitude</th></tr>${rows.join('')}</table>`,
    )
  );
}
