import {
  cellProcesses,
  loadProcesses,
  planRun,
  requiredConcurrency,
  sizeTarget,
  splitEvenly,
  YCSB_INT_MAX,
} from '../../../lib/core/plan';
import { AGENT_OWNED_PROPERTIES } from '../../../lib/core/contract/job';
import { validateSpec } from '../../../lib/core/spec';
import { baseSpec, withValue } from '../spec/fixtures';

const plan = (data: unknown, runId = 'r1') => planRun(validateSpec(data).spec, { runId });

describe('cells', () => {
  it('expands targets × distributions × read proportions × throughput targets in that order, with stable ids', () => {
    const spec = withValue(baseSpec(), 'targets', [
      { id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } },
      { id: 'scylla', kind: 'scylla-ec2' },
    ]);
    const p = plan(spec);
    expect(p.cells).toHaveLength(2 * 2 * 2 * 2);
    expect(p.cells.slice(0, 4).map((c) => c.id)).toEqual([
      'ddb.uniform.r50.t100',
      'ddb.uniform.r50.t200',
      'ddb.uniform.r90.t100',
      'ddb.uniform.r90.t200',
    ]);
    expect(p.cells[8]!.id).toBe('scylla.uniform.r50.t100');
    expect(new Set(p.cells.map((c) => c.id)).size).toBe(p.cells.length);
    expect(p.cells.map((c) => c.index)).toEqual(p.cells.map((_, i) => i));
    // deterministic
    expect(plan(spec)).toEqual(p);
  });

  it('gives hotspot cells ids that carry the fractions, and YCSB its properties', () => {
    const spec = withValue(baseSpec(), 'workload.distributions', [
      { type: 'hotspot', dataFraction: 0.013, opFraction: 0.95 },
      'hotspot',
    ]);
    const p = plan(spec);
    expect(p.cells[0]!.id).toBe('ddb.hotspot-1p3-95.r50.t100');
    const props = cellProcesses(p.cells[0]!)[0]!.properties;
    expect(props).toMatchObject({
      requestdistribution: 'hotspot',
      hotspotdatafraction: '0.013',
      hotspotopnfraction: '0.95',
    });
    // the plain name means YCSB's own defaults
    expect(p.cells.map((c) => c.id)).toEqual([
      'ddb.hotspot-1p3-95.r50.t100',
      'ddb.hotspot-1p3-95.r50.t200',
      'ddb.hotspot-1p3-95.r90.t100',
      'ddb.hotspot-1p3-95.r90.t200',
      'ddb.hotspot-20-80.r50.t100',
      'ddb.hotspot-20-80.r50.t200',
      'ddb.hotspot-20-80.r90.t100',
      'ddb.hotspot-20-80.r90.t200',
    ]);
  });

  it('computes the update proportion of each cell from the sweep and keeps base inserts', () => {
    const spec = withValue(
      withValue(baseSpec(), 'workload.base', 'd'),
      'workload.readProportions',
      [0.5, 0.9],
    );
    const p = plan(spec);
    const c = p.cells.find((x) => x.readProportion === 0.9)!;
    expect(c.proportions).toEqual({
      read: 0.9,
      update: 0.05,
      insert: 0.05,
      scan: 0,
      readModifyWrite: 0,
      query: 0,
    });
    expect(cellProcesses(c)[0]!.properties).toMatchObject({
      readproportion: '0.9',
      updateproportion: '0.05',
      insertproportion: '0.05',
    });
    expect(p.warnings.join('\n')).toMatch(/inserts in the run phase/);
  });

  it('expands a staircase', () => {
    // a staircase past the provisioned capacity is an overdrive study (capacity check)
    const spec = withValue(
      withValue(baseSpec(), 'targets.0.allowOverdrive', true),
      'workload.targetOpsPerSec',
      {
        start: 10000,
        stop: 600000,
        step: 10000,
      },
    );
    const p = plan(
      withValue(withValue(spec, 'workload.readProportions', [0.5]), 'workload.distributions', ['uniform']),
    );
    expect(p.cells.map((c) => c.targetOpsPerSec)).toEqual(
      Array.from({ length: 60 }, (_, i) => (i + 1) * 10000),
    );
  });

  it('uses the base workload when there is no sweep', () => {
    const spec = withValue(
      withValue(baseSpec(), 'workload.readProportions', undefined),
      'workload.base',
      'b',
    );
    const p = plan(withValue(spec, 'workload.distributions', undefined));
    expect(p.cells.map((c) => [c.distribution, c.readProportion, c.updateProportion])).toEqual([
      ['zipfian', 0.95, 0.05],
      ['zipfian', 0.95, 0.05],
    ]);
  });
});

describe('per-process properties', () => {
  const spec = withValue(
    withValue(
      // 1,001 ops/s at 50% updates of a 2-WCU item needs 1,001 WCU: provision enough (capacity check)
      withValue(baseSpec(), 'targets.0.billing.wcu', 2000),
      'loaders',
      { count: 3, processesPerLoader: 3, threadsPerProcess: 5 },
    ),
    'workload.targetOpsPerSec',
    [1001, 17],
  );

  it('splits each cell target over all processes; the parts sum to the target and differ by at most one', () => {
    const p = plan(spec);
    for (const c of p.cells) {
      const parts = cellProcesses(c).map((x) => Number(x.properties.target));
      expect(parts).toHaveLength(9);
      expect(parts.reduce((a, x) => a + x, 0)).toBe(c.targetOpsPerSec);
      expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
      expect(Math.min(...parts)).toBeGreaterThan(0);
    }
    expect(splitEvenly(1001, 9)).toEqual([112, 112, 111, 111, 111, 111, 111, 111, 111]);
  });

  it('numbers loaders and processes, and sets the managed YCSB properties', () => {
    const c = plan(spec).cells[0]!;
    expect(cellProcesses(c).map((x) => `${x.loader}/${x.process}`)).toEqual([
      '0/0',
      '0/1',
      '0/2',
      '1/0',
      '1/1',
      '1/2',
      '2/0',
      '2/1',
      '2/2',
    ]);
    const props = cellProcesses(c)[0]!.properties;
    expect(props).toMatchObject({
      workload: 'site.ycsb.workloads.CoreWorkload',
      threadcount: '5',
      maxexecutiontime: '60',
      'measurement.interval': 'both',
      recordcount: '10000',
      'dynamodb.consistentReads': 'true',
      'dynamodb.keyAttribute': 'p',
      table: 'fleetbench-unit.ddb.r1',
    });
    // what the agent sets (output paths, exporter, status interval) the planner never sets
    for (const owned of AGENT_OWNED_PROPERTIES) expect(props[owned]).toBeUndefined();
    // run phase: no per-process key ranges (each process would only touch its slice)
    expect(props.insertstart).toBeUndefined();
    expect(props.insertcount).toBeUndefined();
    // 0.17.0 starts zero threads with operationcount=0: a count that outlasts the duration instead
    const opc = Number(props.operationcount);
    expect(opc).toBeGreaterThanOrEqual(Number(props.target) * 60);
    expect(opc).toBeLessThanOrEqual(YCSB_INT_MAX);
  });

  it('passes extra properties but never lets them override managed ones', () => {
    const p = plan(withValue(spec, 'workload.extraProperties', { 'spin.sleep': 'true' }));
    expect(cellProcesses(p.cells[0]!)[0]!.properties['spin.sleep']).toBe('true');
  });
});

describe('load phase', () => {
  it.each([
    [10000, 2, 1],
    [20000, 3, 2],
    [1_000_000_007, 3, 7],
    [5, 3, 4],
  ])('covers [0, %i) exactly once with %i processes per loader on %i loaders', (records, ppl, loaders) => {
    let spec = withValue(baseSpec(), 'dataset.recordCount', records);
    spec = withValue(spec, 'loaders', { count: loaders, processesPerLoader: ppl, threadsPerProcess: 4 });
    spec = withValue(spec, 'workload.targetOpsPerSec', [1000]);
    const p = plan(spec);
    const ranges = loadProcesses(p.load!).map((x) => [x.insertstart, x.insertstart + x.insertcount] as const);
    let expectStart = 0;
    for (const [s, e] of ranges) {
      expect(s).toBe(expectStart);
      expect(e).toBeGreaterThan(s);
      expectStart = e;
    }
    expect(expectStart).toBe(records);
    for (const x of loadProcesses(p.load!)) {
      expect(x.properties.recordcount).toBe(String(records));
      expect(x.properties.insertstart).toBe(String(x.insertstart));
      expect(x.properties.insertcount).toBe(String(x.insertcount));
    }
  });

  it('is null when the dataset is not loaded, and skips reused tables', () => {
    expect(plan(withValue(baseSpec(), 'dataset.load', false)).load).toBeNull();
    const reuse = withValue(baseSpec(), 'targets.0.existingTable', 'usertable');
    const p = plan(reuse);
    expect(p.load).toBeNull();
    expect(p.tables.ddb).toBe('usertable');
  });
});

describe("Little's Law sizing (seed 000's episode)", () => {
  // 200,000 ops/s at 6.2 ms mean latency needs 1,240 concurrent requests.
  const seedSpec = (count: number | 'auto') =>
    validateSpec({
      name: 'littles-law',
      targets: [
        {
          id: 'dynamodb',
          kind: 'dynamodb',
          billing: { mode: 'provisioned', rcu: 200000, wcu: 250000 },
          expectedLatencyMs: 6.2,
        },
      ],
      dataset: { recordCount: 1_000_000_000 },
      workload: {
        readProportions: [1],
        targetOpsPerSec: [200000],
        distributions: ['uniform'],
        durationSeconds: 600,
      },
      loaders: {
        instanceType: 'c5.2xlarge',
        count,
        processesPerLoader: 3,
        threadsPerProcess: 60,
        headroom: 1,
      },
    }).spec;

  it('needs 1,240 concurrent requests', () => {
    expect(requiredConcurrency(200000, 6.2, 1)).toBe(1240);
  });

  it('flags 6 loaders × 3 processes × 60 threads (1,080), naming both numbers', () => {
    const spec = seedSpec(6);
    const s = sizeTarget(spec, spec.targets[0]!, 200000);
    expect(s.totalThreads).toBe(1080);
    expect(s.requiredConcurrency).toBe(1240);
    expect(s.warnings).toHaveLength(2);
    expect(s.warnings[0]).toMatch(/1,080/);
    expect(s.warnings[0]).toMatch(/1,240/);
    expect(planRun(spec).warnings[0]).toBe(s.warnings[0]);
    // and the CPU (test/unit/plan/cpu-sizing.test.ts): 200,000 × 0.1846 CPU-ms = 36.92 vCPUs over 6 × 8 vCPUs
    expect(s.warnings[1]).toMatch(
      /6 loaders are too few for the CPU .* 7 loaders; each of 6 would be at ~77 % CPU/,
    );
  });

  it('picks 7 loaders with count "auto"', () => {
    const spec = seedSpec('auto');
    const p = planRun(spec);
    expect(p.sizing.dynamodb).toMatchObject({
      requiredConcurrency: 1240,
      loaders: 7,
      totalThreads: 1260,
      warnings: [],
    });
    expect(cellProcesses(p.cells[0]!)).toHaveLength(21);
  });

  it('applies headroom on top of the concurrency', () => {
    expect(requiredConcurrency(200000, 6.2, 1.25)).toBe(1550);
  });
});
