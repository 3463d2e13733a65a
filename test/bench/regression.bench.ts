/**
 * `npm run bench:regression`: how well change-point detection finds known steps, fleetbench next to
 * Apache Otava 0.8 (Python, test/oracle/regression/otava_oracle.py) on the same seeded series and
 * options, then the time per series. Needs apache-otava 0.8.x (`python3 -m pip install apache-otava==0.8.0`).
 *
 * - Steps of 2, 5, 10 and 20 % (up or down, at run 30–50 of 80) at noise CVs of 1–5 %, `BENCH_SERIES`
 *   series per cell (default 1,000): recall = steps with a change point within ±2 runs / steps; false
 *   points = every other change point. Matching is one-to-one (each true step matches at most one
 *   point, as in van den Burg & Williams' TCPDBench, https://arxiv.org/abs/2003.06222), so a second point
 *   near the step is a false point, not a second hit.
 * - Pure noise, and noise with one +30 % spike (not a change): false-positive rate = series with any
 *   change point / series.
 * - Per step cell, fleetbench − Otava on the same series (paired): Δ recall in points of %, Δ false
 *   points per 100 series, each with a 95 % confidence interval (normal approximation of the paired
 *   difference, so it reflects how many series the two detectors disagree on).
 * Columns: fleetbench as shipped (minSegment 3, confirmed points only), fleetbench with minSegment 1
 * (its short-segment rule off, so only the merge rule differs from Otava), and Otava. Both at fleetbench's
 * defaults (window 50, p 0.001, minMagnitude 0.05) and with minMagnitude 0 (Otava's default).
 * The last lines check issue #20's bar (fleetbench's recall ≥ Otava's and false points ≤ Otava's in
 * every cell), sort every step that Otava found and fleetbench did not by its cause, and check that every
 * difference comes from the two documented rules: with both switched to Otava's (minSegment 1,
 * `otavaRecompute`), fleetbench's answer must equal Otava's on every series.
 * `BENCH_EXAMPLES=n` prints up to n such series per losing cell. `BENCH_MATCHED=1` adds fleetbench's
 * recall at Otava's false points (fleetbench's thresholds swept, Otava at the nominal ones) for the 2 and
 * 5 % steps: a comparison at the same false-alarm level rather than the same nominal thresholds.
 */
import {
  detectChangePoints,
  fillMissing,
  firstPassPValue,
  merge,
  split,
  statsAt,
} from '../../lib/core/regression/detect';
import { Prng } from '../../lib/core/common/prng';
import { compareSplit, magnitude } from '../../lib/core/regression/stats';
import { OtavaCase, OtavaPoint, OtavaResult, runOtavaAsync } from '../oracle/regression/otava';
import { regimes } from '../oracle/regression/series';

const STEPS = [0.02, 0.05, 0.1, 0.2];
const CVS = [0.01, 0.02, 0.03, 0.04, 0.05];
const PER_CELL = Number(process.env.BENCH_SERIES ?? 1000);
const EXAMPLES = Number(process.env.BENCH_EXAMPLES ?? 0);
const LENGTH = 80;
const TOLERANCE = 2;

interface Sample {
  kind: 'step' | 'noise' | 'spike';
  step: number;
  cv: number;
  values: number[];
  /** true change index, or none */
  truth?: number;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  let seed = 7_000;
  for (const cv of CVS) {
    for (const step of STEPS) {
      for (let k = 0; k < PER_CELL; k++) {
        const rng = new Prng(seed++);
        const at = 30 + rng.below(21);
        const up = rng.next() < 0.5 ? 1 : -1;
        const parts: [number, number][] = [
          [at, 100],
          [LENGTH - at, 100 * (1 + up * step)],
        ];
        out.push({ kind: 'step', step, cv, values: regimes(rng, parts, cv), truth: at });
      }
    }
    for (let k = 0; k < 2 * PER_CELL; k++) {
      const rng = new Prng(seed++);
      out.push({ kind: 'noise', step: 0, cv, values: regimes(rng, [[LENGTH, 100]], cv) });
      const spiky = regimes(rng, [[LENGTH, 100]], cv);
      const at = 5 + rng.below(LENGTH - 10);
      spiky[at] = Number((spiky[at] * 1.3).toPrecision(6));
      out.push({ kind: 'spike', step: 0, cv, values: spiky });
    }
  }
  return out;
}

const DETECTORS = ['fleetbench', 'minSegment 1', 'otava'] as const;
type Detector = (typeof DETECTORS)[number];

/** One detector on one series: the true step matched (one-to-one), the other points, any point at all. */
interface Outcome {
  hit: boolean;
  falsePoints: number;
  any: boolean;
}

function outcome(s: Sample, indexes: readonly number[]): Outcome {
  const hit = s.truth !== undefined && indexes.some((i) => Math.abs(i - s.truth!) <= TOLERANCE);
  return { hit, falsePoints: indexes.length - (hit ? 1 : 0), any: indexes.length > 0 };
}

type Cell = { samples: Sample[]; losses: Loss[] } & Record<Detector, Outcome[]>;

/** A step Otava found and fleetbench (as shipped) did not. */
interface Loss {
  sample: Sample;
  cause: 'stale' | 'short' | 'other';
  /** some subset of the split's candidates holding the step passes both thresholds everywhere */
  consistentExists: boolean;
  otava: OtavaPoint[];
  fleetbench: { index: number; pValue: number; magnitude: number }[];
  weak: number[];
}

interface Thresholds {
  maxPValue: number;
  minMagnitude: number;
}

/** Every point passes both thresholds against its neighbours in `indexes` (its current statistics). */
function consistent(series: Float64Array, indexes: readonly number[], o: Thresholds): boolean {
  const ends = [0, ...indexes, series.length];
  return indexes.every((idx, k) => {
    const fresh = compareSplit(series, ends[k], idx, ends[k + 2]);
    return fresh.pValue < o.maxPValue && magnitude(fresh) > o.minMagnitude;
  });
}

/**
 * Why Otava found a step fleetbench (as shipped) did not: `stale` when one of Otava's points fails
 * maxPValue or minMagnitude against the neighbours Otava itself reports (its merge left it statistics of
 * a removed segment); `short` when fleetbench with minSegment 1 finds it (a one- or two-run regime next
 * to the step); `other` otherwise. Also whether any subset of the split's candidates that holds a point
 * near the step is consistent: if none is, no merge that reports only points passing both thresholds
 * against the regimes it reports could have found the step from these candidates.
 */
function lossOf(s: Sample, theirs: OtavaResult, ours: Loss['fleetbench'], o: Thresholds): Loss {
  const series = fillMissing(s.values)!.series;
  const indexes = theirs.points.map((p) => p.index);
  let cause: Loss['cause'] = 'stale';
  if (consistent(series, indexes, o)) {
    const relaxed = detectChangePoints(s.values, { ...o, minSegment: 1 }).changePoints;
    cause = outcome(
      s,
      relaxed.map((p) => p.index),
    ).hit
      ? 'short'
      : 'other';
  }
  const weak = theirs.weak;
  let consistentExists = false;
  if (weak.length <= 16) {
    for (let mask = 1; mask < 1 << weak.length && !consistentExists; mask++) {
      const subset = weak.filter((_, j) => mask & (1 << j));
      consistentExists = outcome(s, subset).hit && consistent(series, subset, o);
    }
  }
  return { sample: s, cause, consistentExists, otava: theirs.points, fleetbench: ours, weak };
}

/** Mean of the paired differences a − b and its 95 % confidence interval (normal approximation). */
function paired(a: readonly number[], b: readonly number[]): { mean: number; lo: number; hi: number } {
  const d = a.map((x, i) => x - b[i]);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, d.length - 1);
  const half = 1.96 * Math.sqrt(variance / d.length);
  return { mean, lo: mean - half, hi: mean + half };
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : '-').padStart(6);
const row = (xs: (string | number)[]) => xs.map((x) => String(x).padStart(6)).join(' ');
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
const interval = (d: { mean: number; lo: number; hi: number }, scale: number) =>
  `${signed(d.mean * scale)} [${signed(d.lo * scale)}, ${signed(d.hi * scale)}]`.padStart(20);

async function evaluate(minMagnitude: number, all: Sample[]) {
  const options = { window: 50, maxPValue: 0.001, minMagnitude };
  const cases: OtavaCase[] = all.map((s, i) => ({ name: String(i), values: s.values, ...options }));
  const t0 = Date.now();
  const otava = await runOtavaAsync(cases);
  const otavaMs = Date.now() - t0;
  const cells = new Map<string, Cell>();
  let mismatches = 0;
  all.forEach((s, i) => {
    const key = `${s.kind}|${s.step}|${s.cv}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { samples: [], losses: [], fleetbench: [], 'minSegment 1': [], otava: [] }));
    const ours = detectChangePoints(s.values, options).changePoints.filter((p) => p.confirmed);
    const relaxed = detectChangePoints(s.values, { ...options, minSegment: 1 }).changePoints;
    const theirs = otava.results[i];
    c.samples.push(s);
    c.fleetbench.push(
      outcome(
        s,
        ours.map((p) => p.index),
      ),
    );
    c['minSegment 1'].push(
      outcome(
        s,
        relaxed.map((p) => p.index),
      ),
    );
    c.otava.push(
      outcome(
        s,
        theirs.points.map((p) => p.index),
      ),
    );
    if (c.otava.at(-1)!.hit && !c.fleetbench.at(-1)!.hit) c.losses.push(lossOf(s, theirs, ours, options));
    // with Otava's merge recomputation as well, fleetbench must give Otava's answer
    const series = fillMissing(s.values)!.series;
    const weak = split(series, options.window, firstPassPValue(options.maxPValue));
    const variant = merge(series, statsAt(series, weak), { ...options, minSegment: 1, otavaRecompute: true });
    if (variant.map((p) => p.index).join() !== theirs.points.map((p) => p.index).join()) mismatches++;
  });
  return { options, version: otava.version, otavaMs, cells, mismatches, series: all.length };
}

type Evaluation = Awaited<ReturnType<typeof evaluate>>;

function report(label: string, e: Evaluation): string[] {
  const w = process.stdout;
  const failures: string[] = [];
  w.write(
    `\n== ${label}: window 50, maxPValue 0.001, minMagnitude ${e.options.minMagnitude} (apache-otava ${e.version})\n`,
  );
  w.write(
    `${PER_CELL} series of ${LENGTH} runs per step cell; a hit is a change point within ±${TOLERANCE} runs ` +
      '(one per step; other points are false points)\n',
  );
  w.write(
    'fleetb: fleetbench as shipped (minSegment 3, confirmed points); ms=1: fleetbench with minSegment 1; ' +
      'Δ: fleetb − otava, paired, 95 % CI\n\n',
  );
  const heads = row(['fleetb', 'ms=1', 'otava']);
  w.write(
    `${row(['', ''])} | ${'recall %'.padEnd(20)} | ${'Δ recall (points)'.padStart(20)} | ` +
      `${'false points'.padEnd(20)} | ${'Δ per 100 series'.padStart(20)} | bar\n`,
  );
  w.write(`${row(['step', 'cv'])} | ${heads} | ${''.padStart(20)} | ${heads} | ${''.padStart(20)} |\n`);
  const losing: [string, Cell][] = [];
  for (const step of STEPS) {
    for (const cv of CVS) {
      const c = e.cells.get(`step|${step}|${cv}`)!;
      const hits = (d: Detector) => c[d].filter((o) => o.hit).length;
      const falsePoints = (d: Detector) => c[d].reduce((s, o) => s + o.falsePoints, 0);
      const n = c.samples.length;
      const dRecall = paired(
        c.fleetbench.map((o) => +o.hit),
        c.otava.map((o) => +o.hit),
      );
      const dFalse = paired(
        c.fleetbench.map((o) => o.falsePoints),
        c.otava.map((o) => o.falsePoints),
      );
      const where = `${label}, step ${step * 100}% cv ${cv * 100}%`;
      const fails: string[] = [];
      if (hits('fleetbench') < hits('otava'))
        fails.push(`recall ${hits('fleetbench')} vs ${hits('otava')} of ${n}`);
      if (falsePoints('fleetbench') > falsePoints('otava')) {
        fails.push(`false points ${falsePoints('fleetbench')} vs ${falsePoints('otava')}`);
      }
      if (fails.length) losing.push([where, c]);
      failures.push(...fails.map((f) => `${where}: ${f}`));
      w.write(
        `${row([`${step * 100}%`, `${cv * 100}%`])} | ${row(DETECTORS.map((d) => pct(hits(d), n)))} | ` +
          `${interval(dRecall, 100)} | ${row(DETECTORS.map(falsePoints))} | ${interval(dFalse, 100)} | ` +
          `${fails.length ? 'NO' : 'ok'}\n`,
      );
    }
  }
  w.write(
    `\n${row(['series', 'cv'])} | ${row(['false-', 'pos.', 'rate %'])} | ${row(['points', 'per', 'series'])}\n`,
  );
  for (const kind of ['noise', 'spike'] as const) {
    for (const cv of CVS) {
      const c = e.cells.get(`${kind}|0|${cv}`)!;
      const withAny = (d: Detector) => c[d].filter((o) => o.any).length;
      const perSeries = (d: Detector) =>
        (c[d].reduce((s, o) => s + o.falsePoints, 0) / c[d].length).toFixed(3);
      w.write(
        `${row([kind, `${cv * 100}%`])} | ${row(DETECTORS.map((d) => pct(withAny(d), c[d].length)))} | ` +
          `${row(DETECTORS.map(perSeries))}\n`,
      );
      if (withAny('fleetbench') > withAny('otava')) {
        failures.push(
          `${label}, ${kind} cv ${cv * 100}%: false-positive rate ${withAny('fleetbench')} vs ${withAny('otava')}`,
        );
      }
    }
  }
  explainLosses(e, losing);
  w.write(
    `\n(${e.series} series: Otava ${e.otavaMs} ms including Python start-up, run alongside the other ` +
      'option set)\n',
  );
  return failures;
}

/** Sorts the steps Otava found and fleetbench did not, over all cells and per losing cell. */
function explainLosses(e: Evaluation, losing: [string, Cell][]): void {
  const w = process.stdout;
  const all = [...e.cells.values()].flatMap((c) => c.losses);
  const count = (xs: Loss[], f: (l: Loss) => boolean) => xs.filter(f).length;
  const sorted = (xs: Loss[]) =>
    `${count(xs, (l) => l.cause === 'stale')} stale, ${count(xs, (l) => l.cause === 'short')} short, ` +
    `${count(xs, (l) => l.cause === 'other')} other; a consistent set of candidates with the step exists ` +
    `for ${count(xs, (l) => l.consistentExists)}`;
  w.write(
    `\nsteps Otava found and fleetbench did not: ${all.length} (${sorted(all)})\n` +
      "  stale: a point of Otava's answer fails maxPValue or minMagnitude against the neighbours Otava " +
      'itself reports; short: fleetbench with minSegment 1 finds it; consistent set: some subset of the ' +
      "split's candidates holding the step has every point passing both thresholds against its neighbours\n",
  );
  for (const [where, c] of losing) {
    if (!c.losses.length) continue;
    w.write(`  ${where}: ${c.losses.length} (${sorted(c.losses)})\n`);
    for (const l of c.losses.slice(0, EXAMPLES)) {
      const fmt = (p: { index: number; pValue: number | null; magnitude: number }) =>
        `${p.index} (p ${p.pValue === null ? 'NaN' : p.pValue.toExponential(1)}, ${(100 * p.magnitude).toFixed(1)} %)`;
      const series = fillMissing(l.sample.values)!.series;
      const ends = [0, ...l.otava.map((p) => p.index), series.length];
      const fresh = l.otava.map((p, k) => {
        const f = compareSplit(series, ends[k], p.index, ends[k + 2]);
        return fmt({ index: p.index, pValue: f.pValue, magnitude: magnitude(f) });
      });
      w.write(
        `    step at ${l.sample.truth}, candidates [${l.weak.join(', ')}]: Otava ${l.otava.map(fmt).join(', ')}` +
          ` — against its own neighbours ${fresh.join(', ')}; fleetbench ${l.fleetbench.map(fmt).join(', ') || 'none'}\n`,
      );
    }
  }
}

/**
 * Recall at equal false points: Otava at the nominal thresholds (through fleetbench's code with
 * Otava's merge recomputation, which the comparison above shows equal to Otava on every series), and
 * fleetbench (as shipped) with one threshold swept — maxPValue at minMagnitude 0, minMagnitude at the
 * defaults — interpolated linearly to Otava's false-point count.
 */
function matched(all: Sample[]): void {
  const w = process.stdout;
  const steps = all.filter((s) => s.kind === 'step' && s.step <= 0.05);
  const sweeps = [
    { label: 'minMagnitude 0, maxPValue swept', grid: [1, 1.3, 1.6, 2, 2.5, 3, 4].map((k) => [k * 1e-3, 0]) },
    {
      label: 'maxPValue 0.001, minMagnitude swept',
      grid: [0.05, 0.045, 0.04, 0.035, 0.03, 0.025, 0.02].map((m) => [1e-3, m]),
    },
  ];
  for (const { label, grid } of sweeps) {
    w.write(
      `\n== recall at Otava's false points (${label}; ${grid.map(([p, m]) => +(m ? m : p).toPrecision(3)).join(', ')})\n`,
    );
    for (const step of [0.02, 0.05]) {
      for (const cv of CVS) {
        const cell = steps.filter((s) => s.step === step && s.cv === cv);
        const tally = (detect: (s: Sample) => number[]) =>
          cell.reduce(
            (t, s) => {
              const o = outcome(s, detect(s));
              return [t[0] + +o.hit, t[1] + o.falsePoints];
            },
            [0, 0],
          );
        const [p0, m0] = grid[0];
        const [oHits, oFalse] = tally((s) => {
          const series = fillMissing(s.values)!.series;
          const weak = split(series, 50, firstPassPValue(p0));
          const o = { maxPValue: p0, minMagnitude: m0, minSegment: 1, otavaRecompute: true };
          return merge(series, statsAt(series, weak), o).map((p) => p.index);
        });
        const curve = grid.map(([maxPValue, minMagnitude]) =>
          tally((s) =>
            detectChangePoints(s.values, { window: 50, maxPValue, minMagnitude })
              .changePoints.filter((p) => p.confirmed)
              .map((p) => p.index),
          ),
        );
        // the best recall with at most Otava's false points: a swept point, or linear between two
        const reachable = curve.flatMap(([h, f], i) => {
          const out = f <= oFalse ? [h] : [];
          const next = curve[i + 1];
          if (next && f <= oFalse && oFalse < next[1])
            out.push(h + ((next[0] - h) * (oFalse - f)) / (next[1] - f));
          return out;
        });
        const at = reachable.length
          ? Math.max(...reachable).toFixed(1)
          : 'none (more false points at every swept threshold)';
        w.write(
          `  step ${step * 100}% cv ${cv * 100}%: Otava ${oHits} hits / ${oFalse} false points; fleetbench ` +
            `${curve.map(([h, f]) => `${h}/${f}`).join(' ')} -> ${at} hits at ${oFalse} false points\n`,
        );
      }
    }
  }
}

function time(label: string, reps: number, fn: () => unknown): void {
  fn(); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / reps;
  process.stdout.write(`${label.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms/series\n`);
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const all = samples();
  // both Otava runs at once (one Python process each), then fleetbench's side of each
  const [defaults, zero] = await Promise.all([evaluate(0.05, all), evaluate(0, all)]);
  const failures = [
    ...report("fleetbench's defaults", defaults),
    ...report("minMagnitude 0 (Otava's default)", zero),
  ];
  const mismatches = defaults.mismatches + zero.mismatches;
  const w = process.stdout;
  w.write(
    "\n== issue #20's bar: fleetbench's recall ≥ Otava's and its false points ≤ Otava's in every cell: ",
  );
  w.write(
    failures.length
      ? `NO, in ${failures.length} cell(s):\n${failures.map((f) => `  ${f}\n`).join('')}`
      : 'yes\n',
  );
  w.write(
    `== with minSegment 1 and Otava's merge recomputation, fleetbench's change points equal Otava's on ` +
      `${2 * all.length - mismatches} of ${2 * all.length} series (every difference above is one of the two rules)\n`,
  );
  w.write(`(comparison ${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  if (mismatches) process.exitCode = 1;
  if (process.env.BENCH_MATCHED === '1') matched(all);

  w.write('\n== time per series (3 levels, CV 2 %)\n');
  for (const n of [30, 100, 365, 1000]) {
    const third = Math.floor(n / 3);
    const parts: [number, number][] = [
      [third, 100],
      [third, 110],
      [n - 2 * third, 104],
    ];
    const s = regimes(new Prng(n), parts, 0.02);
    time(`ttest       n=${n}`, n >= 1000 ? 5 : 20, () => detectChangePoints(s));
  }
  for (const n of [30, 100, 365]) {
    const s = regimes(new Prng(n), [[n, 100]], 0.02);
    time(`permutation n=${n} (100 shuffles)`, 2, () => detectChangePoints(s, { method: 'permutation' }));
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
