/**
 * The per-cell CloudWatch metrics (lib/core/contract/cell-metrics.ts) as CloudWatch would store them: the EMF lines
 * of EmfMetricsSink, grouped the way CloudWatch identifies a metric — namespace, name and the full set of dimension
 * name/value pairs ("a unique combination of dimensions is a separate metric",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#Dimension) — and averaged
 * over the dashboard's 5-minute period. The cells are a real plan's (planRun over a spec).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EmfMetricsSink } from '../../../lib/aws/emf-metrics';
import { CELL_METRIC_DIMENSIONS, cellMetrics } from '../../../lib/core/contract/cell-metrics';
import { headlineOf } from '../../../lib/core/contract/headline';
import { planRun, type CellPlan } from '../../../lib/core/plan';
import { validateSpec } from '../../../lib/core/spec';
import { loadSpecFile } from '../../../lib/cli/spec-file';
import { aggregateCellStep, plan, readPlan } from '../../../lib/core/pipeline';
import { FsStore } from '../../../lib/local/fs-store';
import { baseSpec, withValue } from '../spec/fixtures';

const PERIOD_MS = 300_000;
const FLEET = path.join(__dirname, '../../fixtures/ycsb/fleet-small');

/** The cell's `cells` row as AggregateCell reads it back for its metrics (figures given by the test). */
function rowOf(cell: CellPlan, p99Us: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cell_id: cell.id,
    target_id: cell.target,
    distribution: cell.distributionLabel,
    read_proportion: cell.readProportion,
    target_ops_per_sec: cell.targetOpsPerSec,
    achieved_ops_per_sec: cell.targetOpsPerSec,
    good_ops_per_sec: cell.targetOpsPerSec,
    all_intended_p99_us: p99Us,
    incomplete: false,
    ...extra,
  };
}

/** CloudWatch's view of EMF lines: metric id → period start → the values received. */
function store(lines: string[]): Map<string, Map<number, number[]>> {
  const metrics = new Map<string, Map<number, number[]>>();
  for (const line of lines) {
    const doc = JSON.parse(line) as Record<string, unknown> & {
      _aws: {
        Timestamp: number;
        CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
      };
    };
    for (const d of doc._aws.CloudWatchMetrics)
      for (const set of d.Dimensions)
        for (const m of d.Metrics) {
          const dims = [...set].sort().map((k) => `${k}=${String(doc[k])}`);
          const id = [d.Namespace, m.Name, ...dims].join('|');
          const periods = metrics.get(id) ?? new Map<number, number[]>();
          const at = Math.floor(doc._aws.Timestamp / PERIOD_MS) * PERIOD_MS;
          periods.set(at, [...(periods.get(at) ?? []), doc[m.Name] as number]);
          metrics.set(id, periods);
        }
  }
  return metrics;
}

/** Each metric's 5-minute Average (the dashboard's statistic), by metric id, for one metric name. */
function averages(lines: string[], name: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [id, periods] of store(lines))
    if (id.split('|')[1] === name)
      out[id] = [...periods.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
  return out;
}

/** Sends each cell's metrics as AggregateCell does, every one at `atMs` (all ending in the same period). */
async function send(
  specName: string,
  cells: { cell: CellPlan; row: Record<string, unknown> }[],
  atMs = 1_795_000_000_000,
): Promise<string[]> {
  const lines: string[] = [];
  const sink = new EmfMetricsSink(
    (l) => lines.push(l),
    () => atMs,
  );
  for (const { cell, row } of cells) {
    const m = cellMetrics(headlineOf(row), { specName, cell });
    if (m) await sink.put(m.dimensions, m.data);
  }
  return lines;
}

const planOf = (data: unknown) => planRun(validateSpec(data).spec, { runId: 'r1' });
const example = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '../../../examples', name), 'utf8')) as unknown;

describe('per-cell metrics: one series per cell of a spec', () => {
  it('two steps of a sweep ending in the same 5 minutes stay two series (2 ms and 40 ms, not 21 ms)', async () => {
    const plan = planOf(
      withValue(withValue(baseSpec(), 'workload.readProportions', [0.5]), 'workload.distributions', [
        'uniform',
      ]),
    );
    expect(plan.cells.map((c) => c.targetOpsPerSec)).toEqual([100, 200]);
    const [slow, fast] = plan.cells;
    const lines = await send('unit', [
      { cell: slow!, row: rowOf(slow!, 2_000) },
      { cell: fast!, row: rowOf(fast!, 40_000) },
    ]);
    const p99 = averages(lines, 'IntendedP99');
    expect(p99).toEqual({
      'Fleetbench|IntendedP99|Distribution=uniform|ReadRatio=0.5|Spec=unit|Target=ddb|TargetOpsPerSec=100': [
        2_000,
      ],
      'Fleetbench|IntendedP99|Distribution=uniform|ReadRatio=0.5|Spec=unit|Target=ddb|TargetOpsPerSec=200': [
        40_000,
      ],
    });
  });

  it('two specs with the same target id are two series', async () => {
    const cell = planOf(baseSpec()).cells[0]!;
    const lines = [
      ...(await send('nightly-a', [{ cell, row: rowOf(cell, 2_000) }])),
      ...(await send('nightly-b', [{ cell, row: rowOf(cell, 40_000) }])),
    ];
    expect(Object.values(averages(lines, 'IntendedP99')).sort()).toEqual([[2_000], [40_000]]);
  });

  it('runs of a spec add points to the same metrics, never new ones; probes send nothing', async () => {
    // an SLO search: its probes' rates are decided by each run, so they would make new metrics every run
    const search = planOf(example('local-slo-search.json'));
    expect(search.cells.every((c) => c.probe)).toBe(true);
    const probeLines = await send(
      search.specName,
      search.cells.map((c, i) => ({ cell: c, row: rowOf(c, 1_000, { target_ops_per_sec: 20 * 2 ** i }) })),
    );
    expect(probeLines).toEqual([]);
    // a sweep, run twice a day apart: the same metric ids, one point per period each
    const plan = planOf(baseSpec());
    const run = (atMs: number) =>
      send(
        'unit',
        plan.cells.map((c) => ({ cell: c, row: rowOf(c, 3_000) })),
        atMs,
      );
    const first = store(await run(1_795_000_000_000));
    const both = store([...(await run(1_795_000_000_000)), ...(await run(1_795_086_400_000))]);
    expect([...both.keys()].sort()).toEqual([...first.keys()].sort());
    // 8 cells (2 distributions × 2 read ratios × 2 rates) × the 3 figures the rows have (P99, throughput, good)
    expect(first.size).toBe(8 * 3);
  });

  it('an unpaced cell is TargetOpsPerSec=max, a rate schedule TargetOpsPerSec=schedule (not the rate they reached)', async () => {
    const unpacedSpec = withValue(baseSpec(), 'workload.targetOpsPerSec', 'max');
    const unpaced = planOf(withValue(unpacedSpec, 'targets.0.allowOverdrive', true)).cells[0]!;
    const spike = planOf(example('local-spike.json')).cells[0]!;
    expect(spike.rateSchedule).toBeDefined();
    const dims = (cell: CellPlan) =>
      cellMetrics(headlineOf(rowOf(cell, 1_000, { target_ops_per_sec: 1234.5 })), { specName: 's', cell })!
        .dimensions.TargetOpsPerSec;
    expect([dims(unpaced), dims(spike)]).toEqual(['max', 'schedule']);
  });

  it("an incomplete cell and an A/A run's later repeats send nothing; the first repeat is the cell's series", async () => {
    const cells = planOf(withValue(baseSpec(), 'workload.repeats', 2)).cells;
    expect(cells.slice(0, 2).map((c) => c.id)).toEqual([
      'ddb.uniform.r50.t100.aa1',
      'ddb.uniform.r50.t100.aa2',
    ]);
    const of = (cell: CellPlan, extra: Record<string, unknown> = {}) =>
      cellMetrics(headlineOf(rowOf(cell, 1_000, extra)), { specName: 's', cell });
    expect(of(cells[1]!)).toBeNull();
    expect(of(cells[0]!, { incomplete: true, incomplete_reason: 'loader-1: no manifest.json' })).toBeNull();
    const plain = planOf(baseSpec()).cells[0]!;
    expect(of(cells[0]!)!.dimensions).toEqual(of(plain)!.dimensions);
  });
});

describe('AggregateCell', () => {
  it("sends the cell's metrics under its spec and planned rate (a real YCSB fleet's outputs, the FsStore)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cell-metrics-'));
    try {
      const store = new FsStore(dir);
      const quickstart = example('quickstart.json') as { workload: object };
      const spec = {
        ...quickstart,
        name: 'metrics-step',
        workload: { ...quickstart.workload, warmupSeconds: 3 },
      };
      const run = await plan({ executionName: 'metrics-step-1', spec }, { store, clock: { nowMs: () => 0 } });
      const cell = (await readPlan(store, run.runId)).cells[0]!;
      for (const e of readdirSync(FLEET, { recursive: true, withFileTypes: true }))
        if (e.isFile()) {
          const rel = path.relative(FLEET, path.join(e.parentPath, e.name));
          await store.putFile(`runs/${run.runId}/cells/${cell.id}/raw/${rel}`, path.join(FLEET, rel));
        }
      const puts: { dimensions: Record<string, string>; names: string[] }[] = [];
      const metrics = {
        put: async (dimensions: Record<string, string>, data: { name: string }[]) =>
          void puts.push({ dimensions, names: data.map((d) => d.name) }),
      };
      await aggregateCellStep({ run, index: 0 }, { store, metrics });
      expect(puts).toEqual([
        {
          dimensions: {
            Spec: 'metrics-step',
            Target: cell.target,
            Distribution: cell.distributionLabel,
            ReadRatio: '0.5',
            TargetOpsPerSec: '150',
          },
          names: expect.arrayContaining([
            'IntendedP99',
            'Throughput',
            'GoodThroughput',
            'Attainment',
          ]) as string[],
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("every example spec's cells", () => {
  // the ones that plan in a moment (a DynamoDB model's placement spread takes seconds): a sweep, a staircase, a
  // search, a schedule, several targets, the nightly spec
  const examples = [
    'nightly-regression.json',
    'seed-002-staircase.json',
    'seed-002-slo.json',
    'local-spike.json',
    'scylla-vs-cassandra.json',
    'quickstart.json',
    'keyspaces.json',
  ];

  it.each(examples)('%s: each cell that sends metrics has its own dimension values', (file) => {
    const plan = planRun(loadSpecFile(path.join(__dirname, '../../../examples', file)).spec, { runId: 'r1' });
    const sent = plan.cells
      .map((cell) => cellMetrics(headlineOf(rowOf(cell, 1_000)), { specName: plan.specName, cell }))
      .filter((m) => m !== null);
    const ids = sent.map((m) => JSON.stringify(m.dimensions));
    expect(new Set(ids).size).toBe(ids.length);
    // docs/aws-pipeline.md: the staircase's 240 cells, the nightly spec's 1
    if (file === 'seed-002-staircase.json') expect(ids.length).toBe(240);
    if (file === 'nightly-regression.json') expect(ids.length).toBe(1);
  });
});

describe('the EMF line', () => {
  it("declares the one dimension set the dashboard searches (test/infra: the widgets' SEARCH schemas)", async () => {
    const cell = planOf(baseSpec()).cells[0]!;
    const [line] = await send('unit', [{ cell, row: rowOf(cell, 1_000) }]);
    const doc = JSON.parse(line!) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
    };
    expect(doc._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([[...CELL_METRIC_DIMENSIONS]]);
    expect(CELL_METRIC_DIMENSIONS.map((k) => doc[k])).toEqual(['unit', 'ddb', 'uniform', '0.5', '100']);
  });
});
