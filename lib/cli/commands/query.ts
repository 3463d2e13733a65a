import type { Command } from 'commander';
import { InputError } from '../../core/errors';
import { NAMED_QUERIES, namedQuery } from '../../core/queries';
import { openLocalDb } from '../../local/query';
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
    .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
    .option('--json', 'print rows as JSON')
    .action(async (sqlArg: string | undefined, opts: { named?: string; results: string; json?: boolean }) => {
      let sql = sqlArg;
      if (opts.named) {
        const q = namedQuery(opts.named);
        if (!q)
          throw new InputError([
            {
              path: '--named',
              message: `expected one of ${NAMED_QUERIES.map((x) => x.name).join(', ')}, found "${opts.named}"`,
            },
          ]);
        sql = q.sql;
      }
      if (!sql) throw new InputError([{ path: 'sql', message: 'expected SQL text or --named <name>' }]);
      const db = await openLocalDb(opts.results);
      try {
        const rows = await db.query(sql);
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
    });
}
