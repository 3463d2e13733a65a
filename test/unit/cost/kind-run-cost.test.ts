/**
 * The run estimate asks each target's kind for its lines (its `runCost` in the registry) and names no kind: a
 * kind's declaration alone decides its lines, its unpriced entries and how long its load takes. A kind whose
 * declaration lacks `runCost` does not compile. Validation's capacity check asks each kind alike (`cellChecks`).
 */
import { loadPriceBook } from '../../../lib/core/cost/book';
import { Q } from '../../../lib/core/cost/decimal';
import { capacityChecks } from '../../../lib/core/cost/capacity-check';
import { estimateRunCost } from '../../../lib/core/cost/estimate';
import type { KindRunCost } from '../../../lib/core/cost/lines';
import { planRun } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import type { ExternalTarget } from '../../../lib/core/spec/schema';
import type { TargetKind } from '../../../lib/core/targets/kind';
import { TARGET_KINDS } from '../../../lib/core/targets/registry';

const book = loadPriceBook('2024-11');

/** An external target loaded with 10,000 records by one process of 4 threads (1 ms expected latency). */
const spec = validateSpec({
  name: 'kinds',
  targets: [
    {
      id: 'ext',
      kind: 'external',
      protocol: 'redis',
      endpoints: ['db.example.com:6379'],
      redis: { cluster: false, tls: false },
      price: { usdPerHour: 1, date: '2024-11', source: 'https://example.com/pricing' },
      expectedLatencyMs: 1,
    },
  ],
  dataset: { recordCount: 10_000 },
  workload: {
    base: 'a',
    readProportions: [0.5],
    targetOpsPerSec: [100],
    distributions: ['uniform'],
    durationSeconds: 3540,
  },
  loaders: { instanceType: 'c5.2xlarge', count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
}).spec;

describe("the run estimate takes each target's lines from its kind", () => {
  const external = TARGET_KINDS.external;
  const own = external.runCost;
  afterEach(() => {
    external.runCost = own;
  });

  it("a kind's own lines, unpriced entries and load time are the estimate's", () => {
    const plan = planRun(spec);
    const seen: { rate?: number; records?: number } = {};
    const swapped: KindRunCost<ExternalTarget> = {
      estimate: (t, i, span) => ({
        items: [
          {
            kind: 'probe',
            label: `${t.id}: probe for ${span.runHours.toNumber()} h`,
            target: t.id,
            quantity: Q.of(3),
            unit: 'probe',
            unitUsd: Q.of('0.25'),
          },
        ],
        unpriced: [`targets[${i}].probe: no price`],
      }),
      loadSeconds: (_t, _spec, records, rate) => {
        seen.records = records.toNumber();
        seen.rate = rate.toNumber();
        return Q.of(3600);
      },
    };
    external.runCost = swapped;
    const e = estimateRunCost(spec, plan, book);
    // the load: 4 threads / 1 ms = 4,000 rows/s offered to the kind, which says one hour
    expect(seen).toEqual({ records: 10_000, rate: 4000 });
    expect(e.loadHours).toBe(1);
    // 900 s setup + 3,600 s load + 3,540 s cell + 60 s overhead = 8,100 s = 2.25 h
    expect(e.runHours).toBe(2.25);
    const probe = e.items.find((i) => i.kind === 'probe');
    expect(probe).toMatchObject({ label: 'ext: probe for 2.25 h', quantity: 3, usd: 0.75 });
    expect(e.unpriced).toEqual(['targets[0].probe: no price']);
    // the external kind's own attributed line is gone: only the declaration in the registry counts
    expect(e.attributed).toEqual([]);
  });

  it('without a load rule, a kind loads at the fleet rate', () => {
    const e = estimateRunCost(spec, planRun(spec), book);
    // 10,000 rows at 4,000 rows/s = 2.5 s
    expect(e.loadHours).toBe(Math.round((2.5 / 3600) * 1e4) / 1e4);
    expect(e.attributed.map((a) => a.kind)).toEqual(['external']);
  });

  it('a kind declared without its run cost does not compile', () => {
    const rest: Omit<TargetKind<ExternalTarget>, 'runCost'> = { ...TARGET_KINDS.external };
    delete (rest as Partial<TargetKind<ExternalTarget>>).runCost;
    // @ts-expect-error runCost is required of every kind
    const incomplete: TargetKind<ExternalTarget> = rest;
    expect(incomplete.runCost).toBeUndefined();
  });
});

describe("validation's capacity check asks each target's kind", () => {
  afterEach(() => {
    delete TARGET_KINDS.external.cellChecks;
  });

  it("a kind's cell checks see the target, its path and the cells, and their findings are the check's", () => {
    const cells = planRun(spec).cells;
    TARGET_KINDS.external.cellChecks = (t, at, run, out) => {
      out.issues.push({ path: `${at}.probe`, message: `${t.id}: ${run.cells.length} cell(s)` });
      out.warnings.push(`${at}: ${run.spec.name}`);
    };
    expect(capacityChecks(spec, cells)).toEqual({
      issues: [{ path: 'targets[0].probe', message: `ext: ${cells.length} cell(s)` }],
      warnings: ['targets[0]: kinds'],
    });
  });
});
