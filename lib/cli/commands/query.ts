import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { NAMED_QUERIES } from '../../core/pipeline';
import { table } from '../table';

export const DEFAULT_RESULTS_DIR = 'fleetbench-results';

export function register(program: Command): void {
  program
    .command('query')
    .description(
      'run SQL with DuckDB over the local result tables (runs, cells, intervals: the Athena names)',
    )
    .argument('[sql]', 'the SQL to run')
    .option(
      '--named <name>',
      `run a named query of the Athena workgroup (${NAMED_QUERIES.map((q) => q.name).join(', ')})`,
    )
    .option('--spec <name>', 'the spec name a named query is about (its ? parameters)')
    .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
    .option('--json', 'print rows as JSON (integers as numbers; beyond 2^53 as strings)')
    .action(
      async (
        sqlArg: string | undefined,
        opts: { named?: string; spec?: string; results: string; json?: boolean },
      ) => {
        let sql = sqlArg;
        let params: string[] = [];
        if (opts.named) {
          const q = NAMED_QUERIES.find((x) => x.name === opts.named);
          if (!q)
            throw new InputError([
              {
                path: '--named',
                message: `expected one of ${NAMED_QUERIES.map((x) => x.name).join(', ')}, found "${opts.named}"`,
              },
            ]);
          sql = q.sql;
          if (q.parameters > 0) {
            if (!opts.spec)
              throw new InputError([
                {
                  path: '--spec',
                  message: `the named query "${q.name}" needs the spec name (--spec <name>)`,
                },
              ]);
            params = Array(q.parameters).fill(opts.spec);
          }
        }
        if (!sql) throw new InputError([{ path: 'sql', message: 'expected SQL text or --named <name>' }]);
        assertResultsDir(opts.results);
        // DuckDB loaded here, not with the module: the commands that import DEFAULT_RESULTS_DIR do not load it
        const { openLocalDb } = await import('../../local/query');
        const db = await openLocalDb(opts.results);
        try {
          // --json: integers as JSON numbers (exact up to 2^53; larger ones as strings), for jq and friends
          const rows = await (opts.json ? db.queryJson(sql, params) : db.query(sql, params));
          if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
          else if (rows.length === 0) process.stdout.write('(no rows)\n');
          else {
            const headers = Object.keys(rows[0]!);
            process.stdout.write(
              table(
                headers,
                rows.map((r) => headers.map((h) => (r[h] === null ? '' : String(r[h])))),
              ),
            );
          }
        } finally {
          db.close();
        }
      },
    );
}

/**
 * A results directory `fleetbench run --local` wrote (its `tables/` or `runs/`): another path is refused, as
 * `history` and `regressions` refuse it, rather than answered with empty tables (a count of 0 that is no count).
 */
function assertResultsDir(dir: string): void {
  const refuse = (found: string) =>
    new InputError([
      {
        path: '--results',
        message: `expected a local results directory (what \`fleetbench run <spec> --local\` writes), found ${found}`,
      },
    ]);
  let stat;
  try {
    stat = statSync(dir);
  } catch (err) {
    throw refuse(`nothing at ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (!stat.isDirectory()) throw refuse(`a file: ${dir}`);
  if (!['tables', 'runs'].some((d) => existsSync(path.join(dir, d))))
    throw refuse(`${dir} without its tables/ or runs/`);
}
