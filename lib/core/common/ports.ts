/**
 * Ports: what the pipeline's steps need from the world, as small interfaces. The steps in
 * `lib/core/pipeline/` are written against these only, so the same step code runs in a Lambda
 * (adapters in `lib/aws/`, SDK v3) and in the local mode (adapters in `lib/local/`: DynamoDB Local,
 * child-process loaders, a directory as the object store).
 *
 * No AWS SDK import here or anywhere in `lib/core/**`.
 */
import type { ClusterNode, NodeSoftware, SchemaRequest } from '../targets/nodes/cluster';
import type { DaxCacheTtls } from '../targets/dynamodb/dax';
import type { KeyspacesCapacity } from '../targets/keyspaces/keyspace';
import type { ObjectStore } from './store';
import type { PriceListItem } from '../cost/price-list';

export type { ObjectStore } from './store';

export { TAG_EXPIRES_AT, TAG_ROLE, TAG_RUN_ID, TAG_SPEC, type Tags } from './tags';
import type { Tags } from './tags';
/** TAG_ROLE value of the loader instances (database nodes: NODE_ROLES in ./cluster). */
export const LOADER_ROLE = 'loader';
/** Prefix of every table the pipeline creates (the loader role's DynamoDB grant is scoped to it). */
export const TABLE_PREFIX = 'fleetbench-';

// TABLES
// ======

export type TableBilling =
  | { mode: 'provisioned'; rcu: number; wcu: number }
  | { mode: 'on-demand'; maxReadRequestUnits?: number; maxWriteRequestUnits?: number };

export interface TableDefinition {
  name: string;
  /** The hash key attribute (type S). */
  keyAttribute: string;
  /** The range (sort) key attribute (type S), for a composite key; absent: hash key only. */
  sortKeyAttribute?: string;
  billing: TableBilling;
  tableClass: 'STANDARD' | 'STANDARD_INFREQUENT_ACCESS';
  warmThroughput?: { readUnitsPerSecond?: number; writeUnitsPerSecond?: number };
  tags: Tags;
}

export interface TableState {
  name: string;
  /** CREATING | ACTIVE | UPDATING | DELETING | ARCHIVED ..., or MISSING when there is no such table. */
  status: string;
  billingMode?: 'PROVISIONED' | 'PAY_PER_REQUEST';
  rcu?: number;
  wcu?: number;
}

/** Amazon DynamoDB tables (dynamodb targets; also the local mode's DynamoDB Local). */
export interface DynamoDbAdmin {
  /** Creates the table; a table of that name that already exists is a ConflictError. */
  createTable(def: TableDefinition): Promise<void>;
  describeTable(name: string): Promise<TableState>;
  /** Sets provisioned capacity (no-op when equal). */
  updateCapacity(name: string, capacity: { rcu: number; wcu: number }): Promise<void>;
  /** Deletes the table; false when it did not exist (teardown is idempotent). */
  deleteTable(name: string): Promise<boolean>;
  tagTable(name: string, tags: Tags): Promise<void>;
  /** The table's tags, read on the table (null when there is no such table): teardown's ownership check. */
  tableTags(name: string): Promise<Tags | null>;
  /** Tables whose name starts with `prefix`, with their tags. */
  listTables(prefix: string): Promise<{ name: string; tags: Tags }[]>;
}

// LOADER FLEET
// ============

export interface LoaderInstance {
  id: string;
  /** pending | running | shutting-down | terminated | stopping | stopped */
  state: string;
  tags: Tags;
}

export interface LaunchRequest {
  runId: string;
  count: number;
  instanceType: string;
  tags: Tags;
}

export interface FleetAdmin {
  /** Launches `count` loaders (all or nothing); CapacityError when refused. Returns their ids. */
  launch(request: LaunchRequest): Promise<string[]>;
  /** Loaders carrying the run tag (any run when runId is omitted), excluding terminated ones. */
  list(filter: { runId?: string }): Promise<LoaderInstance[]>;
  /** Terminates the instances (already terminated or unknown ids are not an error). */
  terminate(ids: string[]): Promise<void>;
}

// DATABASE NODES (scylla-ec2, cassandra-ec2)
// ==============================

export type { ClusterNode, SchemaRequest } from '../targets/nodes/cluster';

export interface NodeLaunchRequest {
  runId: string;
  /** The spec target the nodes belong to. */
  targetId: string;
  instanceType: string;
  /** What the nodes run (their image, volumes and start-up follow): the target kind's NODE_SOFTWARE. */
  software: NodeSoftware;
  /**
   * An AMI id, how to find the newest official ScyllaDB image of a version, or Amazon Linux 2023 (the
   * cassandra-ec2 nodes': the adapter knows the stack's image for each architecture).
   */
  ami: { id: string } | { scyllaVersion: string } | { amazonLinux2023: true };
  /** Node indexes to launch (node i goes to subnet i mod subnets); tags and user data per node. */
  nodes: { index: number; userData: string; tags: Tags }[];
  /** Root + data volume size in GB, when the spec sets one. */
  ebsGb?: number;
  /** A separate EBS data volume (gp3, encrypted) per node in GB (cassandra-ec2: Cassandra's data live there). */
  dataVolumeGb?: number;
}

/** Database nodes on EC2 (scylla-ec2, cassandra-ec2 targets), found by their run tag. */
export interface DbNodeAdmin {
  /**
   * Where cassandra-ec2 nodes fetch Apache Cassandra from (their bootstrap script's FB_ASSET): the stack's
   * asset `s3://bucket/key` on AWS, the built archive's path locally. Unset: no Cassandra nodes here.
   */
  readonly cassandraAsset?: string;
  /** Launches the nodes (all or nothing; CapacityError when refused). Returns them with their private IPs. */
  launch(request: NodeLaunchRequest): Promise<ClusterNode[]>;
  /** Nodes carrying the run tag (any run when runId is omitted), excluding terminated ones. */
  list(filter: { runId?: string }): Promise<ClusterNode[]>;
  /** Terminates the nodes (already terminated or unknown ids are not an error). */
  terminate(ids: string[]): Promise<void>;
}

export interface EndpointHealth {
  endpoint: string;
  ok: boolean;
  detail?: string;
  /** CQL: the node's release_version (`SELECT release_version FROM system.local`). */
  version?: string;
}

/** Talks to the database nodes (from where the loaders are: the nodes admit the loaders only). */
export interface ClusterProbe {
  /**
   * Whether each endpoint answers: Alternator `GET /` on its port answers 200 when the node serves
   * requests; CQL: the native transport port accepts a connection.
   */
  check(
    api: 'alternator' | 'cql',
    endpoints: { host: string; port: number }[],
    via: { runId: string },
  ): Promise<EndpointHealth[]>;
  /** Creates the keyspace/table (CQL) or the table (Alternator); idempotent. */
  createSchema(request: SchemaRequest, via: { runId: string }): Promise<void>;
}

// DAX CLUSTERS (dynamodb targets with dax)
// ========================================

export interface DaxClusterRequest {
  /** Cluster, subnet group, parameter group and security group name (lib/core/targets/dynamodb/dax.ts daxResourceName). */
  name: string;
  /** e.g. dax.r5.large, dax.t3.small */
  nodeType: string;
  /** Nodes (DAX's replication factor), 1..11. */
  nodes: number;
  /** Item and query cache TTLs, set in the cluster's own parameter group. */
  ttls: DaxCacheTtls;
  /** Encryption in transit: the endpoint is then daxs://...:9111. */
  tls: boolean;
  tags: Tags;
}

export interface DaxClusterState {
  name: string;
  /** creating | available | modifying | deleting | ..., or MISSING when there is no such cluster. */
  status: string;
  /** The binding's dynamodb.daxEndpoint (dax:// or daxs://), once DAX reports the discovery endpoint. */
  endpoint?: string;
  nodes?: number;
  nodeType?: string;
  securityGroupIds?: string[];
  parameterGroup?: string;
  subnetGroup?: string;
}

/** Where a run's DAX clusters go: the stack's loader network and DAX service role. */
export interface DaxNetwork {
  vpcId: string;
  /** Subnets of the loaders' VPC (one per AZ) for the subnet group. */
  subnetIds: string[];
  /** The loaders' security group: the only source the cluster's security group admits (8111 and 9111). */
  loaderSecurityGroupId: string;
  /** The role DAX assumes to reach DynamoDB (docs/dax-keyspaces.md lists what it must allow). */
  iamRoleArn: string;
}

export interface DaxAdmin {
  /** The stack's network and role for clusters (unset: this adapter can list and delete, not create). */
  readonly network?: DaxNetwork;
  /**
   * Creates the security group (ingress from the loaders only), subnet group, parameter group (with the TTLs)
   * and the cluster, in the adapter's own `network`. A cluster of that name that already exists is a
   * ConflictError. On a failure part-way, what was created is deleted again before the error is thrown.
   */
  createCluster(req: DaxClusterRequest): Promise<void>;
  describeCluster(name: string): Promise<DaxClusterState>;
  /** The cluster's tags, read on the cluster (null when there is no such cluster): teardown's ownership check. */
  clusterTags(name: string): Promise<Tags | null>;
  /** Starts deleting the cluster; false when it did not exist. Deleting takes minutes (status `deleting`). */
  deleteCluster(name: string): Promise<boolean>;
  /**
   * Deletes the parameter group, subnet group and security group of that name once the cluster is gone;
   * false while the cluster still exists (call again later). Missing pieces are not an error. With `runId`
   * (teardown), only when the security group of that name carries that run's tag (DAX takes no tags on subnet and
   * parameter groups: the security group says whose they are); without it (the janitor's sweep of expired groups,
   * found by listSupporting), when it carries any run's tag.
   */
  deleteSupporting(name: string, runId?: string): Promise<boolean>;
  /** Clusters carrying the run tag (any fleetbench run when runId is omitted), with their tags: the janitor's view. */
  listClusters(filter: { runId?: string }): Promise<{ name: string; status: string; tags: Tags }[]>;
  /**
   * Supporting groups left by runs (found by their security group: the run tag and a DAX resource name), with the
   * security group's tags: the janitor deletes them (deleteSupporting) once their cluster is gone and they expired.
   */
  listSupporting(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]>;
}

// AMAZON KEYSPACES (keyspaces targets)
// ====================================

export interface KeyspacesTableRequest {
  keyspace: string;
  table: string;
  /** YCSB's fieldcount: columns field0..field<n-1> besides the key. */
  fieldCount: number;
  capacity: KeyspacesCapacity;
  tags: Tags;
}

export interface KeyspacesTableState {
  keyspace: string;
  table: string;
  /** CREATING | ACTIVE | UPDATING | DELETING | ..., or MISSING. */
  status: string;
  capacity?: KeyspacesCapacity;
}

/**
 * Secrets the run creates (cassandra-ec2 logins, lib/core/targets/cassandra-ec2/cql-auth.ts): Secrets Manager on AWS, a
 * directory locally.
 */
export interface SecretAdmin {
  /** Creates a secret with its tags and string value; its ARN. ConflictError when the name exists. */
  createSecret(req: { name: string; value: string; tags: Tags }): Promise<string>;
  /** A secret's ARN and tags by name; null when there is none. */
  describeSecret(name: string): Promise<{ arn: string; tags: Tags } | null>;
  /**
   * A secret's string value by name or ARN (a retried ProvisionTarget reads back the login its first attempt
   * stored, once the secret's run tag is checked); an error when it is missing or has no string value.
   */
  secretString(id: string): Promise<string>;
  /** Deletes a secret at once (no recovery window); absent is fine. */
  deleteSecret(arn: string): Promise<void>;
  /** Secrets whose names start with `prefix`, with their tags (none scheduled for deletion): the janitor's view. */
  listSecrets(prefix: string): Promise<{ name: string; arn: string; tags: Tags }[]>;
}

export interface KeyspacesAdmin {
  /** Creates the keyspace (single-region); an existing one is a ConflictError. */
  createKeyspace(name: string, tags: Tags): Promise<void>;
  /** Creates the YCSB table (asynchronous: CREATING, then ACTIVE); an existing one is a ConflictError. */
  createTable(req: KeyspacesTableRequest): Promise<void>;
  describeTable(keyspace: string, table: string): Promise<KeyspacesTableState>;
  /** Sets the table's capacity mode and units (UpdateTable; the table is UPDATING, then ACTIVE). */
  updateCapacity(keyspace: string, table: string, capacity: KeyspacesCapacity): Promise<void>;
  /**
   * The keyspace's tags (GetKeyspace, then ListTagsForResource on its ARN), or null while it does not exist:
   * CreateKeyspace is asynchronous, and GetKeyspace finds the keyspace only once it was created.
   */
  keyspaceTags(name: string): Promise<Tags | null>;
  /** Deletes the keyspace and its tables; false when it did not exist. */
  deleteKeyspace(name: string): Promise<boolean>;
  /** Keyspaces carrying the run tag (any fleetbench run when runId is omitted): the janitor's view. */
  listKeyspaces(filter: { runId?: string }): Promise<{ name: string; tags: Tags }[]>;
}

// COMMANDS
// ========

export type InvocationStatus = 'Pending' | 'InProgress' | 'Success' | 'Failed' | 'TimedOut' | 'Cancelled';

export interface Invocation {
  commandId: string;
  instanceId: string;
  status: InvocationStatus;
  /** The tail of the command's output or the failure reason, when known. */
  detail?: string;
}

export interface SendRequest {
  instanceIds: string[];
  /** The agent fetches `<jobPrefix>/<its instance id>.json`. */
  jobPrefix: string;
  /** The command's execution timeout. */
  timeoutSeconds: number;
  comment?: string;
}

export interface CommandRunner {
  /** Which of the instances are registered and online (able to take commands). */
  online(instanceIds: string[]): Promise<string[]>;
  /** Sends the loader command; returns one or more command ids (batches of at most 50 instances). */
  send(request: SendRequest): Promise<string[]>;
  /** Status of every invocation of the commands. */
  status(commandIds: string[]): Promise<Invocation[]>;
  /** Best effort. */
  cancel(commandIds: string[]): Promise<void>;
}

// METRICS, NOTIFICATIONS, RUN REGISTRY, CLOCK
// ===========================================

export interface MetricDatum {
  name: string;
  value: number;
  unit: 'Milliseconds' | 'Microseconds' | 'Count' | 'Count/Second' | 'Percent' | 'None';
}

export interface MetricsSink {
  /** One set of values under the dimensions (namespace `Fleetbench`). */
  put(dimensions: Record<string, string>, data: MetricDatum[]): Promise<void>;
}

export interface Notifier {
  publish(subject: string, message: string): Promise<void>;
}

export interface RunningExecution {
  name: string;
  startedAtMs: number;
  /** The schedule that started it, if any. */
  scheduleName?: string;
}

/** The executions of this pipeline that are running now (used to refuse overlapping scheduled runs). */
export interface RunRegistry {
  running(): Promise<RunningExecution[]>;
}

export interface Clock {
  nowMs(): number;
}

// ACCOUNT QUOTAS
// ==============

/** DynamoDB's provisioned-capacity quotas of the account in the region (DescribeLimits). */
export interface DynamoDbLimits {
  tableMaxReadCapacityUnits: number;
  tableMaxWriteCapacityUnits: number;
  accountMaxReadCapacityUnits: number;
  accountMaxWriteCapacityUnits: number;
}

/** What the account may run: read by the preflight checks (lib/core/pipeline/preflight.ts). */
export interface AccountQuotas {
  /** null when they cannot be read (denied, unsupported). */
  dynamoDbLimits(): Promise<DynamoDbLimits | null>;
  /** A Service Quotas value (the applied one, else AWS's default); null when it cannot be read. */
  quota(serviceCode: string, quotaCode: string): Promise<number | null>;
  /** The region's available availability zones; null when they cannot be read. */
  availabilityZones(): Promise<string[] | null>;
}

/**
 * One minute of a DynamoDB table's CloudWatch metrics (namespace AWS/DynamoDB, period 60 s, statistic Sum;
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html); a metric CloudWatch has
 * no datapoint for in that minute is 0 (DynamoDB publishes these metrics only when they are non-zero).
 */
export interface TableMinute {
  startMs: number;
  consumedReadUnits: number;
  consumedWriteUnits: number;
  readThrottleEvents: number;
  writeThrottleEvents: number;
  /** ThrottledRequests per operation (dimension Operation) */
  throttledRequests: Record<string, number>;
}

/** A table's CloudWatch metrics over a time range (AWS: lib/aws/table-metrics.ts). */
export interface TableMetricsReader {
  /** The minutes from startMs (rounded down to the minute) to endMs, in time order. */
  tableMinutes(table: string, range: { startMs: number; endMs: number }): Promise<TableMinute[]>;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

/** Everything a step may use. A step uses only the parts it needs; tests pass only those. */
export interface Ports {
  store: ObjectStore;
  tables: DynamoDbAdmin;
  fleet: FleetAdmin;
  commands: CommandRunner;
  metrics: MetricsSink;
  notifier: Notifier;
  runs: RunRegistry;
  clock: Clock;
  /** The account's quotas, checked by Plan before anything is provisioned (none locally: nothing is limited). */
  quotas?: AccountQuotas;
  /** Database nodes on EC2 (scylla-ec2, cassandra-ec2 targets); a run with such a target fails without it. */
  cluster?: DbNodeAdmin;
  probe?: ClusterProbe;
  /** DAX clusters (dynamodb targets with dax); a run with such a target fails without it. */
  dax?: DaxAdmin;
  /** Amazon Keyspaces (keyspaces targets); a run with such a target fails without it. */
  keyspaces?: KeyspacesAdmin;
  /** Secrets the run creates (cassandra-ec2 logins); without it, cassandra-ec2 nodes get no login secret. */
  secrets?: SecretAdmin;
  /** DynamoDB tables' CloudWatch metrics (AggregateCell joins them to the cell); none locally (the emulator's instead). */
  tableMetrics?: TableMetricsReader;
  /** The adapters of the kinds that bring their own service, by kind (KindServices); a run of such a kind fails without its own. */
  kindServices?: Partial<KindServices>;
}

/**
 * The adapters of the target kinds that bring a service of their own, by kind name: each such kind's port module
 * (lib/core/targets/<kind>/port.ts) adds its entry here by declaration merging
 * (https://www.typescriptlang.org/docs/handbook/declaration-merging.html#module-augmentation), so a kind's hooks get
 * their own adapter's type and this file names no kind. The AWS handlers (lib/aws/kind-adapters.ts, read by lambdas/shared/env.ts) and the local
 * mode (lib/local/kind-adapters.ts, started by lib/local/kind-services.ts) build them from a registry each, which fails to compile without every entry.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the kinds' port modules
export interface KindServices {}

// ERRORS
// ======

/** A resource that already exists (CreateTable on an existing name, ...). */
export class ConflictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConflictError';
  }
}

/**
 * A resource of the run's name exists but does not carry this run's tag (another's, or made by hand): it is not
 * adopted, and left as it is. The message names the resource.
 */
export class NotOwnedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOwnedError';
  }
}

/** The cloud refused capacity (RunInstances: InsufficientInstanceCapacity, limits, ...). */
export class CapacityError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CapacityError';
  }
}

/** An adapter call failed for a reason that is not the user's input (permissions, throttling, ...). */
export class CloudError extends Error {
  readonly service: string;
  constructor(service: string, message: string, options?: { cause?: unknown }) {
    super(`${service}: ${message}`, options);
    this.name = 'CloudError';
    this.service = service;
  }
}

/**
 * A step failed in a way that should end the run (a loader never came online, a command failed on a
 * loader, a deadline passed). Step Functions sees `name` as the error type in Catch.
 */
export class StepFailedError extends Error {
  readonly step: string;
  constructor(step: string, message: string) {
    super(`${step}: ${message}`);
    this.name = 'StepFailedError';
    this.step = step;
  }
}

// RESULT QUERIES
// ==============

/**
 * SQL over the result tables (runs, cells, intervals): Athena on AWS (lib/aws/athena-results.ts),
 * DuckDB locally. `params` bind the `?` placeholders in order (strings quoted by the adapter).
 * Rows come back as column → value (numbers and booleans typed, NULL as null).
 */
export interface ResultsQuery {
  query(sql: string, params?: readonly (string | number)[]): Promise<Record<string, unknown>[]>;
}

// PRICES
// ======

/** One Price List GetProducts question: a service code and TERM_MATCH filters (attribute → value). */
export interface PriceQuery {
  serviceCode: string;
  filters: Record<string, string>;
}

/**
 * The AWS Price List Query API's GetProducts, every page, each `PriceList` entry parsed
 * (lib/aws/pricing.ts; a local stand-in in the tests).
 */
export interface PriceListPort {
  getProducts(query: PriceQuery): Promise<PriceListItem[]>;
}
