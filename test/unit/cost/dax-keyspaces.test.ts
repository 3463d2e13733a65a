/**
 * DAX and Amazon Keyspaces cost. Reference figures: AWS's documented unit examples (Keyspaces developer guide),
 * the third-party pages the DAX prices come from (their own monthly figures), and hand arithmetic from the
 * book's prices shown next to each figure; none is computed by the code under test.
 */
import { loadPriceBook } from '../../../lib/core/cost/book';
import { daxForDuration, daxMonthly } from '../../../lib/core/targets/dynamodb/dax-cost';
import { keyspacesReadUnits, keyspacesWriteUnits } from '../../../lib/core/targets/keyspaces/cost';
import { monthlyCost, type CostReport } from '../../../lib/core/cost/report';
import { InputError } from '../../../lib/core/common/errors';

const nov = loadPriceBook('2024-11');
const seed = loadPriceBook('2023-seed');

describe('DAX node-hours', () => {
  it("reproduces the source pages' own monthly figures (720-hour months)", () => {
    // awsi.click: "dax.r5.large costs approximately $0.269 per hour (about $194 per month)": 0.269 × 720 = 193.68
    expect(daxForDuration(nov, { nodeType: 'dax.r5.large', nodes: 1 }, 720 * 3600).toNumber()).toBe(193.68);
    // usage.ai: "A minimum 3-node production cluster runs approximately $86/month" at $0.04: 3 × 0.04 × 720 = 86.4
    expect(daxForDuration(nov, { nodeType: 'dax.t3.small', nodes: 3 }, 720 * 3600).toNumber()).toBe(86.4);
  });

  it("a month is the book's 730 hours; every partial node-hour is a full hour", () => {
    // 3 × 0.269 × 730 = 589.11
    expect(daxMonthly(nov, { nodeType: 'dax.r5.large', nodes: 3 }).toNumber()).toBe(589.11);
    // a 1-second run and a 3601-second run of 3 nodes: 3 and 6 node-hours
    expect(daxForDuration(nov, { nodeType: 'dax.r5.large', nodes: 3 }, 1).toNumber()).toBe(0.807);
    expect(daxForDuration(nov, { nodeType: 'dax.r5.large', nodes: 3 }, 3601).toNumber()).toBe(1.614);
    expect(daxForDuration(nov, { nodeType: 'dax.r5.large', nodes: 3 }, 0).toNumber()).toBe(0);
  });

  it('an unknown node type or a node count DAX refuses is an InputError naming the field', () => {
    let e: InputError | undefined;
    try {
      daxMonthly(nov, { nodeType: 'dax.r5.24xlarge', nodes: 3 }, 'targets[1].dax');
    } catch (err) {
      e = err as InputError;
    }
    expect(e).toBeInstanceOf(InputError);
    expect(e!.issues[0]!.path).toBe('targets[1].dax.nodeType');
    expect(e!.issues[0]!.message).toMatch(
      /no DAX price for node type "dax.r5.24xlarge"; it has dax.t3.small, dax.r5.large/,
    );
    expect(() => daxMonthly(nov, { nodeType: 'dax.r5.large', nodes: 12 })).toThrow(/expected 1 to 11 nodes/);
    expect(() => daxMonthly(seed, { nodeType: 'dax.r5.large', nodes: 1 })).toThrow(/it has no DAX prices/);
  });
});

describe('Amazon Keyspaces', () => {
  it("request units follow AWS's examples", () => {
    // "if your row size is 8 KB, you require 2 RCUs to sustain one LOCAL_QUORUM read per second, and 1 RCU if
    // you choose LOCAL_ONE reads" (developer guide, provisioned capacity mode)
    expect(keyspacesReadUnits(8 * 1024, 'LOCAL_QUORUM')).toBe(2);
    expect(keyspacesReadUnits(8 * 1024, 'LOCAL_ONE')).toBe(1);
    expect(keyspacesReadUnits(8 * 1024, 'ONE')).toBe(1);
    // "For each 1 KB write, you are billed 1 ... WRU"; a YCSB row of 1,081 bytes is two 1 KB units
    expect(keyspacesWriteUnits(1024)).toBe(1);
    expect(keyspacesWriteUnits(1081)).toBe(2);
    expect(keyspacesReadUnits(1081, 'LOCAL_QUORUM')).toBe(1);
    expect(keyspacesReadUnits(1081, 'LOCAL_ONE')).toBe(0.5);
    expect(() => keyspacesWriteUnits(0)).toThrow(/rowBytes|bytes ≥ 1/);
  });

  /** The `fleetbench cost` report of a Keyspaces table of `rowBytes`-byte rows. */
  function keyspaces(input: Record<string, unknown>, book = nov) {
    const r: CostReport = monthlyCost({ itemBytes: 1000, storageGb: 0, ...input }, book);
    if (r.kind !== 'keyspaces') throw new Error(`expected a keyspaces report, got ${r.kind}`);
    return r;
  }

  it('on-demand: request units × price per unit, storage per GB-month', () => {
    const r = keyspaces({
      target: { kind: 'keyspaces' },
      throughput: { readsPerSec: 1000, writesPerSec: 1000 },
      storageGb: 10,
    });
    // 1000/s × 3600 × 730 = 2,628,000,000 units; reads × $0.125/M = 328.50; writes × $0.625/M = 1,642.50
    // storage 10 GB × $0.25 = 2.50
    expect(r.monthly.onDemand).toEqual({ writes: 1642.5, reads: 328.5, storage: 2.5, total: 1973.5 });
    const localOne = keyspaces({
      target: { kind: 'keyspaces', readConsistency: 'LOCAL_ONE' },
      throughput: { readsPerSec: 1000 },
    });
    expect(localOne.monthly.onDemand.reads).toBe(164.25); // half the units
  });

  it('provisioned: RCU/WCU × price per unit-hour × hours', () => {
    const r = keyspaces({
      target: { kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 1000, wcu: 1000 } },
      throughput: {},
    });
    // 1000 × 0.00013 × 730 = 94.90; 1000 × 0.00065 × 730 = 474.50
    expect(r.monthly.provisionedAsConfigured).toEqual({
      writes: 474.5,
      reads: 94.9,
      storage: 0,
      total: 569.4,
    });
    expect(() => keyspaces({ target: { kind: 'keyspaces' }, throughput: {} }, seed)).toThrow(
      /has no Amazon Keyspaces prices/,
    );
  });
});
