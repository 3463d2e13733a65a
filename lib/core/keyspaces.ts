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
import { CQL_KEY_COLUMN } from './cluster';

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

/** The run's keyspace: `fb_` + the run id's letters/digits (underscores for the rest), at most 48 characters. */
export function keyspaceName(runId: string, targetId: string): string {
  const raw = `fb_${runId}_${targetId}`.replace(/[^A-Za-z0-9_]/g, '_');
  const name = raw.length <= 48 ? raw : `${raw.slice(0, 39)}_${hash8(raw)}`;
  if (!NAME.test(name)) throw new Error(`keyspace name ${name} is not valid for Keyspaces`);
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

function hash8(s: string): string {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
