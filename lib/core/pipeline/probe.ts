/**
 * The SLO search at run time (docs/slo-search.md). A probe cell's rate is decided when StartCell starts it, from
 * the rows of its search's earlier probes (what AggregateCell wrote): nextProbe gives the rate, or the answer, in
 * which case the probe is skipped (no loader command, no row, no cost). The decision is kept beside the cell
 * (`runs/<id>/cells/<cell>/probe.json`) for AggregateCell and the report. When a search ends, AggregateCell writes
 * its `frontier` row (lib/core/results/frontier.ts).
 */
import type { CellSummary, PlanIndex, SearchPlan } from '../plan';
import { searchStartPrediction } from '../plan';
import type { RunSpec, SloSearch } from '../spec';
import type { ObjectStore } from '../common/ports';
import { InputError } from '../common/errors';
import { nextProbe, type ProbeStep } from '../search/probe';
import { probeVerdict } from '../search/verdict';
import { buildFrontierRow, type ProbeRun } from '../results/frontier';
import type { CellCosts, PricedCellCosts, Row } from '../results/rows';
import { tableObjectKey, toJsonLines } from '../results/rows';
import { tableDef } from '../results/schema';
import { cellKey, readOptional, runKey } from './keys';
import type { RunContext } from './run-context';

/** What StartCell decided for a probe: the rate it runs, or null (skipped: its search had ended). */
export interface ProbeDecision {
  search: string;
  index: number;
  rateOpsPerSec: number | null;
}

export const probeKey = (runId: string, cellId: string): string => cellKey(runId, cellId, 'probe.json');

/** A probe's decision as StartCell stored it; null when it was not decided (StartCell did not reach it). */
export const readProbeDecision = async (
  store: ObjectStore,
  runId: string,
  cellId: string,
): Promise<ProbeDecision | null> =>
  (await readOptional(store, probeKey(runId, cellId))) as ProbeDecision | null;

function searchOf(plan: PlanIndex, spec: RunSpec, cell: CellSummary): { s: SloSearch; plan: SearchPlan } {
  const sp = plan.searches?.find((x) => x.id === cell.probe!.search);
  if (!sp || !spec.workload.search)
    throw new InputError([
      { path: 'plan.searches', message: `no search "${cell.probe!.search}" for cell ${cell.id}` },
    ]);
  return { s: spec.workload.search, plan: sp };
}

/** Where the run runs, for the prediction that starts the search. */
function modeOf(run: RunContext, spec: RunSpec): 'aws' | 'local-emulated' | 'local' {
  if (run.storeUri.startsWith('s3://')) return 'aws';
  return spec.local?.capacityEmulation === false ? 'local' : 'local-emulated';
}

/** The probes of a search that ran before probe `before` (1-based; all when omitted), with their verdicts. */
async function probesRun(
  store: ObjectStore,
  args: { run: RunContext; plan: PlanIndex; s: SloSearch; search: SearchPlan; before?: number },
): Promise<{ probes: ProbeRun[]; rows: Map<string, Row> }> {
  const { run, plan, s, search } = args;
  const probes: ProbeRun[] = [];
  const rows = new Map<string, Row>();
  for (const [i, index] of search.cells.entries()) {
    if (args.before !== undefined && i + 1 >= args.before) break;
    const cell = plan.cells[index]!;
    const d = await readProbeDecision(store, run.runId, cell.id);
    if (!d || d.rateOpsPerSec === null) break;
    const result = (await readOptional(store, cellKey(run.runId, cell.id, 'result.json'))) as {
      row: Row;
    } | null;
    // a probe that ran and left no row did not show its rate was served: it fails
    const row: Row = result?.row ?? { incomplete: true, incomplete_reason: 'no result' };
    rows.set(cell.id, row);
    const n = (k: string): number | null => (typeof row[k] === 'number' ? row[k] : null);
    probes.push({
      ...probeVerdict(s, row),
      cellId: cell.id,
      rateOpsPerSec: d.rateOpsPerSec,
      goodOpsPerSec: n('good_ops_per_sec'),
      monthlyCostUsd: n('monthly_cost_usd'),
      costPerMillionOpsUsd: n('cost_per_million_ops_usd'),
    });
  }
  return { probes, rows };
}

const stepOf = (s: SloSearch, probes: readonly ProbeRun[], predicted: number | null): ProbeStep =>
  nextProbe(
    s,
    probes.map((p) => ({ rateOpsPerSec: p.rateOpsPerSec, pass: p.pass })),
    predicted,
  );

/**
 * StartCell's decision for a cell: null for an ordinary cell; for a probe, the rate it runs (or null: skipped),
 * written to probe.json.
 */
export async function decideProbe(
  store: ObjectStore,
  args: { run: RunContext; plan: PlanIndex; spec: RunSpec; cell: CellSummary },
): Promise<ProbeDecision | null> {
  const { run, plan, spec, cell } = args;
  if (!cell.probe) return null;
  const { s, plan: search } = searchOf(plan, spec, cell);
  const { probes } = await probesRun(store, { run, plan, s, search, before: cell.probe.index });
  const ended = probes.length < cell.probe.index - 1;
  const step = ended ? null : stepOf(s, probes, searchStartPrediction(search, modeOf(run, spec)));
  const decision: ProbeDecision = {
    search: search.id,
    index: cell.probe.index,
    rateOpsPerSec: step && 'rate' in step ? step.rate : null,
  };
  await store.putJson(probeKey(run.runId, cell.id), decision);
  return decision;
}

/** AggregateCell's read of a probe's decision (null for an ordinary cell). */
export async function probeDecisionOf(
  store: ObjectStore,
  runId: string,
  cell: CellSummary,
): Promise<ProbeDecision | null> {
  if (!cell.probe) return null;
  const d = await readProbeDecision(store, runId, cell.id);
  if (!d)
    throw new InputError([
      { path: 'cell.probe', message: `probe ${cell.id} was not started (no probe.json)` },
    ]);
  return d;
}

/**
 * After a probe's row is written: when its search has ended (or this was its last planned probe), the search's
 * `frontier` row. Returns whether it was written.
 */
export async function finishSearch(
  store: ObjectStore,
  args: {
    run: RunContext;
    plan: PlanIndex;
    spec: RunSpec;
    cell: CellSummary;
    costAt: (opsPerSec: number) => CellCosts;
  },
): Promise<boolean> {
  const { run, plan, spec, cell } = args;
  if (!cell.probe) return false;
  const { s, plan: search } = searchOf(plan, spec, cell);
  const { probes } = await probesRun(store, { run, plan, s, search });
  const predicted = searchStartPrediction(search, modeOf(run, spec));
  const step = stepOf(s, probes, predicted);
  if (!('done' in step) && cell.probe.index < search.cells.length) return false;
  const priced = (c: CellCosts): PricedCellCosts | null =>
    'hoursPerMonth' in c ? (c as PricedCellCosts) : null;
  const required = s.requiredOpsPerSec;
  const row = buildFrontierRow(run, {
    searchId: search.id,
    targetId: cell.target,
    targetKind: cell.targetKind,
    distribution: cell.distributionLabel,
    readProportion: cell.readProportion,
    search: s,
    probes,
    probesPlanned: search.worstCaseProbes,
    step,
    predictedLimitOpsPerSec: predicted,
    costsAtRequired: required === undefined ? null : priced(args.costAt(required)),
  });
  const t = tableDef('frontier');
  await store.put(tableObjectKey(t, run, `${run.runId}.${search.id}`), toJsonLines(t, [row]));
  await store.putJson(frontierKey(run.runId, search.id), row);
  return true;
}

/** The frontier row of a search, kept under the run for the report (as result.json is for a cell). */
export const frontierKey = (runId: string, searchId: string): string =>
  runKey(runId, 'searches', `${searchId}.json`);

/** The cells that ran or may still run: the plan's, less the probes skipped because their search had ended. */
export async function cellsNotSkipped<C extends CellSummary>(
  store: ObjectStore,
  runId: string,
  cells: readonly C[],
): Promise<C[]> {
  const out: C[] = [];
  for (const c of cells) {
    const d = c.probe ? await readProbeDecision(store, runId, c.id) : null;
    if (!d || d.rateOpsPerSec !== null) out.push(c);
  }
  return out;
}
