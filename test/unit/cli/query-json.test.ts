/** `fleetbench query --json`: integer columns as JSON numbers (exact up to 2^53), larger ones as strings. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

describe('query --json', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fb-query-json-'));
    mkdirSync(join(dir, 'runs')); // a results directory (query refuses any other path), with no rows yet
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints integers as numbers, beyond 2^53 as strings, and other columns unchanged', () => {
    const sql =
      'SELECT 0::BIGINT AS errors, 2998::BIGINT AS status_ok, 7::INTEGER AS i, 200::UBIGINT AS u, ' +
      '9007199254740991::BIGINT AS max_safe, -9007199254740991::BIGINT AS min_safe, ' +
      '9007199254740993::BIGINT AS big, 170141183460469231731687303715884105727::HUGEINT AS huge, ' +
      "NULL::BIGINT AS none, '7' AS text, 1.5::DOUBLE AS d";
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin', 'fleetbench.js'), 'query', '--json', sql, '--results', dir],
      {
        encoding: 'utf8',
        cwd: root,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"errors": 0,');
    expect(JSON.parse(r.stdout)).toEqual([
      {
        errors: 0,
        status_ok: 2998,
        i: 7,
        u: 200,
        max_safe: 9007199254740991,
        min_safe: -9007199254740991,
        big: '9007199254740993',
        huge: '170141183460469231731687303715884105727',
        none: null,
        text: '7',
        d: 1.5,
      },
    ]);
  });
});
