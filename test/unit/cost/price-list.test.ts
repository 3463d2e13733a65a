/**
 * The Price List parser and the refresh's matching rules, on products shaped as GetProducts returns them
 * (test/fixtures/price-list/README.md): each PriceList entry a JSON string; tiers by beginRange/endRange.
 */
import { InputError } from '../../../lib/core/common/errors';
import { firstPaidTier, parsePriceListItem, shiftDecimal } from '../../../lib/core/cost/price-list';
import { priceListEndpointRegion, usagetypeMatches } from '../../../lib/core/cost/refresh';
import { bookRegion, loadPriceBook } from '../../../lib/core/cost/book';
import { chooseBook, priceBookWarnings } from '../../../lib/core/cost/book-choice';
import { fixtureItems } from '../../support/price-list-stand-in';

const item = (usagetype: string) => {
  const it = fixtureItems('us-east-1').find((i) => i.product.attributes.usagetype === usagetype)!;
  return parsePriceListItem(JSON.stringify(it), `PriceList[${usagetype}]`);
};

test('a product: its SKU, offer version and term, tiers in beginRange order with the free tier kept', () => {
  const rcu = item('ReadCapacityUnit-Hrs');
  expect(rcu).toMatchObject({
    serviceCode: 'AmazonDynamoDB',
    sku: 'FIXTURE002DYNAMO',
    version: '20261101000000',
    offerTermCode: 'JRTCKXETXF',
    effectiveDate: '2024-11-01T00:00:00Z',
  });
  expect(rcu.tiers.map((t) => [t.beginRange, t.endRange, t.usd])).toEqual([
    ['0', '18600', '0.0000000000'],
    ['18600', 'Inf', '0.0001300000'],
  ]);
  expect(firstPaidTier(rcu)!.usd).toBe('0.0001300000');
  // four CloudWatch tiers, the first paid at once
  expect(firstPaidTier(item('CW:MetricMonitorUsage'))!.beginRange).toBe('0');
});

test('tiers are ordered by beginRange as numbers, whatever order the price dimensions came in', () => {
  const raw = fixtureItems('us-east-1').find(
    (i) => i.product.attributes.usagetype === 'CW:MetricMonitorUsage',
  )!;
  const term = Object.values(
    (raw as unknown as { terms: { OnDemand: Record<string, { priceDimensions: object }> } }).terms.OnDemand,
  )[0]!;
  term.priceDimensions = Object.fromEntries(Object.entries(term.priceDimensions).reverse());
  const parsed = parsePriceListItem(JSON.stringify(raw), 'x');
  expect(parsed.tiers.map((t) => t.beginRange)).toEqual(['0', '10000', '250000', '1000000']);
});

test('an entry that is not a Price List product is an InputError naming the entry and the field', () => {
  expect(() => parsePriceListItem('{"product":{}}', 'GetProducts AmazonEC2 page 2 PriceList[3]')).toThrow(
    InputError,
  );
  expect(() => parsePriceListItem('{"product":{}}', 'GetProducts AmazonEC2 page 2 PriceList[3]')).toThrow(
    /GetProducts AmazonEC2 page 2 PriceList\[3\] \(product\.sku\)/,
  );
  expect(() => parsePriceListItem('not json', 'PriceList[0]')).toThrow(/PriceList\[0\]: not valid JSON/);
  const price = JSON.parse(JSON.stringify(fixtureItems('us-east-1')[0])) as {
    terms: {
      OnDemand: Record<string, { priceDimensions: Record<string, { pricePerUnit: { USD: string } }> }>;
    };
  };
  Object.values(Object.values(price.terms.OnDemand)[0]!.priceDimensions)[0]!.pricePerUnit.USD = '$1';
  expect(() => parsePriceListItem(JSON.stringify(price), 'p')).toThrow(
    /pricePerUnit\.USD.*expected a decimal string/,
  );
});

test("the API's unit to the book's: exact decimal shifts", () => {
  expect(shiftDecimal('0.0000006250', 6)).toBe('0.625');
  expect(shiftDecimal('0.0000250000', 3)).toBe('0.025');
  expect(shiftDecimal('5.0000000000', 0)).toBe('5');
  expect(shiftDecimal('0.0000166667', 0)).toBe('0.0000166667');
  expect(shiftDecimal('12.5', 2)).toBe('1250');
});

test("usage types match with the region's prefix, never another product's (IA-, MCS-, Repl are not prefixes)", () => {
  expect(usagetypeMatches('WriteCapacityUnit-Hrs', 'WriteCapacityUnit-Hrs')).toBe(true);
  expect(usagetypeMatches('EU-WriteCapacityUnit-Hrs', 'WriteCapacityUnit-Hrs')).toBe(true);
  expect(usagetypeMatches('USW2-WriteCapacityUnit-Hrs', 'WriteCapacityUnit-Hrs')).toBe(true);
  expect(usagetypeMatches('IA-WriteCapacityUnit-Hrs', 'WriteCapacityUnit-Hrs')).toBe(false);
  expect(usagetypeMatches('EU-IA-WriteCapacityUnit-Hrs', 'IA-WriteCapacityUnit-Hrs')).toBe(true);
  expect(usagetypeMatches('ReplWriteRequestUnits', 'WriteRequestUnits')).toBe(false);
  expect(usagetypeMatches('Lambda-GB-Second-ARM', 'Lambda-GB-Second')).toBe(false);
});

test('the Price List API is asked at one of its three endpoints', () => {
  expect(priceListEndpointRegion('us-east-1')).toBe('us-east-1');
  expect(priceListEndpointRegion('us-west-2')).toBe('us-east-1');
  expect(priceListEndpointRegion('eu-west-1')).toBe('eu-central-1');
  expect(priceListEndpointRegion('ap-northeast-1')).toBe('ap-south-1');
  expect(priceListEndpointRegion('sa-east-1')).toBe('us-east-1');
});

test('the book for a region: the newest of that region, else the newest built-in; warnings name both regions and the command', () => {
  const builtIn = loadPriceBook('2024-11');
  const eu = {
    ...builtIn,
    id: 'aws-eu-west-1-2026-11-01',
    date: '2026-11-01',
    region: 'eu-west-1',
    file: 'x.json',
  };
  const euOld = { ...eu, id: 'aws-eu-west-1-2026-10-01', date: '2026-10-01' };
  expect(chooseBook('eu-west-1', [euOld, eu]).id).toBe(eu.id);
  expect(chooseBook('us-east-1', [euOld, eu]).id).toBe('2024-11');
  expect(chooseBook('ap-south-1', []).id).toBe('2024-11');
  expect(bookRegion(builtIn)).toBe('us-east-1');
  const now = Date.UTC(2026, 10, 27);
  expect(priceBookWarnings(eu, { region: 'eu-west-1', nowMs: now })).toEqual([]);
  // 90 days is not stale yet, 91 is
  expect(priceBookWarnings(eu, { region: 'eu-west-1', nowMs: Date.UTC(2027, 0, 30) })).toEqual([]);
  expect(priceBookWarnings(eu, { region: 'eu-west-1', nowMs: Date.UTC(2027, 0, 31) })).toEqual([
    'price book aws-eu-west-1-2026-11-01 is dated 2026-11-01, 91 days ago (more than 90): run `fleetbench prices refresh --region eu-west-1` for current prices',
  ]);
  expect(priceBookWarnings(eu, { region: 'us-east-1', nowMs: now })[0]).toBe(
    "price book aws-eu-west-1-2026-11-01 is for eu-west-1, but the run is in us-east-1: its costs are eu-west-1's prices; run `fleetbench prices refresh --region us-east-1` for us-east-1's",
  );
});

test("a caller's need passes over books without it: idle-cost skips a refreshed book (no idle prices) for the newest built-in that has them", () => {
  const builtIn = loadPriceBook('2024-11');
  const eu = {
    ...builtIn,
    id: 'aws-eu-west-1-2026-11-01',
    date: '2026-11-01',
    region: 'eu-west-1',
    idle: undefined,
    file: 'x.json',
  };
  const hasIdle = (b: { idle?: unknown }) => b.idle !== undefined;
  expect(chooseBook('eu-west-1', [eu]).id).toBe(eu.id);
  expect(chooseBook('eu-west-1', [eu], hasIdle).id).toBe('2024-11');
  // 2023-seed has no idle prices either way; 2024-11 does
  expect(loadPriceBook('2023-seed').idle).toBeUndefined();
  const euIdle = { ...eu, id: 'aws-eu-west-1-2026-11-02', date: '2026-11-02', idle: builtIn.idle };
  expect(chooseBook('eu-west-1', [eu, euIdle], hasIdle).id).toBe(euIdle.id);
});
