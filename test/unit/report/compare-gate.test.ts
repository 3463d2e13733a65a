/**
 * `compare --fail-on` gates a build: a gate that compared nothing (two runs sharing no cell, shared cells without an
 * interval or incomplete) exits 4 rather than passing, and an empty `--fail-on` is refused (exit 2, naming it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import {
  EXIT_NOTHING_COMPARED,
  EXIT_THRESHOLD,
  nothingCompared,
  register,
} from '../../../lib/cli/commands/compare';
import { exitCodeFor } from '../../../lib/cli/main';
import { cellKey, planKey } from '../../../lib/core/pipeline/context';
import { compareRuns, parseFailOn, type RunSide } from '../../../lib/core/report/compare';
import { FsStore } from '../../../lib/local/fs-store';
import { Histogram } from '../../../lib/core/hdr/histogram';

const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-compare-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A local run whose cells have a result row (P99 only) and no interval buckets. */
async function writeRun(runId: string, cells: string[], p99Us: number): Promise<void> {
  const store = new FsStore(dir);
  await store.putJson(planKey(runId), { cells: cells.map((id) => ({ id })) });
  for (const id of cells)
    await store.putJson(cellKey(runId, id, 'result.json'), {
      cellId: id,
      row: { cell_id: id, target_id: 'ddb', all_intended_p99_us: p99Us, good_ops_per_sec: 100 },
    });
}

/** The CLI in this process: its exit code (as main sets it) and what it wrote. */
async function compare(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command('fleetbench').exitOverride();
  register(program);
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    stdout += String(s);
    return true;
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  process.exitCode = undefined;
  let code: number;
  try {
    await program.parseAsync(['compare', ...args, '--results', dir], { from: 'user' });
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    code = exitCodeFor(e);
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = undefined;
  }
  return { code, stdout, stderr };
}

beforeAll(async () => {
  await writeRun('base', ['ddb.uniform.r50.t100'], 1000);
  await writeRun('other', ['ddb.zipfian.r50.t100'], 5000); // no cell in common with base
  await writeRun('same-cells', ['ddb.uniform.r50.t100'], 5000); // in common, but no intervals
});

describe('compare --fail-on: nothing compared', () => {
  it('two runs sharing no cell: exit 4 with --fail-on (and 0 without it), saying why on stderr', async () => {
    const gated = await compare('other', 'base', '--fail-on', 'p99:+10%');
    expect(gated.code).toBe(EXIT_NOTHING_COMPARED);
    expect(EXIT_NOTHING_COMPARED).not.toBe(EXIT_THRESHOLD);
    expect(gated.stderr).toBe(
      '--fail-on: no cell compared on p99: 0 cell(s) in both runs (0 incomplete, 0 without an interval), ' +
        '1 only in other, 1 only in base\n',
    );
    expect((await compare('other', 'base')).code).toBe(0);
  });

  it('shared cells without an interval on the gated metric: exit 4, the JSON says why', async () => {
    const r = await compare('same-cells', 'base', '--fail-on', 'p99:+10%', '--json');
    expect(r.code).toBe(EXIT_NOTHING_COMPARED);
    const doc = JSON.parse(r.stdout) as { failures: string[]; nothingCompared: string };
    expect(doc.failures).toEqual([]);
    expect(doc.nothingCompared).toMatch(
      /^no cell compared on p99: 1 cell\(s\) in both runs \(0 incomplete, 1 without/,
    );
  });

  it('refuses an empty --fail-on (exit 2), naming it', async () => {
    for (const empty of ['', '  ']) {
      const r = await compare('other', 'base', '--fail-on', empty);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^--fail-on: empty: expected at least one threshold/m);
    }
  });
});

describe('nothingCompared', () => {
  /** one cell of 30 one-second intervals of 100 latencies around `us` µs */
  const side = (runId: string, us: number, o: { cellId?: string; incomplete?: boolean } = {}): RunSide => {
    const cellId = o.cellId ?? 'c';
    const buckets = Array.from({ length: 30 }, (_, k) => {
      const h = new Histogram();
      for (let j = 0; j < 100; j++) h.recordValue(us + (j % 10)); // a spread the bootstrap resamples
      return { offsetSeconds: k, seconds: 1, good: 100, failed: 0, intended: h.toSparse(), service: null };
    });
    return {
      runId,
      cells: [
        {
          headline: {
            cellId,
            target: 't',
            intendedP99Us: us,
            goodOpsPerSec: 100,
            incomplete: o.incomplete ?? false,
            incompleteReason: o.incomplete ? 'loader-1: no manifest' : null,
          } as RunSide['cells'][number]['headline'],
          buckets: { cellId, seriesSeconds: 1, buckets, spectrum: {} } as never,
        },
      ],
    };
  };
  const p99 = parseFailOn('p99:+10%');

  it('a complete shared cell with intervals is compared (and its doubled P99 breaks the threshold)', () => {
    const c = compareRuns(side('r', 200), side('b', 100));
    expect(nothingCompared(c, p99)).toBeNull();
    expect(c.cells[0]!.metrics.find((m) => m.metric === 'p99')!.verdict).toBe('worse');
  });

  it('an incomplete shared cell is not compared; a disjoint pair is not either', () => {
    expect(nothingCompared(compareRuns(side('r', 200, { incomplete: true }), side('b', 100)), p99)).toMatch(
      /1 cell\(s\) in both runs \(1 incomplete, 0 without an interval\)/,
    );
    expect(nothingCompared(compareRuns(side('r', 200, { cellId: 'x' }), side('b', 100)), p99)).toMatch(
      /0 cell\(s\) in both runs.*1 only in r, 1 only in b$/,
    );
  });
});
