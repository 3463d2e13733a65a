/**
 * The run estimate and the budget cap. Expected figures are hand arithmetic from the book prices
 * and the documented assumptions (15 min setup/teardown, 60 s per cell), shown next to each.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadPriceBook } from '../../../lib/core/cost/book';
import { capacityChecks } from '../../../lib/core/cost/capacity-check';
import { budgetIssues, estimateRunCost } from '../../../lib/core/cost/estimate';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { InputError } from '../../../lib/core/common/errors';

const nov = loadPriceBook('2024-11');
const seed = loadPriceBook('2023-seed');

/** One cell of 3,540 s: the run lasts 900 + 3,540 + 60 = 4,500 s = 1.25 h. */
function spec(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'est',
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'provisioned', rcu: 1000, wcu: 1000 },
        consistentReads: true,
      },
    ],
    dataset: { recordCount: 10_000, load: false },
    workload: {
      base: 'a',
      readProportions: [0.5],
      targetOpsPerSec: [100],
      distributions: ['uniform'],
      durationSeconds: 3540,
    },
    loaders: { instanceType: 'c5.2xlarge', count: 1, processesPerLoader: 2, threadsPerProcess: 4 },
    ...over,
  };
}

function estimate(data: Record<string, unknown>, book = nov) {
  const s = validateSpec(data).spec;
  return { s, e: estimateRunCost(s, planRun(s), book) };
}

const item = (e: ReturnType<typeof estimateRunCost>, label: RegExp) => {
  const found = e.items.find((i) => label.test(i.label));
  if (!found) throw new Error(`no item ${label}: ${e.items.map((i) => i.label).join(' | ')}`);
  return found;
};

describe('run estimate items', () => {
  it('provisioned DynamoDB: capacity for the run duration, loaders for the same hours', () => {
    const { e } = estimate(spec());
    expect(e.runHours).toBe(1.25);
    expect(e.loadHours).toBe(0);
    // 1,000 WCU × 1.25 h × $0.00065 = $0.8125 ; 1,000 RCU × 1.25 h × $0.00013 = $0.1625
    expect(item(e, /1,000 WCU provisioned/)).toMatchObject({ quantity: 1250, unit: 'WCU-hour', usd: 0.81 });
    expect(item(e, /1,000 RCU provisioned/)).toMatchObject({ quantity: 1250, unit: 'RCU-hour', usd: 0.16 });
    // 1 × c5.2xlarge × 1.25 h × $0.34 = $0.425
    expect(item(e, /c5.2xlarge loaders/)).toMatchObject({ quantity: 1.25, usd: 0.43 });
    expect(e.items.filter((i) => i.kind === 'dynamodb-requests')).toHaveLength(0);
  });

  it('on-demand DynamoDB: request units at the target throughput, and the load writes', () => {
    const { e } = estimate(
      spec({
        targets: [{ id: 'od', kind: 'dynamodb', billing: { mode: 'on-demand' }, consistentReads: false }],
        dataset: { recordCount: 10_000, load: true, loadTargetOpsPerSec: 1000 },
      }),
    );
    // 100 ops/s × 0.5 × 2 WRU × 3,540 s = 354,000 WRU × $0.625/M = $0.22125
    expect(item(e, /od: write request units/)).toMatchObject({ quantity: 354_000, usd: 0.22 });
    // 100 × 0.5 × 0.5 RRU (eventual) × 3,540 s = 88,500 RRU × $0.125/M = $0.0110625
    expect(item(e, /od: read request units/)).toMatchObject({ quantity: 88_500, usd: 0.01 });
    // 10,000 items × 2 WRU = 20,000 WRU × $0.625/M = $0.0125
    expect(item(e, /od: loading 10,000 items of 1084 B/)).toMatchObject({ quantity: 20_000, usd: 0.01 });
    // load at 1,000 items/s (the spec's cap, under 4,000 WRU/s / 2): 10 s
    expect(e.loadHours).toBeCloseTo(10 / 3600, 4);
  });

  it('uses the older book on request', () => {
    const { e } = estimate(
      spec({ targets: [{ id: 'od', kind: 'dynamodb', billing: { mode: 'on-demand' } }] }),
      seed,
    );
    expect(e.priceBook).toBe('2023-seed');
    expect(item(e, /od: write request units/).usd).toBe(0.44); // 354,000 × $1.25/M = $0.4425
  });

  it('models an on-demand load that outgrows a new table: 4,000 WRU/s doubling every 30 minutes', () => {
    const { e } = estimate(
      spec({
        targets: [{ id: 'od', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
        dataset: { recordCount: 5_000_000, load: true, loadTargetOpsPerSec: 5000 },
        loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 100 },
      }),
    );
    // 2,000 items/s for 1,800 s = 3.6M; then min(4,000, 5,000)/s for the last 1.4M = 350 s
    expect(e.loadHours).toBeCloseTo(2150 / 3600, 4);
  });

  it('EC2 nodes for the run, and external services attributed outside the AWS total', () => {
    const { e } = estimate(
      spec({
        targets: [
          { id: 'scylla', kind: 'scylla-ec2', nodes: 3, instanceType: 'i4i.2xlarge', ebsGb: 100 },
          {
            id: 'cloud',
            kind: 'external',
            protocol: 'cql',
            endpoints: ['x:9042'],
            price: { usdPerMonth: 4544 },
          },
        ],
      }),
    );
    // sequential (the default): each target lives 900 + 3,540 + 60 = 4,500 s = 1.25 h, one after the other: 2.5 h
    expect(e.execution).toBe('sequential');
    expect(e.runHours).toBe(2.5);
    // each target billed for its own life only: 3 × 1.25 h × $0.686 = $2.5725
    expect(item(e, /scylla: 3 × i4i.2xlarge/)).toMatchObject({ quantity: 3.75, usd: 2.57 });
    // 3 × 100 GB × $0.08 × 1.25/730 = $0.0411…
    expect(item(e, /scylla: 3 × 100 GB gp3/).usd).toBe(0.04);
    // $4,544/month × 1.25/730 = $7.7808…
    expect(e.attributed).toEqual([expect.objectContaining({ target: 'cloud', usd: 7.78 })]);
    expect(e.items.some((i) => i.target === 'cloud')).toBe(false);
  });

  it("a DBaaS price model: its hourly parts and storage for the run's hours, the cells' operations per million", () => {
    // seed 004 §2.6.2, MongoDB Atlas: $1.00 per server per hour, $0.000182 per GB per hour of storage; here 9
    // servers, 200 GB, a made-up $0.25 flat per hour and $0.10 per million operations
    const { e } = estimate(
      spec({
        targets: [
          {
            id: 'atlas',
            kind: 'external',
            protocol: 'mongodb',
            endpoints: ['mongodb://x:27017'],
            price: {
              usdPerHour: 0.25,
              usdPerNodeHour: 1,
              nodes: 9,
              usdPerGbMonth: 0.000182 * 730,
              storageGb: 200,
              usdPerMillionOps: 0.1,
              date: '2023',
              source: 'https://www.mongodb.com/pricing',
            },
          },
        ],
      }),
    );
    expect(e.runHours).toBe(1.25);
    // 100 ops/s × 3,540 s = 354,000 operations = 0.354 M × $0.10 = $0.0354
    // $0.25 + 9 × $1 + 200 GB × $0.000182 = $9.2864 per hour × 1.25 h = $11.608
    expect(e.attributed.map((a) => [a.unit, a.quantity, a.unitUsd, a.usd])).toEqual([
      ['million operations', 0.354, 0.1, 0.04],
      ['hour', 1.25, 9.2864, 11.61],
    ]);
    expect(e.items.some((i) => i.target === 'atlas')).toBe(false);
  });

  it('itemises the pipeline overhead, and the total is the sum of the items', () => {
    const { e } = estimate(spec());
    const kinds = e.items.filter((i) => i.kind === 'pipeline').map((i) => i.label);
    for (const w of [
      'Step Functions',
      'Lambda requests',
      'Lambda compute',
      'CloudWatch',
      'S3 PUT',
      'S3 GET',
      'S3 storage',
      'Athena',
    ]) {
      expect(kinds.some((k) => k.startsWith(w))).toBe(true);
    }
    // transitions: 40 + 15 per cell + 2 × ceil(3,540 / 30) polls = 291 × $0.025/1,000
    expect(item(e, /Step Functions/)).toMatchObject({ quantity: 291, unit: 'transition' });
    const cents = e.items.reduce((s, i) => s + Math.round(i.usd * 100), 0);
    expect(Math.round(e.totalUsd * 100)).toBe(cents);
  });

  it('is part of every plan', () => {
    const s = validateSpec(spec()).spec;
    expect(planRun(s).estimate.totalUsd).toBe(estimateRunCost(s, planRun(s), nov).totalUsd);
    expect(planRun(s, { priceBook: '2023-seed' }).estimate.priceBook).toBe('2023-seed');
  });
});

describe('budget cap', () => {
  it('refuses a run above budget.maxUsd, saying by how much', () => {
    const { s, e } = estimate(spec({ budget: { maxUsd: 1 } }));
    expect(e.totalUsd).toBeGreaterThan(1);
    const issues = budgetIssues(s, e);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('budget.maxUsd');
    const over = (Math.round(e.totalUsd * 100) - 100) / 100;
    expect(issues[0]!.message).toContain(`$${over.toFixed(2)} over the budget of $1.00`);
    expect(issues[0]!.message).toMatch(/largest items: ddb: 1,000 WCU provisioned/);
  });

  it('accepts a run within budget, and a spec without one', () => {
    const { s, e } = estimate(spec({ budget: { maxUsd: 100 } }));
    expect(budgetIssues(s, e)).toEqual([]);
    const { s: s2, e: e2 } = estimate(spec());
    expect(budgetIssues(s2, e2)).toEqual([]);
  });

  it('cannot check a budget when the book lacks a price, and says so', () => {
    const { s, e } = estimate(
      spec({ budget: { maxUsd: 100 }, loaders: { instanceType: 'm5.large', count: 1 } }),
    );
    expect(e.unpriced[0]).toMatch(/loaders.instanceType: no price for "m5.large"/);
    expect(budgetIssues(s, e)[0]!.message).toMatch(/cannot check the budget/);
    expect(planRun(s).warnings.join('\n')).toMatch(/m5.large/);
  });

  it('fleetbench plan exits 2 over budget and prints the estimate within it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-budget-'));
    const cli = path.join(__dirname, '../../../bin/fleetbench.js');
    try {
      const over = path.join(dir, 'over.json');
      fs.writeFileSync(over, JSON.stringify(spec({ budget: { maxUsd: 0.5 } })));
      const r = spawnSync(process.execPath, [cli, 'plan', over], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        /budget.maxUsd: the run is estimated at \$[\d.]+ .*over the budget of \$0\.50/,
      );
      const ok = path.join(dir, 'ok.json');
      fs.writeFileSync(ok, JSON.stringify(spec({ budget: { maxUsd: 100 } })));
      const j = spawnSync(process.execPath, [cli, 'plan', ok, '--json'], { encoding: 'utf8' });
      expect(j.status).toBe(0);
      const doc = JSON.parse(j.stdout);
      expect(doc.estimate.totalUsd).toBeGreaterThan(1);
      expect(doc.estimate.items.length).toBeGreaterThan(5);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('capacity checks in validation', () => {
  it('is an error naming the cell, the units needed and provisioned', () => {
    const bad = spec({ workload: { ...(spec().workload as object), targetOpsPerSec: [1500] } });
    try {
      validateSpec(bad);
      throw new Error('not refused');
    } catch (e) {
      const issues = (e as InputError).issues;
      // 1,500 × 0.5 × 2 WCU = 1,500 WCU > 1,000 ; reads 750 RCU fit
      expect(issues).toEqual([
        {
          path: 'targets[0].billing.wcu',
          message: expect.stringMatching(
            /cell "ddb.uniform.r50.t1500" at 1,500 ops\/s needs 1,500 WCU .* but 1,000 are provisioned/,
          ),
        },
      ]);
    }
  });

  it('is a warning when the target allows overdriving', () => {
    const data = spec({ workload: { ...(spec().workload as object), targetOpsPerSec: [3000] } });
    (data.targets as Record<string, unknown>[])[0]!.allowOverdrive = true;
    const { warnings } = validateSpec(data);
    // 3,000 × 0.5 × 2 = 3,000 WCU ; 3,000 × 0.5 × 1 = 1,500 RCU
    expect(warnings.join('\n')).toMatch(/billing.wcu: .* needs 3,000 WCU/);
    expect(warnings.join('\n')).toMatch(/billing.rcu: .* needs 1,500 RCU/);
  });

  it('groups cells that differ only by distribution, and halves reads for eventual consistency', () => {
    const s = validateSpec(
      spec({
        targets: [
          {
            id: 'ddb',
            kind: 'dynamodb',
            billing: { mode: 'provisioned', rcu: 100, wcu: 5000 },
            allowOverdrive: true,
          },
        ],
        workload: {
          ...(spec().workload as object),
          readProportions: [1],
          distributions: ['uniform', 'zipfian'],
          targetOpsPerSec: [300],
        },
      }),
    ).spec;
    const found = capacityChecks(s, planRun(s).cells);
    expect(found.issues).toEqual([]);
    // 300 reads/s × 0.5 RCU = 150 RCU > 100
    expect(found.warnings).toEqual([
      expect.stringMatching(/cells "ddb.uniform.r100.t300", "ddb.zipfian.r100.t300" .* need 150 RCU/),
    ]);
  });

  it('counts scans by their mean length (workload e: maxscanlength 100)', () => {
    const s = validateSpec(
      spec({
        targets: [
          {
            id: 'ddb',
            kind: 'dynamodb',
            billing: { mode: 'provisioned', rcu: 100_000, wcu: 100_000 },
            consistentReads: true,
          },
        ],
        workload: { base: 'e', targetOpsPerSec: [100], durationSeconds: 60 },
      }),
    ).spec;
    const cells = planRun(s).cells;
    const tight = {
      ...s,
      targets: [{ ...s.targets[0]!, billing: { mode: 'provisioned' as const, rcu: 2500, wcu: 100_000 } }],
    };
    // 95 scans/s × ceil(50.5 × 1,084 / 4,096) = 95 × 14 = 1,330 RCU: fits 2,500
    expect(capacityChecks(tight, cells).issues).toEqual([]);
    const tighter = {
      ...s,
      targets: [{ ...s.targets[0]!, billing: { mode: 'provisioned' as const, rcu: 1000, wcu: 100_000 } }],
    };
    expect(capacityChecks(tighter, cells).issues[0]!.message).toMatch(/needs 1,330 RCU/);
  });

  it('leaves on-demand targets alone', () => {
    const s = validateSpec(
      spec({ targets: [{ id: 'od', kind: 'dynamodb', billing: { mode: 'on-demand' } }] }),
    ).spec;
    expect(capacityChecks(s, planRun(s).cells)).toEqual({ issues: [], warnings: [] });
  });
});
