/**
 * Whether a probe met its search's SLO and conditions, from the probe cell's `cells` row (lib/core/results/schema.ts):
 * the SLO's latency percentile at most the bound, AND good ops/s ÷ the probe's rate at least the attainment share,
 * AND failed ÷ all operations at most the error share. A probe with an incomplete row (a loader or process missing
 * or failed) fails: its numbers do not show the rate was served.
 *
 * The SLO's percentile is over successful AND failed operations (`<family>_<timing>_incl_failed_<stat>_us`): an
 * operation that timed out after 2 s is a 2-s operation to its caller, and a percentile of the successful ones
 * alone would pass a probe whose P99.9 lies among its timeouts while its error rate stays under the error share.
 * A null percentile (no operation timed, or it falls among failed operations with no recorded time: slower than
 * any bound) fails the probe.
 */
import type { SloSearch } from '../spec/schema';
import { INCL_FAILED_STATS, inclFailedColumn } from '../results/schema';

/** The `cells` column the SLO reads, e.g. `all_intended_incl_failed_p99_us`. */
export function sloColumn(slo: SloSearch['slo']): string {
  const stat = `p${String(slo.percentile).replace('.', '')}` as (typeof INCL_FAILED_STATS)[number];
  if (!INCL_FAILED_STATS.includes(stat))
    throw new Error(`no cells column for the SLO percentile ${slo.percentile}`);
  return inclFailedColumn(slo.operations, slo.latency, stat);
}

/** The SLO as a sentence: "intended P99 of all operations (failed ones included) ≤ 10 ms". */
export function sloText(slo: SloSearch['slo']): string {
  const ops = slo.operations === 'all' ? 'all operations' : `${slo.operations}s`;
  return `${slo.latency} P${slo.percentile} of ${ops} (failed ones included) ≤ ${slo.maxMs} ms`;
}

export interface ProbeVerdict {
  pass: boolean;
  /** the SLO's latency in the probe, µs (null: no operation timed) */
  latencyUs: number | null;
  attainment: number | null;
  errorRate: number | null;
  /** why it failed (empty when it passed) */
  reasons: string[];
  /**
   * the probe's cell is suspect (cells.suspect: a loader's CPU or the open-loop schedule may have shaped its
   * numbers), e.g. "loader CPU suspect: loader-0 CPU 93.0 % > 70 % of its 2 CPUs"; null when not. A note for
   * the reader: it does not change pass or fail.
   */
  suspect: string | null;
}

/** The probe's suspect note from its `cells` row (lib/core/results/loader-cpu.ts judgeCell), null when not suspect. */
export function suspectNote(row: Record<string, unknown>): string | null {
  if (row.suspect !== true) return null;
  const reason = typeof row.suspect_reason === 'string' && row.suspect_reason ? row.suspect_reason : null;
  if (reason === null) return 'loader suspect';
  return `${/ CPU /.test(reason) ? 'loader CPU suspect' : 'loader suspect'}: ${reason}`;
}

const numberOf = (row: Record<string, unknown>, k: string): number | null =>
  typeof row[k] === 'number' && Number.isFinite(row[k]) ? (row[k] as number) : null;

export function probeVerdict(s: SloSearch, row: Record<string, unknown>): ProbeVerdict {
  const latencyUs = numberOf(row, sloColumn(s.slo));
  const attainment = numberOf(row, 'attainment');
  const errorRate = numberOf(row, 'error_rate');
  const reasons: string[] = [];
  if (latencyUs === null)
    reasons.push(
      `no ${sloColumn(s.slo)}: no operation timed, or the percentile falls among failed operations ` +
        `with no recorded ${s.slo.latency} time (slower than any bound)`,
    );
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
  return { pass: reasons.length === 0, latencyUs, attainment, errorRate, reasons, suspect: suspectNote(row) };
}
