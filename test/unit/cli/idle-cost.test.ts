/** `fleetbench idle-cost` (the real executable): per-mode figures from the synthesized templates. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

jest.setTimeout(60_000);

const root = join(__dirname, '..', '..', '..');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'fleetbench.js'), 'idle-cost', ...args], {
    encoding: 'utf8',
    cwd: root,
  });

it('--json prices the private network line by line: 6 endpoints × 2 AZs × 730 h × $0.01 and the rest', () => {
  const r = cli('--network', 'private', '--json');
  expect(r.status).toBe(0);
  const [row] = JSON.parse(r.stdout) as {
    network: string;
    usdPerMonth: number;
    lines: { item: string; count: number; periods: number; usdPerMonth: number; source: string }[];
  }[];
  expect(row!.network).toBe('private');
  const endpoints = row!.lines.find((l) => l.item.startsWith('VPC interface endpoint'))!;
  expect(endpoints).toMatchObject({ count: 12, periods: 730, usdPerMonth: 87.6 });
  expect(endpoints.source).toBe('https://aws.amazon.com/privatelink/pricing/');
  expect(row!.usdPerMonth).toBeCloseTo(
    row!.lines.reduce((s, l) => s + l.usdPerMonth, 0),
    2,
  );
});

it('an unknown mode is an input error naming the option (exit 2)', () => {
  const r = cli('--network', 'nat');
  expect(r.status).toBe(2);
  expect(r.stderr.trim()).toBe('--network: expected one of public, private, existing-vpc, found "nat"');
});

it('a price book without idle prices is an input error naming the book', () => {
  const r = cli('--network', 'public', '--prices', '2023-seed');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/\(idle\): price book "2023-seed" has no idle prices/);
});
