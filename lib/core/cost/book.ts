/**
 * Price books: dated, sourced price lists kept as data files (lib/core/cost/books/*.json), and the
 * loader that validates them. A book that does not validate is an InputError naming the file and
 * the field. The default book is the newest (by its `date`).
 */
import * as path from 'node:path';
import { z } from 'zod';
import { InputError, Issue } from '../common/errors';
import { Q } from './decimal';
// The built-in books are imported, not read from disk at run time: the Lambda bundles (esbuild)
// carry these modules but no books/ directory next to them. A new book is added here too.
import book2023Seed from './books/2023-seed.json';
import book202411 from './books/2024-11.json';

const BUILT_IN: Record<string, unknown> = { '2023-seed': book2023Seed, '2024-11': book202411 };

export const BOOKS_DIR = path.join(__dirname, 'books');

const DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;
const DECIMAL_STRING = /^\d+(\.\d+)?$/;

const priceSchema = z.strictObject({
  usd: z
    .union([
      z.string().regex(DECIMAL_STRING, 'expected a decimal string such as "0.00065"'),
      z.number().nonnegative(),
    ])
    .describe('price in US dollars per unit'),
  unit: z.string().min(1),
  region: z.string().min(1),
  date: z.string().regex(DATE, 'expected a date YYYY, YYYY-MM or YYYY-MM-DD'),
  source: z.string().min(1),
  note: z.string().optional(),
  /** Where the AWS Price List Query API gave it (books made by `fleetbench prices refresh`). */
  priceList: z
    .strictObject({
      serviceCode: z.string().min(1),
      sku: z.string().min(1),
      usagetype: z.string().min(1),
      offerTermCode: z.string().min(1),
      effectiveDate: z.string().min(1),
      offerVersion: z.string().min(1),
      publicationDate: z.string().min(1),
    })
    .optional(),
  /**
   * The price's tiers as the Price List gives them (USD per the API's unit; a free tier is a tier at "0"):
   * `usd` above is the first paid tier in this book's unit.
   */
  tiers: z
    .array(
      z.strictObject({
        beginRange: z.string().min(1),
        endRange: z.string().min(1),
        usd: z.string().regex(DECIMAL_STRING, 'expected a decimal string'),
        unit: z.string().min(1),
        description: z.string(),
      }),
    )
    .optional(),
});

const dynamoClassSchema = z.strictObject({
  wcuHour: priceSchema,
  rcuHour: priceSchema,
  wruPerMillion: priceSchema,
  rruPerMillion: priceSchema,
  storageGbMonth: priceSchema,
});

/**
 * The loader's measured CPU per operation (sizing by CPU, lib/core/plan/sizing.ts): per binding protocol, the
 * figure `npm run bench:loader` measured on one machine, with its provenance; per instance family, the
 * CPU time one operation takes on a vCPU of that family relative to a CPU of the measuring machine.
 */
const loaderCpuBindingSchema = z.strictObject({
  binding: z.string().min(1).describe('the YCSB binding class measured'),
  cpuMsPerThousandOps: z.number().positive().describe('CPU-ms per 1,000 operations, whole JVM'),
  measuredWith: z.string().min(1).describe('the command and its settings'),
  date: z.string().regex(DATE, 'expected a date YYYY, YYYY-MM or YYYY-MM-DD'),
  machine: z.string().min(1).describe('CPU model, CPUs, SMT'),
  source: z.string().min(1),
  note: z.string().optional(),
});

const loaderCpuFamilySchema = z.strictObject({
  perVcpuFactor: z
    .number()
    .positive()
    .describe("CPU time per operation on one of the family's vCPUs ÷ on one measuring-machine CPU"),
  basis: z.enum(['measured', 'estimate']),
  source: z.string().min(1),
});

const loaderCpuSchema = z.strictObject({
  bindings: z.strictObject({
    dynamodb: loaderCpuBindingSchema.optional(),
    cql: loaderCpuBindingSchema.optional(),
  }),
  families: z.record(
    z.string().regex(/^[a-z0-9-]+$/, 'expected an instance family like c5'),
    loaderCpuFamilySchema,
  ),
});

const bookSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/, 'expected letters, digits, ".", "_" or "-"'),
  title: z.string().min(1),
  date: z.string().regex(DATE, 'expected a date YYYY, YYYY-MM or YYYY-MM-DD'),
  currency: z.literal('USD'),
  /** The region every price is for; absent in the built-in books (their prices name it: us-east-1). */
  region: z.string().min(1).optional(),
  hoursPerMonth: z.number().positive().max(744),
  notes: z.array(z.string()).optional(),
  dynamodb: z.strictObject({
    standard: dynamoClassSchema,
    standardIa: dynamoClassSchema.optional(),
    freeTier: z.strictObject({
      storageGb: z.number().nonnegative(),
      wcu: z.number().int().nonnegative(),
      rcu: z.number().int().nonnegative(),
      source: z.string().min(1),
    }),
  }),
  ec2: z.record(
    z.string().regex(/^[a-z0-9-]+\.[a-z0-9]+$/, 'expected an instance type like c5.2xlarge'),
    priceSchema,
  ),
  ebs: z.strictObject({ gp3GbMonth: priceSchema }),
  pipeline: z.strictObject({
    stepFunctionsPerThousandTransitions: priceSchema,
    lambdaPerGbSecond: priceSchema,
    lambdaPerMillionRequests: priceSchema,
    cloudWatchPerMetricMonth: priceSchema,
    cloudWatchPerThousandRequests: priceSchema,
    s3PerGbMonth: priceSchema,
    s3PerThousandPuts: priceSchema,
    s3PerThousandGets: priceSchema,
    athenaPerTbScanned: priceSchema,
  }),
  /** What the deployed stack is billed by the hour or month while no run is going (lib/core/cost/idle.ts). */
  idle: z
    .strictObject({
      interfaceEndpointAzHour: priceSchema,
      natGatewayHour: priceSchema,
      publicIpv4Hour: priceSchema,
      kmsKeyMonth: priceSchema,
      dashboardMonth: priceSchema,
      alarmMonth: priceSchema,
      secretMonth: priceSchema,
    })
    .optional(),
  /** Loader CPU per operation for sizing fleets by CPU; absent: fleets are sized for concurrency only. */
  loaderCpu: loaderCpuSchema.optional(),
  /** DAX node-hours by node type (lib/core/targets/dynamodb/dax-cost.ts). */
  dax: z
    .record(
      z.string().regex(/^dax\.[a-z0-9]+\.[a-z0-9]+$/, 'expected a DAX node type like dax.r5.large'),
      priceSchema,
    )
    .optional(),
  /** Amazon Keyspaces, single-region (lib/core/targets/keyspaces/cost.ts): same five lines as a DynamoDB table class. */
  keyspaces: dynamoClassSchema.optional(),
  /** Amazon MemoryDB per engine (lib/core/targets/memorydb/cost.ts): node-hours by node type, data written per GB. */
  memorydb: z
    .partialRecord(
      z.enum(['valkey', 'redis']),
      z.strictObject({
        nodeHour: z.record(z.string().regex(/^db\./, 'a node type'), priceSchema),
        /** Absent when the Price List gave none the refresh could use: the data written stays unpriced. */
        dataWrittenGb: priceSchema.optional(),
      }),
    )
    .optional(),
});

export type Price = z.infer<typeof priceSchema>;
export type DynamoClassPrices = z.infer<typeof dynamoClassSchema>;
export type PriceBookData = z.infer<typeof bookSchema>;
export type LoaderCpuBook = z.infer<typeof loaderCpuSchema>;
export type LoaderCpuBinding = z.infer<typeof loaderCpuBindingSchema>;

/** A validated price book, with the file it came from. */
export interface PriceBook extends PriceBookData {
  file: string;
}

/** The exact dollar amount of a price. */
export function usd(p: Price): Q {
  return Q.of(p.usd);
}

function dotted(p: PropertyKey[]): string {
  return p
    .map((k) => (typeof k === 'number' ? `[${k}]` : String(k)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** Validate a parsed book; `file` is used to name the source in errors. */
export function parsePriceBook(data: unknown, file: string): PriceBook {
  const r = bookSchema.safeParse(data);
  if (!r.success) {
    const issues: Issue[] = r.error.issues.map((i) => ({
      path: `${file} (${dotted(i.path) || 'top level'})`,
      message: i.message,
    }));
    throw new InputError(issues);
  }
  const expected = path.basename(file).replace(/\.json$/, '');
  if (path.dirname(path.resolve(file)) === BOOKS_DIR && r.data.id !== expected) {
    throw new InputError([
      { path: `${file} (id)`, message: `expected "${expected}" to match the file name` },
    ]);
  }
  return { ...r.data, file };
}

/** Validate a book from its JSON text (`file` names it in errors); reading the file is the caller's. */
export function parsePriceBookText(text: string, file: string): PriceBook {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InputError([{ path: file, message: `not valid JSON: ${(e as Error).message}` }]);
  }
  return parsePriceBook(data, file);
}

/** The region a book's prices are for. */
export function bookRegion(book: Pick<PriceBookData, 'region' | 'dynamodb'>): string {
  return book.region ?? book.dynamodb.standard.wcuHour.region;
}

/** Whether a book is one shipped with fleetbench (not a user's or a refreshed one). */
export function isBuiltInBook(book: Pick<PriceBook, 'file'>): boolean {
  return path.dirname(path.resolve(book.file)) === BOOKS_DIR;
}

/** The books shipped with fleetbench, oldest first. */
export function builtInPriceBooks(): PriceBook[] {
  return [...builtInBooks()];
}

/** Ids of the books shipped with fleetbench, oldest first. */
export function builtInBookIds(): string[] {
  return builtInBooks().map((b) => b.id);
}

let cache: PriceBook[] | undefined;
function builtInBooks(): PriceBook[] {
  if (!cache) {
    cache = Object.entries(BUILT_IN)
      .map(([id, data]) => parsePriceBook(data, path.join(BOOKS_DIR, `${id}.json`)))
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id.localeCompare(b.id)));
  }
  return cache;
}

/** Whether a price-book reference names a file (a user's book, read by the CLI) rather than a built-in id. */
export function isPriceBookFile(ref: string): boolean {
  return ref.endsWith('.json') || ref.includes('/') || ref.includes(path.sep);
}

/**
 * A price book: a book already read (a user's file, lib/cli/price-book.ts), a built-in id (e.g.
 * "2023-seed"), or without a reference the newest built-in book.
 */
export function loadPriceBook(ref?: string | PriceBook): PriceBook {
  if (typeof ref === 'object') return ref;
  const books = builtInBooks();
  if (ref === undefined || ref === '') return books[books.length - 1]!;
  const hit = books.find((b) => b.id === ref);
  if (hit) return hit;
  if (isPriceBookFile(ref)) {
    throw new InputError([
      {
        path: '--prices',
        message: `"${ref}" is a file: read it first (resolvePriceBook in lib/cli/price-book.ts)`,
      },
    ]);
  }
  throw new InputError([
    {
      path: '--prices',
      message: `unknown price book "${ref}"; expected one of ${books.map((b) => b.id).join(', ')} or a path to a .json book`,
    },
  ]);
}

/** Prices of a DynamoDB table class, or an InputError if the book has none for it. */
export function dynamoPrices(
  book: PriceBook,
  tableClass: 'standard' | 'standard-ia' = 'standard',
): DynamoClassPrices {
  if (tableClass === 'standard') return book.dynamodb.standard;
  const ia = book.dynamodb.standardIa;
  if (!ia) {
    throw new InputError([
      {
        path: 'tableClass',
        message: `price book "${book.id}" (${book.file}) has no prices for table class standard-ia`,
      },
    ]);
  }
  return ia;
}

/** Hourly on-demand price of an EC2 instance type, or an InputError naming the book. */
export function ec2HourlyPrice(book: PriceBook, instanceType: string, fieldPath = 'instanceType'): Q {
  const p = book.ec2[instanceType];
  if (!p) {
    throw new InputError([
      {
        path: fieldPath,
        message: `price book "${book.id}" has no price for instance type "${instanceType}"; it has ${Object.keys(book.ec2).join(', ')} (give the price in the input, or use a book that has it)`,
      },
    ]);
  }
  return usd(p);
}
