/**
 * The repository paths the README and docs name in backticks (`lib/…/x.ts`, `test/…`, `examples/…`) exist: a moved
 * or renamed file fails here until the document names its new place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..', '..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'loader/agent/README.md',
  'loader/ycsb-binding/README.md',
];
const PATH =
  /`((?:lib|test|stacks|lambdas|bin|loader|examples|schema)\/[A-Za-z0-9_./-]+\.(?:ts|js|json|java|sh|md|py))`/g;

it.each(documents)('%s names only files that exist', (doc) => {
  const text = readFileSync(path.join(root, doc), 'utf8');
  const named = [...text.matchAll(PATH)].map((m) => m[1]!).filter((p) => !p.includes('...'));
  expect(named.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
});
