/**
 * A user's price book from a JSON file (`--prices ./my-book.json`), and the refreshed books of a local
 * results directory (`<results>/prices/<region>/*.json`, written by `fleetbench prices refresh`): read here,
 * at the edge, and handed to the domain code as data (lib/core never reads the disk).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../core/common/errors';
import { isPriceBookFile, loadPriceBook, parsePriceBookText, type PriceBook } from '../core/cost/book';
import { PRICES_PREFIX, chooseBook } from '../core/cost/book-choice';

/** Read and validate a book from a JSON file. */
export function readPriceBook(file: string): PriceBook {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError([{ path: file, message: `cannot read price book: ${(e as Error).message}` }]);
  }
  return parsePriceBookText(text, file);
}

/** `--prices`: a built-in id, a path to a .json book, or (undefined) the newest built-in book. */
export function resolvePriceBook(ref?: string): PriceBook {
  return ref !== undefined && ref !== '' && isPriceBookFile(ref) ? readPriceBook(ref) : loadPriceBook(ref);
}

/** The directory a results directory keeps `region`'s refreshed books in. */
export function refreshedBooksDir(resultsDir: string, region: string): string {
  return path.join(resultsDir, ...PRICES_PREFIX.split('/').filter(Boolean), region);
}

/** The refreshed books for `region` in a local results directory (none when it has no such directory). */
export function readRefreshedBooks(resultsDir: string, region: string): PriceBook[] {
  const dir = refreshedBooksDir(resultsDir, region);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => readPriceBook(path.join(dir, f)));
}

/** The book a plan uses: `--prices` when given, else the newest for the spec's region (refreshed or built-in). */
export function planPriceBook(region: string, opts: { prices?: string; results: string }): PriceBook {
  if (opts.prices !== undefined && opts.prices !== '') return resolvePriceBook(opts.prices);
  return chooseBook(region, readRefreshedBooks(opts.results, region));
}
