/**
 * Builds table rows (see schema.ts) from aggregation results, validates them against the table
 * definition and serialises them as JSON lines.
 */
import { CellAggregate, LatencyStats } from './aggregate';
import {
  FAMILIES,
  FAMILY_STATS,
  INCL_FAILED_STATS,
  STATUS_COLUMNS,
  TableDef,
  inclFailedColumn,
  tableDef,
} from './schema';
import { loaderCpuColumns } from './loader-cpu';
import { costPerOps } from '../cost/monthly';
import { Q } from '../cost/decimal';
import { InputError, type Issue } from '../common/errors';

export type Row = Record<string, string | number | boolean | null>;

export interface RunMeta {
  runId: string;
  specName: string;
  /** run start, epoch ms (gives run_date) */
  startedAtMs: number;
}

export interface CellMeta extends RunMeta {
  cellId: string;
  targetId: string;
  targetKind: string;
  distribution: string;
  readProportion: number;
  updateProportion: number;
}

/** A planned cell's identity in the rows of a run. */
export function cellMetaOf(
  run: RunMeta,
  cell: {
    id: string;
    target: string;
    targetKind: string;
    distributionLabel: string;
    readProportion: number;
    updateProportion: number;
  },
): CellMeta {
  return {
    runId: run.runId,
    specName: run.specName,
    startedAtMs: run.startedAtMs,
    cellId: cell.id,
    targetId: cell.target,
    targetKind: cell.targetKind,
    distribution: cell.distributionLabel,
    readProportion: cell.readProportion,
    updateProportion: cell.updateProportion,
  };
}

/** A cell's cost columns: priced (the monthly costs and the month they are for), or none (`{}`). */
export interface PricedCellCosts {
  monthlyCostProvisionedUsd: number | null;
  monthlyCostOnDemandUsd: number | null;
  /** the target's monthly cost in its configured capacity mode */
  monthlyCostUsd: number;
  /** the hours of the month the monthly costs are for (the price book's: 730, AWS's month) */
  hoursPerMonth: number;
}
export type CellCosts = PricedCellCosts | Record<string, never>;

export function runDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

function partition(meta: RunMeta): Row {
  return { run_date: runDate(meta.startedAtMs), spec_name: meta.specName };
}

function familyStat(s: LatencyStats, stat: (typeof FAMILY_STATS)[number]): number | null {
  if (stat === 'count') return s.count;
  if (s.count === 0) return null;
  return s[stat];
}

/** The columns that say which cell a `cells` row is (its partition, run, cell, target and operation mix). */
function cellIdentity(meta: CellMeta): Row {
  return {
    ...partition(meta),
    run_id: meta.runId,
    cell_id: meta.cellId,
    target_id: meta.targetId,
    target_kind: meta.targetKind,
    distribution: meta.distribution,
    read_proportion: meta.readProportion,
    update_proportion: meta.updateProportion,
  };
}

export function buildCellRow(meta: CellMeta, agg: CellAggregate, costs: CellCosts = {}): Row {
  const row: Row = {
    ...cellIdentity(meta),
    target_ops_per_sec: agg.targetOpsPerSec,
    window_start_ms: agg.window.startMs,
    window_end_ms: agg.window.endMs,
    measured_seconds: agg.window.measuredSeconds,
    warmup_seconds: agg.window.warmupSeconds,
    cooldown_seconds: agg.window.cooldownSeconds,
    loaders: agg.loaders,
    processes: agg.processes.length,
    achieved_ops_per_sec: agg.achievedOpsPerSec,
    good_ops_per_sec: agg.goodOpsPerSec,
    attainment: agg.attainment,
  };
  for (const f of FAMILIES) {
    const fam = agg.families[f.key];
    for (const kind of ['service', 'intended'] as const) {
      for (const s of FAMILY_STATS) {
        const name = s === 'count' ? `${f.prefix}_${kind}_count` : `${f.prefix}_${kind}_${s}_us`;
        row[name] = familyStat(fam[kind], s);
      }
      for (const s of INCL_FAILED_STATS) row[inclFailedColumn(f.prefix, kind, s)] = fam.inclFailed[kind][s];
    }
  }
  const named = new Set<string>(STATUS_COLUMNS.map((s) => s.status));
  for (const s of STATUS_COLUMNS) row[s.column] = 0;
  row.status_other = 0;
  for (const per of Object.values(agg.statuses)) {
    for (const [status, n] of Object.entries(per)) {
      const c = STATUS_COLUMNS.find((x) => x.status === status);
      if (c) row[c.column] = (row[c.column] as number) + n;
      else if (!named.has(status)) row.status_other = (row.status_other as number) + n;
    }
  }
  row.errors = agg.failedOps;
  row.error_rate = agg.errorRate;
  row.throttled_attempts = agg.throttledAttempts;
  row.incomplete = agg.incomplete.length > 0;
  row.incomplete_reason = agg.incomplete.length ? agg.incomplete.join('; ') : null;
  Object.assign(row, loaderCpuColumns(agg));
  const priced = 'hoursPerMonth' in costs ? (costs as PricedCellCosts) : null;
  row.monthly_cost_provisioned_usd = priced?.monthlyCostProvisionedUsd ?? null;
  row.monthly_cost_on_demand_usd = priced?.monthlyCostOnDemandUsd ?? null;
  row.monthly_cost_usd = priced?.monthlyCostUsd ?? null;
  // the monthly cost ÷ the good operations of the same month (the price book's hours) at the measured rate
  const perMillion =
    priced && agg.goodOpsPerSec > 0
      ? costPerOps(Q.of(priced.monthlyCostUsd), agg.goodOpsPerSec, priced.hoursPerMonth, 1e6)
      : undefined;
  row.cost_per_million_ops_usd = perMillion ? perMillion.toNumber() : null;
  return validateRow(tableDef('cells'), row);
}

/**
 * The `cells` row of a cell that measured nothing (it failed, and its retry too): incomplete with the reason, no
 * operation counted, every latency, rate and cost null where the column allows it and zero where it counts.
 * Built from the table's columns, so a column added to the table is covered.
 */
export function unmeasuredCellRow(
  meta: CellMeta,
  cell: { targetOpsPerSec: number | null; atMs: number; reason: string },
): Row {
  const row: Row = {};
  for (const c of tableDef('cells').columns) {
    row[c.name] = c.nullable ? null : c.type === 'boolean' ? false : c.type === 'string' ? '' : 0;
  }
  Object.assign(row, {
    ...cellIdentity(meta),
    target_ops_per_sec: cell.targetOpsPerSec,
    window_start_ms: cell.atMs,
    window_end_ms: cell.atMs,
    incomplete: true,
    incomplete_reason: cell.reason,
  });
  return validateRow(tableDef('cells'), row);
}

export function buildIntervalRows(meta: CellMeta, agg: CellAggregate): Row[] {
  const rows: Row[] = [];
  for (const b of agg.series) {
    for (const [op, p] of Object.entries(b.ops).sort((x, y) => x[0].localeCompare(y[0]))) {
      rows.push(
        validateRow(tableDef('intervals'), {
          ...partition(meta),
          run_id: meta.runId,
          cell_id: meta.cellId,
          op,
          bucket_start_ms: b.startMs,
          offset_seconds: b.offsetSeconds,
          bucket_seconds: p.seconds,
          in_window: b.inWindow,
          count: p.count,
          ops_per_sec: p.opsPerSec,
          p50_us: p.p50,
          p99_us: p.p99,
          max_us: p.max,
        }),
      );
    }
  }
  return rows;
}

export interface RunSummaryInput extends RunMeta {
  endedAtMs: number | null;
  status: 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'RUNNING';
  mode: 'aws' | 'local';
  region: string | null;
  priceBook: string | null;
  cellsTotal: number;
  runCostEstimateUsd: number | null;
}

export function buildRunRow(run: RunSummaryInput, cellRows: Row[]): Row {
  return validateRow(tableDef('runs'), {
    ...partition(run),
    run_id: run.runId,
    started_at_ms: run.startedAtMs,
    ended_at_ms: run.endedAtMs,
    status: run.status,
    mode: run.mode,
    region: run.region,
    price_book: run.priceBook,
    cells_total: run.cellsTotal,
    cells_incomplete: cellRows.filter((r) => r.incomplete === true).length,
    run_cost_estimate_usd: run.runCostEstimateUsd,
  });
}

/** Checks a row has exactly the table's columns (and partition keys) with the declared types. */
export function validateRow(table: TableDef, row: Row): Row {
  const problems: string[] = [];
  const cols = [...table.partitionKeys, ...table.columns];
  const known = new Set(cols.map((c) => c.name));
  for (const k of Object.keys(row)) if (!known.has(k)) problems.push(`${k}: not a column of ${table.name}`);
  for (const c of cols) {
    const v = row[c.name];
    if (v === undefined) problems.push(`${c.name}: missing`);
    else if (v === null) {
      if (!c.nullable) problems.push(`${c.name}: null in a non-nullable column`);
    } else if (c.type === 'string' && typeof v !== 'string') problems.push(`${c.name}: expected a string`);
    else if (c.type === 'boolean' && typeof v !== 'boolean') problems.push(`${c.name}: expected a boolean`);
    else if (c.type === 'bigint' && !(typeof v === 'number' && Number.isSafeInteger(v))) {
      problems.push(`${c.name}: expected an integer`);
    } else if (c.type === 'double' && !(typeof v === 'number' && Number.isFinite(v))) {
      problems.push(`${c.name}: expected a finite number`);
    }
  }
  if (problems.length) throw new Error(`invalid ${table.name} row: ${problems.join('; ')}`);
  return row;
}

/** JSON lines, columns in table order. */
export function toJsonLines(table: TableDef, rows: Row[]): string {
  const order = [...table.columns, ...table.partitionKeys].map((c) => c.name);
  return (
    rows.map((r) => JSON.stringify(Object.fromEntries(order.map((k) => [k, r[k]])))).join('\n') +
    (rows.length ? '\n' : '')
  );
}

/** A table row read back, and where it came from (`<file or object uri>:<line>`). */
export interface LocatedRow {
  row: Record<string, unknown>;
  where: string;
}

/**
 * The rows of JSON-lines table files (what `toJsonLines` writes), in order, each with `<source>:<line>`; blank
 * lines skipped. Every line of every file that is not a JSON object is reported at once (InputError).
 */
export function fromJsonLines(files: readonly { text: string; source: string }[]): LocatedRow[] {
  const out: LocatedRow[] = [];
  const issues: Issue[] = [];
  for (const { text, source } of files) {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const where = `${source}:${i + 1}`;
      try {
        const v: unknown = JSON.parse(line);
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          issues.push({ path: where, message: 'expected a JSON object (one row per line)' });
        } else out.push({ row: v as Record<string, unknown>, where });
      } catch (e) {
        issues.push({ path: where, message: `not valid JSON: ${(e as Error).message}` });
      }
    });
  }
  if (issues.length) throw new InputError(issues);
  return out;
}

/** Object key of a table file: `tables/<table>/run_date=…/spec_name=…/<file>.jsonl`. */
export function tableObjectKey(table: TableDef, meta: RunMeta, file: string): string {
  return `tables/${table.name}/run_date=${runDate(meta.startedAtMs)}/spec_name=${encodeURIComponent(meta.specName)}/${file}.jsonl`;
}
