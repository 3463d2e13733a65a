/**
 * On-demand requests of unpaced cells (targetOpsPerSec "max") are priced at what the table is predicted to consume,
 * not at the rate the loaders' threads could reach: seed 003's unpaced clients could send 2,000,000 queries/s, the
 * tables served at most 120,000 read units/s (AWS Database Blog, "Scaling DynamoDB: How partitions, hot keys, and
 * split for heat impact performance (Part 2: Querying)",
 * https://aws.amazon.com/blogs/database/part-2-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/).
 * The reference: the read units under the curve the post publishes, priced at the book's $/million RRU.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpecText, validateSpec } from '../../../lib/core/spec';
import { planRun } from '../../../lib/core/plan';

const file = join(__dirname, '..', '..', '..', 'examples', 'seed-003-split-for-heat.json');
const { spec } = validateSpec(parseSpecText(readFileSync(file, 'utf8'), file));
const plan = planRun(spec);
const book = JSON.parse(
  readFileSync(
    join(__dirname, '..', '..', '..', 'lib', 'core', 'cost', 'books', `${plan.estimate.priceBook}.json`),
    'utf8',
  ),
) as { dynamodb: { standard: { rruPerMillion: { usd: string } } } };
const rruUsd = Number(book.dynamodb.standard.rruPerMillion.usd) / 1e6;

const readLine = (target: string) =>
  plan.estimate.items.find((i) => i.target === target && /read request units/.test(i.label))!;

/** Units under a staircase of [seconds, read units/s] steps. */
const area = (steps: [number, number][]) => steps.reduce((a, [s, u]) => a + s * u, 0);

describe("seed 003's unpaced on-demand cells are priced at the predicted consumption", () => {
  it('test 1 (one partition-key value): within 15 % of the read units under the published curve', () => {
    // 4,500 units doubling every 10 minutes (the post's staircase) to 144,000 in the sixth ten minutes (above the
    // 120,000 limit on burst; the peak was higher), then "the last 30 minutes ... limited at 120,000 RCUs"
    const published = area([
      [600, 4_500],
      [600, 9_000],
      [600, 18_000],
      [600, 36_000],
      [600, 72_000],
      [600, 144_000],
      [1_800, 120_000],
    ]);
    const line = readLine('od-one-pk');
    expect(line.label).toMatch(/predicted consumption/);
    expect(Math.abs(line.usd / (published * rruUsd) - 1)).toBeLessThanOrEqual(0.15);
  });

  it('test 2 (200 partition-key values): within 15 % of the read units under the published curve', () => {
    // "around 15,000 read units" at once, "the same pattern", "the peak came after 45 minutes", then the same
    // 120,000-unit table limit
    const published = area([
      [600, 15_000],
      [600, 30_000],
      [600, 60_000],
      [3_600, 120_000],
    ]);
    expect(Math.abs(readLine('od-200-pk').usd / (published * rruUsd) - 1)).toBeLessThanOrEqual(0.15);
  });

  it('the nominal rate (2,000,000 queries/s for 90 minutes) would be an order of magnitude more', () => {
    const cell = plan.cells.find((c) => c.target === 'od-one-pk')!;
    expect(cell.unpaced).toBe(true);
    const nominalUsd = cell.targetOpsPerSec * cell.durationSeconds * 0.5 * rruUsd;
    expect(readLine('od-one-pk').usd).toBeLessThan(nominalUsd / 10);
  });
});
