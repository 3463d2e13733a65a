/**
 * `npm run bench:compare`: the time `fleetbench compare` spends on one cell's bootstrap, by the size of the
 * cell — buckets (status intervals in the window) × operations per bucket — at 1,000 replicates. Latencies
 * are exponential (mean 2 ms) recorded at HdrHistogram's 3 significant digits, as YCSB records them; the
 * number of distinct values per bucket, not the operations, sets the cost of a merge.
 */
import { Histogram } from '../../lib/core/hdr/histogram';
import { Prng } from '../../lib/core/common/prng';
import type { CellBuckets } from '../../lib/core/results/buckets';
import { compareRuns, type RunSide } from '../../lib/core/report/compare';
import { noResultHeadline } from '../../lib/core/contract/headline';

function side(runId: string, seed: number, n: number, perBucket: number): RunSide {
  const rng = new Prng(seed);
  const buckets: CellBuckets['buckets'] = [];
  for (let k = 0; k < n; k++) {
    const h = new Histogram();
    for (let j = 0; j < perBucket; j++)
      h.recordValue(Math.max(1, Math.round(-Math.log(1 - rng.next()) * 2000)));
    buckets.push({
      offsetSeconds: k,
      seconds: 10,
      good: perBucket,
      failed: 0,
      intended: h.toSparse(),
      service: null,
    });
  }
  const headline = {
    ...noResultHeadline({
      id: 'c',
      target: 't',
      distributionLabel: 'uniform',
      readProportion: 0.5,
      targetOpsPerSec: 1,
    }),
    intendedP99Us: 9000,
    goodOpsPerSec: perBucket / 10,
  };
  return { runId, cells: [{ headline, buckets: { cellId: 'c', seriesSeconds: 10, buckets, spectrum: {} } }] };
}

const sizes: [number, number][] = [
  [30, 1_000],
  [360, 1_000],
  [360, 10_000],
  [360, 100_000],
];
console.log('buckets  ops/bucket  distinct values/bucket  1,000 replicates');
for (const [n, per] of sizes) {
  const a = side('a', 1, n, per);
  const b = side('b', 2, n, per);
  const distinct = a.cells[0]!.buckets!.buckets.reduce((s, x) => s + x.intended!.i.length, 0) / n;
  const t0 = performance.now();
  compareRuns(a, b, { resamples: 1000 });
  const s = (performance.now() - t0) / 1000;
  console.log(
    `${String(n).padStart(7)}  ${String(per).padStart(10)}  ${distinct.toFixed(0).padStart(22)}  ${s.toFixed(2).padStart(14)} s`,
  );
}
