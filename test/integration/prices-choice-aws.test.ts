/**
 * The price book `cost`, `idle-cost` and `start`'s pre-start check use with `--stack` (the real executable
 * against moto server: CloudFormation for the stack's outputs, S3 for its results bucket): the newest book
 * for the stack's region among the bucket's `prices/<region>/` and the built-in ones, as the Plan step picks
 * it. The bucket's book here is made for the test: the built-in 2024-11 book relabelled eu-west-1, dated
 * today, every price ten times the built-in's, so a figure shows which book priced it (cost is linear in
 * the prices: the same input costs exactly ten times as much with it).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import { S3Store } from '../../lib/aws/s3-store';
import { loadPriceBook } from '../../lib/core/cost/book';
import { priceBookKey } from '../../lib/core/cost/book-choice';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const REGION = 'eu-west-1';
const today = new Date().toISOString().slice(0, 10);
const BUCKET_BOOK = `aws-${REGION}-${today}`;

let moto: MotoServer;
let tmp: string;
/** The book put in the stack's bucket. */
let bucketBook: object;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fleetbench.js'), ...args],
      {
        cwd: tmp,
        env: {
          PATH: process.env.PATH,
          HOME: tmp,
          AWS_ENDPOINT_URL: moto.endpoint,
          AWS_REGION: REGION,
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

/** Every `usd` of a book times `k` (strings stay decimal strings). */
function scaled(o: unknown, k: number): unknown {
  if (Array.isArray(o)) return o.map((x) => scaled(x, k));
  if (!o || typeof o !== 'object') return o;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(o as Record<string, unknown>)) {
    if (key === 'usd') out[key] = typeof v === 'number' ? v * k : String(Number(v) * k);
    else if (key === 'loaderCpu') out[key] = v;
    else out[key] = scaled(v, k);
  }
  return out;
}

function write(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

const costInput = {
  target: { id: 'ddb', kind: 'dynamodb', billing: { mode: 'provisioned', rcu: 1000, wcu: 500 } },
  throughput: { readsPerSec: 1000, writesPerSec: 500 },
  itemBytes: 1000,
  storageGb: 100,
};

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'fleetbench-prices-aws-'));
  moto = await startMoto();
  const config = { ...moto.clientConfig, region: REGION };
  const cfn = new CloudFormationClient(config);
  await cfn.send(
    new CreateStackCommand({
      StackName: 'Fleetbench',
      TemplateBody: JSON.stringify({
        Resources: { Bucket: { Type: 'AWS::S3::Bucket' } },
        Outputs: {
          ResultsBucket: { Value: { Ref: 'Bucket' } },
          StateMachineArn: {
            Value: `arn:aws:states:${REGION}:123456789012:stateMachine:fleetbench-pipeline`,
          },
        },
      }),
    }),
  );
  const stack = await cfn.send(new DescribeStacksCommand({ StackName: 'Fleetbench' }));
  const bucket = stack.Stacks![0]!.Outputs!.find((o) => o.OutputKey === 'ResultsBucket')!.OutputValue!;
  const base = loadPriceBook('2024-11');
  const book = {
    ...(scaled({ ...base, file: undefined }, 10) as object),
    id: BUCKET_BOOK,
    title: 'test book: 2024-11 relabelled eu-west-1, every price x10',
    date: today,
    region: REGION,
  };
  const store = new S3Store(`s3://${bucket}`, { clientConfig: config });
  await store.putJson(priceBookKey(book as typeof base), book);
  bucketBook = book;
}, 120_000);

afterAll(async () => {
  await moto?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('cost --stack prices with the newest book for the stack region in its bucket: no warning, exactly 10x the built-in figures', async () => {
  const input = write('cost.json', costInput);
  const fromStack = await cli('cost', input, '--stack', 'Fleetbench', '--json');
  expect(fromStack.stderr).toBe('');
  expect(fromStack.code).toBe(0);
  const builtIn = await cli('cost', input, '--prices', '2024-11', '--json');
  expect(builtIn.code).toBe(0);
  const a = JSON.parse(fromStack.stdout) as {
    priceBook: string;
    monthly: { provisioned: { total: number } };
  };
  const b = JSON.parse(builtIn.stdout) as { priceBook: string; monthly: { provisioned: { total: number } } };
  expect(a.priceBook).toBe(BUCKET_BOOK);
  expect(b.priceBook).toBe('2024-11');
  expect(b.monthly.provisioned.total).toBeGreaterThan(0);
  expect(a.monthly.provisioned.total).toBeCloseTo(10 * b.monthly.provisioned.total, 2);
});

test('cost without a refreshed book for the region: the built-in book, warned about by region and age, naming the command that fixes it', async () => {
  const empty = mkdtempSync(path.join(tmp, 'results-'));
  const r = await cli('cost', write('cost2.json', costInput), '--results', empty, '--json');
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as { priceBook: string }).priceBook).toBe('2024-11');
  expect(r.stderr).toContain(
    "warning: price book 2024-11 is for us-east-1, but the run is in eu-west-1: its costs are us-east-1's prices; run `fleetbench prices refresh --region eu-west-1` for eu-west-1's",
  );
  expect(r.stderr).toMatch(/warning: price book 2024-11 is dated 2024-11-01, \d+ days ago \(more than 90\)/);
  const both = await cli('cost', write('cost3.json', costInput), '--results', empty, '--stack', 'Fleetbench');
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('--results: give --results or --stack, not both');
});

test("idle-cost --stack uses the bucket's book when it has idle prices: 10x the built-in's", async () => {
  const fromStack = await cli('idle-cost', '--stack', 'Fleetbench', '--network', 'public', '--json');
  expect(fromStack.stderr).toBe('');
  expect(fromStack.code).toBe(0);
  const builtIn = await cli('idle-cost', '--prices', '2024-11', '--network', 'public', '--json');
  const [a] = JSON.parse(fromStack.stdout) as { book: string; usdPerMonth: number }[];
  const [b] = JSON.parse(builtIn.stdout) as { book: string; usdPerMonth: number }[];
  expect(a!.book).toBe(BUCKET_BOOK);
  expect(b!.book).toBe('2024-11');
  expect(b!.usdPerMonth).toBeGreaterThan(0);
  expect(a!.usdPerMonth).toBeCloseTo(10 * b!.usdPerMonth, 2);
});

test("start's pre-start check uses the bucket's book, as Plan will: a budget the built-in estimate fits is refused, nothing started", async () => {
  const spec = JSON.parse(readFileSync(path.join(root, 'examples', 'quickstart.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const empty = mkdtempSync(path.join(tmp, 'results-'));
  const probe = await cli(
    'plan',
    write('probe.json', { ...spec, region: REGION }),
    '--results',
    empty,
    '--json',
  );
  expect(probe.code).toBe(0);
  const estimate = (JSON.parse(probe.stdout) as { estimate: { totalUsd: number; priceBook: string } })
    .estimate;
  expect(estimate.priceBook).toBe('2024-11');
  // 3x the built-in estimate: within budget with the built-in book, over it at 10x the prices
  const maxUsd = Math.ceil(estimate.totalUsd * 300) / 100;
  const file = write('budget.json', { ...spec, region: REGION, budget: { maxUsd } });
  const plan = await cli('plan', file, '--results', empty);
  expect(plan.code).toBe(0);
  const start = await cli('start', file, '--stack', 'Fleetbench', '--no-follow');
  expect(start.code).toBe(2);
  const refused = /budget\.maxUsd: the run is estimated at \$([\d.]+), above the budget of \$([\d.]+)/.exec(
    start.stderr,
  );
  expect(refused).not.toBeNull();
  // the figure Plan gives with that very book, passed as a file
  const same = await cli('plan', file, '--prices', write('bucket-book.json', bucketBook), '--json');
  expect(same.code).toBe(2);
  const planned = /the run is estimated at \$([\d.]+) \(price book ([^)]+)\)/.exec(same.stderr);
  expect(planned?.[2]).toBe(BUCKET_BOOK);
  expect(refused![1]).toBe(planned![1]);
  expect(Number(refused![1])).toBeGreaterThan(maxUsd);
  expect(start.stdout).not.toContain('started');
});
