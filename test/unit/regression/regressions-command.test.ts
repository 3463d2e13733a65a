import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'fleetbench.js'), ...args], { encoding: 'utf8', cwd: root });

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1, 2);

/** A results root with `runs` nightly runs of one spec; p99 steps up by 30 % from run `stepAt`. */
function resultsRoot(
  runs: number,
  stepAt: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetbench-regressions-'));
  for (let i = 0; i < runs; i++) {
    const started = T0 + i * DAY;
    const date = new Date(started).toISOString().slice(0, 10);
    const runId = `nightly-${date}`;
    const part = `run_date=${date}/spec_name=nightly`;
    const jitter = ((i * 37) % 11) * 4;
    const cell = {
      run_date: date,
      spec_name: 'nightly',
      run_id: runId,
      cell_id: 'ddb-uniform-r50-t1000',
      target_id: 'ddb',
      window_start_ms: started + 60_000,
      all_intended_p50_us: 800 + jitter,
      all_intended_p99_us: (i < stepAt ? 2000 : 2600) + jitter,
      all_intended_p999_us: 4000 + jitter,
      good_ops_per_sec: 1000 - (i % 3),
      attainment: (1000 - (i % 3)) / 1000,
      error_rate: 0,
      throttled_attempts: 0,
      achieved_ops_per_sec: 1000,
      measured_seconds: 300,
      monthly_cost_usd: 432.1,
      ...extra(i),
    };
    mkdirSync(join(dir, 'tables', 'cells', part), { recursive: true });
    mkdirSync(join(dir, 'tables', 'runs', part), { recursive: true });
    writeFileSync(join(dir, 'tables', 'cells', part, `${runId}.jsonl`), JSON.stringify(cell) + '\n');
    writeFileSync(
      join(dir, 'tables', 'runs', part, `${runId}.jsonl`),
      JSON.stringify({ run_id: runId, started_at_ms: started, spec_name: 'nightly' }) + '\n',
    );
  }
  return dir;
}

describe('fleetbench regressions (the real executable)', () => {
  it('--json lists the p99 regression with the run where it began', () => {
    // Prepare
    const dir = resultsRoot(30, 20);
    // Act
    const r = cli('regressions', '--dir', dir, '--json');
    // Assess
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.series).toBe(8);
    expect(doc.changes).toHaveLength(1);
    expect(doc.changes[0]).toMatchObject({
      key: { spec: 'nightly', target: 'ddb', cell: 'ddb-uniform-r50-t1000', metric: 'intended_p99_us' },
      runId: 'nightly-2026-01-21',
      previousRunId: 'nightly-2026-01-20',
      kind: 'regression',
      confirmed: true,
    });
    expect(doc.changes[0].forwardChange).toBeGreaterThan(0.25);
    expect(doc.suspects).toEqual([]);
  });

  it('prints one line per change, and a quiet history says so', () => {
    const r = cli('regressions', '--dir', resultsRoot(30, 20));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^nightly\/ddb\/ddb-uniform-r50-t1000 intended_p99_us: \d+ --> \d+ \(\+\d+\.\d%\) regression from run nightly-2026-01-21, p=/m,
    );
    const quiet = cli('regressions', '--dir', resultsRoot(30, 99));
    expect(quiet.stdout.trim()).toBe('No regressions found in 8 series');
  });

  it('says when a history is too short to judge, rather than calling it clean', () => {
    // three runs, the newest twice as slow: two earlier runs are fewer than the newest-run check needs (5)
    const dir = resultsRoot(3, 2, (i) => (i === 2 ? { all_intended_p99_us: 4000 } : {}));
    const r = cli('regressions', '--dir', dir);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('No regressions found in 8 series');
    expect(r.stdout).toContain(
      '8 of them too short to judge the newest run (at most 2 earlier run(s); the newest-run check needs 5)',
    );
    const doc = JSON.parse(cli('regressions', '--dir', dir, '--json').stdout);
    expect(doc.tooShort).toHaveLength(8);
    expect(doc.tooShort[0].earlierRuns).toBe(2);
    // a long enough history: no such line
    expect(cli('regressions', '--dir', resultsRoot(30, 99)).stdout).not.toContain('too short');
  });

  it('reports a slow newest run as suspect, not as a change', () => {
    const r = cli('regressions', '--dir', resultsRoot(30, 29), '--json', '--metric', 'intended_p99_us');
    const doc = JSON.parse(r.stdout);
    expect(doc.changes).toEqual([]);
    expect(doc.suspects).toHaveLength(1);
    expect(doc.suspects[0]).toMatchObject({
      runId: 'nightly-2026-01-30',
      status: 'suspect',
      regression: true,
    });
  });

  it('exits 2 naming the file and line of a bad row, or the bad flag', () => {
    const dir = resultsRoot(5, 99, (i) => (i === 3 ? { good_ops_per_sec: 'fast' } : {}));
    const r = cli('regressions', '--dir', dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /spec_name=nightly\/nightly-2026-01-04\.jsonl:1\.good_ops_per_sec: expected a number/,
    );
    const flag = cli('regressions', '--dir', dir, '--max-p', '2');
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/^--max-p: expected 0 < p < 1/m);
    const missing = cli('regressions', '--dir', join(dir, 'nope'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/expected a directory of cells rows/);
  });

  it('--local reads the local results directory, like --dir on it', () => {
    const dir = resultsRoot(30, 20);
    const local = cli('regressions', '--local', '--results', dir, '--json');
    expect(local.stderr).toBe('');
    expect(JSON.parse(local.stdout)).toEqual(JSON.parse(cli('regressions', '--dir', dir, '--json').stdout));
    expect(JSON.parse(local.stdout).changes[0].runId).toBe('nightly-2026-01-21');
  });

  it('needs --dir or --local (not both), and --local needs results', () => {
    const dir = resultsRoot(5, 99);
    const none = cli('regressions');
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(
      /^--dir: expected --dir <results root or directory of cells rows>, or --local/m,
    );
    const both = cli('regressions', '--dir', dir, '--local');
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/^--dir: give either --dir <path> or --local/m);
    const empty = cli('regressions', '--local', '--results', join(dir, 'nope'));
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^--results: no local results in .*nope/m);
  });

  it('leaves incomplete cells out, as the pipeline step does', () => {
    // a very slow newest run whose cell is incomplete (a loader missing) is not a suspect
    const dir = resultsRoot(30, 99, (i) =>
      i === 29 ? { all_intended_p99_us: 9000, incomplete: true } : { incomplete: false },
    );
    const doc = JSON.parse(cli('regressions', '--dir', dir, '--json').stdout);
    expect(doc.suspects).toEqual([]);
    const withIt = JSON.parse(
      cli(
        'regressions',
        '--dir',
        resultsRoot(30, 99, (i) => (i === 29 ? { all_intended_p99_us: 9000 } : {})),
        '--json',
      ).stdout,
    );
    expect(withIt.suspects).toHaveLength(1);
  });
});

describe("fleetbench regressions and history leave an SLO search's probes out, as the pipeline step does", () => {
  /** 30 quiet runs, each with a search probe whose rate the search chose: 40,000 ops/s, then 10,000 from run 20. */
  function withProbes(): string {
    const dir = resultsRoot(30, 99);
    for (let i = 0; i < 30; i++) {
      const date = new Date(T0 + i * DAY).toISOString().slice(0, 10);
      const file = join(
        dir,
        'tables',
        'cells',
        `run_date=${date}/spec_name=nightly`,
        `nightly-${date}.jsonl`,
      );
      const rate = i < 20 ? 40_000 : 10_000;
      const probe = {
        run_date: date,
        spec_name: 'nightly',
        run_id: `nightly-${date}`,
        cell_id: 'ddb.search.probe2',
        target_id: 'ddb',
        window_start_ms: T0 + i * DAY + 120_000,
        all_intended_p99_us: 2000 + ((i * 37) % 11),
        good_ops_per_sec: rate - (i % 3),
        attainment: 1,
        error_rate: 0,
        achieved_ops_per_sec: rate,
        measured_seconds: 300,
      };
      appendFileSync(file, JSON.stringify(probe) + '\n');
    }
    return dir;
  }

  it('finds no change where only the search path moved (probe 2 ran 40,000 then 10,000 ops/s)', () => {
    const dir = withProbes();
    const doc = JSON.parse(cli('regressions', '--dir', dir, '--json').stdout);
    expect(doc.series).toBe(8); // the plain cell's series only
    expect(doc.changes).toEqual([]);
    const history = cli('history', 'nightly', '--dir', dir, '--metric', 'good_ops_per_sec');
    expect(history.status).toBe(0);
    expect(history.stdout).toContain('ddb-uniform-r50-t1000');
    expect(history.stdout).not.toContain('probe2');
  });
});

describe('fleetbench regressions with an A/A calibration in the results root', () => {
  /** 30 runs, P99 +3 % from run 20 (±0.25 % jitter), and an A/A calibration with P99's CV at 0.5 %. */
  function calibratedRoot(): string {
    const dir = resultsRoot(30, 20, (i) => ({
      all_intended_p99_us: (i < 20 ? 2000 : 2060) + ((i * 37) % 11),
    }));
    const calibration = {
      version: 1,
      specName: 'nightly',
      runId: 'nightly-aa',
      measuredAtMs: T0,
      factor: 3,
      series: [
        {
          target: 'ddb',
          cell: 'ddb-uniform-r50-t1000',
          metric: 'intended_p99_us',
          n: 3,
          mean: 2000,
          std: 10,
          cv: 0.005,
          minMagnitude: 0.015,
        },
      ],
    };
    mkdirSync(join(dir, 'noise', 'spec_name=nightly'), { recursive: true });
    writeFileSync(join(dir, 'noise', 'spec_name=nightly', 'nightly-aa.json'), JSON.stringify(calibration));
    return dir;
  }

  it('analyses the calibrated series with 3 × CV and lists its noise band; the +3 % step is found', () => {
    const dir = calibratedRoot();
    const r = cli('regressions', '--dir', dir, '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.noise).toEqual([
      {
        key: { spec: 'nightly', target: 'ddb', cell: 'ddb-uniform-r50-t1000', metric: 'intended_p99_us' },
        runId: 'nightly-aa',
        n: 3,
        mean: 2000,
        std: 10,
        cv: 0.005,
        minMagnitude: 0.015,
      },
    ]);
    expect(
      doc.changes.map((c: { key: { metric: string }; runId: string }) => [c.key.metric, c.runId]),
    ).toEqual([['intended_p99_us', 'nightly-2026-01-21']]);
    const text = cli('regressions', '--dir', dir);
    expect(text.stdout).toContain(
      'nightly/ddb/ddb-uniform-r50-t1000 intended_p99_us: 2000 ± 10.0 (CV 0.50%, 3 repeats in run nightly-aa) -> min magnitude 1.50%',
    );
  });

  it('--min-magnitude overrides the calibration: the +3 % step stays under 5 %', () => {
    const r = cli('regressions', '--dir', calibratedRoot(), '--json', '--min-magnitude', '0.05');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect([doc.noise, doc.changes]).toEqual([[], []]);
  });

  it('a calibration off the schema exits 2 naming the file and field', () => {
    const dir = calibratedRoot();
    writeFileSync(join(dir, 'noise', 'spec_name=nightly', 'bad.json'), JSON.stringify({ version: 2 }));
    const r = cli('regressions', '--dir', dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('noise/spec_name=nightly/bad.json#version');
  });
});

describe('fleetbench history (the real executable)', () => {
  it('prints the series with a marker before the run where the change began', () => {
    // Prepare
    const dir = resultsRoot(30, 20);
    // Act
    const r = cli('history', 'nightly', '--dir', dir, '--metric', 'intended_p99_us');
    // Assess
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    const marker = lines.findIndex((l) => /\+\d+\.\d% regression, p=/.test(l));
    expect(marker).toBeGreaterThan(0);
    expect(lines[marker + 2]).toMatch(/nightly-2026-01-21/);
    expect(lines[marker - 2]).toMatch(/nightly-2026-01-20/);
    expect(lines.filter((l) => /nightly-2026-/.test(l))).toHaveLength(30);
  });

  it('exits 2 for an unknown metric or spec', () => {
    const dir = resultsRoot(5, 99);
    expect(cli('history', 'nightly', '--dir', dir, '--metric', 'p99').stderr).toMatch(
      /^--metric: unknown metric "p99"/,
    );
    const r = cli('history', 'weekly', '--dir', dir, '--metric', 'attainment');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no cells rows for spec "weekly"/);
  });
});
