/**
 * The report's SLO search sections (docs/slo-search.md): per search the answer beside the capacity model's
 * predicted limit and the found probe's own cost, the probes that led to it, and cost against throughput per
 * target (one line per target through its probes, the SLO-passing probes marked).
 */
import { chartOrTable, escapeXml, fmtNum } from './svg';
import type { CellHeadline } from '../contract/headline';

/** A search's `frontier` row (lib/core/results/schema.ts), as stored beside the run. */
export type ReportSearch = Record<string, unknown>;

interface ProbeJson {
  cell_id: string;
  rate: number;
  pass: boolean;
  latency_us: number | null;
  attainment: number | null;
  error_rate: number | null;
  reasons: string[];
  /** the probe cell was suspect (loader CPU or schedule): a note, not a failure; absent in older rows */
  suspect?: string | null;
}

const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const ops = (v: unknown): string => (n(v) === null ? '–' : Math.round(n(v)!).toLocaleString('en-US'));
const usd = (v: unknown): string => (n(v) === null ? '–' : `$${n(v)!.toFixed(2)}`);
const ms = (us: unknown): string => (n(us) === null ? '–' : (n(us)! / 1000).toFixed(2));
const pct = (v: unknown, digits = 1): string => (n(v) === null ? '–' : `${(n(v)! * 100).toFixed(digits)} %`);

/** A frontier row's probes (its probes_json; none when unreadable). */
export function probesOf(s: ReportSearch): ProbeJson[] {
  try {
    return JSON.parse(String(s.probes_json)) as ProbeJson[];
  } catch {
    return [];
  }
}

function answerTable(searches: readonly ReportSearch[]): string {
  const head = [
    'search',
    'target',
    'SLO',
    'outcome',
    'found ops/s',
    'predicted limit ops/s',
    'found / predicted',
    'probes (of at most)',
    'SLO latency at found, ms',
    'monthly cost at found',
    'per million ops',
  ];
  const rows = searches.map((s) => {
    const found = n(s.found_ops_per_sec);
    const pred = n(s.predicted_limit_ops_per_sec);
    return [
      String(s.search_id),
      String(s.target_id),
      String(s.slo),
      String(s.outcome),
      ops(found),
      ops(pred),
      found !== null && pred ? pct(found / pred) : '–',
      `${String(s.probes)} (${String(s.probes_planned)})`,
      ms(s.found_latency_us),
      usd(s.monthly_cost_usd),
      usd(s.cost_per_million_ops_usd),
    ];
  });
  const tr = (cells: string[], tag: 'th' | 'td') =>
    `<tr>${cells.map((c) => `<${tag}>${escapeXml(c)}</${tag}>`).join('')}</tr>`;
  return `<div class="scroll"><table class="searches" data-table="searches"><thead>${tr(head, 'th')}</thead><tbody>${rows.map((r) => tr(r, 'td')).join('')}</tbody></table></div>`;
}

function probeTable(s: ReportSearch): string {
  const rows = probesOf(s).map(
    (p, i) =>
      `<tr class="${p.pass ? 'pass' : 'fail'}"><td>${i + 1}</td><td>${escapeXml(p.cell_id)}</td><td>${ops(p.rate)}</td>` +
      `<td>${p.pass ? 'pass' : 'fail'}</td><td>${ms(p.latency_us)}</td><td>${pct(p.attainment)}</td>` +
      `<td>${pct(p.error_rate, 2)}</td><td>${escapeXml(p.reasons.join('; '))}</td>` +
      `<td${p.suspect ? ' class="flag"' : ''}>${escapeXml(p.suspect ?? '')}</td></tr>`,
  );
  return (
    `<figure data-table="probes-${escapeXml(String(s.search_id))}"><figcaption>Probes of ${escapeXml(String(s.search_id))}</figcaption>` +
    `<div class="scroll"><table><thead><tr><th>#</th><th>cell</th><th>rate ops/s</th><th>verdict</th><th>SLO latency ms</th>` +
    `<th>attainment</th><th>error rate</th><th>why it failed</th><th>loader (pass/fail unchanged)</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></figure>`
  );
}

/** The cheapest target meeting the SLO at the required rate, when the spec names one. */
function requiredLine(searches: readonly ReportSearch[]): string[] {
  const req = searches.map((s) => n(s.required_ops_per_sec)).find((x) => x !== null);
  if (req === undefined || req === null) return [];
  const meeting = searches
    .filter((s) => s.meets_required === true && n(s.monthly_cost_at_required_usd) !== null)
    .sort((a, b) => n(a.monthly_cost_at_required_usd)! - n(b.monthly_cost_at_required_usd)!);
  if (!meeting.length) return [`<p>No search met the SLO at the required ${ops(req)} ops/s.</p>`];
  const best = meeting[0]!;
  return [
    `<p data-cheapest="${escapeXml(String(best.search_id))}">Cheapest meeting the SLO at ${ops(req)} ops/s: <strong>${escapeXml(String(best.target_id))}</strong> ` +
      `(${escapeXml(String(best.search_id))}), ${usd(best.monthly_cost_at_required_usd)} per month at that rate` +
      (meeting.length > 1
        ? `; then ${meeting
            .slice(1)
            .map((s) => `${escapeXml(String(s.target_id))} ${usd(s.monthly_cost_at_required_usd)}`)
            .join(', ')}`
        : '') +
      '.</p>',
  ];
}

/** Monthly cost against measured throughput: one line per search through its probes, SLO-passing probes marked. */
function costChart(searches: readonly ReportSearch[], cells: readonly CellHeadline[]): string {
  const byId = new Map(cells.map((c) => [c.cellId, c]));
  const series = searches.map((s) => {
    const pts = probesOf(s)
      .map((p) => ({ p, c: byId.get(p.cell_id) }))
      .filter((x) => x.c && x.c.achievedOpsPerSec !== null && x.c.monthlyCostUsd !== null)
      .sort((a, b) => a.c!.achievedOpsPerSec! - b.c!.achievedOpsPerSec!);
    return {
      name: `${String(s.search_id)} (marked: meets the SLO)`,
      points: pts.map((x) => [x.c!.achievedOpsPerSec!, x.c!.monthlyCostUsd!] as [number, number]),
      marks: pts.filter((x) => x.p.pass).map((x) => x.c!.achievedOpsPerSec!),
    };
  });
  return chartOrTable({
    id: 'frontier',
    title: 'Monthly cost against throughput (probes; marked: SLO met)',
    xLabel: 'measured ops/s',
    yLabel: 'USD per month',
    yUnit: 'USD',
    series,
    xFormat: (x) => fmtNum(x),
  });
}

export function searchSections(
  searches: readonly ReportSearch[] | undefined,
  cells: readonly CellHeadline[],
): string[] {
  if (!searches?.length) return [];
  return [
    '<h2>SLO search: the highest throughput meeting the SLO</h2>',
    '<p>Each search ramps up from its start, then bisects between the last passing and the first failing rate (docs/slo-search.md). ' +
      'A probe passes when the SLO latency, the attainment and the error rate all hold. The predicted limit is the capacity model’s ' +
      '(DynamoDB; a local run: the emulator’s scaled limits).</p>',
    answerTable(searches),
    ...requiredLine(searches),
    costChart(searches, cells),
    '<div class="grid">',
    ...searches.map(probeTable),
    '</div>',
  ];
}
