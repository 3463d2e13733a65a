/**
 * A user's price book from a JSON file (`--prices ./my-book.json`): read here, at the edge, and handed
 * to the domain code as data (lib/core never reads the disk).
 */
import * as fs from 'node:fs';
import { InputError } from '../core/errors';
import { isPriceBookFile, loadPriceBook, parsePriceBookText, type PriceBook } from '../core/cost/book';

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
