/**
 * Sizing by CPU as well as concurrency (lib/core/plan/sizing.ts), with numbers worked by hand:
 *   CPU-ms per op = cpuMsPerThousandOps / 1000 × perVcpuFactor; vCPUs busy = ops/s × CPU-ms per op / 1000;
 *   CPU loaders = ceil(vCPUs busy / (0.70 × vCPUs per loader)); loaders = max(concurrency, CPU).
 */
import { InputError } from '../../../lib/core/common/errors';
import { loadPriceBook, parsePriceBook } from '../../../lib/core/cost/book';
import { planRun } from '../../../lib/core/plan';
import { cpuSizing, sizeTarget } from '../../../lib/core/plan/sizing';
import { validateSpec } from '../../../lib/core/spec';

/** A book whose figures make the arithmetic easy: 100 CPU-ms per 1,000 ops, c5 × 2 → 0.2 CPU-ms per op. */
const book = {
  id: 'test',
  loaderCpu: {
    bindings: {
      dynamodb: {
        binding: 'dev.fleetbench.ycsb.DynamoDbClient',
        cpuMsPerThousandOps: 100,
        measuredWith: 'by hand',
        date: '2026-11-23',
        machine: 'test',
        source: 'test',
      },
    },
    families: {
      c5: { perVcpuFactor: 2, basis: 'estimate' as const, source: 'test' },
      m2: { perVcpuFactor: 1, basis: 'estimate' as const, source: 'test' },
    },
  },
};

const spec = (over: { count?: number | 'auto'; instanceType?: string; api?: 'cql' } = {}) =>
  validateSpec({
    name: 'cpu-sizing',
    targets: [
      over.api
        ? { id: 't', kind: 'scylla-ec2', api: 'cql', expectedLatencyMs: 2 }
        : { id: 't', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 2 },
    ],
    dataset: { recordCount: 1000 },
    workload: {
      readProportions: [0.5],
      targetOpsPerSec: [1000],
      distributions: ['uniform'],
      durationSeconds: 60,
    },
    loaders: {
      instanceType: over.instanceType ?? 'c5.2xlarge',
      count: over.count ?? 'auto',
      processesPerLoader: 1,
      threadsPerProcess: 200,
      headroom: 1,
    },
  }).spec;

describe('sizing by CPU', () => {
  it('50,000 ops/s: 10 vCPUs busy; a c5.2xlarge gives 0.7 × 8 = 5.6, so 2 loaders where concurrency needs 1', () => {
    const s = sizeTarget(spec(), spec().targets[0]!, 50_000, book);
    // concurrency: 50,000 × 2 ms = 100 requests ≤ 200 threads of one loader
    expect(s.requiredConcurrency).toBe(100);
    expect(s.concurrencyLoaders).toBe(1);
    expect(s.cpu).toMatchObject({ vcpus: 8, perVcpuFactor: 2, basis: 'estimate', loaders: 2 });
    expect(s.cpu!.cpuMsPerOp).toBeCloseTo(0.2, 12);
    expect(s.cpu!.cpusNeeded).toBeCloseTo(10, 9);
    expect(s.cpu!.utilisation).toBeCloseTo(10 / 16, 9);
    expect(s).toMatchObject({ loaders: 2, decidedBy: 'cpu', totalThreads: 400 });
    expect(s.warnings).toEqual([
      'loaders: CPU decides for target "t": 50,000 ops/s × 0.2 CPU-ms per op (100 CPU-ms per 1,000 ops measured × 2 ' +
        'per c5 vCPU, an estimate) = 10 vCPUs busy; at ≤ 70 % of the 8 vCPUs of a c5.2xlarge that is 2 loaders, ' +
        'more than the 1 that concurrency needs',
    ]);
  });

  it('at the 70 % line: 28,000 ops/s = 5.6 vCPUs fits one loader, 28,001 needs two', () => {
    expect(cpuSizing(book, 'dynamodb', 'c5.2xlarge', 28_000)).toMatchObject({ loaders: 1 });
    expect(cpuSizing(book, 'dynamodb', 'c5.2xlarge', 28_001)).toMatchObject({ loaders: 2 });
  });

  it('the larger need wins: CPU on a c5.4xlarge, concurrency on a c5.18xlarge, a tie goes to concurrency', () => {
    // c5.4xlarge: 0.7 × 16 = 11.2; 200,000 × 0.2 / 1000 = 40 vCPUs → 4 loaders; concurrency 400 / 200 → 2
    const a = sizeTarget(spec({ instanceType: 'c5.4xlarge' }), spec().targets[0]!, 200_000, book);
    expect(a).toMatchObject({ concurrencyLoaders: 2, loaders: 4, decidedBy: 'cpu' });
    expect(a.cpu!.loaders).toBe(4);
    // c5.18xlarge: 0.7 × 72 = 50.4; 300,000 → 60 vCPUs → 2 loaders; concurrency 600 / 200 → 3
    const b = sizeTarget(spec({ instanceType: 'c5.18xlarge' }), spec().targets[0]!, 300_000, book);
    expect(b).toMatchObject({ concurrencyLoaders: 3, loaders: 3, decidedBy: 'concurrency', warnings: [] });
    expect(b.cpu!.loaders).toBe(2);
    // 20,000 ops/s on a c5.4xlarge: 40 requests → 1; 4 vCPUs / 11.2 → 1
    const t = sizeTarget(spec({ instanceType: 'c5.4xlarge' }), spec().targets[0]!, 20_000, book);
    expect(t).toMatchObject({ loaders: 1, decidedBy: 'concurrency', warnings: [] });
  });

  it('a fixed count too small for the CPU: a warning with the utilisation it would run at', () => {
    const s = sizeTarget(spec({ count: 1 }), spec().targets[0]!, 50_000, book);
    expect(s).toMatchObject({ loaders: 1, decidedBy: 'count' });
    // 10 vCPUs busy on one loader's 8: 125 %
    expect(s.warnings).toEqual([
      expect.stringMatching(
        /^loaders\.count: 1 loaders are too few for the CPU of target "t": .* each of 1 would be at ~125 % CPU and its cells suspect \(use "auto" for 2 loaders\)$/,
      ),
    ]);
  });

  it('no figure for the protocol, the family or the size: concurrency only, and why', () => {
    const cql = sizeTarget(spec({ api: 'cql' }), spec({ api: 'cql' }).targets[0]!, 50_000, book);
    expect(cql).toMatchObject({ cpu: null, loaders: 1, decidedBy: 'concurrency', warnings: [] });
    expect(cql.cpuNote).toBe(
      'price book "test" has no measured loader CPU per operation for the cql binding: sized for concurrency only',
    );
    const m5 = sizeTarget(spec({ instanceType: 'm5.2xlarge' }), spec().targets[0]!, 50_000, book);
    expect(m5.cpuNote).toMatch(/no loader CPU factor for instance family "m5"/);
    // m2.xlarge: a previous-generation type whose vCPUs its size does not tell (lib/core/common/instance-types.ts)
    const m2 = sizeTarget(spec({ instanceType: 'm2.xlarge' }), spec().targets[0]!, 50_000, book);
    expect(m2.cpuNote).toMatch(/vCPUs of "m2.xlarge" are not known/);
    expect(sizeTarget(spec(), spec().targets[0]!, 50_000, { id: 'bare' }).cpu).toBeNull();
  });
});

describe('the built-in books', () => {
  it("seed 000's 200,000 ops/s on c5.2xlarge: 92.3 × 2 → 36.92 vCPUs busy, 7 loaders by CPU (6 by threads would run at 77 %)", () => {
    const s = sizeTarget(spec(), spec().targets[0]!, 200_000, loadPriceBook('2024-11'));
    expect(s.cpu).toMatchObject({
      cpuMsPerThousandOps: 92.3,
      perVcpuFactor: 2,
      basis: 'estimate',
      loaders: 7,
    });
    expect(s.cpu!.cpusNeeded).toBeCloseTo(36.92, 9);
    // the plan uses the book it is given
    expect(planRun(spec(), { priceBook: '2024-11' }).sizing.t!.cpu!.cpuMsPerThousandOps).toBe(92.3);
  });

  it('every built-in book carries the measurement with its provenance, and every family factor says its basis', () => {
    for (const id of ['2023-seed', '2024-11']) {
      const b = loadPriceBook(id);
      expect(b.loaderCpu!.bindings.dynamodb).toMatchObject({
        date: '2026-11-23',
        measuredWith: expect.stringMatching(/npm run bench:loader/),
      });
      for (const f of Object.values(b.loaderCpu!.families))
        expect(f.source).toMatch(f.basis === 'estimate' ? /^estimate, not measured/ : /./);
    }
  });

  it('a bad loaderCpu in a book is an InputError naming the field', () => {
    const data = JSON.parse(JSON.stringify(loadPriceBook('2024-11'))) as Record<string, unknown> & {
      loaderCpu: { families: Record<string, { perVcpuFactor: number }> };
    };
    delete data.file;
    data.loaderCpu.families.c5!.perVcpuFactor = 0;
    const err = (() => {
      try {
        return parsePriceBook(data, '/tmp/custom.json');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0]!.path).toBe(
      '/tmp/custom.json (loaderCpu.families.c5.perVcpuFactor)',
    );
  });
});
