/**
 * compareRuns (issue #31): the block bootstrap's intervals, verdicts and `--fail-on` on synthetic runs whose
 * true change is known by construction: latencies drawn from the same distribution (no change), or the same
 * draws scaled by a factor (a change of exactly that factor).
 */
import { Histogram } from '../../../lib/core/hdr/histogram';
import { Prng } from '../../../lib/core/common/prng';
import type { CellHeadline } from '../../../lib/core/contract/headline';
import type { CellBuckets } from '../../../lib/core/results/buckets';
import { compareRuns, failures, parseFailOn, type RunSide } from '../../../lib/core/report/compare';
import { comparisonText } from '../../../lib/cli/commands/compare';

/** n one-second buckets of `perBucket` latencies, exponential with mean `meanUs` × `scale`. */
function side(
  runId: string,
  seed: number,
  o: { scale?: number; n?: number; perBucket?: number; rate?: number } = {},
): RunSide {
  const rng = new Prng(seed);
  const n = o.n ?? 30;
  const perBucket = o.perBucket ?? 400;
  const all = new Histogram();
  const buckets: CellBuckets['buckets'] = [];
  for (let k = 0; k < n; k++) {
    const h = new Histogram();
    for (let j = 0; j < perBucket; j++) {
      const v = Math.max(1, Math.round(-Math.log(1 - rng.next()) * 2000 * (o.scale ?? 1)));
      h.recordValue(v);
      all.recordValue(v);
    }
    buckets.push({
      offsetSeconds: k,
      seconds: perBucket / (o.rate ?? perBucket),
      good: perBucket,
      failed: 0,
      intended: h.toSparse(),
      service: null,
    });
  }
  const [p50, p99, p999] = all.valuesAtPercentiles([50, 99, 99.9]);
  const seconds = buckets.reduce((a, b) => a + b.seconds, 0);
  const good = n * perBucket;
  const headline: CellHeadline = {
    cellId: 'ddb.uniform.r50.t400',
    target: 'ddb',
    distribution: 'uniform',
    readProportion: 0.5,
    targetOpsPerSec: 400,
    achievedOpsPerSec: good / seconds,
    goodOpsPerSec: good / seconds,
    attainment: 1,
    intendedP50Us: p50!,
    intendedP99Us: p99!,
    intendedP999Us: p999!,
    serviceP50Us: null,
    serviceP99Us: null,
    serviceP999Us: null,
    errors: 0,
    throttles: 0,
    monthlyCostProvisionedUsd: 100,
    monthlyCostOnDemandUsd: null,
    monthlyCostUsd: 100,
    costPerMillionOpsUsd: (100 / ((good / seconds) * 730 * 3600)) * 1e6,
    incomplete: false,
    incompleteReason: null,
    suspect: false,
    suspectReason: null,
  };
  return {
    runId,
    cells: [{ headline, buckets: { cellId: headline.cellId, seriesSeconds: 1, buckets, spectrum: {} } }],
  };
}

const metric = (c: ReturnType<typeof compareRuns>, m: string) =>
  c.cells[0]!.metrics.find((x) => x.metric === m)!;

describe('compareRuns', () => {
  it('a 30 % slower run: P99 worse, +30 % inside its interval, the interval excluding 0', () => {
    const c = compareRuns(side('slow', 2, { scale: 1.3 }), side('base', 1));
    const p99 = metric(c, 'p99');
    expect(p99.verdict).toBe('worse');
    expect(p99.ci![0]).toBeGreaterThan(0);
    expect(p99.ci![0]).toBeLessThan(0.3);
    expect(p99.ci![1]).toBeGreaterThan(0.3);
    expect(p99.change!).toBeGreaterThan(p99.ci![0]);
    expect(p99.change!).toBeLessThan(p99.ci![1]);
    // the change is the cells rows' figures'
    expect(p99.change).toBeCloseTo(p99.run! / p99.baseline! - 1, 12);
    expect(metric(c, 'p50').verdict).toBe('worse');
    // the same rate: throughput and (fixed) cost do not differ
    expect(metric(c, 'throughput').verdict).toBe('no significant difference');
    expect(metric(c, 'cost')).toMatchObject({ change: 0, verdict: 'no significant difference' });
  });

  it('a faster run is better', () => {
    expect(metric(compareRuns(side('fast', 3, { scale: 0.7 }), side('base', 1)), 'p99').verdict).toBe(
      'better',
    );
  });

  it('runs of one distribution: significant in about 5 % of pairs (40 independent A/A pairs)', () => {
    const flagged: Record<string, number> = { p50: 0, p99: 0, p999: 0, throughput: 0 };
    let covered = 0;
    for (let k = 0; k < 40; k++) {
      const c = compareRuns(side('a', 1000 + 2 * k), side('b', 1001 + 2 * k), { resamples: 400 });
      for (const m of Object.keys(flagged))
        if (metric(c, m).verdict !== 'no significant difference') flagged[m]!++;
      const p99 = metric(c, 'p99');
      if (p99.ci![0] <= 0 && p99.ci![1] >= 0) covered++;
    }
    // nominal 5 %: 2 of 40 expected; more than 6 has probability < 2 % (binomial)
    for (const [m, n] of Object.entries(flagged)) expect({ m, ok: n <= 6 }).toEqual({ m, ok: true });
    expect(covered).toBeGreaterThanOrEqual(34);
  });

  it('throughput: a lower good rate is worse; a cost proportional to it takes its interval', () => {
    const run = side('slower', 7, { rate: 300 });
    const base = side('base', 1);
    // on-demand: cost ∝ rate (the same cost per million operations)
    for (const s of [run, base]) {
      const h = s.cells[0]!.headline;
      h.monthlyCostUsd = h.goodOpsPerSec! * 0.5;
      h.costPerMillionOpsUsd = (0.5 / (730 * 3600)) * 1e6;
    }
    const c = compareRuns(run, base);
    const t = metric(c, 'throughput');
    expect(t.change).toBeCloseTo(300 / 400 - 1, 9);
    expect(t.verdict).toBe('worse');
    const cost = metric(c, 'cost');
    expect(cost.change).toBeCloseTo(-0.25, 9);
    expect(cost.ci).toEqual(t.ci);
    expect(cost.verdict).toBe('better');
  });

  it('is reproducible with its seed, and gives no interval with too few buckets', () => {
    const a = compareRuns(side('x', 2, { scale: 1.1 }), side('base', 1));
    const b = compareRuns(side('x', 2, { scale: 1.1 }), side('base', 1));
    expect(a).toEqual(b);
    expect(compareRuns(side('x', 2, { scale: 1.1 }), side('base', 1), { seed: 9 })).not.toEqual(a);
    const few = compareRuns(side('x', 2, { scale: 2, n: 3 }), side('base', 1, { n: 3 }));
    expect(metric(few, 'p99')).toMatchObject({ ci: null, verdict: 'no significant difference' });
    expect(metric(few, 'p99').note).toMatch(/fewer than 4 intervals/);
  });

  it('past its time budget, leaves the remaining cells without an interval and says why', () => {
    const twoCells = (s: RunSide): RunSide => {
      const other = structuredClone(s.cells[0]!);
      other.headline.cellId = 'second';
      return { ...s, cells: [s.cells[0]!, other] };
    };
    const c = compareRuns(twoCells(side('slow', 2, { scale: 1.3 })), twoCells(side('base', 1)), {
      budgetMs: 0,
    });
    expect(c.cells.map((x) => x.metrics.find((m) => m.metric === 'p99')!.verdict)).toEqual([
      'worse',
      'no significant difference',
    ]);
    const late = c.cells[1]!.metrics.find((m) => m.metric === 'p99')!;
    expect(late).toMatchObject({ ci: null, note: expect.stringMatching(/over the time budget/) });
    expect(late.change).toBeGreaterThan(0);
  });

  it('lists cells present in one run only', () => {
    const run = side('r', 2);
    run.cells[0]!.headline.cellId = 'other';
    const c = compareRuns(run, side('base', 1));
    expect(c.cells).toEqual([]);
    expect(c.onlyInRun).toEqual(['other']);
    expect(c.onlyInBaseline).toEqual(['ddb.uniform.r50.t400']);
  });

  it("pairs an SLO search's probes by rate, not by probe number (docs/slo-search.md)", () => {
    const probe = (runId: string, seed: number, id: string, rate: number): RunSide => {
      const s = side(runId, seed);
      s.cells[0]!.headline.cellId = id;
      s.cells[0]!.headline.targetOpsPerSec = rate;
      return s;
    };
    // probe 3 ran 120 ops/s here, probe 4 ran it in the baseline: the same cell
    const same = compareRuns(
      probe('r', 2, 'ddb.uniform.r50.probe3', 120),
      probe('b', 1, 'ddb.uniform.r50.probe4', 120),
    );
    expect(same.cells.map((c) => c.cellId)).toEqual(['ddb.uniform.r50.probe3']);
    // probe 3 at different rates: not comparable
    const other = compareRuns(
      probe('r', 2, 'ddb.uniform.r50.probe3', 120),
      probe('b', 1, 'ddb.uniform.r50.probe3', 140),
    );
    expect(other.cells).toEqual([]);
    expect(other.onlyInRun).toEqual(['ddb.uniform.r50.probe3']);
    expect(other.onlyInBaseline).toEqual(['ddb.uniform.r50.probe3']);
  });
});

describe('incomplete and suspect cells', () => {
  /** a side whose headline says it is incomplete or suspect */
  const flagged = (r: RunSide, f: Partial<CellHeadline>): RunSide => ({
    ...r,
    cells: r.cells.map((c) => ({ ...c, headline: { ...c.headline, ...f } })),
  });
  // one loader of four missing: three quarters of the operations (300 of 400 a second), flagged incomplete
  const missing = () =>
    flagged(side('r2', 2, { perBucket: 300, rate: 300 }), {
      incomplete: true,
      incompleteReason: 'loader-3/proc-0: no manifest',
    });

  it('without the flag, the lost quarter reads as a significant −25 % throughput (what the flag guards)', () => {
    const c = compareRuns(side('r2', 2, { perBucket: 300, rate: 300 }), side('base', 1));
    expect(metric(c, 'throughput')).toMatchObject({ verdict: 'worse' });
    expect(metric(c, 'throughput').change).toBeCloseTo(-0.25, 9);
    expect(failures(c, parseFailOn('throughput:-5%'))).toHaveLength(1);
  });

  it('incomplete on a side: no verdict on any metric, a note, and nothing for --fail-on (no threshold broken)', () => {
    for (const [run, base] of [
      [missing(), side('base', 1)],
      [side('base', 1), missing()],
    ] as const) {
      const c = compareRuns(run, base);
      const cell = c.cells[0]!;
      expect(cell.incomplete).toBe(
        `${run.runId === 'r2' ? 'run' : 'baseline'}: loader-3/proc-0: no manifest`,
      );
      for (const m of cell.metrics) expect(m).toMatchObject({ verdict: 'no verdict', ci: null });
      expect(metric(c, 'throughput').note).toMatch(/incomplete on a side/);
      // the figures are still shown: 300 against 400 ops/s
      expect(Math.abs(metric(c, 'throughput').change!)).toBeGreaterThan(0.2);
      expect(failures(c, parseFailOn('throughput:-5%,p99:+1%,cost:+1%'))).toEqual([]);
      expect(comparisonText(c)).toContain(
        `incomplete: ddb.uniform.r50.t400 (${cell.incomplete}): no verdict, left out of --fail-on`,
      );
    }
  });

  it('suspect on a side: the verdict stands and the cell is flagged in the text and the JSON', () => {
    const slow = flagged(side('slow', 2, { scale: 1.3 }), {
      suspect: true,
      suspectReason: 'loader-0 CPU 91 % (above 70 %)',
    });
    const c = compareRuns(slow, side('base', 1));
    expect(metric(c, 'p99').verdict).toBe('worse');
    expect(c.cells[0]!.suspect).toBe('run: loader-0 CPU 91 % (above 70 %)');
    expect(JSON.parse(JSON.stringify(c)).cells[0].suspect).toBe('run: loader-0 CPU 91 % (above 70 %)');
    expect(comparisonText(c)).toContain(
      'suspect: ddb.uniform.r50.t400 (run: loader-0 CPU 91 % (above 70 %)): verdicts kept, check the loaders',
    );
    expect(failures(c, parseFailOn('p99:+10%'))).toHaveLength(1);
  });
});

describe('--fail-on', () => {
  it('parses thresholds and fails only a significant change beyond them', () => {
    expect(parseFailOn('p99:+10%, throughput:-5%')).toEqual([
      { metric: 'p99', limit: 0.1, text: 'p99:+10%' },
      { metric: 'throughput', limit: -0.05, text: 'throughput:-5%' },
    ]);
    const slow = compareRuns(side('slow', 2, { scale: 1.3 }), side('base', 1));
    expect(failures(slow, parseFailOn('p99:+10%'))).toEqual([
      expect.stringMatching(/^ddb\.uniform\.r50\.t400: p99 \+\d+\.\d% breaks p99:\+10%$/),
    ]);
    expect(failures(slow, parseFailOn('p99:+80%'))).toEqual([]);
    const same = compareRuns(side('same', 4), side('base', 1));
    expect(failures(same, parseFailOn('p99:+0%'))).toEqual([]);
  });

  it('names the flag and what is expected on bad input', () => {
    expect(() => parseFailOn('p99:10%')).toThrow(/--fail-on.*expected <metric>:<sign><percent>%/);
    expect(() => parseFailOn('p98:+10%')).toThrow(/metric one of throughput, p50, p99, p999, cost/);
    expect(() => parseFailOn('p99:-10%')).toThrow(/p99 gets worse when it rises: use "\+"/);
    expect(() => parseFailOn('throughput:+10%')).toThrow(/falls: use "-"/);
  });
});
