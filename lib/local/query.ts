/**
 * SQL over the local result tables with DuckDB: one view per table (same names and columns as the
 * Glue tables in Athena) over the JSON lines under `<resultsDir>/tables/<table>/`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBTypeId, type DuckDBResultReader } from '@duckdb/node-api';
import { InputError } from '../core/common/errors';
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

/** DuckDB's integer types; their values reach JSON as numbers (`queryJson`). */
const INTEGER_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
]);

/**
 * Rows for JSON output: integer columns (BIGINT and the others, which DuckDB's JSON rows give as strings) become
 * JSON numbers when exact (|v| ≤ 2^53 − 1, Number.MAX_SAFE_INTEGER); larger values stay decimal strings, so no
 * digit is lost. Other columns as DuckDB's JSON rows give them.
 */
export function jsonRows(reader: DuckDBResultReader): SqlRow[] {
  const rows = reader.getRowObjectsJson() as SqlRow[];
  const names = reader.columnNames();
  const ints = reader
    .columnTypes()
    .map((t, i) => (INTEGER_TYPES.has(t.typeId) ? names[i]! : undefined))
    .filter((n): n is string => n !== undefined);
  if (!ints.length) return rows;
  for (const row of rows)
    for (const name of ints) {
      const v = row[name];
      if (typeof v === 'string' && Number.isSafeInteger(Number(v))) row[name] = Number(v);
    }
  return rows;
}

export interface LocalDb {
  /** Runs SQL; `params` bind its `?` placeholders in order. */
  query(sql: string, params?: string[]): Promise<SqlRow[]>;
  /** `query` with integer columns as numbers where exact (`jsonRows`): what `fleetbench query --json` prints. */
  queryJson(sql: string, params?: string[]): Promise<SqlRow[]>;
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
  const read = async (sql: string, params?: string[]): Promise<DuckDBResultReader> => {
    try {
      return params?.length ? await conn.runAndReadAll(sql, params) : await conn.runAndReadAll(sql);
    } catch (err) {
      throw new InputError([{ path: 'sql', message: (err as Error).message.split('\n')[0]! }]);
    }
  };
  return {
    async query(sql: string, params?: string[]) {
      return (await read(sql, params)).getRowObjectsJson() as SqlRow[];
    },
    async queryJson(sql: string, params?: string[]) {
      return jsonRows(await read(sql, params));
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
