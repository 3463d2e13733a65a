/**
 * DetectRegressions over a real directory store (FsStore): history read from the table partitions,
 * `changes` rows, the Regression metric, the SNS message, and no second alert for the same change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { detectRegressions, type DetectRegressionsResult } from '../../../lib/core/pipeline/regressions';
import type { MetricDatum } from '../../../lib/core/common/ports';
import { tableObjectKey, validateRow, type Row } from '../../../lib/core/results/rows';
import { tableDef } from '../../../lib/core/results/schema';
import { FsStore } from '../../../lib/local/fs-store';

const DAY = 86_400_000;
// runs cross a month and a year boundary (the history is listed per month)
const T0 = Date.UTC(2025, 11, 26, 2, 0, 0);
const SPEC = 'nightly';
const CELL = 'ddb.uniform.r50.t1000';

interface World {
  dir: string;
  store: FsStore;
  puts: { dims: Record<string, string>; data: MetricDatum[] }[];
  messages: { subject: string; message: string }[];
  results: DetectRegressionsResult[];
  /** Publishes that fail before one succeeds (SNS down). */
  failPublishes?: number;
}

function world(): World {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-regr-'));
  return { dir, store: new FsStore(dir), puts: [], messages: [], results: [] };
}

const runId = (i: number) => `${SPEC}-run-${String(i).padStart(3, '0')}`;
const startOf = (i: number) => T0 + i * DAY;
/** deterministic ±1 % wiggle */
const wiggle = (i: number) => 1 + 0.01 * Math.sin(i * 1.7);

async function addRun(
  w: World,
  i: number,
  values: { p99?: number; ops?: number; incomplete?: boolean; cellId?: string },
): Promise<void> {
  const cellId = values.cellId ?? CELL;
  const meta = { runId: runId(i), specName: SPEC, startedAtMs: startOf(i) };
  const partition = { run_date: new Date(startOf(i)).toISOString().slice(0, 10), spec_name: SPEC };
  const cells = {
    ...partition,
    run_id: runId(i),
    cell_id: cellId,
    target_id: 'ddb',
    window_start_ms: startOf(i) + 120_000,
    all_intended_p50_us: 900,
    all_intended_p99_us: values.p99 ?? 2000,
    all_intended_p999_us: 5000,
    good_ops_per_sec: values.ops ?? 1000,
    attainment: (values.ops ?? 1000) / 1000,
    error_rate: 0,
    throttled_attempts: 0,
    achieved_ops_per_sec: values.ops ?? 1000,
    measured_seconds: 60,
    monthly_cost_usd: 500,
    incomplete: values.incomplete ?? false,
  };
  await w.store.put(
    tableObjectKey(tableDef('cells'), meta, `${runId(i)}.${cellId}`),
    JSON.stringify(cells) + '\n',
  );
  await w.store.put(
    tableObjectKey(tableDef('runs'), meta, runId(i)),
    JSON.stringify({ ...partition, run_id: runId(i), started_at_ms: startOf(i) }) + '\n',
  );
}

async function detectAfter(w: World, i: number): Promise<DetectRegressionsResult> {
  const r = await detectRegressions(
    {
      run: {
        runId: runId(i),
        specName: SPEC,
        storeUri: w.store.uri,
        startedAtMs: startOf(i),
        cellCount: 1,
        tables: [],
      },
    },
    {
      store: w.store,
      metrics: { put: async (dims, data) => void w.puts.push({ dims, data }) },
      notifier: {
        publish: async (subject, message) => {
          if (w.failPublishes) {
            w.failPublishes--;
            throw new Error('SNS Publish: service unavailable');
          }
          w.messages.push({ subject, message });
        },
      },
      clock: { nowMs: () => startOf(i) + 3_600_000 },
    },
  );
  w.results.push(r);
  return r;
}

async function changeRows(w: World): Promise<Row[]> {
  const keys = (await w.store.list('tables/changes/')).filter((k) => k.endsWith('.jsonl'));
  const rows: Row[] = [];
  for (const k of keys)
    for (const line of (await w.store.get(k)).toString('utf8').split('\n'))
      if (line.trim()) rows.push(JSON.parse(line) as Row);
  return rows;
}

/** The Regression values published per detection, without dimensions. */
const regressionValues = (w: World) =>
  w.puts.filter((p) => Object.keys(p.dims).length === 0).map((p) => p.data[0]!.value);

describe('detectRegressions (pipeline step) over a directory store', () => {
  let w: World;
  beforeEach(() => {
    w = world();
  });
  afterEach(() => rmSync(w.dir, { recursive: true, force: true }));

  it('a +30 % step in P99 from run 8: suspect at run 8, one alert when confirmed, then no repeat', async () => {
    for (let i = 0; i < 12; i++) {
      await addRun(w, i, { p99: (i < 8 ? 2000 : 2600) * wiggle(i) });
      await detectAfter(w, i);
    }
    const rows = await changeRows(w);
    for (const r of rows) expect(validateRow(tableDef('changes'), r)).toBe(r);
    const p99 = rows.filter((r) => r.metric === 'intended_p99_us');
    // nothing on any other metric (they are constant)
    expect(rows.filter((r) => r.metric !== 'intended_p99_us')).toEqual([]);

    // the newest-run guard flags run 8 at once
    const suspect = p99.filter((r) => r.status === 'suspect');
    expect(suspect.map((r) => [r.run_id, r.change_run_id, r.kind])).toEqual([
      [runId(8), runId(8), 'regression'],
    ]);
    expect(suspect[0]!.p_value as number).toBeLessThan(0.01);

    // the change point: first slowed run, written once as confirmed
    const confirmed = p99.filter((r) => r.status === 'confirmed');
    expect(confirmed).toHaveLength(1);
    const c = confirmed[0]!;
    expect(c).toMatchObject({
      spec_name: SPEC,
      target_id: 'ddb',
      cell_id: CELL,
      kind: 'regression',
      better: 'lower',
      change_run_id: runId(8),
      change_run_at_ms: startOf(8),
      previous_run_id: runId(7),
      method: 'ttest',
    });
    expect(c.mean_before as number).toBeCloseTo(2000, -1);
    expect(c.mean_after as number).toBeCloseTo(2600, -1);
    expect(c.forward_change as number).toBeCloseTo(0.3, 1);
    expect(c.p_value as number).toBeLessThan(0.001);
    // confirmed once 3 runs (8, 9, 10) follow the change: detected after run 10
    expect(c.run_id).toBe(runId(10));

    // Regression = 1 exactly once (run 10), 0 otherwise; per spec too
    expect(regressionValues(w)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    expect(w.puts.filter((p) => p.dims.Spec === SPEC).map((p) => p.data[0]!.value)).toEqual(
      regressionValues(w),
    );
    // one SNS message naming the metric, the cell, the first run and the magnitude
    expect(w.messages).toHaveLength(1);
    const m = w.messages[0]!;
    expect(m.subject).toMatch(/regression: nightly intended_p99_us \+\d\d\.\d%/);
    expect(m.message).toContain(`intended_p99_us of cell ${CELL}`);
    expect(m.message).toContain(`began at run ${runId(8)}`);
    expect(m.message).toMatch(/magnitude 3\d\.\d%/);
    expect(m.message).toContain(`tables/changes/run_date=2026-01-05/spec_name=${SPEC}/${runId(10)}.jsonl`);
    // run 11: the same change is not written or alerted again
    expect(w.results[11]!.rowsWritten).toBe(0);
    expect(w.results[11]!.newRegressions).toBe(0);
    expect(w.results[11]!.runs).toBe(12);
  });

  it('an alert that could not be sent is sent by the next detection (the change is recorded only once it went out)', async () => {
    for (let i = 0; i < 12; i++) {
      await addRun(w, i, { p99: (i < 8 ? 2000 : 2600) * wiggle(i) });
      if (i === 10) {
        w.failPublishes = 1;
        await expect(detectAfter(w, i)).rejects.toThrow(/SNS Publish/);
      } else await detectAfter(w, i);
    }
    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]!.message).toContain(`began at run ${runId(8)}`);
    const confirmed = (await changeRows(w)).filter(
      (r) => r.status === 'confirmed' && r.metric === 'intended_p99_us',
    );
    expect(confirmed.map((r) => [r.run_id, r.change_run_id])).toEqual([[runId(11), runId(8)]]);
  });

  it('noise with one bad night: suspect that night, never a confirmed change or an alert', async () => {
    for (let i = 0; i < 12; i++) {
      await addRun(w, i, { p99: (i === 6 ? 2900 : 2000) * wiggle(i) });
      await detectAfter(w, i);
    }
    const rows = await changeRows(w);
    // after run 6 the detector keeps the newest point as a pending change (one run after it) and the
    // guard flags it; later runs drop it, and nothing is confirmed
    expect(rows.map((r) => [r.run_id, r.status, r.change_run_id])).toEqual([
      [runId(6), 'pending', runId(6)],
      [runId(6), 'suspect', runId(6)],
    ]);
    expect(regressionValues(w)).toEqual(Array(12).fill(0));
    expect(w.messages).toEqual([]);
  });

  it('a throughput step up is a confirmed improvement: recorded, not alerted', async () => {
    for (let i = 0; i < 10; i++) {
      await addRun(w, i, { ops: (i < 5 ? 1000 : 1300) * wiggle(i) });
      await detectAfter(w, i);
    }
    const rows = (await changeRows(w)).filter((r) => r.status === 'confirmed');
    expect(rows.map((r) => [r.metric, r.kind, r.change_run_id]).sort()).toEqual([
      ['attainment', 'improvement', runId(5)],
      ['good_ops_per_sec', 'improvement', runId(5)],
    ]);
    expect(regressionValues(w)).toEqual(Array(10).fill(0));
    expect(w.messages).toEqual([]);
  });

  it('reads 365 days of history before the run, and nothing after it', async () => {
    await addRun(w, -400, { p99: 9000 });
    await addRun(w, -300, {});
    for (let i = 0; i < 3; i++) await addRun(w, i, {});
    await addRun(w, 5, { p99: 9000 });
    const r = await detectAfter(w, 2);
    // runs -300, 0, 1, 2: not -400 (older than 365 days) nor 5 (after run 2)
    expect(r.runs).toBe(4);
  });

  it('leaves incomplete cells out (a missing run for that cell)', async () => {
    for (let i = 0; i < 8; i++) {
      await addRun(w, i, { p99: (i === 7 ? 4000 : 2000) * wiggle(i), incomplete: i === 7 });
      await detectAfter(w, i);
    }
    expect(await changeRows(w)).toEqual([]);
    expect(w.results[7]!.runs).toBe(7);
  });

  it('a corrupt history line fails the step naming the object and line; nothing is written', async () => {
    for (let i = 0; i < 4; i++) await addRun(w, i, {});
    const key = tableObjectKey(
      tableDef('cells'),
      { runId: runId(2), specName: SPEC, startedAtMs: startOf(2) },
      `${runId(2)}.${CELL}`,
    );
    await w.store.put(key, '{"run_id": "x"}\n{not json\n');
    const err = await detectAfter(w, 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues).toEqual([
      { path: `${w.store.uriOf(key)}:2`, message: expect.stringMatching(/^not valid JSON/) },
    ]);
    expect(await w.store.list('tables/changes/')).toEqual([]);
    expect(w.puts).toEqual([]);
  });

  it('rejects a run context without its fields, naming them', async () => {
    const err = await detectRegressions(
      { run: { specName: SPEC } },
      {
        store: w.store,
        metrics: { put: async () => undefined },
        notifier: { publish: async () => undefined },
        clock: { nowMs: () => 0 },
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['run.runId', 'run.storeUri']),
    );
  });
});

describe('detectRegressions with an A/A calibration (repeated cells)', () => {
  let w: World;
  beforeEach(() => {
    w = world();
  });
  afterEach(() => rmSync(w.dir, { recursive: true, force: true }));

  /** Run 0 repeats the cell 3 times: P99 2000, 2010, 1990 (s = 10, CV 0.5 %, threshold 1.5 %). */
  async function aaRun(): Promise<DetectRegressionsResult> {
    for (const [k, p99] of [2000, 2010, 1990].entries()) {
      await addRun(w, 0, { p99, cellId: `${CELL}.aa${k + 1}` });
    }
    return detectAfter(w, 0);
  }

  /** Runs 1..11: P99 2000 then +3 % from run 7, ±0.2 % wiggle. */
  async function smallStep(): Promise<void> {
    for (let i = 1; i < 12; i++) {
      await addRun(w, i, { p99: (i < 7 ? 2000 : 2060) * (1 + 0.002 * Math.sin(i * 1.7)) });
      await detectAfter(w, i);
    }
  }

  it('the A/A run writes the calibration, and a +3 % step (under the default 5 %) is then found', async () => {
    // Act
    const aa = await aaRun();
    await smallStep();
    // Assess: the calibration object
    expect(aa.noiseKey).toBe(`noise/spec_name=${SPEC}/${runId(0)}.json`);
    const calibration = (await w.store.getJson(aa.noiseKey!)) as { series: Record<string, unknown>[] };
    expect(calibration.series.find((s) => s.metric === 'intended_p99_us')).toEqual({
      target: 'ddb',
      cell: CELL,
      metric: 'intended_p99_us',
      n: 3,
      mean: 2000,
      std: 10,
      cv: 0.005,
      minMagnitude: expect.closeTo(0.015, 12),
    });
    // later detections use it and say so
    expect(w.results.slice(1).map((r) => [r.noiseKey, r.noiseRunId])).toEqual(
      Array.from({ length: 11 }, () => [null, runId(0)]),
    );
    const confirmed = (await changeRows(w)).filter((r) => r.status === 'confirmed');
    expect(confirmed.map((r) => [r.metric, r.change_run_id, r.kind])).toEqual([
      ['intended_p99_us', runId(7), 'regression'],
    ]);
    const options = JSON.parse(String(confirmed[0]!.options_json)) as {
      detect: { minMagnitude: number };
      noiseRunId: string;
    };
    expect(options.detect.minMagnitude).toBeCloseTo(0.015, 12);
    expect(options.noiseRunId).toBe(runId(0));
    expect(w.messages).toHaveLength(1);
  });

  it('without the A/A run the same +3 % step stays under the default 5 % threshold', async () => {
    await addRun(w, 0, { p99: 2000 });
    const first = await detectAfter(w, 0);
    await smallStep();
    expect([first.noiseKey, first.noiseRunId]).toEqual([null, null]);
    expect((await changeRows(w)).filter((r) => r.status === 'confirmed')).toEqual([]);
    expect(w.messages).toEqual([]);
  });
});
