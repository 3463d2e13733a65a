import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BOOKS_DIR,
  builtInBookIds,
  dynamoPrices,
  ec2HourlyPrice,
  loadPriceBook,
  parsePriceBook,
} from '../../../lib/core/cost/book';
import { readPriceBook, resolvePriceBook } from '../../../lib/cli/price-book';
import { InputError } from '../../../lib/core/common/errors';

const EXAMPLE_TYPES = [
  'c5.2xlarge',
  'c6i.2xlarge',
  'c7g.2xlarge',
  'i3.2xlarge',
  'i4i.2xlarge',
  'i4i.4xlarge',
];

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e.issues;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('built-in price books', () => {
  it('every book file under books/ is built in (imported: the Lambda bundles carry no books/ directory)', () => {
    const files = fs
      .readdirSync(BOOKS_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''))
      .sort();
    expect([...builtInBookIds()].sort()).toEqual(files);
  });

  it('ships 2023-seed and 2024-11, and the default is the newest', () => {
    expect(builtInBookIds()).toEqual(['2023-seed', '2024-11']);
    expect(loadPriceBook().id).toBe('2024-11');
    expect(loadPriceBook('').id).toBe('2024-11');
  });

  it('2023-seed has the prices seed 000 states', () => {
    const p = dynamoPrices(loadPriceBook('2023-seed'));
    expect([
      p.wcuHour.usd,
      p.rcuHour.usd,
      p.wruPerMillion.usd,
      p.rruPerMillion.usd,
      p.storageGbMonth.usd,
    ]).toEqual(['0.00065', '0.00013', '1.25', '0.25', '0.25']);
  });

  it('2024-11 halves on-demand and keeps provisioned and storage', () => {
    const a = dynamoPrices(loadPriceBook('2023-seed'));
    const b = dynamoPrices(loadPriceBook('2024-11'));
    expect(Number(b.wruPerMillion.usd)).toBe(Number(a.wruPerMillion.usd) / 2);
    expect(Number(b.rruPerMillion.usd)).toBe(Number(a.rruPerMillion.usd) / 2);
    expect([b.wcuHour.usd, b.rcuHour.usd, b.storageGbMonth.usd]).toEqual([
      a.wcuHour.usd,
      a.rcuHour.usd,
      a.storageGbMonth.usd,
    ]);
    expect(b.wruPerMillion.date).toBe('2024-11-01');
  });

  it.each(['2023-seed', '2024-11'])(
    '%s prices every example instance type, each with region, date and source',
    (id) => {
      const book = loadPriceBook(id);
      expect(book.hoursPerMonth).toBe(730);
      for (const t of EXAMPLE_TYPES) {
        expect(ec2HourlyPrice(book, t).cmp(0)).toBe(1);
        const p = book.ec2[t]!;
        expect(p.region).toBe('us-east-1');
        expect(p.source.length).toBeGreaterThan(10);
        expect(p.date).toMatch(/^\d{4}/);
      }
      expect(ec2HourlyPrice(book, 'i4i.2xlarge').toString()).toBe('343/500'); // $0.686
    },
  );

  it('is found by path (read by the CLI) as well as by id; unknown ids are refused with the choices', () => {
    expect(resolvePriceBook(path.join(BOOKS_DIR, '2023-seed.json')).id).toBe('2023-seed');
    expect(resolvePriceBook('2023-seed').id).toBe('2023-seed');
    // the domain code never reads a file: it names the reader instead
    expect(issuesOf(() => loadPriceBook(path.join(BOOKS_DIR, '2023-seed.json')))[0]!.message).toMatch(
      /is a file: read it first/,
    );
    expect(issuesOf(() => loadPriceBook('1999'))[0]!.message).toMatch(
      /unknown price book "1999".*2023-seed, 2024-11/,
    );
  });
});

describe('a bad price book', () => {
  const good = JSON.parse(fs.readFileSync(path.join(BOOKS_DIR, '2024-11.json'), 'utf8'));
  const clone = () => JSON.parse(JSON.stringify(good));

  it('names the file and the field', () => {
    const bad = clone();
    delete bad.dynamodb.standard.wcuHour.source;
    bad.dynamodb.standard.rruPerMillion.usd = '12,5';
    bad.ec2['c5.2xlarge'].date = 'last year';
    const issues = issuesOf(() => parsePriceBook(bad, 'books/mine.json'));
    const paths = issues.map((i) => i.path);
    expect(paths).toContain('books/mine.json (dynamodb.standard.wcuHour.source)');
    expect(paths).toContain('books/mine.json (dynamodb.standard.rruPerMillion.usd)');
    expect(paths).toContain('books/mine.json (ec2.c5.2xlarge.date)');
    expect(issues.find((i) => i.path.endsWith('date)'))!.message).toMatch(/YYYY-MM-DD/);
  });

  it('refuses unknown fields, a non-USD currency and an hours-per-month above 744', () => {
    const bad = clone();
    bad.dynamodb.standard.wcuHours = bad.dynamodb.standard.wcuHour;
    bad.currency = 'EUR';
    bad.hoursPerMonth = 800;
    const paths = issuesOf(() => parsePriceBook(bad, 'x.json')).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['x.json (dynamodb.standard)', 'x.json (currency)', 'x.json (hoursPerMonth)']),
    );
  });

  it('reports unreadable files and broken JSON with the file name', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-book-'));
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '{ "id": ');
    expect(issuesOf(() => readPriceBook(broken))[0]).toEqual({
      path: broken,
      message: expect.stringMatching(/not valid JSON/),
    });
    expect(issuesOf(() => readPriceBook(path.join(dir, 'none.json')))[0]!.message).toMatch(/cannot read/);
    const ok = path.join(dir, 'custom.json');
    fs.writeFileSync(ok, JSON.stringify({ ...clone(), id: 'custom', hoursPerMonth: 720 }));
    expect(resolvePriceBook(ok).hoursPerMonth).toBe(720);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an instance type the book does not price, naming the book', () => {
    expect(issuesOf(() => ec2HourlyPrice(loadPriceBook('2024-11'), 'x9.huge'))[0]!.message).toMatch(
      /price book "2024-11" has no price for instance type "x9.huge"/,
    );
  });
});
