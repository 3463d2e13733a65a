/**
 * MemoryDB in the refresh's matching rules (lib/core/cost/refresh-memorydb.ts), on the products of
 * test/fixtures/price-list/us-east-1/AmazonMemoryDB.json, shaped as GetProducts returns them: node-hours per node
 * type and data written per GB, per engine by the product's `engine` attribute; anything that does not fit is
 * left out with a note, never priced from the wrong product.
 */
import { parsePriceListItem, type PriceListItem } from '../../../lib/core/cost/price-list';
import { memoryDbEngineOf, memoryDbPicks } from '../../../lib/core/cost/refresh-memorydb';
import { fixtureItems, type FixtureItem } from '../../support/price-list-stand-in';

const raw = (): FixtureItem[] => fixtureItems('us-east-1').filter((i) => i.serviceCode === 'AmazonMemoryDB');
const parsed = (items: FixtureItem[]): PriceListItem[] =>
  items.map((it, i) => parsePriceListItem(JSON.stringify(it), `PriceList[${i}]`));

test('each engine gets its node types and its data-written price; snapshots and Multi-Region nodes are not taken', () => {
  const { picks, notes } = memoryDbPicks(parsed(raw()));
  expect(notes).toEqual([]);
  const by = Object.fromEntries(picks.map((p) => [p.field.join('.'), p]));
  expect(Object.keys(by).sort()).toEqual([
    'memorydb.redis.dataWrittenGb',
    'memorydb.redis.nodeHour.db.r7g.large',
    'memorydb.redis.nodeHour.db.r7g.xlarge',
    'memorydb.valkey.dataWrittenGb',
    'memorydb.valkey.nodeHour.db.r7g.large',
    'memorydb.valkey.nodeHour.db.r7g.xlarge',
  ]);
  // the fixture's SKUs: 001 Valkey db.r7g.large, 003 Redis db.r7g.large, 005 Valkey data written
  expect(by['memorydb.valkey.nodeHour.db.r7g.large']!.item.sku).toBe('FIXTURE001MEMDBX');
  expect(by['memorydb.redis.nodeHour.db.r7g.large']!.item.sku).toBe('FIXTURE003MEMDBX');
  expect(by['memorydb.valkey.dataWrittenGb']!).toMatchObject({
    unit: 'GB written',
    usagetype: 'DataWritten-Bytes',
  });
  expect(by['memorydb.valkey.dataWrittenGb']!.item.sku).toBe('FIXTURE005MEMDBX');
});

test('a region prefix on the usage type is read through ("EU-NodeUsage:db.r7g.large")', () => {
  const items = raw().map((it) => ({
    ...it,
    product: {
      ...it.product,
      attributes: { ...it.product.attributes, usagetype: `EU-${it.product.attributes.usagetype}` },
    },
  }));
  expect(memoryDbPicks(parsed(items)).picks).toHaveLength(6);
});

test('engines as the attribute may spell them; an unknown or missing engine is not guessed', () => {
  expect(memoryDbEngineOf({ engine: 'Valkey' })).toBe('valkey');
  expect(memoryDbEngineOf({ engine: 'Redis OSS' })).toBe('redis');
  expect(memoryDbEngineOf({ engine: 'redis' })).toBe('redis');
  expect(memoryDbEngineOf({ engine: 'Memcached' })).toBeUndefined();
  expect(memoryDbEngineOf({})).toBeUndefined();
  const items = raw().map((it) =>
    it.product.sku === 'FIXTURE001MEMDBX'
      ? { ...it, product: { ...it.product, attributes: { ...it.product.attributes, engine: '' } } }
      : it,
  );
  const { picks, notes } = memoryDbPicks(parsed(items));
  expect(picks.map((p) => p.field.join('.'))).not.toContain('memorydb.valkey.nodeHour.db.r7g.large');
  expect(notes).toEqual([
    'MemoryDB product SKU FIXTURE001MEMDBX (usage type NodeUsage:db.r7g.large) names no engine the model knows (engine ""): not used',
  ]);
});

test('two products for one price, or a price in another unit, leave that price out with a note', () => {
  const items = raw();
  const twin = { ...items[0]!, product: { ...items[0]!.product, sku: 'FIXTURE099MEMDBX' } };
  const perByte = items.map((it) =>
    it.product.sku === 'FIXTURE006MEMDBX'
      ? (JSON.parse(JSON.stringify(it).replace(/"unit": ?"GB"/g, '"unit":"Bytes"')) as FixtureItem)
      : it,
  );
  const a = memoryDbPicks(parsed([...items, twin]));
  expect(a.picks.map((p) => p.field.join('.'))).not.toContain('memorydb.valkey.nodeHour.db.r7g.large');
  expect(a.notes).toEqual([
    'memorydb.valkey.nodeHour.db.r7g.large: 2 products match (SKUs FIXTURE001MEMDBX, FIXTURE099MEMDBX): not priced',
  ]);
  const b = memoryDbPicks(parsed(perByte));
  expect(b.picks.map((p) => p.field.join('.'))).not.toContain('memorydb.redis.dataWrittenGb');
  expect(b.notes).toEqual([
    'memorydb.redis.dataWrittenGb: SKU FIXTURE006MEMDBX is priced per Bytes, not per GB: not priced',
  ]);
});

test('no MemoryDB product at all: a note, no prices', () => {
  expect(memoryDbPicks([])).toEqual({
    picks: [],
    notes: [
      'No memorydb prices: the Price List gave no MemoryDB node-hour or data-written product the refresh could use.',
    ],
  });
});
