/**
 * MemoryDB through `prices refresh` end to end without AWS: the real @aws-sdk/client-pricing against the local
 * Price List stand-in serving test/fixtures/price-list/us-east-1/AmazonMemoryDB.json (GetProducts' shape, two
 * products a page). The figures expected are the fixture's own `pricePerUnit.USD` strings (made up: no dated
 * MemoryDB price was readable here), read back per the book's units; then a memorydb target is priced with the
 * refreshed book and listed as unpriced with the built-in one.
 */
import { AwsPriceList } from '../../lib/aws/pricing';
import { loadPriceBook, type PriceBook } from '../../lib/core/cost/book';
import { estimateRunCost } from '../../lib/core/cost/estimate';
import { monthlyCost } from '../../lib/core/cost/report';
import { refreshPriceBook } from '../../lib/core/cost/refresh';
import { planRun } from '../../lib/core/plan';
import { validateSpec } from '../../lib/core/spec';
import { fixtureItems, startPriceListStandIn, type PriceListStandIn } from '../support/price-list-stand-in';

const NOW = Date.UTC(2026, 10, 27, 12);
let standIn: PriceListStandIn;
let book: PriceBook;

beforeAll(async () => {
  standIn = await startPriceListStandIn(fixtureItems('us-east-1'));
  const api = new AwsPriceList({
    pricesRegion: 'us-east-1',
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' },
  });
  book = await refreshPriceBook(api, { region: 'us-east-1', base: loadPriceBook('2024-11'), nowMs: NOW });
});
afterAll(async () => standIn.close());

test('the refresh asks GetProducts for AmazonMemoryDB in the region, and every page of it', () => {
  const asked = standIn.requests.filter((r) => r.body.ServiceCode === 'AmazonMemoryDB');
  expect(asked[0]!.body.Filters).toEqual([{ Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' }]);
  // 8 products, two a page: 4 pages
  expect(asked).toHaveLength(4);
});

test('node-hours per node type and data written per GB, per engine, each with its SKU and tiers', () => {
  const m = book.memorydb!;
  expect(Object.keys(m).sort()).toEqual(['redis', 'valkey']);
  const usd = (p: { usd: string | number } | undefined) => String(p?.usd);
  expect(usd(m.valkey!.nodeHour['db.r7g.large'])).toBe('0.1111');
  expect(usd(m.valkey!.nodeHour['db.r7g.xlarge'])).toBe('0.2222');
  expect(usd(m.redis!.nodeHour['db.r7g.large'])).toBe('0.3333');
  expect(usd(m.redis!.nodeHour['db.r7g.xlarge'])).toBe('0.6666');
  expect(Object.keys(m.valkey!.nodeHour).sort()).toEqual(['db.r7g.large', 'db.r7g.xlarge']);
  expect(usd(m.redis!.dataWrittenGb)).toBe('0.0333');
  // Valkey's data written: a free first tier kept as the API gives it, priced at the first paid tier
  const written = m.valkey!.dataWrittenGb!;
  expect(usd(written)).toBe('0.0111');
  expect(written.tiers!.map((t) => [t.beginRange, t.endRange, t.usd])).toEqual([
    ['0', '10240', '0.0000000000'],
    ['10240', 'Inf', '0.0111000000'],
  ]);
  expect(written.priceList).toMatchObject({
    serviceCode: 'AmazonMemoryDB',
    sku: 'FIXTURE005MEMDBX',
    usagetype: 'DataWritten-Bytes',
    offerVersion: '20261001000000',
  });
  expect(m.valkey!.nodeHour['db.r7g.large']).toMatchObject({ unit: 'node-hour', region: 'us-east-1' });
  expect(book.notes!.join('\n')).not.toMatch(/memorydb/i);
});

function memoryDbSpec() {
  return validateSpec({
    name: 'mdb',
    region: 'us-east-1',
    targets: [{ id: 'mdb', kind: 'memorydb', nodeType: 'db.r7g.large', shards: 1, replicasPerShard: 1 }],
    dataset: { recordCount: 1000, fieldCount: 10, fieldLength: 100 },
    workload: {
      readProportions: [0.95],
      targetOpsPerSec: [100],
      durationSeconds: 60,
      distributions: ['uniform'],
    },
    loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
  }).spec;
}

test("a memorydb target is priced with the refreshed book (Valkey's figures), unpriced with the built-in one", () => {
  const s = memoryDbSpec();
  const priced = estimateRunCost(s, planRun(s), book);
  expect(priced.unpriced).toEqual([]);
  const nodes = priced.items.find((i) =>
    i.label.startsWith('mdb: MemoryDB valkey cluster of 2 × db.r7g.large'),
  )!;
  const hours = Math.ceil(priced.runHours + 0.5);
  expect(nodes).toMatchObject({ quantity: 2 * hours, unitUsd: 0.1111 });
  expect(priced.items.find((i) => i.label.startsWith('mdb: data written'))!.unitUsd).toBe(0.0111);
  const unpriced = estimateRunCost(s, planRun(s), loadPriceBook('2024-11'));
  expect(unpriced.unpriced).toEqual([
    expect.stringMatching(
      /^targets\[0\]\.nodeType: no MemoryDB valkey price for "db.r7g.large" in price book "2024-11"/,
    ),
    expect.stringMatching(
      /^targets\[0\]\.engine: no MemoryDB valkey data-written price in price book "2024-11"/,
    ),
  ]);
});

test('fleetbench cost: a Redis OSS cluster for a month at the refreshed prices; the built-in book says it has none', () => {
  const input = {
    target: {
      kind: 'memorydb',
      nodeType: 'db.r7g.xlarge',
      shards: 2,
      replicasPerShard: 1,
      engine: { engine: 'redis' },
    },
    throughput: { readsPerSec: 900, writesPerSec: 100 },
    itemBytes: 1000,
  };
  const r = monthlyCost(input, book);
  const hpm = book.hoursPerMonth;
  // (reported to the cent) 4 nodes × $0.6666 × hours; 100 writes/s × 1,000 B × 3,600 s × hours / 1e9 GB × $0.0333
  expect(r.monthly).toMatchObject({
    nodes: expect.closeTo(4 * 0.6666 * hpm, 2),
    dataWritten: expect.closeTo(((100 * 1000 * 3600 * hpm) / 1e9) * 0.0333, 2),
  });
  expect(() => monthlyCost(input, loadPriceBook('2024-11'))).toThrow(
    /price book "2024-11" has no MemoryDB redis price for node type "db.r7g.xlarge"; it has no MemoryDB prices/,
  );
});
