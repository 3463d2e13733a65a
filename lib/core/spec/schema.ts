/**
 * The run spec: one zod schema, the single source of truth. The JSON Schema in
 * `schema/run-spec.schema.json` is generated from it (`npm run schema`); a test fails when it is stale.
 *
 * Structural rules live here; rules that need the whole document (proportions per cell, duplicate
 * ids, YCSB's int range, ...) live in `./semantic.ts`.
 */
import { z } from 'zod';
import { ec2InstanceType, positiveInt } from './target-fields';
import { TARGET_SCHEMAS } from '../targets/specs';

/** Default expected latencies (ms) used for Little's Law sizing when a target does not give one (each kind's spec). */
export { DEFAULT_EXPECTED_LATENCY_MS } from '../targets/specs';
// the kinds' target schemas and their parts, where the rest of the code has always found them
export {
  DynamoDbBilling,
  DynamoDbTarget,
  DaxSettings,
  DEFAULT_SORT_KEY_ATTRIBUTE,
} from '../targets/dynamodb/spec';
export { ScyllaEc2Target, SCYLLA_ROOT_VOLUME_GB } from '../targets/scylla-ec2/spec';
export {
  CassandraEc2Target,
  CASSANDRA_VERSIONS,
  CqlConsistency,
  CASSANDRA_DATA_VOLUME_GB,
} from '../targets/cassandra-ec2/spec';
export { KeyspacesTarget } from '../targets/keyspaces/spec';
export { ExternalTarget, ExternalPriceModel } from '../targets/external/spec';

const fraction01Open = z.number().gt(0).lt(1);

/** A target: one of the kinds' schemas (lib/core/targets/<kind>/spec.ts, listed in lib/core/targets/specs.ts). */
export const Target = z.discriminatedUnion('kind', TARGET_SCHEMAS);

export const HotspotDistribution = z.strictObject({
  type: z.literal('hotspot'),
  /** Fraction of the data in the hot set (YCSB hotspotdatafraction). */
  dataFraction: fraction01Open,
  /** Fraction of operations that go to the hot set (YCSB hotspotopnfraction). */
  opFraction: fraction01Open,
});

export const SIMPLE_DISTRIBUTIONS = ['uniform', 'zipfian', 'latest', 'sequential', 'exponential'] as const;

/** YCSB's defaults for hotspotdatafraction / hotspotopnfraction, used by the plain "hotspot" name. */
export const YCSB_HOTSPOT_DEFAULTS = { dataFraction: 0.2, opFraction: 0.8 } as const;

/**
 * A distribution: a name ("zipfian"; plain "hotspot" means YCSB's defaults 0.2/0.8), or an object
 * with a `type` and, for hotspot, its fractions.
 */
export const Distribution = z.union([
  z.enum([...SIMPLE_DISTRIBUTIONS, 'hotspot']),
  z.discriminatedUnion('type', [z.strictObject({ type: z.enum(SIMPLE_DISTRIBUTIONS) }), HotspotDistribution]),
]);

export const Proportions = z.strictObject({
  read: z.number().min(0).max(1).default(0),
  update: z.number().min(0).max(1).default(0),
  insert: z.number().min(0).max(1).default(0),
  scan: z.number().min(0).max(1).default(0),
  readModifyWrite: z.number().min(0).max(1).default(0),
  /** Query operations (DynamoDB targets with a sort key only; `workload.query` shapes them). */
  query: z.number().min(0).max(1).default(0),
});

/**
 * The Query operation (seed 003's lookup: the nearest item at or below a random key):
 * `pk = :p AND sk <= :k`, `Limit` items, `ScanIndexForward` = forward.
 */
export const QuerySettings = z.strictObject({
  limit: positiveInt.max(10_000).default(1),
  forward: z.boolean().default(false),
});

/** `targetOpsPerSec: "max"`: an unpaced cell (YCSB without -target); attainment is not defined. */
export const UNPACED = 'max';

export const Staircase = z.strictObject({
  start: positiveInt,
  stop: positiveInt,
  step: positiveInt,
});

/**
 * An SLO search (docs/slo-search.md) in place of `workload.targetOpsPerSec`: for each target × distribution × read
 * proportion, probe cells find the highest rate whose latency meets the SLO while the cell also attains the share
 * of its rate and stays under the error share (lib/core/search/probe.ts).
 */
export const SLO_PERCENTILES = [50, 90, 99, 99.9, 99.99] as const;
export const SloSearch = z.strictObject({
  slo: z.strictObject({
    /** the percentile the SLO bounds: one the cells table carries (p50, p90, p99, p999, p9999) */
    percentile: z.literal(SLO_PERCENTILES),
    /** the bound, milliseconds */
    maxMs: z.number().positive().max(60_000),
    /** which operations' latency: all base operations, reads or updates (the cells table's families) */
    operations: z.enum(['all', 'read', 'update']).default('all'),
    /** intended time (from the open-loop schedule, coordinated omission corrected) or service time */
    latency: z.enum(['intended', 'service']).default('intended'),
  }),
  /** a probe passes only if good ops/s ÷ its rate is at least this */
  minAttainment: z.number().gt(0).max(1).default(0.95),
  /** ... and failed operations ÷ all operations at most this */
  maxErrorRate: z.number().min(0).lt(1).default(0.01),
  /** the lowest rate probed (the ramp starts here), ops/s for the whole fleet */
  startOpsPerSec: positiveInt,
  /** the highest rate probed (the loaders are sized for it) */
  maxOpsPerSec: positiveInt,
  /** the search stops when the last passing and the first failing rate are at most this apart */
  resolutionOpsPerSec: positiveInt,
  /** each ramp rate is the one before × this */
  rampFactor: z.number().gt(1).max(10).default(2),
  /** the rate the study must serve: the frontier marks which targets meet the SLO at it */
  requiredOpsPerSec: positiveInt.optional(),
});

/**
 * A rate schedule's segments (docs/rate-schedules.md): played one after another, each from the end of the one
 * before. Rates are ops/s for the whole fleet; a schedule's cell lasts the sum of its segments' seconds.
 */
export const RateSegment = z.discriminatedUnion('kind', [
  /** constant rates, one after another */
  z.strictObject({
    kind: z.literal('steps'),
    steps: z
      .array(z.strictObject({ opsPerSec: z.number().int().min(0), seconds: positiveInt }))
      .min(1)
      .max(100),
  }),
  /** a linear ramp from one rate to another */
  z.strictObject({
    kind: z.literal('ramp'),
    fromOpsPerSec: z.number().int().min(0),
    toOpsPerSec: z.number().int().min(0),
    seconds: positiveInt,
  }),
  /** the base rate, then base × multiple from atSeconds for forSeconds, then the base again until `seconds` */
  z.strictObject({
    kind: z.literal('spike'),
    baseOpsPerSec: positiveInt,
    multiple: z.number().gt(1).max(100),
    atSeconds: z.number().int().min(0),
    forSeconds: positiveInt,
    /** the segment's length (at least atSeconds + forSeconds) */
    seconds: positiveInt,
  }),
]);

export const Workload = z.strictObject({
  /** A YCSB core workload (a-f) whose proportions and distribution are the defaults. */
  base: z.enum(['a', 'b', 'c', 'd', 'e', 'f']).default('a'),
  /** Explicit operation proportions; override the base workload's. */
  proportions: Proportions.optional(),
  /** Sweep of read proportions; each cell's update proportion is what remains. */
  readProportions: z.array(z.number().min(0).max(1)).min(1).optional(),
  /**
   * Throughput targets (ops/s for the whole fleet): a list, a staircase {start, stop, step}, or "max":
   * one unpaced cell whose threads go as fast as they can (YCSB without -target; needs loaders.count).
   * Exactly one of this and `search`.
   */
  targetOpsPerSec: z
    .union([z.array(z.union([positiveInt, z.literal(UNPACED)])).min(1), Staircase, z.literal(UNPACED)])
    .optional(),
  /** An SLO search instead of fixed throughput targets (exactly one of the two). */
  search: SloSearch.optional(),
  /**
   * Load that changes over time instead of one rate per cell (docs/rate-schedules.md): one cell per target × mix
   * × distribution follows these segments on its open-loop schedule; durationSeconds must be their total length.
   * Not with targetOpsPerSec or search.
   */
  rateSchedule: z.array(RateSegment).min(1).max(50).optional(),
  distributions: z.array(Distribution).min(1).optional(),
  /** How query operations (proportions.query) are made. */
  query: QuerySettings.optional(),
  durationSeconds: positiveInt.max(7 * 24 * 3600),
  warmupSeconds: z.number().int().min(0).default(0),
  cooldownSeconds: z.number().int().min(0).default(0),
  /** Which latency YCSB records: intended (coordinated-omission corrected), op (service time) or both. */
  measurement: z.enum(['intended', 'op', 'both']).default('both'),
  /** YCSB status and HDR interval length in seconds. */
  statusIntervalSeconds: positiveInt.max(3600).default(10),
  /** Extra YCSB properties passed to every run-phase process (cannot override managed ones). */
  extraProperties: z.record(z.string(), z.string()).optional(),
  /**
   * A/A mode: each cell runs this many times in a row (cell ids `<cell>.aa1`, `.aa2`, ...). The spread
   * of each metric over the repeats calibrates the spec's regression thresholds (docs/regression.md).
   */
  repeats: z.number().int().min(1).max(20).default(1),
});

export const Dataset = z.strictObject({
  recordCount: positiveInt,
  fieldCount: positiveInt.max(1000).default(10),
  fieldLength: positiveInt.max(400_000).default(100),
  load: z.boolean().default(true),
  /** Throughput cap for the load phase (ops/s for the whole fleet); unthrottled when absent. */
  loadTargetOpsPerSec: positiveInt.optional(),
});

export const Loaders = z.strictObject({
  instanceType: ec2InstanceType.default('c5.2xlarge'),
  count: z.union([z.literal('auto'), positiveInt.max(500)]).default('auto'),
  processesPerLoader: positiveInt.max(64).default(3),
  threadsPerProcess: positiveInt.max(4096).default(60),
  /** Multiplier on Little's Law concurrency. */
  headroom: z.number().min(1).max(10).default(1.25),
});

export const Budget = z.strictObject({
  maxUsd: z.number().positive(),
});

export const Schedule = z.strictObject({
  /** An EventBridge Scheduler expression: cron(...) or rate(...). */
  expression: z
    .string()
    .regex(/^(cron|rate)\(.+\)$/, 'an EventBridge Scheduler expression: cron(...) or rate(...)'),
  timezone: z.string().default('UTC'),
});

/** Options of `fleetbench run --local` only (ignored on AWS). */
export const LocalOptions = z.strictObject({
  /**
   * DynamoDB targets go through the capacity emulator (lib/local/capacity-proxy.ts): DynamoDB's
   * throttling, by the model in docs/dynamodb-model.md, in front of DynamoDB Local.
   */
  capacityEmulation: z.boolean().default(true),
  /** Every emulated throughput limit (table, partition, item) × this factor, e.g. 0.01. */
  capacityScale: z.number().gt(0).max(1).default(1),
  /**
   * Every emulated duration (split for heat's delay, burst seconds, the on-demand 30-minute window) ÷ this factor,
   * so a local run shows DynamoDB's adaptive capacity over time in minutes (seed 003's staircase). Absent: a
   * throttling partition's hottest item is isolated at once (the steady state the plan predicts).
   */
  timeScale: z.number().min(1).max(3600).optional(),
});

/** What the run does when a cell fails (lib/core/pipeline/cell-failure.ts). */
export const CellFailurePolicy = z.enum(['retry-then-continue', 'stop']);

/**
 * How a study of several targets runs (docs/aws-pipeline.md): "sequential" gives each target its own lifecycle
 * (provisioned, loaded, measured, torn down, then the next); "parallel" measures the targets side by side.
 */
export const Execution = z.enum(['sequential', 'parallel']);
export type Execution = z.output<typeof Execution>;
export type CellFailurePolicy = z.output<typeof CellFailurePolicy>;

export const RunSpecSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z
    .string()
    .regex(
      /^[a-z][a-z0-9-]{0,39}$/,
      'a lower-case name: a letter, then letters, digits or "-", at most 40 characters',
    ),
  description: z.string().max(1000).optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/, 'an AWS region such as "us-east-1"')
    .default('us-east-1')
    .describe(
      "On AWS: the stack's region when omitted; a spec naming another region than the stack's is refused by Plan. Locally: us-east-1.",
    ),
  tags: z.record(z.string().min(1).max(128), z.string().max(256)).default({}),
  targets: z.array(Target).min(1),
  dataset: Dataset,
  workload: Workload,
  loaders: Loaders.default(Loaders.parse({})),
  budget: Budget.optional(),
  schedule: Schedule.optional(),
  local: LocalOptions.optional(),
  onCellFailure: CellFailurePolicy.optional().describe(
    'What a failed cell does: "retry-then-continue" (the default for studies of more than one cell) runs it once more ' +
      'with fresh YCSB processes (replacing lost loaders) and, failing again, records it incomplete and goes on; "stop" ' +
      '(the default for one cell) ends the run, torn down.',
  ),
  execution: Execution.optional().describe(
    'How the targets run: "sequential" (the default) provisions, loads and measures one target at a time and tears ' +
      'it down before the next is provisioned, so each is billed only for its own cells; "parallel" measures the ' +
      'targets side by side, each on its own loader group sized for its own cells and load, launched with it and ' +
      'terminated after its last cell (the run takes as long as its longest target).',
  ),
  baseline: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'a run id (lower-case letters, digits and "-")')
    .optional()
    .describe(
      "A run to compare each run of this spec with: the Report step adds the comparison (fleetbench compare's, cell by cell) to the report and writes it to runs/<runId>/compare.json.",
    ),
});

export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;
export type Target = z.output<typeof Target>;
export type Distribution = z.output<typeof Distribution>;
export type Proportions = z.output<typeof Proportions>;
export type LocalOptions = z.output<typeof LocalOptions>;
export type QuerySettings = z.output<typeof QuerySettings>;
export type KeyDesign = NonNullable<import('../targets/dynamodb/spec').DynamoDbTarget['keyDesign']>;
export type SloSearch = z.output<typeof SloSearch>;
export type RateSegment = z.output<typeof RateSegment>;
export type TargetKind = Target['kind'];

/** The JSON Schema for console users and editors, generated from the zod schema. */
export function runSpecJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(RunSpecSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    title: 'fleetbench run spec',
    $id: 'https://fleetbench.dev/schema/run-spec.schema.json',
  };
}
