/**
 * What a target kind declares, once, in its folder (lib/core/targets/<kind>/): the YCSB binding its loaders
 * run and the properties they get, its spec rules, what the AWS pipeline can deploy of it, whether the local
 * mode runs it, whether the run loads it, and the cloud resources a run of it creates (their lifecycle is
 * lib/core/resources). The registry (./registry.ts) maps every kind of the spec schema to its declaration: a
 * kind without one fails to compile, and the steps loop over the registry without naming a kind.
 */
import type { Issue } from '../common/errors';
import type { Ports, Tags } from '../common/ports';
import type { RunContext } from '../pipeline/run-context';
import type { RunSpec, Target } from '../spec/schema';
import type { BindingId } from '../contract/bindings';
import type { JobCredentials } from '../contract/job';
import type { ResourceType } from '../resources/resource-type';
import type { RunResource } from '../resources/run-resource';
import type { TargetSizing } from '../plan/sizing-types';
import type { CellPrediction, PlannedCell } from '../dynamodb-model/plan-cell';
import type { CellModel } from '../dynamodb-model/model';
import type { OnDemandResponse, ResponseOptions } from '../dynamodb-model/on-demand-response';
import type { KindRunCost } from '../cost/lines';
import type { PriceBook } from '../cost/book';
import type { KindMonthlyCost } from '../cost/report-parts';
import type { KindPriceRefresh } from '../cost/price-refresh-hook';
import type { CellLike, DynamoOpUnits } from '../cost/workload-units';

/** What a kind may read to set a target's properties: the spec, the run's table, id and loader sizing. */
export interface PropertiesContext {
  spec: RunSpec;
  table: string;
  runId: string;
  sizing?: TargetSizing;
}

/** Where the AWS pipeline runs: what Plan knows of the stack beyond the spec. */
export interface DeployEnv {
  spec: RunSpec;
  /** The results store's URI (a user's binding jars must lie under its bindings/). */
  storeUri: string;
  /** The loaders' network: `private` has no route to the internet. */
  network?: 'public' | 'private' | 'existing';
  /** The stack's account (unset: not known here); its region is the spec's (Plan refuses another). */
  account?: string;
}

/** What ProvisionTarget gives each kind: the run, its spec, the ports, the tags of target resources. */
export interface ProvisionContext {
  run: RunContext;
  spec: RunSpec;
  ports: Pick<Ports, 'store' | 'tables'> & Partial<Ports>;
  /** runTags(run, 'target', spec.tags) */
  targetTags: Tags;
  /** Waits between polls (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** What a kind's provisioning made or found (ProvisionTarget's result, merged over the targets). */
export interface Provisioned {
  /** Tables and keyspace tables created (or found again tagged with the run). */
  created?: string[];
  /** Tables given by the spec, checked to exist. */
  existing?: string[];
  /** Database nodes launched by this call. */
  nodes?: string[];
  /** DAX clusters created (or found again). */
  dax?: string[];
  /** Login secrets created (or found again). */
  secrets?: string[];
}

/** What the steps after provisioning give a kind (WaitReady, ConfigureCell, StartLoad, StartCell). */
export interface StepContext {
  run: RunContext;
  spec: RunSpec;
  step: 'WaitReady' | 'ConfigureCell' | 'StartLoad' | 'StartCell';
  ports: Pick<Ports, 'store'> & Partial<Ports>;
  /** Waits between polls (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** WaitReady's view of one target. */
export interface ReadyCheck {
  /** Why it is not ready yet (empty: ready). */
  problems: string[];
  /** What WaitReady reports: DynamoDB tables ACTIVE, database nodes answering. */
  counts?: { tablesActive?: number; nodesAnswering?: number };
  /** Run once the whole run is ready (a node cluster's keyspace and table). */
  whenAllReady?: () => Promise<void>;
}

/** WaitReady's deadline and poll interval. */
export interface ReadyLimits {
  timeoutSeconds: number;
  pollSeconds: number;
}

/** What StartLoad/StartCell add to a target's jobs once it runs: endpoint properties and credentials. */
export interface Runtime {
  properties?: Record<string, string>;
  credentials?: JobCredentials;
}

/** What a target asks of the account (Plan's preflight checks it against the quotas before provisioning). */
export interface AccountNeed {
  /** Table capacity counted against DynamoDB's account and table limits (`path`: the spec field that sets it). */
  table?: { path: string; rcu: number; wcu: number };
  /** EC2 instances the run launches for the target (their vCPUs count against the account's quotas). */
  nodes?: { instanceType: string; count: number; what: string };
  /** The replication factor (one replica per availability zone). */
  replication?: { path: string; factor: number };
}

/**
 * What the local mode starts for a target: database nodes on loopback (Alternator over DynamoDB Local, or Apache
 * Cassandra), a stand-in for Secrets Manager (the run's logins). A kind's own service (Ports.kindServices) is
 * started by its local adapter (lib/local/kind-adapters.ts) for every run with a target of the kind.
 */
export type LocalNeed = 'nodes' | 'cassandra' | 'secrets';

/** The capacity model the local mode's emulator applies to a table (DynamoDB's limits, scaled). */
export interface LocalCapacity {
  keyAttribute: string;
  model: CellModel['table'];
  /** N partition-key values and the sort key (dynamodb keyDesign), or null/absent: one item per key value. */
  compositeKey?: { partitionKeyValues: number; sortKeyAttribute: string } | null;
}

/** Findings about one target: `at` is its JSON path (`targets[2]`). */
export interface Findings {
  issues: Issue[];
  warnings: string[];
}

export interface TargetKind<T extends Target> {
  /** Which binding the target's loaders run. */
  binding(t: T): BindingId;
  /** The binding properties every process of every phase gets. */
  properties(t: T, ctx: PropertiesContext): Record<string, string>;
  /** Endpoint properties from the running nodes (kinds whose nodes the run launches). */
  endpointProperties?(t: T, endpoints: { host: string; port: number }[]): Record<string, string>;
  /** A user's own binding (its YCSB `DB` class and jars), when the target brings one. */
  userBinding?(
    t: T,
  ): { dbClass: string; jars: readonly string[]; properties: Record<string, string> } | undefined;
  /** Where the loaders read the target's credentials (a secret's ARN, never its values). */
  credentialsSecretArn?(t: T): string | undefined;
  /** The target with the kind's defaults filled in (settings the schema cannot default alone). */
  withDefaults?(t: T): T;
  /** The spec rules of the kind (beyond its schema), added to `out`. */
  specChecks?(t: T, at: string, spec: RunSpec, out: Findings): void;
  /**
   * Query operations (`workload.proportions.query` > 0): what keeps this target from running them, or null; a kind
   * without the hook runs none (lib/core/spec/key-design.ts refuses them for it).
   */
  queryIssue?(t: T, at: string, query: number): Issue | null;
  /**
   * The table whose CloudWatch metrics (AWS/DynamoDB, by table name) join each cell's results on AWS: the name the
   * run context holds for the target (what Plan named and provisioned or reused), or undefined when it holds none.
   */
  metricsTable?(t: T, run: RunContext): string | undefined;
  /** The target's predicted response to a cell's rate schedule, which the report draws beside the measured one. */
  rateResponse?(spec: RunSpec, t: T, cell: PlannedCell, o: ResponseOptions): OnDemandResponse | null;
  /**
   * Secrets written in plain text in the target (a user's binding properties, endpoints with credentials), each
   * refused naming where it goes instead (lib/core/spec/secret-text.ts), added to `issues`.
   */
  secretChecks?(t: T, at: string, issues: Issue[]): void;
  /**
   * Characters a service of the target refuses in the tags the run puts on its resources (DynamoDB: no "@"), beyond
   * AWS's own: `allowed` matches a key or value it accepts; `refusal` ends the message ("without "@": ...").
   */
  tagCharacters?(t: T): { allowed: RegExp; refusal: string } | undefined;
  /** The cache the run puts in front of the target (a DAX cluster): its nodes and monthly cost with `book`. */
  cache?(t: T, book: PriceBook): { nodeType: string; nodes: number; monthlyUsd: number } | undefined;
  /**
   * What the local mode serves on a standalone redis-server for the target (an external Redis target): its
   * endpoints, and whether it asks for a Redis Cluster or TLS (the local mode refuses both).
   */
  localRedis?(t: T): { endpoints: readonly string[]; clusterOrTls: boolean } | undefined;
  /** What the AWS pipeline cannot deploy (Plan refuses it before anything is provisioned), added to `out`. */
  deployChecks?(t: T, at: string, env: DeployEnv, out: Findings): void;
  /** What the target asks of the account (`at`: its JSON path). */
  accountNeeds?(t: T, at: string): AccountNeed;
  /** Why the local mode cannot run this target (empty: it can), each naming the spec field to change. */
  localIssues(t: T, at: string): Issue[];
  /** What the local mode starts for the target. */
  localNeeds?: readonly LocalNeed[];
  /** The capacity model the local emulator applies to the target's table (kinds with a model). */
  localCapacity?(spec: RunSpec, t: T, scale: number): LocalCapacity;
  /** Whether the run loads the data set into the target (false: the target's data are given). */
  loads(t: T): boolean;
  /** The table name the run's processes use: the kind's own, or the run-scoped name the planner offers. */
  tableName(t: T, runScoped: string): string;
  /** The capacity model's predictions for a planned cell (kinds with a model; none for what it does not model). */
  predict?(
    spec: RunSpec,
    t: T,
    cell: PlannedCell,
  ): { prediction?: CellPrediction; localPrediction?: CellPrediction };
  /**
   * Plan: the target's resources in the run context's list, each read by its resource type (`table`: the name the
   * planner gave its table). What the later steps, Teardown and `resume` find the target's resources by.
   */
  contextEntries?(t: T, run: { runId: string; table: string }): RunResource[];
  /** ProvisionTarget: creates the target's resources (or adopts those tagged with this run, on a retry). */
  provision?(t: T, ctx: ProvisionContext): Promise<Provisioned>;
  /** WaitReady: whether the target is ready for the load and the cells. */
  notReady?(t: T, ctx: StepContext): Promise<ReadyCheck>;
  /** WaitReady's longer limits for targets that take longer to be ready (a DAX cluster takes 10+ minutes). */
  slowReady?: { limits: ReadyLimits; applies(t: T): boolean };
  /** ConfigureCell: puts the target in the state the cell needs (its capacity); whether anything changed. */
  configureCell?(t: T, ctx: StepContext): Promise<boolean>;
  /** StartLoad/StartCell: what the jobs need that is known only once the target runs. */
  runtime?(t: T, ctx: StepContext): Promise<Runtime>;
  /** The cloud resources a run of this kind creates (in addition to the loaders). */
  resources: readonly ResourceType[];
  /** What a run of the target costs: its lines of the run estimate (lib/core/targets/<kind>/cost.ts). */
  runCost: KindRunCost<T>;
  /** Its monthly cost at a throughput (`fleetbench cost`, the cells' cost columns): its cost input and report. */
  monthlyCost: KindMonthlyCost;
  /**
   * A kind billed per request: the units one operation of the spec asks of the target (item size, units per read
   * and per write), by which a cell's scans and queries are counted in reads of one item (the cells' cost columns).
   */
  opUnits?(spec: RunSpec, t: T): DynamoOpUnits;
  /** `fleetbench prices refresh` of the kind's own prices (its price book section), when it has some. */
  priceRefresh?: KindPriceRefresh;
  /** Validation: the target against the cells planned for it (a table's capacity), added to `out`. */
  cellChecks?(t: T, at: string, run: { spec: RunSpec; cells: readonly CellLike[] }, out: Findings): void;
}
