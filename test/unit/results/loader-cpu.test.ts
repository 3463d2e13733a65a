/**
 * Loader CPU from the manifests to the cells row: per-loader figures, the suspect verdict and its reason.
 * The input is the real fleet-small fixture (2 loaders × 2 processes of real YCSB output) with `cpu` fields
 * written into its manifests: loader-0 at 41 %, loader-1 at 85 % machine CPU.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { aggregateCell } from '../../../lib/core/results/aggregate';
import { buildCellRow } from '../../../lib/core/results/rows';
import { judgeCell, parseLoaderCpuJson, type ManifestCpu } from '../../../lib/core/results/loader-cpu';
import { readCellDir } from '../../../lib/local/cell-dir';
import { summaryRows } from '../../../lib/core/results/run-summary';
import { checkManifest } from '../../../lib/core/contract/manifest';
import { headlineOf } from '../../../lib/core/contract/headline';

const FIXTURE = path.join(__dirname, '../../fixtures/ycsb/fleet-small');
const meta = {
  runId: 'r-1',
  specName: 'fixture',
  startedAtMs: Date.UTC(2026, 10, 22, 17, 5),
  cellId: 'c-0',
  targetId: 'basic',
  targetKind: 'dynamodb-local',
  distribution: 'zipfian',
  readProportion: 0.5,
  updateProportion: 0.5,
};

const cpu = (machinePct: number | null, processCpuMs: number | null, cores = 8): ManifestCpu => ({
  cores,
  windowStartMs: 1_000_000,
  windowEndMs: 1_010_000, // 10 s
  machinePct,
  processCpuMs,
  processPct: processCpuMs === null ? null : processCpuMs / 100,
});

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fb-loadercpu-'));
  await fs.cp(FIXTURE, dir, { recursive: true });
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function setCpu(loader: number, proc: number, c: unknown): Promise<void> {
  const file = path.join(dir, `loader-${loader}`, `proc-${proc}`, 'manifest.json');
  const m = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  await fs.writeFile(file, JSON.stringify({ ...m, cpu: c }));
}

describe('loader CPU in the cells row', () => {
  it('a loader at 85 % makes the cell suspect, the reason naming it; per-loader figures by hand', async () => {
    // loader-0: machine 41 %, JVMs 6,000 + 10,000 CPU-ms over 10 s × 8 CPUs = 20 %
    await setCpu(0, 0, cpu(41, 6_000));
    await setCpu(0, 1, cpu(41, 10_000));
    // loader-1: machine 85 %, JVMs 30,000 + 26,000 CPU-ms over 10 s × 8 CPUs = 70 %
    await setCpu(1, 0, cpu(85, 30_000));
    await setCpu(1, 1, cpu(85, 26_000));
    const agg = await aggregateCell(await readCellDir(dir), { warmupSeconds: 3 });
    const row = buildCellRow(meta, agg);
    expect(row.loader_cpu_max_pct).toBe(85);
    expect(row.loader_jvm_cpu_max_pct).toBeCloseTo(70, 10);
    expect(row.suspect).toBe(true);
    expect(row.suspect_reason).toBe('loader-1 (fixture-loader-1) CPU 85.0 % > 70 % of its 8 CPUs');
    expect(row.schedule_delay_p99_us).toBeNull(); // the fixture ran with per-thread pacing: no SCHEDULE-DELAY
    expect(parseLoaderCpuJson(row.loader_cpu_json)).toEqual([
      { loader: 0, host: 'fixture-loader-0', cores: 8, machinePct: 41, jvmPct: 20 },
      { loader: 1, host: 'fixture-loader-1', cores: 8, machinePct: 85, jvmPct: 70 },
    ]);
  });

  it('one figure, one rounding: the max column and the per-loader JSON hold the same 0.1-% value', async () => {
    // the agent reports to 0.01 %: 30.75 was 30.75 in loader_cpu_max_pct and 30.8 in loader_cpu_json
    for (const proc of [0, 1]) await setCpu(0, proc, cpu(30.75, 1_000));
    for (const proc of [0, 1]) await setCpu(1, proc, cpu(12.25, 1_000));
    const row = buildCellRow(meta, await aggregateCell(await readCellDir(dir), { warmupSeconds: 3 }));
    expect(row.loader_cpu_max_pct).toBe(30.8);
    const loaders = parseLoaderCpuJson(row.loader_cpu_json);
    expect(loaders.map((l) => l.machinePct)).toEqual([30.8, 12.3]);
    expect(Math.max(...loaders.map((l) => l.machinePct!))).toBe(row.loader_cpu_max_pct);
    expect(row.loader_jvm_cpu_max_pct).toBe(loaders[0]!.jvmPct);
  });

  it('the verdict judges the figure it shows: 70.04 % is 70.0 %, not over 70 %', () => {
    expect(judgeCell([{ loader: 0, cpu: cpu(70.04, 1) }], null).suspect).toBe(false);
    expect(judgeCell([{ loader: 0, cpu: cpu(70.05, 1) }], null).reason).toBe(
      'loader-0 CPU 70.1 % > 70 % of its 8 CPUs',
    );
  });

  it('loaders at or below 70 % and no schedule delay: not suspect', async () => {
    for (const [l, p] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ] as const)
      await setCpu(l, p, cpu(70, 1_000));
    const row = buildCellRow(meta, await aggregateCell(await readCellDir(dir), { warmupSeconds: 3 }));
    expect(row).toMatchObject({ loader_cpu_max_pct: 70, suspect: false, suspect_reason: null });
  });

  it('manifests without cpu (older agent, non-Linux loader): columns null, not suspect', async () => {
    const row = buildCellRow(meta, await aggregateCell(await readCellDir(dir), { warmupSeconds: 3 }));
    expect(row).toMatchObject({
      loader_cpu_max_pct: null,
      loader_jvm_cpu_max_pct: null,
      loader_cpu_json: null,
      suspect: false,
    });
  });

  it("SCHEDULE-DELAY's window p99 is the column (a copy of READ's logs: the same p99 as READ's)", async () => {
    for (const l of [0, 1])
      for (const p of [0, 1])
        await fs.copyFile(
          path.join(dir, `loader-${l}`, `proc-${p}`, 'READ.hdr'),
          path.join(dir, `loader-${l}`, `proc-${p}`, 'SCHEDULE-DELAY.hdr'),
        );
    const agg = await aggregateCell(await readCellDir(dir), { warmupSeconds: 3 });
    const row = buildCellRow(meta, agg);
    expect(row.schedule_delay_p99_us).toBe(row.read_service_p99_us);
    expect(row.schedule_delay_p99_us).toBeGreaterThan(0);
    expect(row.suspect).toBe((row.read_service_p99_us as number) > 10_000);
  });

  it('a malformed cpu field is an InputError naming the manifest and the field', async () => {
    await setCpu(1, 0, { ...cpu(85, 1), machinePct: 185 });
    const err = await readCellDir(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(
      /loader-1\/proc-0\/manifest\.json: cpu\.machinePct: expected a number at most 100, found number 185/,
    );
  });
});

describe('the verdict', () => {
  it('behind the open-loop schedule: p99 12 ms > 10 ms', () => {
    const v = judgeCell([{ loader: 0, cpu: cpu(20, 100) }], 12_000);
    expect(v.suspect).toBe(true);
    expect(v.reason).toBe('behind the open-loop schedule: SCHEDULE-DELAY p99 12.0 ms > 10 ms');
    expect(judgeCell([{ loader: 0, cpu: cpu(20, 100) }], 10_000).suspect).toBe(false);
  });

  it('both reasons, loaders in index order', () => {
    const v = judgeCell(
      [
        { loader: 2, host: 'b', cpu: cpu(90.04, 1) },
        { loader: 0, host: 'a', cpu: cpu(71, 1, 2) },
      ],
      50_000,
    );
    expect(v.reason).toBe(
      'loader-0 (a) CPU 71.0 % > 70 % of its 2 CPUs; loader-2 (b) CPU 90.0 % > 70 % of its 8 CPUs; ' +
        'behind the open-loop schedule: SCHEDULE-DELAY p99 50.0 ms > 10 ms',
    );
  });

  it('parses the manifest field strictly (the manifest schema)', () => {
    const base = { loader: 0, process: 0, phase: 'run', host: 'h', exitCode: 0, startMs: 1, endMs: 2 };
    expect(checkManifest(base, 'm').cpu).toBeUndefined();
    expect(checkManifest({ ...base, cpu: cpu(50, 2) }, 'm').cpu).toEqual(cpu(50, 2));
    let paths: string[] = [];
    try {
      checkManifest({ ...base, cpu: { ...cpu(50, 2), cores: 0, processCpuMs: -1 } }, 'm');
    } catch (e) {
      paths = (e as InputError).issues.map((i) => i.path);
    }
    expect(paths).toEqual(['m: cpu.cores', 'm: cpu.processCpuMs']);
  });

  it('the run summary marks a suspect cell (DuckDB gives a boolean, Athena the string "true")', () => {
    const first = (c: Record<string, unknown>) => summaryRows([headlineOf({ cell_id: 'c', ...c })])[0]![0];
    expect(first({ suspect: true })).toBe('c (suspect)');
    expect(first({ suspect: 'true' })).toBe('c (suspect)');
    expect(first({ suspect: false, incomplete: true })).toBe('c (incomplete)');
  });
});
