/**
 * Issue #31's report, as a reader sees it in headless Chromium at 1280 px: the quickstart (one read ratio,
 * one target: its one-x-value charts become tables), a seed-002-style staircase (throughput steps: the
 * latency-vs-target charts are drawn) and a run compared with its baseline (the spec's `baseline`). Every run
 * goes through the pipeline's own steps — Plan, AggregateCell over real YCSB interval logs
 * (test/fixtures/ycsb/fleet-small, whose last intervals run past the schedule into the drain) and the report
 * writer — into a results directory. Screenshots go to $FLEETBENCH_SCREENSHOTS (default: a temporary directory).
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { aggregateCellStep, plan, readPlan } from '../../lib/core/pipeline';
import type { Clock } from '../../lib/core/common/ports';
import { writeReport } from '../../lib/core/report/data';
import { parseIntervalLog } from '../../lib/core/hdr/log';
import { FsStore } from '../../lib/local/fs-store';
import { launchChromium } from '../support/chromium';

jest.setTimeout(120_000);

const FIXTURE = path.join(__dirname, '../fixtures/ycsb/fleet-small');
const quickstart = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'quickstart.json'), 'utf8'),
) as { workload: Record<string, unknown>; targets: Record<string, unknown>[] };
const clock: Clock = { nowMs: () => Date.UTC(2026, 10, 27, 1) };
const shots = process.env.FLEETBENCH_SCREENSHOTS ?? fs.mkdtempSync(path.join(tmpdir(), 'fleetbench-shots-'));

/**
 * When each fixture process's 8-s schedule began: its logs end with YCSB's closing interval (0.1–0.3 s of
 * drain), which starts where the schedule ended, so the schedule began 8 s before that interval's start.
 */
function workloadStartOf(procDir: string): number {
  const read = parseIntervalLog(fs.readFileSync(path.join(procDir, 'READ.hdr'), 'latin1'), 'READ.hdr');
  return read.intervals.at(-1)!.startMs - 8000;
}

/** Plans the spec, gives every cell the fixture's YCSB output, aggregates each cell and writes the report. */
async function runOf(store: FsStore, name: string, spec: Record<string, unknown>): Promise<string> {
  const run = await plan({ executionName: name, spec }, { store, clock });
  const { cells } = await readPlan(store, run.runId);
  for (const [index, cell] of cells.entries()) {
    for (const e of fs.readdirSync(FIXTURE, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(FIXTURE, path.join(e.parentPath, e.name));
      const key = `runs/${run.runId}/cells/${cell.id}/raw/${rel}`;
      if (e.name === 'manifest.json') {
        const m = JSON.parse(fs.readFileSync(path.join(FIXTURE, rel), 'utf8')) as Record<string, unknown>;
        await store.putJson(key, {
          ...m,
          workloadStartMs: workloadStartOf(path.dirname(path.join(FIXTURE, rel))),
        });
      } else await store.putFile(key, path.join(FIXTURE, rel));
    }
    await aggregateCellStep({ run, index }, { store, metrics: { put: async () => undefined } });
  }
  await writeReport(store, run.runId, 'SUCCEEDED', { local: true });
  return path.join(store.dir, 'runs', run.runId, 'report.html');
}

// the fixture's 8-s schedule with 1-s status intervals, after a 1-s warm-up
const workload = {
  ...quickstart.workload,
  durationSeconds: 8,
  warmupSeconds: 1,
  statusIntervalSeconds: 1,
};
const SPECS: Record<string, Record<string, unknown>> = {
  quickstart: { ...quickstart, workload },
  staircase: {
    ...quickstart,
    name: 'staircase',
    targets: [
      quickstart.targets[0],
      { ...quickstart.targets[0], id: 'ddb-od', billing: { mode: 'on-demand' } },
    ],
    workload: {
      ...workload,
      distributions: ['uniform'],
      targetOpsPerSec: { start: 50, stop: 300, step: 50 },
    },
  },
};

interface Seen {
  name: string;
  charts: { id: string; xValues: number; marks: number; hover: number }[];
  tables: string[];
  overflow: number;
  spectrumCells: string[];
  timeOps: { id: string; values: number[] }[];
  comparisonRows: number;
  cells: string[];
}

async function look(page: Page, file: string, name: string): Promise<Seen> {
  await page.goto(pathToFileURL(file).href);
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  // what a reader sees first, and one chart of each new kind, at full size
  await page.screenshot({ path: path.join(shots, `${name}-top.png`) });
  for (const [what, selector] of [
    ['spectrum', '.spectrum figure'],
    ['time-ops', 'figure[data-chart^="time-ops-"]'],
    [
      'latency-vs-target',
      'figure[data-chart^="latency-vs-target-"], figure[data-table^="latency-vs-target-"]',
    ],
  ] as const) {
    // the tests below judge what is missing; a missing figure has no picture
    const figure = page.locator(selector).first();
    if (await figure.count()) await figure.screenshot({ path: path.join(shots, `${name}-${what}.png`) });
  }
  return page.evaluate((n) => {
    // the page's DOM (this function runs in Chromium; the test project's TypeScript has no DOM types)
    interface El {
      getAttribute(name: string): string | null;
      querySelectorAll(selector: string): Iterable<El> & ArrayLike<El>;
      textContent: string | null;
      childNodes: ArrayLike<{ textContent: string | null }>;
    }
    const document = (
      globalThis as unknown as {
        document: El & { documentElement: { scrollWidth: number; clientWidth: number } };
      }
    ).document;
    const charts = [...document.querySelectorAll('figure[data-chart]')].map((f) => ({
      id: f.getAttribute('data-chart')!,
      xValues: Number(f.getAttribute('data-x-values')),
      // every drawn value (a dot or a bar) and how many of them carry a hover text
      marks: f.querySelectorAll('circle, rect.bar').length,
      hover: f.querySelectorAll('circle > title, rect.bar > title').length,
    }));
    const timeOps = [...document.querySelectorAll('figure[data-chart^="time-ops-"]')].map((f) => ({
      id: f.getAttribute('data-chart')!,
      // each dot's hover text: "ops/s: <seconds> → <ops/s> ops/s"
      values: [...f.querySelectorAll('circle > title')].map((t) =>
        Number(/→ ([\d.]+)/.exec(t.textContent ?? '')?.[1]),
      ),
    }));
    return {
      name: n,
      charts,
      tables: [...document.querySelectorAll('figure[data-table]')].map((f) => f.getAttribute('data-table')!),
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      spectrumCells: [...document.querySelectorAll('.spectrum[data-cells]')].flatMap((d) =>
        d.getAttribute('data-cells')!.split(' '),
      ),
      timeOps,
      comparisonRows: document.querySelectorAll('table.comparison tr[data-verdict]').length,
      cells: [...document.querySelectorAll('table.cells tbody tr td:first-child')].map(
        (td) => td.childNodes[0]!.textContent!,
      ),
    };
  }, name);
}

describe('the report in Chromium at 1280 px: quickstart, staircase, comparison', () => {
  let browser: Browser;
  const seen: Seen[] = [];
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'fleetbench-report-browser-'));

  beforeAll(async () => {
    const store = new FsStore(dir);
    const files: [string, string][] = [];
    files.push(['quickstart', await runOf(store, 'quickstart-base', SPECS.quickstart!)]);
    files.push(['staircase', await runOf(store, 'staircase-1', SPECS.staircase!)]);
    const baselineId = path.basename(path.dirname(files[0]![1]));
    files.push([
      'comparison',
      await runOf(store, 'quickstart-next', { ...SPECS.quickstart, baseline: baselineId }),
    ]);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    for (const [name, file] of files) seen.push(await look(page, file, name));
    await page.close();
    console.log(`screenshots: ${shots}`, JSON.stringify(seen[0]!.timeOps));
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('no chart has a single x value; the one-value figures are tables', () => {
    for (const s of seen)
      for (const c of s.charts)
        expect({ page: s.name, chart: c.id, xValues: c.xValues >= 2 }).toEqual({
          page: s.name,
          chart: c.id,
          xValues: true,
        });
    const quick = seen.find((s) => s.name === 'quickstart')!;
    // one read ratio and one target: latency vs read ratio and vs target are tables, not one-dot charts
    expect(quick.tables.filter((t) => t.startsWith('latency-vs-'))).toHaveLength(4);
    expect(quick.charts.filter((c) => c.id.startsWith('latency-vs-'))).toEqual([]);
    const stairs = seen.find((s) => s.name === 'staircase')!;
    expect(stairs.charts.find((c) => c.id === 'latency-vs-target-uniform-0.5')?.xValues).toBe(6);
  });

  it('every drawn value shows on hover', () => {
    for (const s of seen)
      for (const c of s.charts) {
        expect(c.marks).toBeGreaterThan(0);
        expect({ page: s.name, chart: c.id, hover: c.hover }).toEqual({
          page: s.name,
          chart: c.id,
          hover: c.marks,
        });
      }
  });

  it('no ops/s series ends in a partial-interval dip (nor a spike)', () => {
    for (const s of seen)
      for (const t of s.timeOps) {
        expect(t.values.length).toBeGreaterThanOrEqual(4);
        const sorted = [...t.values].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        // the last point is within 20 % of the series' median (the values are in the message when it fails)
        const ratio = t.values.at(-1)! / median;
        const ok = ratio > 0.8 && ratio < 1.25;
        expect({ page: s.name, id: t.id, values: t.values, ok }).toEqual({
          page: s.name,
          id: t.id,
          values: t.values,
          ok: true,
        });
      }
  });

  it('nothing overflows the page at 1280 px, and every cell has a percentile spectrum', () => {
    for (const s of seen) {
      expect({ page: s.name, overflow: s.overflow }).toEqual({ page: s.name, overflow: 0 });
      expect(s.cells.length).toBeGreaterThan(0);
      expect([...new Set(s.spectrumCells)].sort()).toEqual([...s.cells].sort());
    }
    expect(seen.find((s) => s.name === 'staircase')!.cells).toHaveLength(12);
  });

  it('the compared run shows the comparison: five metrics per cell, each with a verdict', () => {
    const c = seen.find((s) => s.name === 'comparison')!;
    expect(c.comparisonRows).toBe(5 * c.cells.length);
    expect(seen.find((s) => s.name === 'quickstart')!.comparisonRows).toBe(0);
  });
});
