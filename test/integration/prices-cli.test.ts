/**
 * The real executable: `fleetbench prices refresh` against the local Price List stand-in (the real SDK client
 * under it), then `fleetbench plan` on a spec in eu-west-1 with and without the refreshed book.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fixtureItems,
  relabelled,
  startPriceListStandIn,
  type PriceListStandIn,
} from '../support/price-list-stand-in';

const root = join(__dirname, '..', '..');
const env = {
  ...process.env,
  AWS_ACCESS_KEY_ID: 'AKIDSTANDIN',
  AWS_SECRET_ACCESS_KEY: 'stand-in',
  AWS_SESSION_TOKEN: '',
};
// asynchronous: the stand-in answers from this process, so the test must not block its event loop
const cli = (...args: string[]) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin', 'fleetbench.js'), ...args],
      { cwd: root, env },
      (err, stdout, stderr) =>
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
const today = new Date().toISOString().slice(0, 10);

function euSpec(dir: string): string {
  const spec = JSON.parse(readFileSync(join(root, 'examples', 'quickstart.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const file = join(dir, 'eu.json');
  writeFileSync(file, JSON.stringify({ ...spec, region: 'eu-west-1' }));
  return file;
}

let standIn: PriceListStandIn;
beforeAll(async () => {
  standIn = await startPriceListStandIn(
    relabelled(fixtureItems('us-east-1'), 'eu-west-1', 'EU', 'EU (Ireland)'),
  );
});
afterAll(async () => standIn.close());

test('plan on an eu-west-1 spec with only the built-in book warns: another region, and stale, naming the fixing command', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetbench-prices-'));
  const r = await cli('plan', euSpec(dir), '--results', dir);
  expect(r.status).toBe(0);
  expect(r.stderr).toContain(
    "warning: price book 2024-11 is for us-east-1, but the run is in eu-west-1: its costs are us-east-1's prices; run `fleetbench prices refresh --region eu-west-1` for eu-west-1's",
  );
  expect(r.stderr).toMatch(/warning: price book 2024-11 is dated 2024-11-01, \d+ days ago \(more than 90\)/);
  expect(r.stdout).toContain('Prices: price book 2024-11 (2024-11-01, us-east-1), built in');
});

test('prices refresh writes the eu-west-1 book into the results directory; plan then uses it and says so, without the warnings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetbench-prices-'));
  const refresh = await cli(
    'prices',
    'refresh',
    '--region',
    'eu-west-1',
    '--results',
    dir,
    '--endpoint',
    standIn.endpoint,
  );
  expect(refresh.stderr).not.toMatch(/error|warning/i);
  expect(refresh.status).toBe(0);
  const file = join(dir, 'prices', 'eu-west-1', `aws-eu-west-1-${today}.json`);
  expect(existsSync(file)).toBe(true);
  expect(refresh.stdout).toContain(
    `Wrote price book aws-eu-west-1-${today} (eu-west-1, from the Price List API in eu-central-1)`,
  );
  const r = await cli('plan', euSpec(dir), '--results', dir);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(
    `Prices: price book aws-eu-west-1-${today} (${today}, eu-west-1), read from ${file}`,
  );
  expect(r.stdout).toMatch(
    new RegExp(`Estimated cost of the run on AWS: \\$[\\d.]+ \\(price book aws-eu-west-1-${today},`),
  );
  expect(r.stderr).not.toMatch(/price book/);
});

test('prices refresh --out writes where it is told; a bad endpoint is an error, nothing written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetbench-prices-'));
  const out = join(dir, 'mine.json');
  const ok = await cli(
    'prices',
    'refresh',
    '--region',
    'eu-west-1',
    '--out',
    out,
    '--endpoint',
    standIn.endpoint,
  );
  expect(ok.status).toBe(0);
  expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ region: 'eu-west-1', currency: 'USD' });
  const bad = join(dir, 'never.json');
  const r = await cli(
    'prices',
    'refresh',
    '--region',
    'us-east-1',
    '--out',
    bad,
    '--endpoint',
    standIn.endpoint,
  );
  // the stand-in serves eu-west-1 products only: us-east-1 has none of the prices the model needs
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(
    /dynamodb\.standard\.wcuHour \(AmazonDynamoDB, usage type WriteCapacityUnit-Hrs\): the Price List has no such product/,
  );
  expect(existsSync(bad)).toBe(false);
});
