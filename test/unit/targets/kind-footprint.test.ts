/**
 * Issue #27's proof that a target kind is its own files plus registration lines: every line under lib/, lambdas/,
 * stacks/ and bin/ that names MemoryDB (the kind added after the registry) outside MemoryDB's own files is one of its
 * registration lines, one per registry. Its own files: its folder (lib/core/targets/memorydb/), its adapters
 * (lib/aws/memorydb-admin.ts, lib/local/memorydb.ts), its construct (lib/constructs/memorydb-access.ts) and its price
 * entries (lib/core/cost/refresh-memorydb.ts, the `memorydb` section of the price book's schema in lib/core/cost/book.ts).
 *
 * Five registrations, not the three the issue hoped for: the spec schema builds its target union from the kinds' spec
 * modules, which must not import the kinds' declarations (they import the schema's types: dependency-cruiser refuses
 * the cycle), so the core has two lists; the AWS adapters, the local stand-ins and the constructs are three layers
 * that may not import one another (.dependency-cruiser.cjs), so each has its own list.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TARGET_KINDS } from '../../../lib/core/targets/registry';

const ROOT = path.join(__dirname, '..', '..', '..');
const SCANNED = ['lib', 'lambdas', 'stacks', 'bin'];

const OWN_FOLDER = 'lib/core/targets/memorydb/';
const OWN_FILES = new Set([
  'lib/aws/memorydb-admin.ts',
  'lib/local/memorydb.ts',
  'lib/constructs/memorydb-access.ts',
  'lib/core/cost/refresh-memorydb.ts',
]);
const PRICE_BOOK = 'lib/core/cost/book.ts';

/** The registration lines, one per registry (docs/target-kinds.md lists the same). */
const REGISTRATIONS = [
  "lib/aws/kind-adapters.ts: export { memoryDbAdminFromEnv as memorydb } from './memorydb-admin';",
  "lib/constructs/kind-constructs.ts: export { MemoryDbAccess as memorydb } from './memorydb-access';",
  "lib/core/targets/kind-specs.ts: export { MEMORYDB_SPEC as memorydb } from './memorydb/spec';",
  "lib/core/targets/kinds.ts: export { MEMORYDB as memorydb } from './memorydb/kind';",
  "lib/local/kind-adapters.ts: export { LocalMemoryDb as memorydb } from './memorydb';",
];

function filesUnder(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
    return /\.(ts|js|mjs|cjs|json)$/.test(e.name) ? [rel] : [];
  });
}

/** Lines (0-based) of the price book schema's `memorydb` section: its doc comment and the property. */
function priceBookSection(lines: string[]): Set<number> {
  const start = lines.findIndex((l) => /^ {2}memorydb: z\b/.test(l));
  if (start < 0) return new Set();
  const section = new Set([start]);
  if (/^ {2}\/\*\*.*\*\/$/.test(lines[start - 1] ?? '')) section.add(start - 1);
  for (let i = start + 1; i < lines.length && /^ {3,}\S/.test(lines[i]!); i++) section.add(i);
  return section;
}

/** Every line naming the kind outside its own files, as `file: line`. */
function footprint(word: RegExp): string[] {
  const found: string[] = [];
  for (const file of SCANNED.flatMap(filesUnder).sort()) {
    if (file.startsWith(OWN_FOLDER) || OWN_FILES.has(file)) continue;
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    const own = file === PRICE_BOOK ? priceBookSection(lines) : new Set<number>();
    lines.forEach((line, i) => {
      if (word.test(line) && !own.has(i)) found.push(`${file}: ${line.trim()}`);
    });
  }
  return found;
}

it('MemoryDB is named outside its own files by its registration lines only, one per registry', () => {
  expect(footprint(/memorydb/i)).toEqual(REGISTRATIONS);
});

it('the scan sees what it must: its own files and the price book section name MemoryDB', () => {
  // a scan that found nothing anywhere would pass the test above for the wrong reason
  for (const file of [...OWN_FILES, `${OWN_FOLDER}kind.ts`])
    expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toMatch(/memorydb/i);
  const book = fs.readFileSync(path.join(ROOT, PRICE_BOOK), 'utf8').split('\n');
  const section = [...priceBookSection(book)].sort((a, b) => a - b).map((i) => book[i]!.trim());
  expect(section[1]).toBe('memorydb: z');
  expect(section.at(-1)).toBe('.optional(),');
});

it('outside the kinds’ folders, no code tests a target kind by name', () => {
  const names = Object.keys(TARGET_KINDS).join('|');
  const byName = new RegExp(`kind (===|!==) ?'(${names})'`);
  const found = SCANNED.flatMap(filesUnder)
    .filter((f) => !f.startsWith('lib/core/targets/'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .filter((l) => byName.test(l))
        .map((l) => `${f}: ${l.trim()}`),
    );
  expect(found).toEqual([]);
});
