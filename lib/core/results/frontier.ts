/**
 * The `frontier` table's row of one SLO search (schema.ts; docs/slo-search.md): the answer, the model's predicted
 * limit, the probes, and the found probe's own monthly cost and cost per million operations (its `cells` row's).
 */
import type { SloSearch } from '../spec/schema';
import { sloColumn, sloText, type ProbeVerdict } from '../search/verdict';
import type { ProbeStep } from '../search/probe';
import { runDate, validateRow, type PricedCellCosts, type Row, type RunMeta } from './rows';
import { tableDef } from './schema';

/** A probe that ran, with its verdict. */
export interface ProbeRun extends ProbeVerdict {
  cellId: string;
  rateOpsPerSec: number;
  goodOpsPerSec: number | null;
  /** the probe's own `cells` row's cost columns: priced at its measured rate (null: not priced) */
  monthlyCostUsd: number | null;
  costPerMillionOpsUsd: number | null;
}

export interface FrontierInput {
  searchId: string;
  targetId: string;
  targetKind: string;
  distribution: string;
  readProportion: number;
  search: SloSearch;
  probes: readonly ProbeRun[];
  probesPlanned: number;
  /** the search's last step: its answer, or (the probes ran out) the next rate it wanted */
  step: ProbeStep;
  predictedLimitOpsPerSec: number | null;
  /** the cost model at the required rate (null: none required, or not priced) */
  costsAtRequired: PricedCellCosts | null;
}

export function buildFrontierRow(meta: RunMeta, f: FrontierInput): Row {
  const done = 'done' in f.step ? f.step.done : null;
  const found = done?.foundOpsPerSec ?? null;
  const at = found === null ? undefined : f.probes.find((p) => p.pass && p.rateOpsPerSec === found);
  const required = f.search.requiredOpsPerSec ?? null;
  return validateRow(tableDef('frontier'), {
    run_date: runDate(meta.startedAtMs),
    spec_name: meta.specName,
    run_id: meta.runId,
    search_id: f.searchId,
    target_id: f.targetId,
    target_kind: f.targetKind,
    distribution: f.distribution,
    read_proportion: f.readProportion,
    slo: sloText(f.search.slo),
    slo_column: sloColumn(f.search.slo),
    slo_max_us: f.search.slo.maxMs * 1000,
    min_attainment: f.search.minAttainment,
    max_error_rate: f.search.maxErrorRate,
    outcome: done?.reason ?? 'unfinished',
    found_ops_per_sec: found,
    failed_ops_per_sec: done?.failedOpsPerSec ?? null,
    found_cell_id: at?.cellId ?? null,
    found_latency_us: at?.latencyUs ?? null,
    found_good_ops_per_sec: at?.goodOpsPerSec ?? null,
    predicted_limit_ops_per_sec: f.predictedLimitOpsPerSec,
    probes: f.probes.length,
    probes_planned: f.probesPlanned,
    // the found probe's own figures (its cells row: priced at its measured rate, ÷ its good operations)
    monthly_cost_usd: at?.monthlyCostUsd ?? null,
    cost_per_million_ops_usd: at?.costPerMillionOpsUsd ?? null,
    required_ops_per_sec: required,
    meets_required: required === null ? null : found !== null && found >= required,
    monthly_cost_at_required_usd: f.costsAtRequired?.monthlyCostUsd ?? null,
    probes_json: JSON.stringify(
      f.probes.map((p) => ({
        cell_id: p.cellId,
        rate: p.rateOpsPerSec,
        pass: p.pass,
        latency_us: p.latencyUs,
        attainment: p.attainment,
        error_rate: p.errorRate,
        reasons: p.reasons,
        suspect: p.suspect,
      })),
    ),
  });
}
