import { InputError } from '../../../lib/core/common/errors';
import { analyzeSeries } from '../../../lib/core/regression/analyze';
import { newestPointGuard } from '../../../lib/core/regression/guard';
import { METRICS, isRegression } from '../../../lib/core/regression/metrics';
import { buildSeries } from '../../../lib/core/regression/series';
import { tableDef } from '../../../lib/core/results/schema';

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e.issues;
    throw e;
  }
  throw new Error('expected an InputError');
}

const DAY = 86_400_000;

function row(run: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    spec_name: 'nightly',
    run_id: `run-${String(run).padStart(3, '0')}`,
    target_id: 'ddb',
    cell_id: 'uniform-r50-1000',
    window_start_ms: 1_700_000_000_000 + run * DAY,
    all_intended_p50_us: 900,
    all_intended_p99_us: 2000,
    all_intended_p999_us: 5000,
    good_ops_per_sec: 1000,
    attainment: 1,
    error_rate: 0,
    throttled_attempts: 0,
    achieved_ops_per_sec: 1000,
    measured_seconds: 60,
    monthly_cost_usd: 500,
    ...over,
  };
}

describe('metric definitions', () => {
  it('read columns that exist in the cells table of lib/core/results/schema.ts', () => {
    const names = new Set(tableDef('cells').columns.map((c) => c.name));
    for (const m of METRICS)
      for (const c of m.columns) expect(names.has(c) ? c : `${m.id}: ${c} missing`).toBe(c);
  });

  it('say lower is better for latency, errors and cost, higher for throughput and attainment', () => {
    const better = Object.fromEntries(METRICS.map((m) => [m.id, m.better]));
    expect(better).toEqual({
      intended_p50_us: 'lower',
      intended_p99_us: 'lower',
      intended_p999_us: 'lower',
      good_ops_per_sec: 'higher',
      attainment: 'higher',
      error_rate: 'lower',
      throttle_rate: 'lower',
      monthly_cost_usd: 'lower',
    });
    expect(isRegression('lower', 10, 12)).toBe(true);
    expect(isRegression('higher', 10, 12)).toBe(false);
  });

  it('derive the throttle rate from throttled attempts over attempted operations', () => {
    const m = METRICS.find((x) => x.id === 'throttle_rate')!;
    expect(
      m.value(row(0, { throttled_attempts: 600, achieved_ops_per_sec: 1000, measured_seconds: 60 })),
    ).toBe(0.01);
    expect(m.value(row(0, { throttled_attempts: null }))).toBeNull();
  });
});

describe('buildSeries', () => {
  it('groups by spec × target × cell × metric and orders by run time, not by input order', () => {
    // Prepare
    const rows = [row(2, { all_intended_p99_us: 2200 }), row(0), row(1, { all_intended_p99_us: 2100 })];
    rows.push(row(0, { cell_id: 'zipf-r95-1000', all_intended_p99_us: 3000 }));
    // Act
    const series = buildSeries(rows, { metrics: ['intended_p99_us', 'good_ops_per_sec'] });
    // Assess
    expect(series.map((s) => `${s.key.cell}/${s.key.metric}`)).toEqual([
      'uniform-r50-1000/intended_p99_us',
      'uniform-r50-1000/good_ops_per_sec',
      'zipf-r95-1000/intended_p99_us',
      'zipf-r95-1000/good_ops_per_sec',
    ]);
    expect(series[0].points.map((p) => [p.runId, p.value])).toEqual([
      ['run-000', 2000],
      ['run-001', 2100],
      ['run-002', 2200],
    ]);
    expect(series[0].better).toBe('lower');
    expect(series[1].better).toBe('higher');
  });

  it("orders by the run's start from the runs table when given", () => {
    const rows = [row(0), row(1)];
    const runStarts = new Map([
      ['run-000', 5000],
      ['run-001', 1000],
    ]);
    const [s] = buildSeries(rows, { metrics: ['attainment'], runStarts });
    expect(s.points.map((p) => p.runId)).toEqual(['run-001', 'run-000']);
  });

  it('keeps nulls as missing values and filters by spec', () => {
    const rows = [row(0), row(1, { attainment: null }), row(2, { spec_name: 'other' })];
    const [s] = buildSeries(rows, { metrics: ['attainment'], spec: 'nightly' });
    expect(s.points.map((p) => p.value)).toEqual([1, null]);
  });

  it('names the row and column of bad input', () => {
    const where = (i: number) => `cells.jsonl:${i + 1}`;
    const issues = issuesOf(() =>
      buildSeries(
        [
          row(0),
          row(1, { run_id: 7 }),
          row(2, { good_ops_per_sec: 'fast' }),
          row(0),
          row(3, { window_start_ms: null }),
        ],
        { where },
      ),
    );
    expect(issues.map((i) => i.path)).toEqual([
      'cells.jsonl:2.run_id',
      'cells.jsonl:3.good_ops_per_sec',
      'cells.jsonl:4',
      'cells.jsonl:5.window_start_ms',
    ]);
    expect(issues[2].message).toMatch(/second row .* \(first at cells.jsonl:1\)/);
    expect(issuesOf(() => buildSeries([], { metrics: ['p99'] }))[0].message).toMatch(/unknown metric "p99"/);
  });
});

describe('newestPointGuard (t-test prediction interval)', () => {
  it('computes mean ± t(0.99, n−1)·s·√(1+1/n) over the recent history', () => {
    // history mean 10, sample sd √0.625; t_{0.99,4} = 3.747 (Student's t table, NIST e-Handbook 1.3.6.7.2)
    const g = newestPointGuard([10, 11, 9, 10.5, 9.5, 14], []);
    const half = 3.747 * Math.sqrt(0.625) * Math.sqrt(1 + 1 / 5);
    expect(g.mean).toBeCloseTo(10, 12);
    expect(g.upper!).toBeCloseTo(10 + half, 3);
    expect(g.lower!).toBeCloseTo(10 - half, 3);
    expect(g.status).toBe('suspect');
    expect(g.side).toBe('above');
  });

  it('stays quiet inside the interval, with too little history, and on a missing newest value', () => {
    expect(newestPointGuard([10, 11, 9, 10.5, 9.5, 12], []).status).toBe('ok');
    expect(newestPointGuard([10, 11, 30], []).status).toBe('insufficient-history');
    expect(newestPointGuard([10, 11, 9, 10.5, 9.5, null], []).status).toBe('missing');
  });

  it('uses only the regime since the last change point', () => {
    // before index 6 the level was 20: judged against 10s, 14 is out; against all, it would not be
    const values = [20, 21, 19, 20, 21, 19, 10, 11, 9, 10.5, 9.5, 14];
    const g = newestPointGuard(values, [6]);
    expect(g.from).toBe(6);
    expect(g.n).toBe(5);
    expect(g.status).toBe('suspect');
    expect(newestPointGuard(values, []).status).toBe('ok');
  });

  it('needs the minimum magnitude as well as the interval', () => {
    // a very quiet history: 10.2 is far outside the interval but only 2 % off
    expect(newestPointGuard([10, 10.001, 9.999, 10, 10.001, 10.2], []).status).toBe('ok');
    expect(newestPointGuard([10, 10.001, 9.999, 10, 10.001, 10.2], [], { minMagnitude: 0.01 }).status).toBe(
      'suspect',
    );
  });
});

describe('analyzeSeries', () => {
  function latencySeries(values: (number | null)[]) {
    return buildSeries(
      values.map((v, i) => row(i, { all_intended_p99_us: v })),
      { metrics: ['intended_p99_us'] },
    )[0];
  }

  it('names the run where a latency regression began, and calls a throughput rise an improvement', () => {
    // Prepare: p99 jumps from ~2000 to ~2600 at run 20; throughput rises at run 25
    const p99 = Array.from({ length: 40 }, (_, i) => (i < 20 ? 2000 : 2600) + ((i * 37) % 11) * 5);
    const rows = p99.map((v, i) =>
      row(i, { all_intended_p99_us: v, good_ops_per_sec: i < 25 ? 1000 + (i % 3) : 1200 + (i % 3) }),
    );
    const [lat, ops] = buildSeries(rows, { metrics: ['intended_p99_us', 'good_ops_per_sec'] });
    // Act
    const a = analyzeSeries(lat);
    const b = analyzeSeries(ops);
    // Assess
    expect(a.changes).toHaveLength(1);
    expect(a.changes[0]).toMatchObject({
      runId: 'run-020',
      previousRunId: 'run-019',
      kind: 'regression',
      confirmed: true,
    });
    expect(a.changes[0].forwardChange).toBeGreaterThan(0.25);
    expect(b.changes.map((c) => [c.runId, c.kind])).toEqual([['run-025', 'improvement']]);
    expect(a.newest.status).toBe('ok');
  });

  it('reports the newest run as suspect until enough runs confirm the change', () => {
    const base = Array.from({ length: 30 }, (_, i) => 2000 + ((i * 37) % 11) * 5);
    const oneBad = analyzeSeries(latencySeries([...base, 2600]));
    expect(oneBad.newest).toMatchObject({ status: 'suspect', regression: true, runId: 'run-030' });
    expect(oneBad.changes.filter((c) => c.confirmed)).toEqual([]);

    const threeBad = analyzeSeries(latencySeries([...base, 2600, 2610, 2590]));
    expect(threeBad.changes.map((c) => [c.runId, c.confirmed, c.kind])).toEqual([
      ['run-030', true, 'regression'],
    ]);
  });

  it('a faster newest run is suspect but not a regression', () => {
    const base = Array.from({ length: 30 }, (_, i) => 2000 + ((i * 37) % 11) * 5);
    const r = analyzeSeries(latencySeries([...base, 1500]));
    expect(r.newest).toMatchObject({ status: 'suspect', side: 'below', regression: false });
  });
});
