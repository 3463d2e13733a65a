/**
 * Series from `cells` rows: one per spec × target × cell × metric, ordered by run time.
 *
 * The run time is the run's start when known (`runStarts`, from the `runs` table), else the cell's
 * `window_start_ms`; runs of one scheduled spec never overlap, so either orders them the same way.
 * In an A/A run (repeated cells, `<cell>.aa<k>`) the first repeat is the cell's point, the others are
 * left out.
 */
import { InputError, Issue } from '../common/errors';
import { CellsRow, Direction, METRICS, MetricDef } from './metrics';
import { parseAaCellId } from './noise';
import { isProbeCellId } from '../search/probe';

/**
 * Whether a `cells` row belongs in a series (the DetectRegressions step and `fleetbench regressions`/`history` alike):
 * an incomplete cell (a loader or process missing) does not measure the same thing, and an SLO search's probes run
 * rates decided at run time (probe k of one run is not probe k of another).
 */
export function isSeriesRow(row: { incomplete?: unknown; cell_id?: unknown }): boolean {
  return row.incomplete !== true && !isProbeCellId(String(row.cell_id));
}

export interface SeriesKey {
  spec: string;
  target: string;
  cell: string;
  metric: string;
}

export interface SeriesPoint {
  runId: string;
  timeMs: number;
  /** null: the run did not report this metric */
  value: number | null;
}

export interface Series {
  key: SeriesKey;
  better: Direction;
  unit: string;
  points: SeriesPoint[];
}

export interface BuildSeriesOptions {
  /** metric ids to build (default: all of METRICS) */
  metrics?: readonly string[];
  /** only rows of this spec */
  spec?: string;
  /** run id → run start, epoch ms */
  runStarts?: ReadonlyMap<string, number>;
  /** where row i came from, for error messages (default `rows[i]`) */
  where?: (i: number) => string;
}

const KEY_COLUMNS = ['spec_name', 'target_id', 'cell_id', 'run_id'] as const;

export function seriesId(k: SeriesKey): string {
  return `${k.spec}/${k.target}/${k.cell}/${k.metric}`;
}

export function buildSeries(rows: readonly CellsRow[], options: BuildSeriesOptions = {}): Series[] {
  const where = options.where ?? ((i: number) => `rows[${i}]`);
  const metrics = selectMetrics(options.metrics);
  const issues: Issue[] = [];
  const groups = new Map<
    string,
    {
      key: Omit<SeriesKey, 'metric'>;
      points: Map<string, { row: number; timeMs: number; values: unknown[] }>;
    }
  >();

  rows.forEach((row, i) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      issues.push({ path: where(i), message: 'expected an object (a cells row)' });
      return;
    }
    const bad = KEY_COLUMNS.filter((c) => typeof row[c] !== 'string' || row[c] === '');
    for (const c of bad) issues.push({ path: `${where(i)}.${c}`, message: 'expected a non-empty string' });
    if (bad.length) return;
    const spec = row.spec_name as string;
    if (options.spec !== undefined && spec !== options.spec) return;
    const runId = row.run_id as string;
    const timeMs = options.runStarts?.get(runId) ?? row.window_start_ms;
    if (typeof timeMs !== 'number' || !Number.isFinite(timeMs)) {
      issues.push({
        path: `${where(i)}.window_start_ms`,
        message: `expected epoch milliseconds (or the run's start from the runs table) for run ${runId}`,
      });
      return;
    }
    // an A/A run's repeats (`<cell>.aa<k>`): the first is the run's point of the cell's series, the
    // others only measure noise (noise.ts)
    const aa = parseAaCellId(row.cell_id as string);
    if (aa && aa.repeat > 1) return;
    const key = { spec, target: row.target_id as string, cell: aa ? aa.cell : (row.cell_id as string) };
    const gid = `${key.spec}\u0000${key.target}\u0000${key.cell}`;
    let g = groups.get(gid);
    if (!g) groups.set(gid, (g = { key, points: new Map() }));
    const earlier = g.points.get(runId);
    if (earlier) {
      issues.push({
        path: where(i),
        message: `run ${runId} has a second row for cell ${key.cell} of target ${key.target} (first at ${where(earlier.row)})`,
      });
      return;
    }
    const values = metrics.map((m) => {
      const v = m.value(row);
      if (v === null || v === undefined) return null;
      if (typeof v !== 'number' || Number.isNaN(v)) {
        issues.push({
          path: `${where(i)}.${m.columns.length === 1 ? m.columns[0] : m.columns.join('|')}`,
          message: `expected a number or null for ${m.id}, got ${JSON.stringify(v)}`,
        });
        return null;
      }
      return v;
    });
    g.points.set(runId, { row: i, timeMs, values });
  });
  if (issues.length) throw new InputError(issues);

  const out: Series[] = [];
  const sortedGroups = [...groups.values()].sort(
    (a, b) => cmp(a.key.spec, b.key.spec) || cmp(a.key.target, b.key.target) || cmp(a.key.cell, b.key.cell),
  );
  for (const g of sortedGroups) {
    const ordered = [...g.points.entries()].sort(([ra, a], [rb, b]) => a.timeMs - b.timeMs || cmp(ra, rb));
    metrics.forEach((m, mi) => {
      out.push({
        key: { ...g.key, metric: m.id },
        better: m.better,
        unit: m.unit,
        points: ordered.map(([runId, p]) => ({
          runId,
          timeMs: p.timeMs,
          value: p.values[mi] as number | null,
        })),
      });
    });
  }
  return out;
}

function selectMetrics(ids: readonly string[] | undefined): MetricDef[] {
  if (!ids) return [...METRICS];
  const issues: Issue[] = [];
  const out: MetricDef[] = [];
  ids.forEach((id, i) => {
    const m = METRICS.find((x) => x.id === id);
    if (m) out.push(m);
    else {
      issues.push({
        path: `metrics[${i}]`,
        message: `unknown metric "${id}"; expected one of ${METRICS.map((x) => x.id).join(', ')}`,
      });
    }
  });
  if (issues.length) throw new InputError(issues);
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
