/**
 * What a target kind declares, once, in its folder (lib/core/targets/<kind>/): the YCSB binding its loaders
 * run and the properties they get, its spec rules, what the AWS pipeline can deploy of it, whether the local
 * mode runs it, whether the run loads it, and the cloud resources a run of it creates (their lifecycle is
 * lib/core/resources). The registry (./registry.ts) maps every kind of the spec schema to its declaration: a
 * kind without one fails to compile, and the steps loop over the registry without naming a kind.
 */
import type { Issue } from '../errors';
import type { Ports, Tags } from '../ports';
import type { RunContext } from '../pipeline/context';
import type { RunSpec, Target } from '../spec/schema';
import type { BindingId } from '../contract/bindings';
import type { ResourceType } from '../resources/resource-type';
import type { TargetSizing } from '../plan/sizing';
import type { CellPlan } from '../plan';
import type { PlannedCell } from '../dynamodb-model/plan-cell';

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
}

/** What ProvisionTarget gives each kind: the run, its spec, the ports, the tags of target resources. */
export interface ProvisionContext {
  run: RunContext;
  spec: RunSpec;
  ports: Pick<Ports, 'store' | 'tables'> &
    Partial<Pick<Ports, 'cluster' | 'keyspaces' | 'dax' | 'secrets' | 'memorydb'>>;
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
  userBinding?(t: T): { dbClass: string; jars: readonly string[] } | undefined;
  /** Where the loaders read the target's credentials (a secret's ARN, never its values). */
  credentialsSecretArn?(t: T): string | undefined;
  /** The target with the kind's defaults filled in (settings the schema cannot default alone). */
  withDefaults?(t: T): T;
  /** The spec rules of the kind (beyond its schema), added to `out`. */
  specChecks?(t: T, at: string, spec: RunSpec, out: Findings): void;
  /** What the AWS pipeline cannot deploy (Plan refuses it before anything is provisioned), added to `out`. */
  deployChecks?(t: T, at: string, env: DeployEnv, out: Findings): void;
  /** Why the local mode cannot run this target (empty: it can), each naming the spec field to change. */
  localIssues(t: T, at: string): Issue[];
  /** Whether the run loads the data set into the target (false: the target's data are given). */
  loads(t: T): boolean;
  /** The table name the run's processes use: the kind's own, or the run-scoped name the planner offers. */
  tableName(t: T, runScoped: string): string;
  /** The capacity model's predictions for a planned cell (kinds with a model; none for what it does not model). */
  predict?(spec: RunSpec, t: T, cell: PlannedCell): Pick<CellPlan, 'prediction' | 'localPrediction'>;
  /** ProvisionTarget: creates the target's resources (or adopts those tagged with this run, on a retry). */
  provision?(t: T, ctx: ProvisionContext): Promise<Provisioned>;
  /** The cloud resources a run of this kind creates (in addition to the loaders). */
  resources: readonly ResourceType[];
}
