/**
 * The report's DAX paragraph says where the node-hour price comes from, as the run's book says it: a refreshed
 * book's Price List entry (SKU, offer version, effective date) with the book's date, or what a built-in book's
 * entry cites (for 2024-11: third-party pages, named in lib/core/cost/books/2024-11.json).
 */
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { loadPriceBook } from '../../../lib/core/cost/book';
import { parsePriceListItem } from '../../../lib/core/cost/price-list';
import { refreshPriceBook, type PriceListPort } from '../../../lib/core/cost/refresh';
import { daxOf } from '../../../lib/core/report/data';
import { renderReport, type ReportData } from '../../../lib/core/report/html';
import { validateSpec } from '../../../lib/core/spec';
import { headlineOf } from '../../../lib/core/contract/headline';
import { fixtureItems } from '../../support/price-list-stand-in';

const spec = validateSpec(
  JSON.parse(
    readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'seed-000-dax.json'), 'utf8'),
  ) as unknown,
).spec;

/** The fixtures as GetProducts would filter them (service code, attributes equal to the filters' values). */
const fixtures: PriceListPort = {
  getProducts: async (q) =>
    fixtureItems('us-east-1')
      .filter(
        (i) =>
          i.serviceCode === q.serviceCode &&
          Object.entries(q.filters).every(([k, v]) => i.product.attributes[k] === v),
      )
      .map((i, n) => parsePriceListItem(JSON.stringify(i), `PriceList[${n}]`)),
};

function daxParagraph(dax: ReturnType<typeof daxOf>): string {
  const target = dax[0]!.target;
  const cell = headlineOf({
    cell_id: `${target}.c1`,
    target_id: target,
    monthly_cost_usd: 1000,
    good_ops_per_sec: 1,
  });
  const html = renderReport({
    runId: 'r',
    specName: 's',
    startedAt: 'x',
    status: 'SUCCEEDED',
    cells: [cell],
    series: {},
    dax,
  } as ReportData);
  return /<p>(DAX node-hours[^<]*)<\/p>/.exec(html)![1]!;
}

test('with the built-in 2024-11 book: its date, the price, and the third-party page its entry cites', () => {
  const p = daxParagraph(daxOf(spec, loadPriceBook('2024-11')));
  expect(p).toContain(
    'DAX node-hours from price book 2024-11, dated 2024-11-01: dax.r5.large at $0.269 per node-hour, from https://awsi.click/en/articles/dax-dynamodb-caching/',
  );
  expect(p).toContain('third-party page, not an AWS page');
  expect(p).not.toContain('Price List Query API');
});

test('with a refreshed book: the Price List entry it came from and the book date', async () => {
  const book = await refreshPriceBook(fixtures, {
    region: 'us-east-1',
    base: loadPriceBook('2024-11'),
    nowMs: Date.UTC(2026, 10, 27),
  });
  const p = daxParagraph(daxOf(spec, book));
  // the fixture's DAX product for dax.r5.large: test/fixtures/price-list/us-east-1/AmazonDAX.json
  const sku = fixtureItems('us-east-1').find(
    (i) => i.product.attributes.usagetype === 'NodeUsage:dax.r5.large',
  )!.product.sku;
  expect(p).toBe(
    `DAX node-hours from price book aws-us-east-1-2026-11-27, dated 2026-11-27: dax.r5.large at $0.269 per node-hour, ` +
      `from the AWS Price List Query API (AmazonDAX, SKU ${sku}, offer version 20260401000000, effective 2026-04-01). ` +
      "The table's cost assumes every read reaches it; reads DAX serves from its cache cost the table nothing.",
  );
  expect(p).not.toContain('third-party');
});
