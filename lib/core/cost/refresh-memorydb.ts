/**
 * Amazon MemoryDB in `fleetbench prices refresh`: which of the Price List's `AmazonMemoryDB` products (GetProducts
 * filtered by region, https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html)
 * price a cluster (lib/core/targets/memorydb/cost.ts), per engine as MemoryDB bills them
 * (https://aws.amazon.com/memorydb/pricing/): node-hours per node type, and data written per GB.
 *
 * - node-hours: usage type `NodeUsage:<node type>` (after the region prefix), price dimension in `Hrs`;
 * - data written: a usage type containing `DataWritten`, price dimension in `GB`;
 * - the engine: the product's `engine` attribute, `Valkey` or `Redis` (`Redis OSS`), case aside.
 *
 * These names were not confirmed against a live response (no credentials here; test/fixtures/price-list/README.md).
 * A product that does not fit them is not used: no product, an engine not named, an unexpected unit or two products
 * for one price leave that price out, with a note in the book, and the cost model lists it as unpriced. Never a
 * price from the wrong product. Pure: the answers come in as parsed items.
 */
import type { PriceQuery } from '../common/ports';
import { withoutRegionPrefix, type PriceListItem } from './price-list';
import type { KindPriceRefresh, PricePick } from './price-refresh-hook';

export const MEMORYDB_SERVICE_CODE = 'AmazonMemoryDB';

/** The one GetProducts query MemoryDB's prices come from. */
export function memoryDbQuery(region: string): PriceQuery {
  return { serviceCode: MEMORYDB_SERVICE_CODE, filters: { regionCode: region } };
}

const NODE_USAGE = /^NodeUsage:(db\.[a-z0-9-]+\.[a-z0-9]+)$/;
const DATA_WRITTEN = /DataWritten/;

export type MemoryDbEngine = 'valkey' | 'redis';

/** The engine a product names in its `engine` attribute, if it is one the model prices. */
export function memoryDbEngineOf(attributes: Record<string, string>): MemoryDbEngine | undefined {
  const e = (attributes.engine ?? '').trim().toLowerCase();
  if (e === 'valkey') return 'valkey';
  if (e === 'redis' || e === 'redis oss') return 'redis';
  return undefined;
}

/** A MemoryDB price the refresh takes: where it goes in the book, its unit, and the product. */

interface Candidate {
  field: string[];
  unit: string;
  apiUnit: RegExp;
  apiUnitName: string;
  usagetype: string;
  item: PriceListItem;
}

/** What a product prices, if anything: a node type's hours or the data written, for its engine. */
function candidateOf(item: PriceListItem, notes: string[]): Candidate | undefined {
  const usagetype = withoutRegionPrefix(item.attributes.usagetype ?? '');
  const node = NODE_USAGE.exec(usagetype);
  if (!node && !DATA_WRITTEN.test(usagetype)) return undefined;
  const engine = memoryDbEngineOf(item.attributes);
  if (!engine) {
    notes.push(
      `MemoryDB product SKU ${item.sku} (usage type ${usagetype}) names no engine the model knows ` +
        `(engine "${item.attributes.engine ?? ''}"): not used`,
    );
    return undefined;
  }
  return node
    ? {
        field: ['memorydb', engine, 'nodeHour', node[1]!],
        unit: 'node-hour',
        apiUnit: /^Hrs?$/i,
        apiUnitName: 'Hrs',
        usagetype,
        item,
      }
    : {
        field: ['memorydb', engine, 'dataWrittenGb'],
        unit: 'GB written',
        apiUnit: /^GB$/i,
        apiUnitName: 'GB',
        usagetype,
        item,
      };
}

/** The MemoryDB prices in GetProducts' answer for a region, and a note for each one left out. */
export function memoryDbPicks(items: PriceListItem[]): { picks: PricePick[]; notes: string[] } {
  const notes: string[] = [];
  const byField = new Map<string, Candidate[]>();
  for (const item of items) {
    const c = candidateOf(item, notes);
    if (!c) continue;
    const key = c.field.join('.');
    byField.set(key, [...(byField.get(key) ?? []), c]);
  }
  const picks: PricePick[] = [];
  for (const [key, cs] of byField) {
    if (cs.length > 1) {
      notes.push(
        `${key}: ${cs.length} products match (SKUs ${cs.map((c) => c.item.sku).join(', ')}): not priced`,
      );
      continue;
    }
    const c = cs[0]!;
    const units = [...new Set(c.item.tiers.map((t) => t.unit))];
    if (units.length !== 1 || !c.apiUnit.test(units[0]!)) {
      notes.push(
        `${key}: SKU ${c.item.sku} is priced per ${units.join(', ')}, not per ${c.apiUnitName}: not priced`,
      );
      continue;
    }
    picks.push({ field: c.field, usagetype: c.usagetype, unit: c.unit, item: c.item });
  }
  if (!picks.length)
    notes.push(
      'No memorydb prices: the Price List gave no MemoryDB node-hour or data-written product the refresh could use.',
    );
  return { picks, notes };
}

/** MemoryDB's hook in the refresh (its kind declares it): every node type and data-written price the API gives, per engine. */
export const MEMORYDB_PRICE_REFRESH: KindPriceRefresh = {
  queries: (region) => [memoryDbQuery(region)],
  picks: (answers, region) => memoryDbPicks(answers(memoryDbQuery(region))),
};
