import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Command } from 'commander';
import { costDocument, register, renderCost } from '../../../lib/cli/commands/cost';
import { loadPriceBook } from '../../../lib/core/cost/book';

const seedExample = {
  target: { kind: 'dynamodb', id: 'ddb', consistentReads: true },
  throughput: { readsPerSec: 50_000, writesPerSec: 50_000 },
  itemBytes: 1081,
  storageGb: 1000,
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-cost-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, data: unknown): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
  return f;
}

async function run(args: string[]): Promise<string> {
  const program = new Command('fleetbench').exitOverride();
  register(program);
  let out = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    spy.mockRestore();
  }
  return out;
}

describe('fleetbench cost', () => {
  it('prints the issue JSON shape for DynamoDB with --json', async () => {
    const doc = JSON.parse(
      await run(['cost', write('seed.json', seedExample), '--prices', '2023-seed', '--json']),
    );
    expect(doc.priceBook).toBe('2023-seed');
    expect(doc.units).toEqual({ writeUnitsPerWrite: 2, readUnitsPerRead: 1 });
    expect(doc.monthly.provisioned).toEqual({ writes: 47450, reads: 4745, storage: 250, total: 52445 });
    expect(doc.monthly.onDemand).toEqual({ writes: 328500, reads: 32850, storage: 250, total: 361600 });
  });

  it('defaults to the newest book and prints a readable summary without --json', async () => {
    const text = await run(['cost', write('seed2.json', seedExample)]);
    expect(text).toMatch(/price book 2024-11/);
    expect(text).toMatch(/provisioned \(100,000 WCU, 50,000 RCU\): .* = \$52,445\.00\/month/);
    expect(text).toMatch(/on-demand: .* = \$180,925\.00\/month/);
  });

  it('prints a Keyspaces table with the lines of a DynamoDB table, per million and per billion operations', () => {
    const text = renderCost(
      costDocument(
        {
          target: { id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 5000, wcu: 5000 } },
          throughput: { readsPerSec: 1000, writesPerSec: 1000 },
          dataset: { recordCount: 1_000_000, fieldCount: 10, fieldLength: 100 },
        },
        loadPriceBook('2024-11'),
      ),
    );
    // figures worked by hand in test/unit/keyspaces/target.test.ts (1,060-B rows, 2,000 WCU / 1,000 RCU needed)
    expect(text.split('\n').slice(2)).toEqual([
      "row 1060 B (Keyspaces' encoded size): 2 write unit(s) per write, 1 read unit(s) per LOCAL_QUORUM read; " +
        'storage 1.080334 GB',
      '  provisioned (2,000 WCU, 1,000 RCU): writes $949.00 + reads $94.90 + storage $0.27 = $1,044.17/month',
      '  provisioned as configured (5,000 WCU, 5,000 RCU): writes $2,372.50 + reads $474.50 + storage $0.27 = ' +
        '$2,847.27/month',
      '  on-demand: writes $3,285.00 + reads $328.50 + storage $0.27 = $3,613.77/month',
      '  per million ops: provisioned $0.198662, on-demand $0.687551',
      '  per billion ops: provisioned $198.66, on-demand $687.55',
      '',
    ]);
  });

  it('prints per million operations to a millionth of a dollar (seed example: $199.56 per billion)', () => {
    const text = renderCost(costDocument(seedExample, loadPriceBook('2024-11')));
    // $52,445.00 provisioned / (100,000 ops/s × 3,600 × 730 = 262.8 billion ops) = $0.199562 per million
    expect(text).toContain('  per million ops: provisioned $0.199562, on-demand $0.688451');
    expect(text).toContain('  per billion ops: provisioned $199.56, on-demand $688.45');
  });

  it('gives monthly.total with its parts for other kinds', async () => {
    const f = write('scylla.json', {
      target: { kind: 'scylla-ec2', id: 'scylla', nodes: 3, instanceType: 'i4i.2xlarge' },
      throughput: { readsPerSec: 50_000, writesPerSec: 50_000 },
    });
    const doc = JSON.parse(await run(['cost', f, '--json']));
    expect(doc.monthly).toEqual({ nodes: 1502.34, total: 1502.34 });
  });

  it('compares a list of inputs with ratios between every pair', () => {
    const doc = costDocument(
      [
        { ...seedExample, throughput: { readsPerSec: 28_500, writesPerSec: 28_500 } },
        { target: { kind: 'external', id: 'cloud', price: { usdPerMonth: 4544 } }, throughput: {} },
      ],
      loadPriceBook('2023-seed'),
    );
    if (!('results' in doc)) throw new Error('expected a comparison');
    expect(doc.results).toHaveLength(2);
    const r = doc.ratios.find((x) => x.a === 'ddb onDemand' && x.b === 'cloud')!;
    expect(r.ratio).toBeCloseTo(206_219.5 / 4544, 3);
    expect(renderCost(doc)).toMatch(/ratios:\n {2}ddb provisioned \/ ddb onDemand = /);
  });

  it('names the file and field of bad input', () => {
    expect(() =>
      costDocument(
        { target: { kind: 'dynamodb' }, throughput: { writesPerSec: -5 } },
        loadPriceBook(),
        'in.json',
      ),
    ).toThrow(/in.json: throughput.writesPerSec: expected a number at least 0, found number -5/);
    expect(() => costDocument([seedExample, { target: {} }], loadPriceBook(), 'in.json')).toThrow(
      /in.json\[1\]: target/,
    );
  });

  it('exits 2 with a message on bad input, and 0 on good input (real CLI process)', () => {
    const cli = path.join(__dirname, '../../../bin/fleetbench.js');
    const bad = spawnSync(process.execPath, [cli, 'cost', write('bad.json', '{"target":'), '--json'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/bad.json: not valid JSON/);
    const book = spawnSync(
      process.execPath,
      [cli, 'cost', write('ok.json', seedExample), '--prices', 'nope'],
      { encoding: 'utf8' },
    );
    expect(book.status).toBe(2);
    expect(book.stderr).toMatch(/--prices: unknown price book "nope"/);
    const ok = spawnSync(
      process.execPath,
      [cli, 'cost', write('ok2.json', seedExample), '--prices', '2023-seed', '--json'],
      {
        encoding: 'utf8',
      },
    );
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).monthly.provisioned.total).toBe(52445);
  });
});
