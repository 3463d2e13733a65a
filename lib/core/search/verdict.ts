/**
 * Whether a probe met its search's SLO and conditions, from the probe cell's `cells` row (lib/core/results/schema.ts):
 * the SLO's latency percentile at most the bound, AND good ops/s ÷ the probe's rate at least the attainment share,
 * AND failed ÷ all operations at most the error share. A probe with an incomplete row (a loader or process missing
 * or failed) fails: its numbers do not show the rate was served.
 */
import type { SloSearch } from '../spec/schema';

/** The `cells` column the SLO reads, e.g. `all_intended_p99_us`. */
export function sloColumn(slo: SloSearch['slo']): string {
  const stat = `p${String(slo.percentile).replace('.', '')}`;
  return `${slo.operations}_${slo.latency}_${stat}_us`;
}

/** The SLO as a sentence: "intended P99 of all operations ≤ 10 ms". */
export function sloText(slo: SloSearch['slo']): string {
  const ops = slo.operations === 'all' ? 'all operations' : `${slo.operations}s`;
  return `${slo.latency} P${slo.percentile} of ${ops} ≤ ${slo.maxMs} ms`;
}

export interface ProbeVerdict {
  pass: boolean;
  /** the SLO's latency in the probe, µs (null: no operation timed) */
  latencyUs: number | null;
  attainment: number | null;
  errorRate: number | null;
  /** why it failed (empty when it passed) */
  reasons: string[];
}

const numberOf = (row: Record<string, unknown>, k: string): number | null =>
  typeof row[k] === 'number' && Number.isFinite(row[k]) ? (row[k] as number) : null;

export function probeVerdict(s: SloSearch, row: Record<string, unknown>): ProbeVerdict {
  const latencyUs = numberOf(row, sloColumn(s.slo));
  const attainment = numberOf(row, 'attainment');
  const errorRate = numberOf(row, 'error_rate');
  const reasons: string[] = [];
  if (latencyUs === null) reasons.push(`no ${sloColumn(s.slo)} (no operation timed)`);
  else if (latencyUs > s.slo.maxMs * 1000)
    reasons.push(`${sloText(s.slo)} missed: ${(latencyUs / 1000).toFixed(2)} ms`);
  if (attainment === null || attainment < s.minAttainment)
    reasons.push(
      `attainment ${attainment === null ? 'unknown' : `${(attainment * 100).toFixed(1)} %`} below ${(s.minAttainment * 100).toFixed(1)} %`,
    );
  if (errorRate === null || errorRate > s.maxErrorRate)
    reasons.push(
      `error rate ${errorRate === null ? 'unknown' : `${(errorRate * 100).toFixed(2)} %`} above ${(s.maxErrorRate * 100).toFixed(2)} %`,
    );
  if (row.incomplete === true)
    reasons.push(`incomplete: ${String(row.incomplete_reason ?? 'a loader or process failed')}`);
  return { pass: reasons.length === 0, latencyUs, attainment, errorRate, reasons };
}
