/**
 * The monthly cost (`fleetbench cost`, the cells' cost columns) asks the target's kind for its report (its
 * `monthlyCost` in the registry) and names no kind; a price a book lacks is one error class for every kind, so a
 * cell of any kind the book cannot price has empty cost columns rather than $0 or a failed run.
 */
import { loadPriceBook } from '../../../lib/core/cost/book';
import { Q } from '../../../lib/core/cost/decimal';
import { billedMonthly, headlineTotals, monthlyCost } from '../../../lib/core/cost/report';
import { UnpricedError, linesReport } from '../../../lib/core/cost/report-parts';
import { cellCostsFor } from '../../../lib/core/pipeline/costing';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import type { ExternalTarget } from '../../../lib/core/spec/schema';
import type { TargetKind } from '../../../lib/core/targets/kind';
import { TARGET_KINDS } from '../../../lib/core/targets/registry';

const book = loadPriceBook('2024-11');
const external = TARGET_KINDS.external;
const own = external.monthlyCost;
afterEach(() => {
  external.monthlyCost = own;
});

/** The external kind's cost input, its report replaced by `report`. */
function swap(report: (typeof own)['report']) {
  external.monthlyCost = { input: own.input, report };
}

const input = {
  target: { id: 'e', kind: 'external', price: { usdPerHour: 1 } },
  throughput: { readsPerSec: 10, writesPerSec: 5 },
};

describe("the monthly cost takes each target's report from its kind", () => {
  it("a kind's own report is the cost command's", () => {
    swap((t, i, b) =>
      linesReport(t as { id?: string; kind: 'external' }, {
        input: i,
        book: b,
        lines: { probe: Q.of(3) },
        pricing: { from: 'probe' },
      }),
    );
    const r = monthlyCost(input, book);
    expect(r).toMatchObject({
      kind: 'external',
      pricing: { from: 'probe' },
      monthly: { probe: 3, total: 3 },
    });
    // not a table: its total is what it bills
    expect(headlineTotals(r)).toEqual({ total: 3 });
    expect(billedMonthly(r)).toEqual({ provisioned: null, onDemand: null, own: 3 });
  });

  it("a price the book lacks, in any kind's report, leaves the cell's cost columns empty", () => {
    const spec = validateSpec({
      name: 'unpriced',
      targets: [
        {
          id: 'ext',
          kind: 'external',
          protocol: 'redis',
          endpoints: ['db.example.com:6379'],
          redis: { cluster: false, tls: false },
          price: { usdPerHour: 1, date: '2024-11', source: 'https://example.com/pricing' },
        },
      ],
      dataset: { recordCount: 1000 },
      workload: {
        readProportions: [0.5],
        targetOpsPerSec: [100],
        distributions: ['uniform'],
        durationSeconds: 60,
      },
      loaders: { count: 1 },
    }).spec;
    const cell = planRun(spec).cells[0]!;
    // with its own report: priced
    expect(cellCostsFor(spec, book)(cell, 100).monthlyCostUsd).toBe(book.hoursPerMonth);
    swap(() => {
      throw new UnpricedError([{ path: 'target.price', message: 'no price in this book' }]);
    });
    expect(cellCostsFor(spec, book)(cell, 100)).toEqual({});
    // any other error still fails
    swap(() => {
      throw new Error('broken');
    });
    expect(() => cellCostsFor(spec, book)(cell, 100)).toThrow('broken');
  });

  it('a kind declared without its monthly cost does not compile', () => {
    const rest: Omit<TargetKind<ExternalTarget>, 'monthlyCost'> = { ...TARGET_KINDS.external };
    delete (rest as Partial<TargetKind<ExternalTarget>>).monthlyCost;
    // @ts-expect-error monthlyCost is required of every kind
    const incomplete: TargetKind<ExternalTarget> = rest;
    expect(incomplete.monthlyCost).toBeUndefined();
  });
});
