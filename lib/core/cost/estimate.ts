/**
 * What a run itself will cost on AWS, from the spec and its plan: loader instance-hours, DynamoDB
 * capacity for the run's duration (or request units at the target throughput), load writes,
 * node-hours of EC2-hosted targets, and the pipeline's own overhead. Assumptions are constants
 * below and are described in docs/cost-model.md. Exact arithmetic; items rounded to cents.
 */
import { cassandraEbsGbPerNode } from '../targets/cassandra-ec2/node';
import type { Issue } from '../common/errors';
import type { RunSpec } from '../spec/schema';
import { PriceBook, dynamoPrices, usd, type DynamoClassPrices } from './book';
import { BYTES_PER_GB, storageGbForItems } from './capacity';
import { Q } from './decimal';
import { daxBilledNodeHours, daxNodeHourPrice } from '../targets/dynamodb/dax-cost';
import { memoryDbEstimate } from '../targets/memorydb/cost';
import { externalCharges, totalOf } from './monthly';
import { CellLike, cellUnitsPerSec, dynamoOpUnits } from './workload-units';
import { loadProcesses, type LoadProcessesInput } from '../plan/processes';
import {
  DEFAULT_EXPECTED_LATENCY_MS,
  type CassandraEc2Target,
  type DynamoDbTarget,
  type ExternalTarget,
  type KeyspacesTarget,
  type ScyllaEc2Target,
  type Target,
  type TargetKind,
} from '../spec/schema';
import {
  keyspacesPrices,
  keyspacesReadUnits,
  keyspacesRowBytes,
  keyspacesStorageGb,
  keyspacesWriteUnits,
} from '../targets/keyspaces/cost';

/** The parts of a plan the estimate reads (structurally lib/core/plan's Plan). */
export interface PlanLike {
  cells: readonly CellLike[];
  load: (LoadProcessesInput & { targets: string[] }) | null;
  fleet: { instanceType: string; loaders: number };
  cellSeconds: number;
}

export const ESTIMATE_ASSUMPTIONS = {
  /** Provisioning, waiting for readiness and teardown, once per run. */
  setupAndTeardownSeconds: 900,
  /** A DAX cluster is billed from its creation (10+ minutes before it is available) to its deletion. */
  daxSetupSeconds: 1800,
  /** Configure + dispatch + aggregate around each cell. */
  perCellOverheadSeconds: 60,
  /** A new on-demand table sustains 4,000 write units/s (AWS docs) and may double every 30 minutes. */
  onDemandInitialWriteUnitsPerSec: 4000,
  onDemandDoublingSeconds: 1800,
  /** Default per-table throughput quota. */
  tableQuotaUnitsPerSec: 40_000,
  /** The state machine polls running work every 30 s (a Wait and a Task: 2 transitions). */
  pollSeconds: 30,
  fixedTransitions: 40,
  transitionsPerCell: 15,
  fixedLambdaInvocations: 20,
  lambdaInvocationsPerCell: 5,
  /** Small handlers: 256 MB for 1 s; the aggregator: 2 GB for 60 s per cell. */
  smallLambdaGbSeconds: 0.25,
  aggregatorGbSecondsPerCell: 120,
  /** EMF metrics per cell (per operation: p50/p99/p99.9/throughput/errors). */
  metricsPerCell: 20,
  /** Objects per YCSB process per cell (HDR log, summary, stdout, stderr) and per cell (rows, manifest...). */
  objectsPerProcess: 4,
  objectsPerCell: 10,
  /** Bytes of HDR log per process per status interval, kept one month. */
  hdrBytesPerInterval: 4096,
  athenaQueriesPerRun: 10,
  /** Athena bills at least 10 MB per query. */
  athenaMinBytesPerQuery: 10 * 1024 * 1024,
} as const;

export interface EstimateItem {
  /** What the line is for: loaders, dynamodb-capacity, dynamodb-requests, dynamodb-load, dax, storage, nodes, external, pipeline. */
  kind: string;
  label: string;
  target?: string;
  quantity: number;
  unit: string;
  unitUsd: number;
  usd: number;
}

export interface RunEstimate {
  priceBook: string;
  /** AWS charges the run causes (external services excluded). */
  totalUsd: number;
  /** Wall-clock time the estimate assumes resources exist. */
  runHours: number;
  loadHours: number;
  items: EstimateItem[];
  /** Prices of external services for the run's duration: not billed by AWS, not in totalUsd. */
  attributed: EstimateItem[];
  /** Things the book could not price (left out of totalUsd). */
  unpriced: string[];
}

const A = ESTIMATE_ASSUMPTIONS;

interface Line {
  kind: string;
  label: string;
  target?: string;
  quantity: Q;
  unit: string;
  unitUsd: Q;
}

function round(q: Q, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(q.toNumber() * f) / f;
}

/** Seconds to load `records` rows on one target, and the rate cap that applies. */
function loadSeconds(spec: RunSpec, plan: PlanLike, targetId: string): Q {
  const target = spec.targets.find((t) => t.id === targetId);
  const records = Q.of(spec.dataset.recordCount);
  if (!target || !plan.load) return Q.ZERO;
  const threads = loadProcesses(plan.load).reduce((s, p) => s + Number(p.properties.threadcount ?? 1), 0);
  const latencyMs = target.expectedLatencyMs ?? DEFAULT_EXPECTED_LATENCY_MS[target.kind];
  // Little's Law: the load fleet completes threads / latency inserts per second at most
  let rate = Q.of(threads).mul(1000).div(latencyMs);
  if (spec.dataset.loadTargetOpsPerSec) rate = rate.min(spec.dataset.loadTargetOpsPerSec);
  if (target.kind !== 'dynamodb') return records.div(rate);
  const wupw = dynamoOpUnits(spec, target).writeUnitsPerWrite;
  if (target.billing.mode === 'provisioned') return records.div(rate.min(Q.of(target.billing.wcu).div(wupw)));
  // on-demand: starts at the warm throughput (or 4,000 WRU/s) and may double every 30 minutes
  let units = Q.of(target.warmThroughput?.writeUnitsPerSecond ?? A.onDemandInitialWriteUnitsPerSec);
  let left = records;
  let seconds = Q.ZERO;
  for (let step = 0; step < 10_000 && left.cmp(0) > 0; step++) {
    const r = rate.min(units.div(wupw));
    const done = r.mul(A.onDemandDoublingSeconds);
    if (done.cmp(left) >= 0) return seconds.add(left.div(r));
    left = left.sub(done);
    seconds = seconds.add(A.onDemandDoublingSeconds);
    units = units.mul(2).min(target.billing.maxWriteRequestUnits ?? A.tableQuotaUnitsPerSec);
  }
  return seconds;
}

/** Provisioned capacity held for the run's hours (a DynamoDB or Keyspaces table: WCU and RCU lines). */
function capacityLines(
  kind: string,
  target: string,
  capacity: { wcu: number; rcu: number },
  prices: DynamoClassPrices,
  runHours: Q,
): Line[] {
  return (['wcu', 'rcu'] as const).map((unit) => ({
    kind,
    label: `${target}: ${capacity[unit].toLocaleString('en-US')} ${unit.toUpperCase()} provisioned for the run`,
    target,
    quantity: runHours.mul(capacity[unit]),
    unit: `${unit.toUpperCase()}-hour`,
    unitUsd: usd(unit === 'wcu' ? prices.wcuHour : prices.rcuHour),
  }));
}

/** On-demand request units over the target's cells (their target throughput × duration). */
function cellRequestUnits(plan: PlanLike, target: string, units: Parameters<typeof cellUnitsPerSec>[1]) {
  let reads = Q.ZERO;
  let writes = Q.ZERO;
  for (const c of plan.cells) {
    if (c.target !== target) continue;
    const u = cellUnitsPerSec(c, units);
    reads = reads.add(u.reads.mul(c.durationSeconds));
    writes = writes.add(u.writes.mul(c.durationSeconds));
  }
  return { reads, writes };
}

/** Write and read request-unit lines at on-demand prices. */
function requestLines(
  kind: string,
  target: string,
  units: { writes: Q; reads: Q },
  labels: { writes: string; reads: string },
  prices: DynamoClassPrices,
): Line[] {
  return [
    {
      kind,
      label: `${target}: ${labels.writes}`,
      target,
      quantity: units.writes,
      unit: 'write request unit',
      unitUsd: usd(prices.wruPerMillion).div(1_000_000),
    },
    {
      kind,
      label: `${target}: ${labels.reads}`,
      target,
      quantity: units.reads,
      unit: 'read request unit',
      unitUsd: usd(prices.rruPerMillion).div(1_000_000),
    },
  ];
}

/**
 * A Keyspaces table for the run: provisioned capacity for the run's hours, or (on-demand) request units at the
 * cells' target throughput and the load's writes; and the rows stored for the run, as a DynamoDB table's lines.
 */
function keyspacesEstimate(t: KeyspacesTarget, _i: number, r: RunSpan): TargetEstimate {
  const { spec, plan, runHours, book } = r;
  const prices = keyspacesPrices(book);
  const row = keyspacesRowBytes({
    fieldCount: spec.dataset.fieldCount,
    fieldLength: spec.dataset.fieldLength,
  });
  const wpw = keyspacesWriteUnits(row.requestBytes);
  const rpr = keyspacesReadUnits(row.requestBytes, t.readConsistency);
  const out: Line[] = [];
  const of = { target: t.id };
  if (t.capacity.mode === 'provisioned') {
    out.push(...capacityLines('keyspaces-capacity', t.id, t.capacity, prices, runHours));
  } else {
    const units = cellRequestUnits(plan, t.id, {
      itemBytes: row.requestBytes,
      consistency: 'strong',
      writeUnitsPerWrite: wpw,
      readUnitsPerRead: rpr,
    });
    if (plan.load?.targets.includes(t.id))
      units.writes = units.writes.add(Q.of(spec.dataset.recordCount).mul(wpw));
    out.push(
      ...requestLines(
        'keyspaces-requests',
        t.id,
        units,
        {
          writes: `write request units at the cells' target throughput and the load (${row.requestBytes} B rows)`,
          reads: `read request units at the cells' target throughput (${t.readConsistency} reads)`,
        },
        prices,
      ),
    );
  }
  const gb = keyspacesStorageGb(spec.dataset.recordCount, row.storageBytes);
  out.push({
    kind: 'storage',
    label: `${t.id}: ${round(gb, 3)} GB stored for the run`,
    ...of,
    quantity: gb.mul(runHours).div(book.hoursPerMonth),
    unit: 'GB-month',
    unitUsd: usd(prices.storageGbMonth),
  });
  return { items: out };
}

/** A DAX cluster's node-hours from creation to deletion, each partial node-hour billed as a full one. */
function daxLine(
  target: string,
  dax: { nodeType: string; nodes: number },
  runSeconds: Q,
  book: PriceBook,
  path: string,
): Line {
  const nodeHours = daxBilledNodeHours(dax, runSeconds.add(A.daxSetupSeconds).toNumber(), path);
  return {
    kind: 'dax',
    label: `${target}: DAX cluster of ${dax.nodes} × ${dax.nodeType} for the run (${nodeHours / dax.nodes} h billed per node)`,
    target,
    quantity: Q.of(nodeHours),
    unit: 'node-hour',
    unitUsd: daxNodeHourPrice(book, dax.nodeType, `${path}.nodeType`),
  };
}

/** A target's part of the estimate: AWS charges, charges attributed to it outside AWS, what the book lacks. */
interface TargetEstimate {
  items?: Line[];
  attributed?: Line[];
  unpriced?: string[];
}

/** What a target's estimate lines need to know of the run. */
interface RunSpan {
  spec: RunSpec;
  plan: PlanLike;
  book: PriceBook;
  runSeconds: Q;
  runHours: Q;
}

/** A DynamoDB table for the run: capacity or requests, the load, DAX in front of it, the rows stored. */
function dynamoDbEstimate(t: DynamoDbTarget, i: number, r: RunSpan): TargetEstimate {
  const { spec, plan, book, runSeconds, runHours } = r;
  const hpm = Q.of(book.hoursPerMonth);
  const lines: Line[] = [];
  const prices = dynamoPrices(book, t.tableClass === 'STANDARD' ? 'standard' : 'standard-ia');
  const units = dynamoOpUnits(spec, t);
  const created = !t.existingTable;
  if (t.billing.mode === 'provisioned') {
    if (created) lines.push(...capacityLines('dynamodb-capacity', t.id, t.billing, prices, runHours));
  } else {
    lines.push(
      ...requestLines(
        'dynamodb-requests',
        t.id,
        cellRequestUnits(plan, t.id, units),
        {
          writes: "write request units at the cells' target throughput",
          reads: `read request units at the cells' target throughput (${units.consistency} reads)`,
        },
        prices,
      ),
    );
    if (plan.load?.targets.includes(t.id)) {
      lines.push({
        kind: 'dynamodb-load',
        label: `${t.id}: loading ${spec.dataset.recordCount.toLocaleString('en-US')} items of ${units.itemBytes} B`,
        target: t.id,
        quantity: Q.of(spec.dataset.recordCount).mul(units.writeUnitsPerWrite),
        unit: 'write request unit',
        unitUsd: usd(prices.wruPerMillion).div(1_000_000),
      });
    }
  }
  if (t.dax) lines.push(daxLine(t.id, t.dax, runSeconds, book, `targets[${i}].dax`));
  if (created) {
    const gb = storageGbForItems(spec.dataset.recordCount, units.itemBytes);
    lines.push({
      kind: 'storage',
      label: `${t.id}: ${round(gb, 3)} GB stored for the run`,
      target: t.id,
      quantity: gb.mul(runHours).div(hpm),
      unit: 'GB-month',
      unitUsd: usd(prices.storageGbMonth),
    });
  }
  return { items: lines };
}

/** Database nodes on EC2 (scylla-ec2, cassandra-ec2): instance-hours and their EBS volumes. */
function nodesEstimate(t: ScyllaEc2Target | CassandraEc2Target, i: number, r: RunSpan): TargetEstimate {
  const { book, runHours } = r;
  const hpm = Q.of(book.hoursPerMonth);
  const lines: Line[] = [];
  const unpriced: string[] = [];
  const p = book.ec2[t.instanceType];
  // scylla-ec2: the root volume when the spec sizes it (data on the instance store); cassandra-ec2: the data volume
  const ebsGb = t.kind === 'scylla-ec2' ? t.ebsGb : cassandraEbsGbPerNode(t);
  if (p) {
    lines.push({
      kind: 'nodes',
      label: `${t.id}: ${t.nodes} × ${t.instanceType} nodes for the run`,
      target: t.id,
      quantity: runHours.mul(t.nodes),
      unit: 'instance-hour',
      unitUsd: usd(p),
    });
  } else
    unpriced.push(`targets[${i}].instanceType: no price for "${t.instanceType}" in price book "${book.id}"`);
  if (ebsGb) {
    lines.push({
      kind: 'storage',
      label: `${t.id}: ${t.nodes} × ${ebsGb} GB gp3`,
      target: t.id,
      quantity: Q.of(t.nodes).mul(ebsGb).mul(runHours).div(hpm),
      unit: 'GB-month',
      unitUsd: usd(book.ebs.gp3GbMonth),
    });
  }
  return { items: lines, unpriced };
}

/** An external target's price model: attributed to it, outside the AWS total. */
function externalEstimate(t: ExternalTarget, _i: number, r: RunSpan): TargetEstimate {
  const { plan, book, runHours } = r;
  const attributed: Line[] = [];
  // the price's charges for one hour without operations (its hourly parts, its storage prorated), and the
  // requests at each cell's target
  const perHour = totalOf(
    externalCharges({ price: t.price, opsPerSec: 0, hours: 1, hoursPerMonth: book.hoursPerMonth }),
  );
  if ('date' in t.price && t.price.usdPerMillionOps !== undefined) {
    const ops = plan.cells
      .filter((c) => c.target === t.id)
      .reduce((a, c) => a.add(Q.of(c.targetOpsPerSec).mul(c.durationSeconds)), Q.ZERO);
    attributed.push({
      kind: 'external',
      label: `${t.id}: operations at the cells' targets, at its given price per million`,
      target: t.id,
      quantity: ops.div(1_000_000),
      unit: 'million operations',
      unitUsd: Q.of(t.price.usdPerMillionOps),
    });
  }
  attributed.push({
    kind: 'external',
    label: `${t.id}: external service at its given price for the run`,
    target: t.id,
    quantity: runHours,
    unit: 'hour',
    unitUsd: perHour,
  });
  return { attributed };
}

type TargetOf<K extends TargetKind> = Extract<Target, { kind: K }>;
type EstimateOf<K extends TargetKind> = (t: TargetOf<K>, i: number, r: RunSpan) => TargetEstimate;

/**
 * Each target kind's part of the estimate, looked up by kind: a new kind adds its entry here (the mapped type
 * refuses to compile without one).
 */
const TARGET_ESTIMATES: { [K in TargetKind]: EstimateOf<K> } = {
  dynamodb: dynamoDbEstimate,
  'scylla-ec2': nodesEstimate,
  'cassandra-ec2': nodesEstimate,
  keyspaces: keyspacesEstimate,
  external: externalEstimate,
  memorydb: memoryDbEstimate,
};

function targetEstimate<K extends TargetKind>(t: TargetOf<K>, i: number, r: RunSpan): TargetEstimate {
  const estimate: EstimateOf<K> = TARGET_ESTIMATES[t.kind as K];
  return estimate(t, i, r);
}

/**
 * The run's cost on AWS, itemised. Prices missing from the book (say, an instance type) are listed
 * in `unpriced` and left out of the total rather than failing the plan.
 */
/** What the run's own pipeline bills: transitions, Lambda, EMF metrics, S3 objects and storage, Athena. */
function pipelineLines(r: RunSpan, load: Q): Line[] {
  const { spec, plan, book } = r;
  const pp = book.pipeline;
  const hpm = Q.of(book.hoursPerMonth);
  const cellPolls = plan.cells.reduce((s, c) => s + Math.ceil(c.durationSeconds / A.pollSeconds), 0);
  const loadPolls = load.div(A.pollSeconds).ceil();
  const transitions = Q.of(A.fixedTransitions + plan.cells.length * A.transitionsPerCell + 2 * cellPolls).add(
    Q.of(loadPolls).mul(2),
  );
  const invocations = Q.of(
    A.fixedLambdaInvocations + plan.cells.length * A.lambdaInvocationsPerCell + cellPolls,
  ).add(Q.of(loadPolls));
  const processes =
    plan.cells.reduce((s, c) => s + c.loaders * c.processesPerLoader, 0) +
    (plan.load ? plan.load.processes : 0);
  const objects = Q.of(processes * A.objectsPerProcess + plan.cells.length * A.objectsPerCell);
  const intervals = plan.cells.reduce(
    (s, c) =>
      s +
      c.loaders * c.processesPerLoader * Math.ceil(c.durationSeconds / spec.workload.statusIntervalSeconds),
    0,
  );
  const metricHours = plan.cells.reduce(
    (s, c) => s + A.metricsPerCell * Math.ceil((c.durationSeconds + A.perCellOverheadSeconds) / 3600),
    0,
  );
  return [
    {
      kind: 'pipeline',
      label: 'Step Functions state transitions',
      quantity: transitions,
      unit: 'transition',
      unitUsd: usd(pp.stepFunctionsPerThousandTransitions).div(1000),
    },
    {
      kind: 'pipeline',
      label: 'Lambda requests',
      quantity: invocations,
      unit: 'request',
      unitUsd: usd(pp.lambdaPerMillionRequests).div(1_000_000),
    },
    {
      kind: 'pipeline',
      label: 'Lambda compute (handlers and per-cell aggregation)',
      quantity: invocations.mul(A.smallLambdaGbSeconds).add(plan.cells.length * A.aggregatorGbSecondsPerCell),
      unit: 'GB-second',
      unitUsd: usd(pp.lambdaPerGbSecond),
    },
    {
      kind: 'pipeline',
      label: 'CloudWatch custom metrics (EMF), prorated by the hour',
      quantity: Q.of(metricHours).div(hpm),
      unit: 'metric-month',
      unitUsd: usd(pp.cloudWatchPerMetricMonth),
    },
    {
      kind: 'pipeline',
      label: 'S3 PUT requests (HDR logs, summaries, result rows)',
      quantity: objects,
      unit: 'request',
      unitUsd: usd(pp.s3PerThousandPuts).div(1000),
    },
    {
      kind: 'pipeline',
      label: 'S3 GET requests (aggregation reads each object once)',
      quantity: objects,
      unit: 'request',
      unitUsd: usd(pp.s3PerThousandGets).div(1000),
    },
    {
      kind: 'pipeline',
      label: 'S3 storage of raw results for one month',
      quantity: Q.of(intervals).mul(A.hdrBytesPerInterval).div(BYTES_PER_GB),
      unit: 'GB-month',
      unitUsd: usd(pp.s3PerGbMonth),
    },
    {
      kind: 'pipeline',
      label: 'Athena queries for the report (10 MB minimum each)',
      quantity: Q.of(A.athenaQueriesPerRun * A.athenaMinBytesPerQuery).div(
        Q.of(1024).mul(1024).mul(1024).mul(1024),
      ),
      unit: 'TB scanned',
      unitUsd: usd(pp.athenaPerTbScanned),
    },
  ];
}

/** A line priced: its quantity × unit price, in dollars and in whole cents (the total sums cents). */
function toItem(l: Line): EstimateItem & { cents: bigint } {
  const cost = l.quantity.mul(l.unitUsd);
  return {
    kind: l.kind,
    label: l.label,
    ...(l.target ? { target: l.target } : {}),
    quantity: round(l.quantity),
    unit: l.unit,
    unitUsd: round(l.unitUsd, 12),
    usd: cost.toUsd(),
    cents: cost.toCents(),
  };
}

const strip = ({ cents: _c, ...rest }: EstimateItem & { cents: bigint }): EstimateItem => rest;

/** The loader fleet for the whole run, or a note that the book has no price for its instance type. */
function loaderLine(plan: PlanLike, book: PriceBook, runHours: Q): { line?: Line; unpriced?: string } {
  const loaderPrice = book.ec2[plan.fleet.instanceType];
  if (!loaderPrice)
    return {
      unpriced: `loaders.instanceType: no price for "${plan.fleet.instanceType}" in price book "${book.id}"`,
    };
  return {
    line: {
      kind: 'loaders',
      label: `${plan.fleet.loaders} × ${plan.fleet.instanceType} loaders for the run`,
      quantity: runHours.mul(plan.fleet.loaders),
      unit: 'instance-hour',
      unitUsd: usd(loaderPrice),
    },
  };
}

export function estimateRunCost(spec: RunSpec, plan: PlanLike, book: PriceBook): RunEstimate {
  const lines: Line[] = [];
  const attributed: Line[] = [];
  const unpriced: string[] = [];

  let load = Q.ZERO;
  if (plan.load) for (const id of plan.load.targets) load = load.add(loadSeconds(spec, plan, id));
  const runSeconds = Q.of(A.setupAndTeardownSeconds)
    .add(load)
    .add(plan.cellSeconds)
    .add(plan.cells.length * A.perCellOverheadSeconds);
  const runHours = runSeconds.div(3600);

  const loaders = loaderLine(plan, book, runHours);
  if (loaders.line) lines.push(loaders.line);
  if (loaders.unpriced) unpriced.push(loaders.unpriced);

  const span: RunSpan = { spec, plan, book, runSeconds, runHours };
  spec.targets.forEach((t, i) => {
    const e = targetEstimate(t, i, span);
    lines.push(...(e.items ?? []));
    attributed.push(...(e.attributed ?? []));
    unpriced.push(...(e.unpriced ?? []));
  });
  lines.push(...pipelineLines(span, load));

  const items = lines.map(toItem);
  const total = items.reduce((s, it) => s + it.cents, 0n);
  return {
    priceBook: book.id,
    totalUsd: Number(total) / 100,
    runHours: round(runHours, 4),
    loadHours: round(load.div(3600), 4),
    items: items.map(strip),
    attributed: attributed.map(toItem).map(strip),
    unpriced,
  };
}

const money = (x: number) =>
  `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/**
 * The budget cap: an issue at budget.maxUsd when the estimate exceeds it (saying by how much), or
 * when something could not be priced and so the cap cannot be checked.
 */
export function budgetIssues(spec: RunSpec, estimate: RunEstimate): Issue[] {
  if (!spec.budget) return [];
  const max = spec.budget.maxUsd;
  const issues: Issue[] = [];
  if (estimate.totalUsd > max) {
    const over = Math.round((estimate.totalUsd - max) * 100) / 100;
    const top = [...estimate.items]
      .sort((a, b) => b.usd - a.usd)
      .slice(0, 3)
      .map((it) => `${it.label} ${money(it.usd)}`)
      .join('; ');
    issues.push({
      path: 'budget.maxUsd',
      message:
        `the run is estimated at ${money(estimate.totalUsd)} (price book ${estimate.priceBook}), ` +
        `${money(over)} over the budget of ${money(max)}; largest items: ${top}`,
    });
  }
  for (const u of estimate.unpriced) {
    issues.push({
      path: 'budget.maxUsd',
      message: `cannot check the budget: ${u}; use a price book that has it`,
    });
  }
  return issues;
}
