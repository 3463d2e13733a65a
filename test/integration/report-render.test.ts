import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { renderReport, type ReportCell, type ReportData } from '../../lib/core/report/html';
import { launchChromium } from '../support/chromium';

function cell(target: string, distribution: string, read: number, ops: number, p99us: number): ReportCell {
  return {
    cellId: `${target}.${distribution}.r${read * 100}.t${ops}`,
    target,
    distribution,
    readProportion: read,
    targetOpsPerSec: ops,
    achievedOpsPerSec: ops * 0.99,
    goodOpsPerSec: ops * 0.98,
    attainment: 0.98,
    intendedP50Us: p99us / 5,
    intendedP99Us: p99us,
    intendedP999Us: p99us * 2,
    serviceP50Us: p99us / 6,
    serviceP99Us: p99us / 2,
    serviceP999Us: p99us,
    errors: 1,
    throttles: target === 'ddb' ? 3 : 0,
    monthlyCostProvisionedUsd: target === 'ddb' ? 1234.5 : null,
    monthlyCostOnDemandUsd: target === 'ddb' ? 4321 : null,
    monthlyCostUsd: target === 'ddb' ? 1234.5 : 1502.34,
    costPerMillionOpsUsd: ((target === 'ddb' ? 1234.5 : 1502.34) / (ops * 0.98 * 730 * 3600)) * 1e6,
    incomplete: read === 0.9 && target === 'scylla',
    incompleteReason: read === 0.9 && target === 'scylla' ? 'loader-1/proc-0: no manifest' : null,
    suspect: false,
    suspectReason: null,
  };
}

const data: ReportData = {
  runId: 'r-test',
  specName: 'render-test',
  startedAt: '2026-11-22T10:00:00Z',
  status: 'SUCCEEDED',
  cells: ['ddb', 'scylla'].flatMap((t) =>
    ['uniform', 'zipfian'].flatMap((d) =>
      [0.1, 0.5, 0.9].flatMap((r) => [1000, 2000].map((o) => cell(t, d, r, o, 2000 + r * 1000 + o))),
    ),
  ),
  series: {},
  history: [
    {
      metric: 'intended_p99_us',
      unit: 'µs',
      points: [
        [1, 10],
        [2, 11],
        [3, 20],
        [4, 21],
      ],
      changes: [3],
    },
  ],
};
for (const c of data.cells)
  data.series[c.cellId] = Array.from({ length: 6 }, (_, i) => ({
    t: i * 10,
    opsPerSec: 100 + i,
    p50: 1000,
    p99: 5000 + i,
  }));

describe('HTML report in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => browser?.close());

  it('draws every chart offline, with visible series', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetbench-report-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderReport(data));
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(pathToFileURL(file).href);
    const charts = await page.$$eval('figure[data-chart]', (figs) =>
      figs.map((f) => {
        const svg = f.querySelector('svg');
        const lines = [...f.querySelectorAll('path.line, rect.bar')].map((p) =>
          (p as unknown as { getBBox(): { width: number; height: number } }).getBBox(),
        );
        return {
          id: f.getAttribute('data-chart'),
          width: svg ? svg.getBoundingClientRect().width : 0,
          drawn: lines.filter((b) => b.width > 0 || b.height > 0).length,
        };
      }),
    );
    // 2 distributions × (2 latency-vs-read + 3 × (latency-vs-target + ops-vs-target)) + attainment + 2 per cell + cost + history
    expect(charts).toHaveLength(2 * (2 + 3 * 2) + 1 + 2 * data.cells.length + 1 + 1);
    for (const c of charts) {
      expect(c.width).toBeGreaterThan(100);
      expect({ id: c.id, drawn: c.drawn > 0 }).toEqual({ id: c.id, drawn: true });
    }
    const marks = await page.$$eval('figure[data-chart="history-intended_p99_us"] path.mark', (m) =>
      m.map((x) => x.getAttribute('data-mark')),
    );
    expect(marks).toEqual(['3']);
    expect(await page.locator('tr.incomplete').count()).toBe(data.cells.filter((c) => c.incomplete).length);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);
});
