/**
 * ResultsQuery on Athena: StartQueryExecution in the stack's workgroup (its enforced result location
 * and scan limit apply), GetQueryExecution polled with back-off until the query ends,
 * GetQueryResults paginated, values typed from the result set's column types.
 */
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  type AthenaClientConfig,
  type ColumnInfo,
  type Row,
} from '@aws-sdk/client-athena';
import { CloudError, type ResultsQuery } from '../core/common/ports';
import { sqlLiteral } from '../core/results/run-summary';
import { translate } from './errors';

export interface AthenaResultsOptions {
  workGroup: string;
  database: string;
  /** First and longest wait between GetQueryExecution calls. @default 200 ms, 5 s */
  pollMinMs?: number;
  pollMaxMs?: number;
  /** Give up (and report) after this long. @default 10 minutes */
  timeoutMs?: number;
}

const INTEGER = new Set(['tinyint', 'smallint', 'integer', 'int', 'bigint']);
const FLOAT = new Set(['double', 'float', 'real', 'decimal']);

/** One Athena cell value (always text on the wire) typed by its column type; absent → null. */
export function athenaValue(type: string | undefined, text: string | undefined): unknown {
  if (text === undefined) return null;
  const t = (type ?? 'varchar').toLowerCase().replace(/\(.*$/, '');
  if (INTEGER.has(t) || FLOAT.has(t)) {
    const n = Number(text);
    return Number.isNaN(n) ? text : n;
  }
  if (t === 'boolean') return text === 'true';
  return text;
}

export class AthenaResults implements ResultsQuery {
  readonly client: AthenaClient;
  /** The id of the last query started (for messages and tests). */
  lastQueryExecutionId?: string;

  constructor(
    private readonly options: AthenaResultsOptions,
    clientOrConfig: AthenaClient | AthenaClientConfig = {},
  ) {
    this.client = clientOrConfig instanceof AthenaClient ? clientOrConfig : new AthenaClient(clientOrConfig);
  }

  async query(sql: string, params: readonly (string | number)[] = []): Promise<Record<string, unknown>[]> {
    const id = await this.start(sql, params);
    await this.waitFor(id);
    return this.results(id);
  }

  private async start(sql: string, params: readonly (string | number)[]): Promise<string> {
    try {
      const out = await this.client.send(
        new StartQueryExecutionCommand({
          QueryString: sql,
          WorkGroup: this.options.workGroup,
          QueryExecutionContext: { Catalog: 'AwsDataCatalog', Database: this.options.database },
          ...(params.length ? { ExecutionParameters: params.map(sqlLiteral) } : {}),
        }),
      );
      this.lastQueryExecutionId = out.QueryExecutionId!;
      return out.QueryExecutionId!;
    } catch (err) {
      throw translate('Athena', 'StartQueryExecution', err);
    }
  }

  private async waitFor(id: string): Promise<void> {
    const min = this.options.pollMinMs ?? 200;
    const max = this.options.pollMaxMs ?? 5000;
    const deadline = Date.now() + (this.options.timeoutMs ?? 600_000);
    let wait = min;
    for (;;) {
      let state: string | undefined;
      let reason: string | undefined;
      try {
        const q = await this.client.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
        state = q.QueryExecution?.Status?.State;
        reason =
          q.QueryExecution?.Status?.AthenaError?.ErrorMessage ?? q.QueryExecution?.Status?.StateChangeReason;
      } catch (err) {
        throw translate('Athena', 'GetQueryExecution', err);
      }
      if (state === 'SUCCEEDED') return;
      if (state === 'FAILED' || state === 'CANCELLED')
        throw new CloudError('Athena', `query ${id} ${state}${reason ? `: ${reason}` : ''}`);
      if (Date.now() + wait > deadline)
        throw new CloudError('Athena', `query ${id} still ${state ?? 'unknown'} after the timeout`);
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(max, wait * 2);
    }
  }

  private async results(id: string): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    let columns: ColumnInfo[] | undefined;
    let token: string | undefined;
    let first = true;
    try {
      do {
        const page = await this.client.send(
          new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: token, MaxResults: 1000 }),
        );
        columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
        let data: Row[] = page.ResultSet?.Rows ?? [];
        // the first row of a SELECT's first page holds the column names
        if (first && data.length && isHeader(data[0]!, columns)) data = data.slice(1);
        first = false;
        for (const r of data) {
          const rec: Record<string, unknown> = {};
          (r.Data ?? []).forEach((d, i) => {
            const c = columns![i];
            rec[c?.Name ?? `_col${i}`] = athenaValue(c?.Type, d.VarCharValue);
          });
          rows.push(rec);
        }
        token = page.NextToken;
      } while (token);
    } catch (err) {
      throw translate('Athena', 'GetQueryResults', err);
    }
    return rows;
  }
}

function isHeader(row: Row, columns: ColumnInfo[]): boolean {
  const d = row.Data ?? [];
  return (
    columns.length > 0 &&
    d.length === columns.length &&
    d.every((x, i) => x.VarCharValue === columns[i]!.Name)
  );
}
