/**
 * A/A noise calibration (lib/core/regression/noise.ts): repeated cells in the plan, the CV and threshold
 * of each metric, the history's series (first repeat only), and the calibration object in a store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { planRun } from '../../../lib/core/plan';
import { renderReport } from '../../../lib/core/report/html';
import {
  aaCellId,
  analyzeAll,
  buildSeries,
  calibratedMinMagnitude,
  measureNoise,
  noiseKey,
  parseAaCellId,
  readLatestNoise,
  writeNoise,
} from '../../../lib/core/regression';
import { validateSpec } from '../../../lib/core/spec';
import { FsStore } from '../../../lib/local/fs-store';

const CELL = 'ddb.uniform.r50.t1000';
const RUN = { specName: 'nightly', runId: 'aa-1', measuredAtMs: 1_700_000_000_000 };

function row(runId: string, cellId: string, p99: number, extra: Record<string, unknown> = {}) {
  return {
    spec_name: 'nightly',
    run_id: runId,
    cell_id: cellId,
    target_id: 'ddb',
    window_start_ms: 1_700_000_000_000,
    all_intended_p50_us: 900,
    all_intended_p99_us: p99,
    good_ops_per_sec: 1000,
    error_rate: 0,
    ...extra,
  };
}

describe('A/A cell ids', () => {
  it('round-trip, and a plain cell id is not an A/A one', () => {
    expect(aaCellId(CELL, 2)).toBe(`${CELL}.aa2`);
    expect(parseAaCellId(`${CELL}.aa12`)).toEqual({ cell: CELL, repeat: 12 });
    expect(parseAaCellId(CELL)).toBeUndefined();
    expect(parseAaCellId(`${CELL}.aa0`)).toBeUndefined();
  });

  it('the plan repeats each cell `repeats` times in a row with the same YCSB properties', () => {
    // Prepare
    const spec = {
      name: 'nightly',
      targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
      dataset: { recordCount: 1000 },
      workload: { targetOpsPerSec: [500, 1000], durationSeconds: 60, repeats: 3 },
    };
    // Act
    const plan = planRun(validateSpec(spec).spec, { runId: 'r1' });
    const single = planRun(validateSpec({ ...spec, workload: { ...spec.workload, repeats: 1 } }).spec);
    // Assess
    const base = single.cells.map((c) => c.id);
    expect(plan.cells.map((c) => c.id)).toEqual(base.flatMap((id) => [1, 2, 3].map((k) => `${id}.aa${k}`)));
    expect(plan.cells.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(plan.cells[1]!.properties).toEqual(plan.cells[0]!.properties);
    expect(plan.cellSeconds).toBe(3 * single.cellSeconds);
    expect(() => validateSpec({ ...spec, workload: { ...spec.workload, repeats: 0 } })).toThrow(
      'workload.repeats: expected a number at least 1',
    );
  });
});

describe('measureNoise', () => {
  it('computes each metric’s mean, sample std, CV and factor × CV over the repeats of a cell', () => {
    // Prepare: P99 2000, 2100, 1900 → mean 2000, s = 100, CV 5 %; error rate always 0 → no CV
    const rows = [
      row('aa-1', `${CELL}.aa1`, 2000),
      row('aa-1', `${CELL}.aa2`, 2100),
      row('aa-1', `${CELL}.aa3`, 1900, { good_ops_per_sec: 1030 }),
      row('aa-1', 'plain.cell', 5000), // not repeated: not measured
      row('other-run', `${CELL}.aa1`, 9999), // another run
    ];
    // Act
    const c = measureNoise(rows, RUN)!;
    // Assess
    expect(c).toMatchObject({ version: 1, specName: 'nightly', runId: 'aa-1', factor: 3 });
    const p99 = c.series.find((s) => s.metric === 'intended_p99_us')!;
    expect(p99).toEqual({
      target: 'ddb',
      cell: CELL,
      metric: 'intended_p99_us',
      n: 3,
      mean: 2000,
      std: 100,
      cv: 0.05,
      minMagnitude: expect.closeTo(0.15, 12),
    });
    const ops = c.series.find((s) => s.metric === 'good_ops_per_sec')!;
    expect(ops.mean).toBeCloseTo(1010, 10);
    expect(ops.std).toBeCloseTo(Math.sqrt((2 * 10 * 10 + 20 * 20) / 2), 10);
    expect(c.series.find((s) => s.metric === 'error_rate')).toMatchObject({
      mean: 0,
      cv: null,
      minMagnitude: null,
    });
    expect(c.series.find((s) => s.metric === 'intended_p50_us')).toMatchObject({
      std: 0,
      cv: 0,
      minMagnitude: 0,
    });
    // metrics the rows do not carry have no entry
    expect(c.series.find((s) => s.metric === 'monthly_cost_usd')).toBeUndefined();
    expect(new Set(c.series.map((s) => s.cell))).toEqual(new Set([CELL]));
  });

  it('is undefined for a run without repeated cells, and rejects a bad factor', () => {
    expect(measureNoise([row('aa-1', CELL, 2000)], RUN)).toBeUndefined();
    expect(() => measureNoise([], RUN, 0)).toThrow(InputError);
  });
});

describe('A/A runs in the history', () => {
  it('the first repeat is the run’s point of the cell’s series, the others are left out', () => {
    const rows = [
      row('r1', CELL, 2000, { window_start_ms: 1 }),
      row('aa-1', `${CELL}.aa1`, 2050, { window_start_ms: 2 }),
      row('aa-1', `${CELL}.aa2`, 2100, { window_start_ms: 3 }),
    ];
    const [p99] = buildSeries(rows, { metrics: ['intended_p99_us'] });
    expect(p99!.key.cell).toBe(CELL);
    expect(p99!.points.map((p) => [p.runId, p.value])).toEqual([
      ['r1', 2000],
      ['aa-1', 2050],
    ]);
  });

  it('a calibrated series is analysed with its own threshold, the others with the options’', () => {
    const c = measureNoise([row('aa-1', `${CELL}.aa1`, 2000), row('aa-1', `${CELL}.aa2`, 2010)], RUN)!;
    const series = buildSeries([row('r1', CELL, 2000), row('r1', 'other', 2000)], {
      metrics: ['intended_p99_us'],
    });
    const [mine, other] = analyzeAll(series, {
      detect: { minMagnitude: 0.07 },
      minMagnitudeFor: calibratedMinMagnitude(c),
    });
    const expected = (3 * Math.sqrt(50)) / 2005;
    expect(mine!.minMagnitude).toBeCloseTo(expected, 12);
    expect(mine!.calibrated).toBe(true);
    expect(other).toMatchObject({ minMagnitude: 0.07, calibrated: false });
  });
});

describe('calibration objects in a store', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-noise-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the newest calibration of the spec wins; none is undefined', async () => {
    const store = new FsStore(dir);
    expect(await readLatestNoise(store, 'nightly')).toBeUndefined();
    const rows = (runId: string, a: number) => [
      row(runId, `${CELL}.aa1`, a),
      row(runId, `${CELL}.aa2`, 2000),
    ];
    const older = measureNoise(rows('aa-1', 2100), { ...RUN, runId: 'aa-1' })!;
    const newer = measureNoise(rows('aa-2', 2010), {
      ...RUN,
      runId: 'aa-2',
      measuredAtMs: RUN.measuredAtMs + 1,
    })!;
    expect(await writeNoise(store, newer)).toBe(noiseKey('nightly', 'aa-2'));
    await writeNoise(store, older);
    expect(await store.list('noise/')).toEqual([
      'noise/spec_name=nightly/aa-1.json',
      'noise/spec_name=nightly/aa-2.json',
    ]);
    expect(await readLatestNoise(store, 'nightly')).toEqual(newer);
    expect(await readLatestNoise(store, 'other-spec')).toBeUndefined();
    // a spec whose name extends another's has its own calibrations
    const longer = { ...newer, specName: 'nightly-2', runId: 'aa-3', measuredAtMs: newer.measuredAtMs + 1 };
    await writeNoise(store, longer);
    expect(await readLatestNoise(store, 'nightly')).toEqual(newer);
    expect(await readLatestNoise(store, 'nightly-2')).toEqual(longer);
  });

  it('a calibration object off the schema is an error naming the object and field', async () => {
    const store = new FsStore(dir);
    const key = noiseKey('nightly', 'aa-1');
    await store.putJson(key, {
      version: 1,
      specName: 'nightly',
      runId: 'aa-1',
      measuredAtMs: 1,
      factor: -1,
      series: [],
    });
    const err = await readLatestNoise(store, 'nightly').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues).toEqual([
      { path: `${store.uriOf(key)}#factor`, message: expect.any(String) },
    ]);
  });
});

describe('the run report', () => {
  it('shows each metric’s noise band: mean ± 3 × CV and the min magnitude', () => {
    const c = measureNoise(
      [row('aa-1', `${CELL}.aa1`, 2000), row('aa-1', `${CELL}.aa2`, 2100), row('aa-1', `${CELL}.aa3`, 1900)],
      RUN,
    )!;
    const html = renderReport({
      runId: 'aa-1',
      specName: 'nightly',
      startedAt: 'now',
      status: 'SUCCEEDED',
      cells: [],
      series: {},
      noise: c,
    });
    expect(html).toContain('Noise bands (A/A run <code>aa-1</code>)');
    expect(html).toContain(
      `<tr data-noise="ddb/${CELL}/intended_p99_us"><td>intended_p99_us</td><td>ddb</td><td>${CELL}</td>` +
        '<td>3</td><td>2000</td><td>100</td><td>5.00%</td><td>1700 – 2300</td><td>15.00%</td></tr>',
    );
    expect(html).toContain(`<tr data-noise="ddb/${CELL}/error_rate"><td>error_rate</td>`);
  });

  it('stops a band wider than the mean at 0 (no metric is negative)', () => {
    // mean 2000, sample std 1000: CV 50 %, so mean − 3 × CV would be −1000
    const c = measureNoise(
      [row('aa-1', `${CELL}.aa1`, 1000), row('aa-1', `${CELL}.aa2`, 2000), row('aa-1', `${CELL}.aa3`, 3000)],
      RUN,
    )!;
    const html = renderReport({
      runId: 'aa-1',
      specName: 'nightly',
      startedAt: 'now',
      status: 'SUCCEEDED',
      cells: [],
      series: {},
      noise: c,
    });
    expect(html).toContain(
      `<td>intended_p99_us</td><td>ddb</td><td>${CELL}</td><td>3</td><td>2000</td><td>1000</td><td>50.00%</td><td>0 – 5000</td>`,
    );
  });
});
