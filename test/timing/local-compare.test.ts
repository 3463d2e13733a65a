/**
 * `fleetbench compare` end to end in the local mode (issue #31): three runs of one one-cell spec on one warm
 * DynamoDB Local — a baseline, an unchanged repeat, and a run slowed by the binding's test-only
 * `fleetbench.injectDelayUs` (every operation sleeps that long inside the timed call). The real CLI compares
 * them from the results directory: the slowed run's P99 is significantly worse, by about the delay; the
 * unchanged run stays within the noise between runs (which the interval does not cover); `--fail-on` sets the exit code.
 *
 * Sizes: 200 ops/s, 256 threads, 20 s with 5 s warm-up and 1-s status intervals (15 buckets per cell, ~3,000
 * operations: a P99 rests on ~30 operations, not the ~6 of a 600-operation cell, whose P99 one stall moved by
 * 2.7× between two unchanged runs in CI). The delay is 500 ms, well above the spread of unchanged runs on this
 * machine; 256 threads keep the slowed run far from saturation (256 / 0.52 s ≈ 490 ops/s), so the change is a
 * shift of the latency, not queueing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { validateSpec, type RunSpec } from '../../lib/core/spec';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local';
import { runLocal, type LocalRunResult } from '../../lib/local/runner';
import type { Comparison } from '../../lib/core/report/compare';

const DELAY_US = 500_000;
const root = path.join(__dirname, '..', '..');

function specOf(name: string, delayUs: number): RunSpec {
  return validateSpec({
    name,
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 20 }],
    dataset: { recordCount: 1000 },
    workload: {
      readProportions: [0.5],
      targetOpsPerSec: [200],
      distributions: ['uniform'],
      durationSeconds: 20,
      warmupSeconds: 5,
      statusIntervalSeconds: 1,
      ...(delayUs ? { extraProperties: { 'fleetbench.injectDelayUs': String(delayUs) } } : {}),
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 256 },
  }).spec;
}

function compare(resultsDir: string, ...args: string[]) {
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'bin', 'fleetbench.js'), 'compare', ...args, '--results', resultsDir],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('compare: two local runs, one slowed by fleetbench.injectDelayUs, one unchanged', () => {
  const resultsDir = mkdtempSync(path.join(tmpdir(), 'fleetbench-compare-'));
  const results: Record<string, LocalRunResult> = {};
  let ddb: DynamoDbLocal | undefined;

  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
    try {
      const t0 = Date.now();
      for (const [name, spec, delay] of [
        ['cmp-warmup', 'cmp-warmup', 0],
        ['cmp-base', 'cmp', 0],
        ['cmp-same', 'cmp', 0],
        ['cmp-slow', 'cmp', DELAY_US],
      ] as const)
        results[name] = await runLocal({
          spec: specOf(spec, delay),
          resultsDir,
          runName: name,
          waitMs: 500,
          dynamoDbLocal: ddb,
          out: () => undefined,
        });
      console.log(`local compare sequence: 4 runs in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    } finally {
      await ddb.stop();
    }
  }, 400_000);

  afterAll(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('every run succeeded', () => {
    expect(Object.values(results).map((r) => [r.runId, r.status])).toEqual(
      Object.keys(results).map((n) => [n, 'SUCCEEDED']),
    );
  });

  it('the slowed run: P99 significantly worse, by about the delay, inside its interval', () => {
    const r = compare(resultsDir, 'cmp-slow', 'cmp-base', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout) as Comparison;
    expect(c.cells.map((x) => x.cellId)).toEqual(['ddb.uniform.r50.t200']);
    const p99 = c.cells[0]!.metrics.find((m) => m.metric === 'p99')!;
    console.log(`slowed vs base: ${JSON.stringify(p99)}`);
    expect(p99.verdict).toBe('worse');
    expect(p99.change!).toBeGreaterThan(0);
    // the point change lies in its interval, and the interval excludes no change
    expect(p99.ci![0]).toBeGreaterThan(0);
    expect(p99.ci![0]).toBeLessThanOrEqual(p99.change!);
    expect(p99.ci![1]).toBeGreaterThanOrEqual(p99.change!);
    // magnitude: every operation is DELAY_US slower, so the P99 rises by about DELAY_US (±50 % for the
    // machine's noise between runs), and the interval holds the shift's relative change
    const rise = p99.run! - p99.baseline!;
    expect(rise).toBeGreaterThan(DELAY_US * 0.5);
    expect(rise).toBeLessThan(DELAY_US * 1.5);
    const shift = DELAY_US / p99.baseline!;
    expect({ shift, inside: p99.ci![0] <= shift * 1.5 && p99.ci![1] >= shift * 0.5 }).toMatchObject({
      inside: true,
    });
    // the JSON gives every metric a verdict
    for (const m of c.cells[0]!.metrics)
      expect(['better', 'worse', 'no significant difference']).toContain(m.verdict);
  });

  // The interval covers the sampling within each run, not the differences between runs (docs/report.md): on this
  // shared 2-core machine two unchanged runs' P99s differed by up to ~16 % in CI (5.4 vs 4.6 ms, "better" with an
  // interval of −34 % to −1 %). So the unchanged run is held to what a gate with a margin above that noise says,
  // and to a change far from the slowed run's (+90 %); the verdict's wording alone is not asserted.
  it('the unchanged run: a change well within the noise between runs; --fail-on gates only the slowed run', () => {
    const same = JSON.parse(compare(resultsDir, 'cmp-same', 'cmp-base', '--json').stdout) as Comparison;
    const p99 = same.cells[0]!.metrics.find((m) => m.metric === 'p99')!;
    console.log(`unchanged vs base: ${JSON.stringify(p99)}`);
    expect(Math.abs(p99.change!)).toBeLessThan(0.4);
    expect(compare(resultsDir, 'cmp-same', 'cmp-base', '--fail-on', 'p99:+40%').code).toBe(0);
    const gated = compare(resultsDir, 'cmp-slow', 'cmp-base', '--fail-on', 'p99:+40%');
    expect(gated.code).toBe(3);
    expect(gated.stdout).toMatch(/^FAIL ddb\.uniform\.r50\.t200: p99 \+\d+\.\d% breaks p99:\+40%$/m);
    expect(gated.stdout).toMatch(/intended P99 \(µs\).*worse/);
  });

  it('bad input names the field: an unknown run, a malformed threshold', () => {
    const r = compare(resultsDir, 'cmp-nope', 'cmp-base');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^run: no run cmp-nope in /m);
    const t = compare(resultsDir, 'cmp-slow', 'cmp-base', '--fail-on', 'p99>10');
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/^--fail-on: "p99>10": expected <metric>:<sign><percent>%/m);
  });
});
