/**
 * Child process of the aggregate benchmark: aggregates one cell directory through the object-store port
 * (FsStore; the same streaming reader the AggregateCell step uses on S3) and prints its figures.
 */
import { readCellDir } from '../../lib/local/cell-dir';
import { aggregateCell } from '../../lib/core/results/aggregate';

async function main(): Promise<void> {
  const t0 = process.hrtime.bigint();
  const agg = await aggregateCell(await readCellDir(process.argv[2]!), { warmupSeconds: 60 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(
    JSON.stringify({
      ms,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      intervals: agg.intervalsRead,
      readP99: agg.ops.READ.p99,
      readCount: agg.ops.READ.count,
      windowStartMs: agg.window.startMs,
      windowEndMs: agg.window.endMs,
    }) + '\n',
  );
}

void main();
