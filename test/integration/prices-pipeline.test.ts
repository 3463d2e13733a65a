/**
 * The stack's side of the price books, on the local store: the scheduled refresh step (refreshPrices) writes
 * the region's book under prices/<region>/ through the real SDK client and the Price List stand-in; the Plan
 * step prices a run with the newest book for the spec's region, keeps it with the run and warns when it has
 * only another region's; the cells' costs (AggregateCell) and the report use the run's book.
 */
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AwsPriceList } from '../../lib/aws/pricing';
import { loadPriceBook } from '../../lib/core/cost/book';
import {
  aggregateCellStep,
  cellKey,
  plan,
  readPlan,
  refreshPrices,
  runPriceBook,
  runPriceBookKey,
} from '../../lib/core/pipeline';
import { buildReportData } from '../../lib/core/report/data';
import { FsStore } from '../../lib/local/fs-store';
import {
  fixtureItems,
  relabelled,
  startPriceListStandIn,
  type PriceListStandIn,
} from '../support/price-list-stand-in';

const root = path.join(__dirname, '..', '..');
const credentials = { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' };
const NOW = Date.UTC(2026, 10, 27, 3);
const clock = { nowMs: () => NOW };
const euSpec = (): { region: string; workload: object } => ({
  ...(JSON.parse(readFileSync(path.join(root, 'examples', 'quickstart.json'), 'utf8')) as {
    workload: object;
  }),
  region: 'eu-west-1',
});

let standIn: PriceListStandIn;
let dir: string;
beforeAll(async () => {
  standIn = await startPriceListStandIn(
    relabelled(fixtureItems('us-east-1'), 'eu-west-1', 'EU', 'EU (Ireland)'),
  );
});
afterAll(async () => standIn.close());
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-prices-pipeline-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const refresh = (store: FsStore) =>
  refreshPrices({
    prices: new AwsPriceList({ pricesRegion: 'eu-west-1', endpoint: standIn.endpoint, credentials }),
    store,
    clock,
    region: 'eu-west-1',
  });

test("the scheduled refresh writes the stack's region's book under prices/<region>/", async () => {
  const store = new FsStore(dir);
  const out = await refresh(store);
  expect(out.id).toBe('aws-eu-west-1-2026-11-27');
  expect(await store.list('prices/')).toEqual(['prices/eu-west-1/aws-eu-west-1-2026-11-27.json']);
  expect(await store.getJson('prices/eu-west-1/aws-eu-west-1-2026-11-27.json')).toMatchObject({
    region: 'eu-west-1',
    date: '2026-11-27',
  });
});

test('Plan with a refreshed eu-west-1 book prices the run with it, keeps it with the run, and does not warn', async () => {
  const store = new FsStore(dir);
  await refresh(store);
  const ctx = await plan({ executionName: 'eu-refreshed', spec: euSpec() }, { store, clock });
  const p = await readPlan(store, ctx.runId);
  expect(p.estimate.priceBook).toBe('aws-eu-west-1-2026-11-27');
  expect(p.warnings.join('\n')).not.toMatch(/price book/);
  expect(await store.getJson(runPriceBookKey(ctx.runId))).toMatchObject({ id: 'aws-eu-west-1-2026-11-27' });
  expect((await runPriceBook(store, ctx.runId)).region).toBe('eu-west-1');
  const report = await buildReportData(store, ctx.runId, 'SUCCEEDED');
  // the run's start, Plan's clock (no cell has run: a first cell's window would give "unknown")
  expect(report.startedAt).toBe('2026-11-27T03:00:00.000Z');
  expect(report.notes![0]).toBe(
    'Costs are priced with price book aws-eu-west-1-2026-11-27 (2026-11-27, eu-west-1): list prices from the AWS Price List Query API, asked on 2026-11-27.',
  );
});

test('Plan with only the built-in book for an eu-west-1 spec warns, naming both regions and the command; so does the report', async () => {
  const store = new FsStore(dir);
  const ctx = await plan({ executionName: 'eu-builtin', spec: euSpec() }, { store, clock });
  const p = await readPlan(store, ctx.runId);
  expect(p.estimate.priceBook).toBe('2024-11');
  const region =
    "price book 2024-11 is for us-east-1, but the run is in eu-west-1: its costs are us-east-1's prices; run `fleetbench prices refresh --region eu-west-1` for eu-west-1's";
  expect(p.warnings).toContain(region);
  expect(p.warnings).toContain(
    'price book 2024-11 is dated 2024-11-01, 756 days ago (more than 90): run `fleetbench prices refresh --region eu-west-1` for current prices',
  );
  const report = await buildReportData(store, ctx.runId, 'SUCCEEDED');
  expect(report.notes!.slice(0, 2)).toEqual([
    'Costs are priced with price book 2024-11 (2024-11-01, us-east-1): "us-east-1 list prices after the November 2024 DynamoDB on-demand price cut", each price naming its own source in the book.',
    region,
  ]);
});

test('a run planned before books were kept with runs is priced with the newest built-in book', async () => {
  const store = new FsStore(dir);
  expect((await runPriceBook(store, 'no-such-run')).id).toBe(loadPriceBook().id);
});

test("AggregateCell prices the cell with the run's book: a stored eu-west-1 book at twice the DynamoDB prices doubles the cell's monthly cost", async () => {
  const FIXTURE = path.join(__dirname, '../fixtures/ycsb/fleet-small');
  const costOf = async (store: FsStore, name: string) => {
    const spec = {
      ...euSpec(),
      workload: { ...euSpec().workload, warmupSeconds: 3 },
    };
    const run = await plan({ executionName: name, spec }, { store, clock });
    const cell = (await readPlan(store, run.runId)).cells[0]!.id;
    for (const e of fs.readdirSync(FIXTURE, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const rel = path.relative(FIXTURE, path.join(e.parentPath, e.name));
      await store.putFile(`runs/${run.runId}/cells/${cell}/raw/${rel}`, path.join(FIXTURE, rel));
    }
    await aggregateCellStep({ run, index: 0 }, { store, metrics: { put: async () => undefined } });
    const { row } = (await store.getJson(cellKey(run.runId, cell, 'result.json'))) as {
      row: Record<string, number>;
    };
    return row;
  };
  const builtIn = await costOf(new FsStore(path.join(dir, 'a')), 'cost-builtin');
  const store = new FsStore(path.join(dir, 'b'));
  await refresh(store);
  const key = 'prices/eu-west-1/aws-eu-west-1-2026-11-27.json';
  const book = (await store.getJson(key)) as { dynamodb: { standard: Record<string, { usd: string }> } };
  for (const p of Object.values(book.dynamodb.standard)) p.usd = String(Number(p.usd) * 2);
  await store.putJson(key, book);
  const doubled = await costOf(store, 'cost-eu');
  expect(builtIn.monthly_cost_on_demand_usd).toBeGreaterThan(0);
  // twice, to the cent per line: a total is its writes, reads and storage lines, each rounded to the cent, so twice
  // a rounded total may differ from the doubled book's total by up to a cent per line (3 lines)
  const twice = (a: number | undefined, b: number | undefined) => Math.abs(a! - 2 * b!);
  expect(twice(doubled.monthly_cost_on_demand_usd, builtIn.monthly_cost_on_demand_usd)).toBeLessThanOrEqual(
    0.03,
  );
  expect(
    twice(doubled.monthly_cost_provisioned_usd, builtIn.monthly_cost_provisioned_usd),
  ).toBeLessThanOrEqual(0.03);
});
