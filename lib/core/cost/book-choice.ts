/**
 * Which price book prices a run: the newest book for the spec's region among the refreshed ones (the results
 * store's `prices/<region>/`, written by `fleetbench prices refresh` and by the stack's scheduled refresh) and
 * the built-in ones; without one for the region, the newest built-in book. A book older than 90 days, or for
 * another region than the spec's, is used with a warning naming both and the command that fixes it.
 */
import { bookRegion, builtInPriceBooks, type Price, type PriceBook } from './book';

/** A book older than this many days is stale. */
export const STALE_AFTER_DAYS = 90;

/** Where refreshed books are kept in the results store (S3 and the local directory alike). */
export const PRICES_PREFIX = 'prices/';

/** The key of a refreshed book: `prices/<region>/<id>.json`. */
export function priceBookKey(book: Pick<PriceBook, 'id' | 'region' | 'dynamodb'>): string {
  return `${PRICES_PREFIX}${bookRegion(book)}/${book.id}.json`;
}

/** The command that makes a current book for `region`. */
export function refreshCommand(region: string): string {
  return `fleetbench prices refresh --region ${region}`;
}

const newestFirst = (a: PriceBook, b: PriceBook) =>
  a.date < b.date ? 1 : a.date > b.date ? -1 : b.id.localeCompare(a.id);

/**
 * The newest of `refreshed` and the built-in books for `region`, else the newest built-in book. `needs`
 * narrows both to the books that have what the caller prices (idle-cost: a book's `idle` prices, which a
 * refreshed book does not carry); without such a book, the newest built-in one.
 */
export function chooseBook(
  region: string,
  refreshed: PriceBook[] = [],
  needs: (book: PriceBook) => boolean = () => true,
): PriceBook {
  const builtIn = builtInPriceBooks().sort(newestFirst);
  const all = [...refreshed, ...builtIn].sort(newestFirst).filter(needs);
  return all.find((b) => bookRegion(b) === region) ?? builtIn.find(needs) ?? builtIn[0]!;
}

/** The book's date as milliseconds (a "YYYY" or "YYYY-MM" date is its first day). */
function dateMs(date: string): number {
  const [y, m = '01', d = '01'] = date.split('-');
  return Date.UTC(Number(y), Number(m) - 1, Number(d));
}

/** What a reader must know about the book: another region than the run's, or older than 90 days. */
export function priceBookWarnings(book: PriceBook, at: { region: string; nowMs: number }): string[] {
  const out: string[] = [];
  const region = bookRegion(book);
  if (region !== at.region)
    out.push(
      `price book ${book.id} is for ${region}, but the run is in ${at.region}: its costs are ${region}'s prices; ` +
        `run \`${refreshCommand(at.region)}\` for ${at.region}'s`,
    );
  const days = Math.floor((at.nowMs - dateMs(book.date)) / 86_400_000);
  if (days > STALE_AFTER_DAYS)
    out.push(
      `price book ${book.id} is dated ${book.date}, ${days} days ago (more than ${STALE_AFTER_DAYS}): ` +
        `run \`${refreshCommand(at.region)}\` for current prices`,
    );
  return out;
}

/** One line naming the book: "price book aws-eu-west-1-2026-11-27 (2026-11-27, eu-west-1)". */
export function priceBookLine(book: PriceBook): string {
  return `price book ${book.id} (${book.date}, ${bookRegion(book)})`;
}

/**
 * Where one price of a book comes from, for a report: a refreshed book's Price List entry (service, SKU, offer
 * version and effective date, as the API gave them), else what the entry cites (its source and note) — a built-in
 * book's figure is only as good as that.
 */
export function priceSourceText(p: Price): string {
  if (p.priceList) {
    const l = p.priceList;
    return (
      `the AWS Price List Query API (${l.serviceCode}, SKU ${l.sku}, offer version ${l.offerVersion}, ` +
      `effective ${l.effectiveDate.slice(0, 10)})`
    );
  }
  return p.note ? `${p.source} (${p.note})` : p.source;
}

/** Where a book's prices come from, in a few words: the Price List Query API (a refreshed book), else its title. */
export function bookOriginText(book: Pick<PriceBook, 'title' | 'date' | 'dynamodb'>): string {
  return book.dynamodb.standard.wcuHour.priceList
    ? `list prices from the AWS Price List Query API, asked on ${book.date}`
    : `"${book.title}", each price naming its own source in the book`;
}
