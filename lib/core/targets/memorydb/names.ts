/**
 * Names of a run's MemoryDB resources. MemoryDB names (clusters, ACLs, users, subnet groups) are 1-40 characters,
 * begin with a letter, hold letters, digits and hyphens, never two hyphens in a row nor one at the end
 * (https://docs.aws.amazon.com/memorydb/latest/APIReference/API_CreateCluster.html, ClusterName). A run id (up to
 * 40 characters) and a target id (up to 32) do not fit: the name is a fixed prefix and a hash of both, and the
 * run tag on every resource (not the name) decides what a run owns.
 */
import { createHash } from 'node:crypto';

export const MEMORYDB_NAME_PREFIX = 'fleetbench-';
/** What memoryDbResourceName makes (the adapter skips other clusters and groups by it). */
export const MEMORYDB_NAME_PATTERN = new RegExp(`^${MEMORYDB_NAME_PREFIX}[0-9a-f]{12}$`);

/** The cluster (and ACL, user, subnet group, security group) name of a run's target. */
export function memoryDbResourceName(runId: string, targetId: string): string {
  return `${MEMORYDB_NAME_PREFIX}${createHash('sha256').update(`${runId}/${targetId}`).digest('hex').slice(0, 12)}`;
}

/** How a MemoryDB login secret's name ends (the stack grants reading it back by this: lib/constructs/memorydb-access.ts). */
export const MEMORYDB_SECRET_SUFFIX = '-memorydb';

/** The run's login secret of a target: under the `fleetbench/` prefix the loaders may read. */
export function memoryDbSecretName(runId: string, targetId: string): string {
  return `fleetbench/${runId}/${targetId}${MEMORYDB_SECRET_SUFFIX}`;
}

/** MemoryDB's port (the cluster endpoint's; the security group admits the loaders on it only). */
export const MEMORYDB_PORT = 6379;
