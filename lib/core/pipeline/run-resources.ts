/** The per-kind resources a run context lists (lib/core/pipeline/context.ts). */

/** A keyspaces target's keyspace and table (lib/core/targets/keyspaces/lifecycle.ts). */
export interface RunKeyspace {
  target: string;
  keyspace: string;
  table: string;
}

/** A DAX cluster of a run (lib/core/targets/dynamodb/dax-lifecycle.ts). */
export interface RunDaxCluster {
  target: string;
  /** daxResourceName(runId, target): cluster, subnet group, parameter group and security group. */
  name: string;
}
