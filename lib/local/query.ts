/**
 * SQL over the local result tables with DuckDB: one view per table (same names and columns as the
 * Glue tables in Athena) over the JSON lines under `<resultsDir>/tables/<table>/`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { InputError } from '../core/errors';
import { DUCKDB_TYPES, TABLES, duckdbViewSql, type TableDef } from '../core/results/schema';

function hasRows(dir: string): boolean {
  if (!existsSync(dir)) return false;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory() ? hasRows(p) : e.endsWith('.jsonl')) return true;
  }
  return false;
}

/** An empty view with the table's columns, for a table that has no rows yet. */
function emptyViewSql(t: TableDef): string {
  const cols = [...t.columns, ...t.partitionKeys]
    .map((c) => `CAST(NULL AS ${DUCKDB_TYPES[c.type]}) AS ${c.name}`)
    .join(', ');
  return `CREATE OR REPLACE VIEW ${t.name} AS SELECT ${cols} WHERE false`;
}

export type SqlRow = Record<string, unknown>;

export interface LocalDb {
  /** Runs SQL; `params` bind its `?` placeholders in order. */
  query(sql: string, params?: string[]): Promise<SqlRow[]>;
  close(): void;
}

export async function openLocalDb(resultsDir: string): Promise<LocalDb> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  for (const t of TABLES) {
    const sql = hasRows(join(resultsDir, 'tables', t.name))
      ? duckdbViewSql(t.name, resultsDir)
      : emptyViewSql(t);
    await conn.run(sql);
  }
  return {
    async query(sql: string, params?: string[]) {
      try {
        const reader = params?.length ? await conn.runAndReadAll(sql, params) : await conn.runAndReadAll(sql);
        return reader.getRowObjectsJson() as SqlRow[];
      } catch (err) {
        throw new InputError([{ path: 'sql', message: (err as Error).message.split('\n')[0]! }]);
      }
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
