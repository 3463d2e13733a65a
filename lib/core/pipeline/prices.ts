/**
 * Price books in the results store: the stack's scheduled refresh writes its region's book under
 * `prices/<region>/`; Plan prices a run with the newest book for the spec's region (a refreshed one or a
 * built-in one), says which and warns when it is stale or another region's, and keeps a copy with the run
 * (`runs/<runId>/price-book.json`) so the cells' costs and the report use the same book.
 */
import { NotFoundError } from '../common/store';
import { loadPriceBook, parsePriceBook, type PriceBook } from '../cost/book';
import { PRICES_PREFIX, chooseBook, priceBookKey } from '../cost/book-choice';
import { refreshPriceBook } from '../cost/refresh';
import type { Clock, ObjectStore, PriceListPort } from '../common/ports';

/** The copy of the book a run was planned with. */
export function runPriceBookKey(runId: string): string {
  return `runs/${runId}/price-book.json`;
}

/** The refreshed books for `region` in the store, each validated (a bad one is an InputError naming it). */
export async function storedPriceBooks(store: ObjectStore, region: string): Promise<PriceBook[]> {
  const keys = (await store.list(`${PRICES_PREFIX}${region}/`)).filter((k) => k.endsWith('.json'));
  const books: PriceBook[] = [];
  for (const k of keys) books.push(parsePriceBook(await store.getJson(k), store.uriOf(k)));
  return books;
}

/** The book Plan uses for a run in `region`: the newest refreshed or built-in book for it, else the newest built-in. */
export async function planPriceBook(store: ObjectStore, region: string): Promise<PriceBook> {
  return chooseBook(region, await storedPriceBooks(store, region));
}

/** The book a run was planned with; runs planned before books were kept with them: the newest built-in book. */
export async function runPriceBook(store: ObjectStore, runId: string): Promise<PriceBook> {
  try {
    return parsePriceBook(await store.getJson(runPriceBookKey(runId)), store.uriOf(runPriceBookKey(runId)));
  } catch (err) {
    if (err instanceof NotFoundError) return loadPriceBook();
    throw err;
  }
}

/** The scheduled refresh (monthly and on deploy): the stack's region's book from the Price List API, into the store. */
export async function refreshPrices(deps: {
  prices: PriceListPort;
  store: ObjectStore;
  clock: Clock;
  region: string;
}): Promise<{ id: string; uri: string }> {
  const book = await refreshPriceBook(deps.prices, {
    region: deps.region,
    base: loadPriceBook(),
    nowMs: deps.clock.nowMs(),
  });
  const key = priceBookKey(book);
  // the book without `file` (where it was read from is the reader's)
  await deps.store.putJson(key, { ...book, file: undefined });
  return { id: book.id, uri: deps.store.uriOf(key) };
}
