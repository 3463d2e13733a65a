/**
 * A/A mode end to end in the local mode: one run of a one-cell spec with `workload.repeats: 3` on
 * DynamoDB Local (real YCSB). The run's DetectRegressions Task state must measure each metric's CV over
 * the three repeats and store the calibration (noise/spec_name=<spec>/<run>.json) with 3 × CV as the
 * threshold, and `fleetbench regressions --local` must analyse the cell's series with those thresholds
 * and list the noise bands. Lean: 3 cells of 4 s (~40 s with DynamoDB Local's start).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec } from '../../lib/core/spec';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import { rowsOf } from '../support/rows';

const SPEC = 'aa-noise';
const RUN = 'aa-noise-1';
const CELL = 'ddb.uniform.r50.t40';

interface Band {
  key: { spec: string; target: string; cell: string; metric: string };
  n: number;
  mean: number;
  std: number;
  cv: number;
  minMagnitude: number;
}

describe('an A/A run (each cell repeated 3 times) calibrates the thresholds', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-aa-'));
  let result: LocalRunResult;

  beforeAll(async () => {
    const t0 = Date.now();
    const spec = validateSpec({
      name: SPEC,
      targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
      dataset: { recordCount: 200 },
      workload: {
        readProportions: [0.5],
        targetOpsPerSec: [40],
        distributions: ['uniform'],
        durationSeconds: 4,
        warmupSeconds: 1,
        statusIntervalSeconds: 1,
        repeats: 3,
      },
      loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 8 },
    }).spec;
    result = await runLocal({ spec, resultsDir, runName: RUN, waitMs: 500, out: () => undefined });
    console.log(`A/A run: 3 repeated cells in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }, 240_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('ran the cell three times', () => {
    expect([result.status, result.warnings]).toEqual(['SUCCEEDED', undefined]);
    const cells = rowsOf(path.join(resultsDir, 'tables', 'cells'));
    expect(cells.map((r) => r.cell_id).sort()).toEqual([1, 2, 3].map((k) => `${CELL}.aa${k}`));
  });

  it("stored each metric's CV over the repeats and 3 × CV as its threshold", () => {
    // Prepare: the mean and sample standard deviation of the P99 and throughput, from the cells rows
    const cells = rowsOf(path.join(resultsDir, 'tables', 'cells'));
    const calibration = JSON.parse(
      readFileSync(path.join(resultsDir, 'noise', `spec_name=${SPEC}`, `${RUN}.json`), 'utf8'),
    ) as { runId: string; factor: number; series: (Omit<Band, 'key'> & { metric: string; cell: string })[] };
    expect([calibration.runId, calibration.factor]).toEqual([RUN, 3]);
    for (const [metric, column] of [
      ['intended_p99_us', 'all_intended_p99_us'],
      ['good_ops_per_sec', 'good_ops_per_sec'],
    ]) {
      const xs = cells.map((r) => r[column] as number);
      const m = (xs[0]! + xs[1]! + xs[2]!) / 3;
      const s = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / 2);
      const entry = calibration.series.find((e) => e.metric === metric)!;
      // Assess
      expect(entry).toMatchObject({ cell: CELL, n: 3 });
      expect(entry.mean).toBeCloseTo(m, 6);
      expect(entry.std).toBeCloseTo(s, 6);
      expect(entry.cv).toBeCloseTo(s / m, 9);
      expect(entry.minMagnitude).toBeCloseTo((3 * s) / m, 9);
    }
    // real measurements: the latency varies between repeats
    expect(calibration.series.find((e) => e.metric === 'intended_p99_us')!.cv).toBeGreaterThan(0);
  });

  it('fleetbench regressions --local analyses the series with those thresholds and shows the noise bands', () => {
    const r = spawnSync(
      process.execPath,
      [
        path.join(__dirname, '..', '..', 'bin', 'fleetbench.js'),
        'regressions',
        '--local',
        '--results',
        resultsDir,
        '--json',
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout) as { noise: Band[] };
    const calibration = JSON.parse(
      readFileSync(path.join(resultsDir, 'noise', `spec_name=${SPEC}`, `${RUN}.json`), 'utf8'),
    ) as { series: { metric: string; minMagnitude: number | null }[] };
    const expected = calibration.series.filter((s) => s.minMagnitude !== null);
    expect(doc.noise.map((b) => [b.key.cell, b.key.metric, b.minMagnitude])).toEqual(
      expected.map((s) => [CELL, s.metric, s.minMagnitude]),
    );
    const text = spawnSync(
      process.execPath,
      [
        path.join(__dirname, '..', '..', 'bin', 'fleetbench.js'),
        'regressions',
        '--local',
        '--results',
        resultsDir,
      ],
      { encoding: 'utf8' },
    ).stdout;
    expect(text).toMatch(
      new RegExp(
        `${SPEC}/ddb/${CELL.replace(/\./g, '\\.')} intended_p99_us: .* \\(CV [0-9.]+%, 3 repeats in run ${RUN}\\) -> min magnitude [0-9.]+%`,
      ),
    );
  });

  it("the run's HTML report shows each metric's noise band", () => {
    const html = readFileSync(result.reportFile!, 'utf8');
    expect(html).toContain(`Noise bands (A/A run <code>${RUN}</code>)`);
    const row = new RegExp(
      `<tr data-noise="ddb/${CELL.replace(/\./g, '\\.')}/intended_p99_us">(.*?)</tr>`,
    ).exec(html);
    expect(row).not.toBeNull();
    // metric, target, cell, repeats, mean, std, CV, band, min magnitude
    expect(row![1]!.match(/<td>/g)).toHaveLength(9);
    expect(row![1]).toMatch(
      /<td>3<\/td>.*<td>[0-9.]+%<\/td><td>[0-9.k]+ – [0-9.k]+<\/td><td>[0-9.]+%<\/td>$/,
    );
  });
});
