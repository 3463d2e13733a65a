/**
 * `fleetbench prices refresh` end to end without AWS: the real @aws-sdk/client-pricing (lib/aws/pricing.ts)
 * against a local stand-in of the Price List Query API (moto server has no `pricing`), serving products
 * shaped as the API documents them (test/fixtures/price-list/README.md), two per page.
 */
import { AwsPriceList } from '../../lib/aws/pricing';
import { loadPriceBook, type PriceBook } from '../../lib/core/cost/book';
import { Q } from '../../lib/core/cost/decimal';
import { InputError } from '../../lib/core/common/errors';
import { refreshPriceBook } from '../../lib/core/cost/refresh';
import {
  fixtureItems,
  relabelled,
  startPriceListStandIn,
  type PriceListStandIn,
} from '../support/price-list-stand-in';

const credentials = { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in' };
const NOW = Date.UTC(2026, 10, 27, 12);

/** Every price of a book, by its dotted path ("dynamodb.standard.wcuHour", "ec2.c5.large"). */
function prices(book: PriceBook): Map<string, { usd: string | number; unit: string }> {
  const out = new Map<string, { usd: string | number; unit: string }>();
  const walk = (o: unknown, at: string[]) => {
    if (!o || typeof o !== 'object') return;
    const rec = o as Record<string, unknown>;
    if ('usd' in rec && 'unit' in rec)
      return void out.set(at.join('.'), rec as { usd: string; unit: string });
    for (const [k, v] of Object.entries(rec)) if (k !== 'loaderCpu') walk(v, [...at, k]);
  };
  walk(
    {
      dynamodb: book.dynamodb,
      ec2: book.ec2,
      ebs: book.ebs,
      pipeline: book.pipeline,
      keyspaces: book.keyspaces,
      dax: book.dax,
    },
    [],
  );
  return out;
}

async function refreshed(at: PriceListStandIn | undefined, region: string): Promise<PriceBook> {
  const api = new AwsPriceList({ pricesRegion: region, endpoint: at!.endpoint, credentials });
  return refreshPriceBook(api, { region, base: loadPriceBook('2024-11'), nowMs: NOW });
}

let standIn: PriceListStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

test('a book refreshed from the us-east-1 fixtures reproduces every price it shares with the built-in 2024-11 book', async () => {
  standIn = await startPriceListStandIn(fixtureItems('us-east-1'));
  const book = await refreshed(standIn, 'us-east-1');
  const ours = prices(book);
  const builtIn = prices(loadPriceBook('2024-11'));
  const shared = [...ours.keys()].filter((k) => builtIn.has(k));
  // every price of the built-in book but the idle ones (not asked of the API) is shared
  expect(shared.sort()).toEqual([...builtIn.keys()].filter((k) => !k.startsWith('idle.')).sort());
  expect(shared.length).toBe(42);
  for (const k of shared) {
    expect({ k, usd: Q.of(ours.get(k)!.usd).cmp(Q.of(builtIn.get(k)!.usd)) }).toEqual({ k, usd: 0 });
    expect({ k, unit: ours.get(k)!.unit }).toEqual({ k, unit: builtIn.get(k)!.unit });
  }
  expect(book).toMatchObject({ id: 'aws-us-east-1-2026-11-27', date: '2026-11-27', region: 'us-east-1' });
});

test('each price keeps its SKU, effective date, offer version and its tiers as the API gives them', async () => {
  standIn = await startPriceListStandIn(fixtureItems('us-east-1'));
  const book = await refreshed(standIn, 'us-east-1');
  const storage = book.dynamodb.standard.storageGbMonth;
  expect(storage.priceList).toEqual({
    serviceCode: 'AmazonDynamoDB',
    sku: 'FIXTURE005DYNAMO',
    usagetype: 'TimedStorage-ByteHrs',
    offerTermCode: 'JRTCKXETXF',
    effectiveDate: '2024-11-01T00:00:00Z',
    offerVersion: '20261101000000',
    publicationDate: '2026-11-01T00:00:00Z',
  });
  expect(storage.date).toBe('2024-11-01');
  // the free tier is the API's first tier at $0, not flattened away
  expect(storage.tiers!.map((t) => [t.beginRange, t.endRange, t.usd])).toEqual([
    ['0', '25', '0.0000000000'],
    ['25', 'Inf', '0.2500000000'],
  ]);
  expect(book.pipeline.cloudWatchPerMetricMonth.tiers!.map((t) => t.beginRange)).toEqual([
    '0',
    '10000',
    '250000',
    '1000000',
  ]);
  expect(book.pipeline.lambdaPerGbSecond.usd).toBe('0.0000166667');
  // the Windows c5.2xlarge (0.708) is filtered out by the query, the gp2 volume by its usage type
  expect(book.ec2['c5.2xlarge']!.usd).toBe('0.34');
  expect(book.ebs.gp3GbMonth.usd).toBe('0.08');
});

test('GetProducts is paginated (NextToken) and filtered, and asked of the us-east-1 endpoint for us-east-1', async () => {
  standIn = await startPriceListStandIn(fixtureItems('us-east-1'));
  await refreshed(standIn, 'us-east-1');
  const ddb = standIn.requests.filter((r) => r.body.ServiceCode === 'AmazonDynamoDB');
  // 12 DynamoDB products, 2 per page
  expect(ddb).toHaveLength(6);
  expect(ddb.filter((r) => r.body.NextToken)).toHaveLength(5);
  expect(ddb[0]!.body.Filters).toEqual([{ Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' }]);
  const c5 = standIn.requests.find((r) => r.body.Filters?.some((f) => f.Value === 'c5.2xlarge'));
  expect(Object.fromEntries(c5!.body.Filters!.map((f) => [f.Field, f.Value]))).toMatchObject({
    operatingSystem: 'Linux',
    tenancy: 'Shared',
    capacitystatus: 'Used',
  });
  expect(new Set(standIn.requests.map((r) => r.scope))).toEqual(new Set(['us-east-1/pricing']));
  expect(new Set(standIn.requests.map((r) => r.target))).toEqual(
    new Set(['AWSPriceListService.GetProducts']),
  );
});

test("eu-west-1's prices are asked of the eu-central-1 endpoint (the API has none in eu-west-1) and the book is eu-west-1's", async () => {
  standIn = await startPriceListStandIn(
    relabelled(fixtureItems('us-east-1'), 'eu-west-1', 'EU', 'EU (Ireland)'),
  );
  const book = await refreshed(standIn, 'eu-west-1');
  expect(new Set(standIn.requests.map((r) => r.scope))).toEqual(new Set(['eu-central-1/pricing']));
  expect(book.id).toBe('aws-eu-west-1-2026-11-27');
  expect(book.dynamodb.standard.wcuHour).toMatchObject({
    region: 'eu-west-1',
    priceList: { usagetype: 'EU-WriteCapacityUnit-Hrs' },
  });
});

test('a price the model needs and the API lacks is an error naming it; nothing is made', async () => {
  standIn = await startPriceListStandIn(
    fixtureItems('us-east-1').filter((i) => i.product.attributes.usagetype !== 'DataScannedInTB'),
  );
  const err = await refreshed(standIn, 'us-east-1').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  expect((err as InputError).message).toMatch(
    /pipeline\.athenaPerTbScanned \(AmazonAthena, usage type DataScannedInTB\): the Price List has no such product/,
  );
});

test('an optional section the API lacks (DAX) is left out with a note, the rest stands', async () => {
  standIn = await startPriceListStandIn(
    fixtureItems('us-east-1').filter((i) => i.serviceCode !== 'AmazonDAX'),
  );
  const book = await refreshed(standIn, 'us-east-1');
  expect(book.dax).toBeUndefined();
  expect(book.notes!.join('\n')).toMatch(/No dax prices: dax\.dax\.t3\.small/);
  expect(book.keyspaces).toBeDefined();
});
