/**
 * What a run itself will cost on AWS, from the spec and its plan: loader instance-hours, DynamoDB
 * capacity for the run's duration (or request units at the target throughput), load writes,
 * node-hours of EC2-hosted targets, and the pipeline's own overhead. Each target kind gives its own lines
 * (its `runCost`, lib/core/targets/<kind>/cost.ts); the assumptions are constants in ./lines.ts, described in
 * docs/cost-model.md. Exact arithmetic; items rounded to cents.
 */
import type { Issue } from '../common/errors';
import { DEFAULT_EXPECTED_LATENCY_MS, type Execution, type RunSpec } from '../spec/schema';
import { PriceBook, usd } from './book';
import { BYTES_PER_GB } from './capacity';
import { Q } from './decimal';
import { ESTIMATE_ASSUMPTIONS, round, type Line, type PlanLike, type RunSpan } from './lines';
import { loadProcesses } from '../plan/processes';
import { kindOf } from '../targets/registry';
import { runSchedule, targetLives, type RunSchedule, type TargetLife } from './schedule';

export { ESTIMATE_ASSUMPTIONS, type PlanLike } from './lines';
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
  /** The schedule the estimate is for: the spec's `execution` unless asked for the other. */
  execution: Execution;
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

/** Seconds to load `records` rows on one target: the load fleet's rate, or less where the target's kind caps it. */
function loadSeconds(spec: RunSpec, plan: PlanLike, targetId: string): Q {
  const target = spec.targets.find((t) => t.id === targetId);
  const records = Q.of(spec.dataset.recordCount);
  if (!target || !plan.load) return Q.ZERO;
  const threads = loadProcesses(plan.load).reduce((s, p) => s + Number(p.properties.threadcount ?? 1), 0);
  const latencyMs = target.expectedLatencyMs ?? DEFAULT_EXPECTED_LATENCY_MS[target.kind];
  // Little's Law: the load fleet completes threads / latency inserts per second at most
  let rate = Q.of(threads).mul(1000).div(latencyMs);
  if (spec.dataset.loadTargetOpsPerSec) rate = rate.min(spec.dataset.loadTargetOpsPerSec);
  const capped = kindOf(target).runCost.loadSeconds;
  return capped ? capped(target, spec, records, rate) : records.div(rate);
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

/** What one schedule costs and takes, and each target's node-hours in it (`plan` prints both schedules). */
export interface ScheduleSummary {
  totalUsd: number;
  runHours: number;
  /** Per target: instance-hours and node-hours its estimate lines bill (0 for a serverless target). */
  nodeHoursByTarget: Record<string, number>;
}

/** The run under each execution (docs/cost-model.md, "Schedules"). */
export type Schedules = Record<Execution, ScheduleSummary>;

/** Seconds each target lives, provisioning to teardown, and its load (lib/core/cost/schedule.ts). */
function lives(spec: RunSpec, plan: PlanLike): TargetLife[] {
  const load = new Map<string, Q>();
  if (plan.load) for (const id of plan.load.targets) load.set(id, loadSeconds(spec, plan, id));
  return targetLives(spec, plan, (id) => load.get(id) ?? Q.ZERO);
}

/** The loader lines: the one fleet for the whole run (sequential) or each target's group for its life (parallel). */
function loaderLines(plan: PlanLike, book: PriceBook, s: RunSchedule): { lines: Line[]; unpriced: string[] } {
  if (s.execution === 'sequential') {
    const l = loaderLine(plan, book, s.runSeconds.div(3600));
    return { lines: l.line ? [l.line] : [], unpriced: l.unpriced ? [l.unpriced] : [] };
  }
  const lines: Line[] = [];
  const unpriced: string[] = [];
  for (const life of s.lives) {
    const group = { ...plan, fleet: { ...plan.fleet, loaders: life.loaders } };
    const l = loaderLine(group, book, life.seconds.div(3600));
    if (l.line) lines.push({ ...l.line, label: `${life.target}: ${l.line.label}`, target: life.target });
    if (l.unpriced && !unpriced.includes(l.unpriced)) unpriced.push(l.unpriced);
  }
  return { lines, unpriced };
}

/**
 * The run's cost on AWS under an execution (default: the spec's, else sequential): each target's lines for its own
 * life (its provisioning, load, cells and teardown), the loaders for the run (sequential) or each group for its
 * target's life (parallel), and the pipeline.
 */
export function estimateRunCost(
  spec: RunSpec,
  plan: PlanLike,
  book: PriceBook,
  execution: Execution = spec.execution ?? 'sequential',
): RunEstimate {
  const s = runSchedule(execution, lives(spec, plan));
  const lines: Line[] = [];
  const attributed: Line[] = [];
  const loaders = loaderLines(plan, book, s);
  lines.push(...loaders.lines);
  const unpriced: string[] = [...loaders.unpriced];
  spec.targets.forEach((t, i) => {
    const life = s.lives.find((l) => l.target === t.id)!;
    const span: RunSpan = { spec, plan, book, runSeconds: life.seconds, runHours: life.seconds.div(3600) };
    const e = kindOf(t).runCost.estimate(t, i, span);
    lines.push(...(e.items ?? []));
    attributed.push(...(e.attributed ?? []));
    unpriced.push(...(e.unpriced ?? []));
  });
  const load = s.lives.reduce((sum, l) => sum.add(l.loadSeconds), Q.ZERO);
  lines.push(
    ...pipelineLines({ spec, plan, book, runSeconds: s.runSeconds, runHours: s.runSeconds.div(3600) }, load),
  );

  const items = lines.map(toItem);
  const total = items.reduce((sum, it) => sum + it.cents, 0n);
  return {
    priceBook: book.id,
    execution,
    totalUsd: Number(total) / 100,
    runHours: round(s.runSeconds.div(3600), 4),
    loadHours: round(load.div(3600), 4),
    items: items.map(strip),
    attributed: attributed.map(toItem).map(strip),
    unpriced,
  };
}

/** Node-hours (and instance-hours) each target's lines bill. */
function nodeHoursByTarget(spec: RunSpec, e: RunEstimate): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of spec.targets) {
    const q = e.items
      .filter((it) => it.target === t.id && (it.unit === 'instance-hour' || it.unit === 'node-hour'))
      .filter((it) => it.kind !== 'loaders')
      .reduce((sum, it) => sum + it.quantity, 0);
    out[t.id] = round(Q.of(q), 4);
  }
  return out;
}

/** Both schedules' totals, wall time and node-hours per target (`chosen`: the spec's, already estimated). */
export function estimateSchedules(
  spec: RunSpec,
  plan: PlanLike,
  book: PriceBook,
  chosen?: RunEstimate,
): Schedules {
  const summary = (execution: Execution): ScheduleSummary => {
    const e = chosen?.execution === execution ? chosen : estimateRunCost(spec, plan, book, execution);
    return { totalUsd: e.totalUsd, runHours: e.runHours, nodeHoursByTarget: nodeHoursByTarget(spec, e) };
  };
  return { sequential: summary('sequential'), parallel: summary('parallel') };
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
