/**
 * Which price book a CLI command prices with, chosen in one place (`choosePriceBook`) for `plan`, `cost`,
 * `idle-cost` and `start`'s pre-start check, by the rule the Plan step uses (lib/core/cost/book-choice.ts): the
 * newest book for the region among the refreshed ones (the deployed stack's results bucket, or a local results
 * directory's `prices/<region>/`, written by `fleetbench prices refresh`) and the built-in ones, else the newest
 * built-in book, with a warning naming both regions (or the book's age) and the command that fixes it.
 * `--prices <id|file.json>` overrides the choice. Files are read here, at the edge, and handed to the domain
 * code as data (lib/core never reads the disk).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../core/common/errors';
import type { ObjectStore } from '../core/common/ports';
import {
  isBuiltInBook,
  isPriceBookFile,
  loadPriceBook,
  parsePriceBookText,
  type PriceBook,
} from '../core/cost/book';
import { PRICES_PREFIX, chooseBook, priceBookLine, priceBookWarnings } from '../core/cost/book-choice';
import { storedPriceBooks } from '../core/pipeline/prices';
import type { Command } from 'commander';
import type { AwsOptions } from './aws-stack';
import { DEFAULT_RESULTS_DIR } from './commands/query';
import { printWarnings } from './spec-file';

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

/** The region whose prices a command wants when nothing names one: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1. */
export function defaultPricesRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
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

export interface BookChoiceOptions {
  /** `--prices`: a built-in id or a .json file; when given, it is the book (still warned about). */
  prices?: string;
  /** A local results directory whose `prices/<region>/` holds refreshed books. */
  results?: string;
  /** The deployed stack's results store (its bucket), whose `prices/<region>/` the scheduled refresh fills. */
  store?: ObjectStore;
  /** What the command prices needs of a book (idle-cost: `idle` prices); books without it are passed over. */
  needs?: (book: PriceBook) => boolean;
  /** For the staleness warning. @default Date.now() */
  nowMs?: number;
}

export interface ChosenBook {
  book: PriceBook;
  /** Another region's book, or one older than 90 days: each names the command that fixes it. */
  warnings: string[];
  /** "Prices: price book … (date, region), built in" or "…, read from <where>". */
  line: string;
  /** The refreshed books for the region the choice was made among (none with `--prices`). */
  refreshed: PriceBook[];
}

/** The one rule every command uses to pick its book for `region` (see the file's comment). */
export async function choosePriceBook(region: string, o: BookChoiceOptions = {}): Promise<ChosenBook> {
  let book: PriceBook;
  let refreshed: PriceBook[] = [];
  if (o.prices !== undefined && o.prices !== '') book = resolvePriceBook(o.prices);
  else {
    refreshed = [
      ...(o.store ? await storedPriceBooks(o.store, region) : []),
      ...(o.results !== undefined ? readRefreshedBooks(o.results, region) : []),
    ];
    book = chooseBook(region, refreshed, o.needs);
  }
  return {
    book,
    refreshed,
    warnings: priceBookWarnings(book, { region, nowMs: o.nowMs ?? Date.now() }),
    line: `Prices: ${priceBookLine(book)}${isBuiltInBook(book) ? ', built in' : `, read from ${book.file}`}`,
  };
}

/** The deployed stack's results bucket as a store, and the stack's region: where its refreshed books are. */
export async function stackBookSource(o: AwsOptions): Promise<{ store: ObjectStore; region: string }> {
  // the AWS SDK only when a stack is asked for: plan and cost without --stack load none of it
  const { clientConfig, stackOutputs } = await import('./aws-stack');
  const { S3Store } = await import('../aws/s3-store');
  const outputs = await stackOutputs(o);
  const store = new S3Store(`s3://${outputs.get('ResultsBucket')}`, { clientConfig: clientConfig(o) });
  return { store, region: outputs.region ?? defaultPricesRegion() };
}

/** The options `cost` and `idle-cost` take to choose their book. */
export interface BookCommandOptions {
  prices?: string;
  region?: string;
  results?: string;
  stack?: string;
}

/** `--prices`, `--region`, `--results`, `--stack` on a command that prices something. */
export function addBookOptions(cmd: Command, pricesHelp: string): Command {
  return cmd
    .option('--prices <book>', pricesHelp)
    .option(
      '--region <region>',
      "the region whose prices to use (default: the stack's with --stack, else AWS_REGION, else us-east-1)",
    )
    .option(
      '--results <dir>',
      `local results directory whose prices/<region>/ holds refreshed books (default ${DEFAULT_RESULTS_DIR})`,
    )
    .option(
      '--stack <name>',
      'the deployed stack: the refreshed books in its results bucket, for its region',
    );
}

/** The book for a command's options (the stack's bucket or the local directory, for the region), warnings printed. */
export async function bookForCommand(
  o: BookCommandOptions,
  needs?: (book: PriceBook) => boolean,
): Promise<ChosenBook> {
  if (o.stack !== undefined && o.results !== undefined)
    throw new InputError([{ path: '--results', message: 'give --results or --stack, not both' }]);
  const src = o.stack !== undefined ? await stackBookSource({ stack: o.stack, region: o.region }) : undefined;
  const region = src?.region ?? o.region ?? defaultPricesRegion();
  const chosen = await choosePriceBook(region, {
    prices: o.prices,
    ...(src ? { store: src.store } : { results: o.results ?? DEFAULT_RESULTS_DIR }),
    needs,
  });
  printWarnings(chosen.warnings);
  return chosen;
}
