/**
 * An Amazon Keyspaces target as pure domain code: the run's keyspace name, the YCSB table's schema as the
 * Keyspaces API takes it (the same columns the CQL binding's schema helper creates on Cassandra: text key
 * `y_id`, text `field0..field<n-1>`), and the capacity mode. The adapter (lib/aws/keyspaces-admin.ts) implements
 * the KeyspacesAdmin port over this.
 *
 * Why the Keyspaces API and not CQL DDL: the pipeline's Lambdas then need no CQL driver, no SigV4 plugin and no
 * network path to port 9142, only IAM (`cassandra:Create`, `cassandra:Drop`, `cassandra:Select` on the keyspace);
 * GetTable reports when the table is ACTIVE (CQL DDL on Keyspaces is asynchronous too, and is seen through
 * system_schema_mcs). The CQL the binding runs is the same either way.
 */
import { CQL_KEY_COLUMN } from '../nodes/cluster';
import { fnv1a } from '../dynamodb/dax';
import type { KeyspacesTarget, RunSpec } from '../../spec/schema';
import type { TargetSizing } from '../../plan/sizing-types';
import { DEFAULT_EXPECTED_LATENCY_MS } from '../../spec/schema';

/** Keyspace and table names: 1-48 characters, a letter first, then letters, digits or underscores. */
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,47}$/;

export type KeyspacesCapacity =
  | { mode: 'on-demand' }
  /** Read and write capacity units per second (RCU: one LOCAL_QUORUM read of up to 4 KB/s; WCU: one 1 KB write/s). */
  | { mode: 'provisioned'; rcu: number; wcu: number };

export interface KeyspacesColumns {
  allColumns: { name: string; type: 'text' }[];
  partitionKeys: { name: string }[];
}

/** The keyspace-name prefix of runs' keyspaces: the stack's grants are scoped to it. */
export const KEYSPACE_PREFIX = 'fb_';

/**
 * The run's keyspace: `fb_<run>_<target>_<hash>`, the run and target ids with `-` as `_` (cut so that the name
 * stays within 48 characters) and 8 hex digits of `<run>/<target>`. Ids hold `-`, which keyspace names cannot:
 * without the hash run `x` target `nightly-ks` and run `x-nightly` target `ks` would share `fb_x_nightly_ks`.
 */
export function keyspaceName(runId: string, targetId: string): string {
  const readable = `${runId}_${targetId}`
    .replace(/[^A-Za-z0-9_]/g, '_')
    .slice(0, 48 - KEYSPACE_PREFIX.length - 9);
  const name = `${KEYSPACE_PREFIX}${readable}_${fnv1a(`${runId}/${targetId}`)}`;
  if (!NAME.test(name)) throw new Error(`keyspace name ${name} is not valid for Keyspaces (${NAME.source})`);
  return name;
}

/** Problems with a keyspace or table name, each naming the rule (empty: valid). */
export function keyspacesNameProblems(name: string): string[] {
  return NAME.test(name) ? [] : [`'${name}' must be 1-48 characters: a letter, then letters, digits or _`];
}

/** The YCSB table's columns: the binding's key column and `fieldCount` text fields. */
export function ycsbColumns(fieldCount: number): KeyspacesColumns {
  if (!Number.isInteger(fieldCount) || fieldCount < 1)
    throw new Error(`fieldCount ${fieldCount} must be ≥ 1`);
  return {
    allColumns: [
      { name: CQL_KEY_COLUMN, type: 'text' },
      ...Array.from({ length: fieldCount }, (_, i) => ({ name: `field${i}`, type: 'text' as const })),
    ],
    partitionKeys: [{ name: CQL_KEY_COLUMN }],
  };
}

/** The Keyspaces API's capacity specification for a capacity mode. */
export function capacitySpecification(c: KeyspacesCapacity): {
  throughputMode: 'PAY_PER_REQUEST' | 'PROVISIONED';
  readCapacityUnits?: number;
  writeCapacityUnits?: number;
} {
  if (c.mode === 'on-demand') return { throughputMode: 'PAY_PER_REQUEST' };
  for (const [field, v] of [
    ['rcu', c.rcu],
    ['wcu', c.wcu],
  ] as const) {
    if (!Number.isInteger(v) || v < 1)
      throw new Error(`keyspaces capacity ${field}: ${v} must be a whole number ≥ 1`);
  }
  return { throughputMode: 'PROVISIONED', readCapacityUnits: c.rcu, writeCapacityUnits: c.wcu };
}

/**
 * Keyspaces' client connections (https://docs.aws.amazon.com/keyspaces/latest/devguide/connections.html): a TCP
 * connection carries at most 3,000 CQL requests/s, AWS recommends planning 500/s per connection for headroom, and
 * the public endpoint lists 9 peers in system.peers, to each of which the driver opens `cql.connectionsPerHost`.
 */
export const KEYSPACES_CONNECTION = {
  maxRequestsPerSecond: 3000,
  plannedRequestsPerSecond: 500,
  publicEndpointPeers: 9,
} as const;

/**
 * The connections per host one YCSB process needs: its largest share of the target's rate, over the planned 500
 * requests/s per connection × 9 peers, at least 1. The share is the largest cell's rate split over the target's
 * processes, or in the load phase (no cap: as fast as its threads go at the expected latency, by Little's Law;
 * with `dataset.loadTargetOpsPerSec`, that cap over the target's processes, if lower).
 */
export function keyspacesConnectionsPerHost(spec: RunSpec, t: KeyspacesTarget, sizing: TargetSizing): number {
  const processes = sizing.loaders * sizing.processesPerLoader;
  const cellShare = sizing.maxTargetOpsPerSec / processes;
  const latencyMs = t.expectedLatencyMs ?? DEFAULT_EXPECTED_LATENCY_MS.keyspaces;
  const threadBound = (spec.loaders.threadsPerProcess * 1000) / latencyMs;
  const cap = spec.dataset.loadTargetOpsPerSec;
  const loadShare = spec.dataset.load ? (cap ? Math.min(threadBound, cap / processes) : threadBound) : 0;
  const perProcess = Math.max(cellShare, loadShare);
  const perConnectionSet =
    KEYSPACES_CONNECTION.plannedRequestsPerSecond * KEYSPACES_CONNECTION.publicEndpointPeers;
  return Math.max(1, Math.ceil(perProcess / perConnectionSet));
}

/**
 * The Keyspaces service endpoint of a region (https://docs.aws.amazon.com/keyspaces/latest/devguide/programmatic.endpoints.html):
 * `cassandra.<region>.amazonaws.com`, `.amazonaws.com.cn` in the China regions.
 */
export function keyspacesEndpoint(region: string): string {
  return `cassandra.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

/**
 * The CQL binding's properties for a Keyspaces target (keyspaces mode: port 9142, SigV4, TLS, LOCAL_QUORUM writes
 * are the binding's defaults there): the run's keyspace and table, the region, the read consistency and the
 * connections per host. Without a sizing (a binding asked for outside a plan), one connection per host.
 */
export function keyspacesJobProperties(
  t: KeyspacesTarget,
  ctx: { spec: RunSpec; table: string; runId: string; sizing?: TargetSizing },
): Record<string, string> {
  return {
    table: ctx.table,
    'cql.service': 'keyspaces',
    'cql.hosts': keyspacesEndpoint(ctx.spec.region),
    'cql.region': ctx.spec.region,
    'cql.keyspace': keyspaceName(ctx.runId, t.id),
    'cql.readConsistency': t.readConsistency,
    'cql.writeConsistency': 'LOCAL_QUORUM',
    'cql.connectionsPerHost': String(ctx.sizing ? keyspacesConnectionsPerHost(ctx.spec, t, ctx.sizing) : 1),
  };
}
