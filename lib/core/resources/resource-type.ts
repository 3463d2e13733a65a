/**
 * One kind of cloud resource a run creates (loaders, database nodes, DynamoDB tables, DAX clusters, keyspaces,
 * login secrets, ...), declared once with what Teardown, the Janitor and the late-arrivals pass need: how to
 * remove the run's own, how to sweep expired ones, how to list what each run still owns, and the words and
 * record fields that report it. The steps loop over RESOURCE_TYPES (./registry.ts) and never name a type;
 * every delete goes through the ownership rule (lib/core/pipeline/ownership.ts).
 */
import type { Ports, Tags } from '../common/ports';
import type { RunContext } from '../pipeline/run-context';
import type { OwnedRemoval } from '../pipeline/ownership';

/** The ports the lifecycle reads: the store, tables, loaders and clock always; the others where deployed. */
export type LifecyclePorts = Pick<Ports, 'store' | 'tables' | 'fleet' | 'clock'> & Partial<Ports>;

/** The ports the Janitor's sweep reads (no store: the sweep goes by tags alone). */
export type SweepPorts = Omit<LifecyclePorts, 'store'>;

/** What one type's teardown did: removed, kept (not this run's), failures, and names left for later. */
export interface Removal extends OwnedRemoval {
  /** Removal started but not finished (a DAX cluster's groups): the janitor completes it. */
  pending?: string[];
}

/** The record fields of teardown.json a type fills (names kept from earlier records: they still read). */
export interface RecordFields {
  removed: TeardownListField;
  kept?: TeardownListField;
  pending?: `pending${string}`;
}

/**
 * A list field of teardown.json or of the Janitor's result: what was terminated, deleted, kept or left pending
 * (`deletedTables`, `keptDaxClusters`, `pendingDaxGroups`, ...). Each type names its own; the names of earlier
 * records are kept, so they still read.
 */
export type TeardownListField =
  `terminated${string}` | `deleted${string}` | `kept${string}` | `pending${string}`;

/** The Janitor's result fields (what it swept, by type). */
export type JanitorListField = TeardownListField;

export interface ResourceType {
  /** A short id ("table", "dax-cluster"). */
  id: string;
  /** Teardown order: lower first (loaders before nodes, DAX clusters before the tables they cache). */
  order: number;
  /** The service in messages ("Keyspaces", "EC2"). */
  service: string;
  /** The resource in messages: "DynamoDB table", "database node". */
  noun: string;
  /** What teardown did to one: "deleted", "terminated", "started deleting". */
  verb: string;
  /** The activity in error messages: "deleting tables". */
  activity: string;
  record: RecordFields;
  /** The Janitor's field(s) for what it swept. */
  swept: readonly JanitorListField[];
  /** Whether the port this type needs is deployed here (a type without its port is skipped). */
  available(ports: SweepPorts): boolean;
  /**
   * Whether a run with this context may hold some (null: the context is unknown, so yes). A context naming none
   * means none was made (Plan writes it before anything is provisioned): no call, so runs of other targets never
   * depend on the service being offered in the region.
   */
  mayExist(run: RunContext | null): boolean;
  /** Names the context gives (a run naming some where the port is missing fails its teardown: they would stay). */
  namedIn(run: RunContext): string[];
  /**
   * Removes the run's own (context names and the run tag), each only when its own tag is the run's id. With `scope`
   * (TeardownTarget, per-target lifecycles; `run` then lists that target's resources only): that target's alone.
   */
  removeForRun(
    runId: string,
    run: RunContext | null,
    ports: LifecyclePorts,
    scope?: RemovalScope,
  ): Promise<Removal>;
  /**
   * The Janitor: removes those of any run (carrying a run tag) whose expires-at has passed; names per `swept`
   * field, and the failures of single resources (the others are still tried).
   */
  sweepExpired(ports: SweepPorts, expired: (tags: Tags) => boolean): Promise<Sweep>;
  /**
   * A resume (lib/core/pipeline/resume.ts, in the Plan step; `run` lists the resources of the targets it provisions
   * again, under the same names): what of them the failed execution's teardown has not finished removing (a cluster
   * still deleting, its supporting groups still there), each a sentence naming the resource, its state and what to
   * do; empty when the names are free. Groups of the run whose cluster is gone may be deleted here (only those
   * carrying the run's tag, as teardown would). Types without it: their removal is done when teardown returns.
   */
  resumeBlockers?(runId: string, run: RunContext, ports: LifecyclePorts): Promise<string[]>;
  /** What each run still owns by its run tag ("table fleetbench-…"), for the late-arrivals pass. */
  liveByRun(ports: LifecyclePorts): Promise<{ tags: Tags; label: string }[]>;
}

/**
 * One target's teardown (TeardownTarget): its context entries and what carries its target tag; the run-wide sweeps by
 * the run tag are left to the run's Teardown, which still follows and covers everything of the run.
 */
export interface RemovalScope {
  targetId: string;
  /**
   * A parallel run's target: its own loader group (the loaders tagged with it), terminated with it. Unset, one
   * target's removal leaves the loaders: they serve the next target.
   */
  loaderGroup?: string;
}

/** What a Janitor sweep of one type removed (by record field), and what failed. */
export interface Sweep {
  removed: Partial<Record<JanitorListField, string[]>>;
  errors?: string[];
}

/** A type's plural in messages ("2 database nodes"). */
export function counted(type: Pick<ResourceType, 'noun'>, n: number): string {
  return `${n} ${type.noun}${n === 1 ? '' : 's'}`;
}

/**
 * A resume's refusal for a cluster of the run still there (resumeBlockers): `what` names it ("DAX cluster fb-… of
 * target ddb"), `service` deletes it ("DAX").
 */
export function clusterNotGone(what: string, status: string, service: string): string {
  return status === 'deleting'
    ? `${what} is still deleting (the failed execution's teardown started it; ${service} takes several minutes): ` +
        'wait until it is gone, then resume again'
    : `${what} is still there (${status}): the failed execution's teardown has not removed it; wait until the ` +
        "teardown's retry or the Janitor has, then resume again";
}

/** A resume's refusal for a cluster's supporting pieces that could not be deleted yet (resumeBlockers). */
export function piecesNotGone(what: string, reason: string): string {
  return `${what} could not be deleted yet (${reason}): wait a few minutes, then resume again`;
}

/**
 * A resume's check of a kind's managed clusters that it makes again under the same names (a kind's resumeBlockers):
 * a cluster still there (its deletion takes minutes) refuses the resume; for one that is gone, the pieces the failed
 * execution's teardown left pending are deleted (`deletePieces`: only the run's; false when the cluster exists
 * again). Returns the refusals; empty: nothing in the way.
 */
export async function clusterResumeBlockers(o: {
  /** e.g. "DAX" */
  service: string;
  /** the pieces a cluster leaves, e.g. "the subnet, parameter and security groups" */
  pieces: string;
  clusters: readonly { name: string; targetId: string }[];
  describe: (name: string) => Promise<{ status: string }>;
  deletePieces: (name: string) => Promise<boolean>;
}): Promise<string[]> {
  const out: string[] = [];
  for (const c of o.clusters) {
    const what = `${o.service} cluster ${c.name} of target ${c.targetId}`;
    const s = await o.describe(c.name);
    if (s.status !== 'MISSING') {
      out.push(clusterNotGone(what, s.status, o.service));
      continue;
    }
    try {
      if (!(await o.deletePieces(c.name))) out.push(clusterNotGone(what, 'created again', o.service));
    } catch (err) {
      out.push(piecesNotGone(`${o.pieces} of ${what}`, (err as Error).message));
    }
  }
  return out;
}
