/**
 * `fleetbench compare --stack` (the real executable) against moto server: the stack's outputs from
 * CloudFormation, each run's spec name from its context in the results bucket (S3), its cells rows from the
 * stack's Athena workgroup and database (results injected through moto's
 * `/moto-api/static/athena/query-results`, as Athena returns them: text values typed by the column types) and
 * its window buckets from S3. The buckets hold exponential latencies, the slowed run's scaled by 1.5.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  AthenaClient,
  CreateWorkGroupCommand,
  GetQueryExecutionCommand,
  ListQueryExecutionsCommand,
} from '@aws-sdk/client-athena';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { S3Store } from '../../lib/aws/s3-store';
import { cellKey, contextKey } from '../../lib/core/pipeline';
import { Histogram } from '../../lib/core/hdr/histogram';
import { Prng } from '../../lib/core/common/prng';
import type { CellBuckets } from '../../lib/core/results/buckets';
import type { Comparison } from '../../lib/core/report/compare';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const WORKGROUP = 'fleetbench-Cmp';
const DATABASE = 'fleetbench_cmp';
const CELL = 'ddb.uniform.r50.t400';
let moto: MotoServer;
let tmp: string;
let bucket: string;

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fleetbench.js'), ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          HOME: tmp,
          AWS_ENDPOINT_URL: moto.endpoint,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'testing',
          AWS_SECRET_ACCESS_KEY: 'testing',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        timeout: 90_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** 20 one-second buckets of 400 exponential latencies (mean 2 ms × scale); the cells row's figures from them. */
function runData(seed: number, scale: number): { buckets: CellBuckets; row: string[] } {
  const rng = new Prng(seed);
  const all = new Histogram();
  const buckets: CellBuckets['buckets'] = [];
  for (let k = 0; k < 20; k++) {
    const h = new Histogram();
    for (let j = 0; j < 400; j++) {
      const v = Math.max(1, Math.round(-Math.log(1 - rng.next()) * 2000 * scale));
      h.recordValue(v);
      all.recordValue(v);
    }
    buckets.push({
      offsetSeconds: k,
      seconds: 1,
      good: 400,
      failed: 0,
      intended: h.toSparse(),
      service: null,
    });
  }
  const [p50, p99, p999] = all.valuesAtPercentiles([50, 99, 99.9]);
  return {
    buckets: { cellId: CELL, seriesSeconds: 1, buckets, spectrum: {} },
    // the columns of CELL_COLUMNS
    row: [
      CELL,
      'ddb',
      'uniform',
      '0.5',
      '400.0',
      '400.0',
      '400.0',
      '1.0',
      `${p50}`,
      `${p99}`,
      `${p999}`,
      '0',
      '0',
      'false',
      'false',
      '58.4',
      '0.05557',
    ],
  };
}

const CELL_COLUMNS: [string, string][] = [
  ['cell_id', 'varchar'],
  ['target_id', 'varchar'],
  ['distribution', 'varchar'],
  ['read_proportion', 'double'],
  ['target_ops_per_sec', 'double'],
  ['achieved_ops_per_sec', 'double'],
  ['good_ops_per_sec', 'double'],
  ['attainment', 'double'],
  ['all_intended_p50_us', 'double'],
  ['all_intended_p99_us', 'double'],
  ['all_intended_p999_us', 'double'],
  ['errors', 'bigint'],
  ['throttled_attempts', 'bigint'],
  ['incomplete', 'boolean'],
  ['suspect', 'boolean'],
  ['monthly_cost_usd', 'double'],
  ['cost_per_million_ops_usd', 'double'],
];

const col = (Name: string, Type: string) => ({
  Name,
  Label: Name,
  Type,
  CatalogName: 'hive',
  SchemaName: DATABASE,
  TableName: '',
  Nullable: 'UNKNOWN',
  CaseSensitive: Type === 'varchar',
  Precision: 0,
  Scale: 0,
});
const athenaRow = (...values: string[]) => ({ Data: values.map((v) => ({ VarCharValue: v })) });

/** The next queries' results, in order (moto hands each new execution the next one). */
async function injectAthenaResults(rows: string[][][]): Promise<void> {
  const res = await fetch(`${moto.endpoint}/moto-api/static/athena/query-results`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      region: 'us-east-1',
      results: rows.map((r) => ({
        column_info: CELL_COLUMNS.map(([n, t]) => col(n, t)),
        rows: [athenaRow(...CELL_COLUMNS.map(([n]) => n)), ...r.map((v) => athenaRow(...v))],
      })),
    }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'fleetbench-compare-athena-'));
  moto = await startMoto();
  const cfn = new CloudFormationClient(moto.clientConfig);
  await cfn.send(
    new CreateStackCommand({
      StackName: 'Cmp',
      TemplateBody: JSON.stringify({
        Resources: { Bucket: { Type: 'AWS::S3::Bucket' } },
        Outputs: {
          ResultsBucket: { Value: { Ref: 'Bucket' } },
          GlueDatabase: { Value: DATABASE },
          AthenaWorkGroup: { Value: WORKGROUP },
        },
      }),
    }),
  );
  const stack = await cfn.send(new DescribeStacksCommand({ StackName: 'Cmp' }));
  bucket = stack.Stacks![0]!.Outputs!.find((o) => o.OutputKey === 'ResultsBucket')!.OutputValue!;
  await new AthenaClient(moto.clientConfig).send(
    new CreateWorkGroupCommand({
      Name: WORKGROUP,
      Configuration: { ResultConfiguration: { OutputLocation: `s3://${bucket}/athena-results/` } },
    }),
  );
}, 120_000);

afterAll(async () => {
  await moto?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('fleetbench compare --stack (Athena and S3 on moto)', () => {
  it("reads both runs' cells rows from the stack's workgroup and their buckets from S3; the slowed run is worse", async () => {
    const store = new S3Store(`s3://${bucket}`, { clientConfig: moto.clientConfig });
    const slow = runData(2, 1.5);
    const base = runData(1, 1);
    for (const [runId, d] of [
      ['nightly-slow', slow],
      ['nightly-base', base],
    ] as const) {
      await store.putJson(contextKey(runId), { runId, specName: 'nightly', cellCount: 1 });
      await store.putJson(cellKey(runId, CELL, 'buckets.json'), d.buckets);
    }
    await injectAthenaResults([[slow.row], [base.row]]);
    const athena = new AthenaClient(moto.clientConfig);
    const before = new Set(
      (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))).QueryExecutionIds,
    );

    const r = await cli(
      'compare',
      'nightly-slow',
      'nightly-base',
      '--stack',
      'Cmp',
      '--json',
      '--fail-on',
      'p99:+20%',
    );
    expect(r.stderr).toBe('');
    const c = JSON.parse(r.stdout) as Comparison & { failures: string[] };
    const p99 = c.cells[0]!.metrics.find((m) => m.metric === 'p99')!;
    // the cells rows' figures, as Athena typed them
    expect(p99.run).toBe(Number(slow.row[9]));
    expect(p99.baseline).toBe(Number(base.row[9]));
    expect(p99.verdict).toBe('worse');
    expect(p99.ci![0]).toBeLessThan(0.5);
    expect(p99.ci![1]).toBeGreaterThan(0.5);
    expect(c.cells[0]!.metrics.find((m) => m.metric === 'cost')).toMatchObject({ change: 0 });
    expect(c.failures).toEqual([
      expect.stringMatching(/^ddb\.uniform\.r50\.t400: p99 \+\d+\.\d% breaks p99:\+20%$/),
    ]);
    expect(r.code).toBe(3);

    // two queries, in the stack's workgroup and database, each bound to its run's spec and id
    const ids = (
      await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))
    ).QueryExecutionIds!.filter((id) => !before.has(id));
    const queries = await Promise.all(
      ids.map((id) => athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }))),
    );
    expect(queries.map((q) => q.QueryExecution!.QueryExecutionContext?.Database)).toEqual([
      DATABASE,
      DATABASE,
    ]);
    expect(queries.map((q) => q.QueryExecution!.ExecutionParameters).sort()).toEqual([
      ["'nightly'", "'nightly-base'"],
      ["'nightly'", "'nightly-slow'"],
    ]);
    expect(queries[0]!.QueryExecution!.Query).toMatch(/FROM cells\s+WHERE spec_name = \? AND run_id = \?/);
  });

  it('an unknown run: exit 2 naming it and the bucket, no query started', async () => {
    const athena = new AthenaClient(moto.clientConfig);
    const n = (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))).QueryExecutionIds!
      .length;
    const r = await cli('compare', 'no-such-run', 'nightly-base', '--stack', 'Cmp');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^run: no run no-such-run in s3://${bucket}/runs/no-such-run/context\\.json$`, 'm'),
    );
    expect(
      (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))).QueryExecutionIds!.length,
    ).toBe(n);
  });
});
