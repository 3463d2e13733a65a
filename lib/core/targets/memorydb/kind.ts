/**
 * Amazon MemoryDB (durable, Redis-compatible) as a target kind (../kind.ts): the run creates a cluster per target
 * in the loaders' network, TLS always on, with an ACL user whose login the run generates and keeps in Secrets
 * Manager; the loaders run the Redis binding in cluster mode against the cluster endpoint.
 */
import type { ReadyLimits, TargetKind } from '../kind';
import { MEMORYDB_DEFAULT_NODES_QUOTA, MEMORYDB_MAX_NODES_PER_CLUSTER } from './spec';
import type { MemoryDbTarget } from './target';
import { MEMORYDB_MONTHLY_COST, MEMORYDB_RUN_COST, memoryDbNodes } from './cost';
import { memoryDbEndpointProperties, memoryDbReady, memoryDbRuntime, provisionMemoryDb } from './lifecycle';
import { MEMORYDB_CLUSTERS, MEMORYDB_LOGINS } from './resources';
import { MEMORYDB_CLUSTER_ENTRY, MEMORYDB_LOGIN_ENTRY } from './entries';
import { memoryDbResourceName, memoryDbSecretName } from './names';
import { MEMORYDB_PRICE_REFRESH } from '../../cost/refresh-memorydb';

/**
 * WaitReady's limits for a run with a MemoryDB cluster: the cluster stays `creating` for many minutes (AWS's
 * getting-started guide has the user wait for `available`:
 * https://docs.aws.amazon.com/memorydb/latest/devguide/getting-started.html#getting-started.createcluster), so the
 * 40-minute deadline DAX has, polled every minute (the history budget counts it: lib/core/pipeline/timing.ts).
 */
export const MEMORYDB_READY_LIMITS: ReadyLimits = { timeoutSeconds: 40 * 60, pollSeconds: 60 };

export const MEMORYDB: TargetKind<MemoryDbTarget> = {
  binding: () => 'redis',
  // the cluster endpoint is known once the cluster runs (endpointProperties); records are keyed by YCSB's key
  properties: (_t, { table }) => ({ table, 'redis.cluster': 'true', 'redis.tls': 'true' }),
  endpointProperties: (_t, endpoints) => memoryDbEndpointProperties(endpoints[0]!),
  specChecks(t, at, _spec, { issues, warnings }) {
    const nodes = memoryDbNodes(t);
    if (nodes > MEMORYDB_MAX_NODES_PER_CLUSTER)
      issues.push({
        path: `${at}.shards`,
        message: `expected at most ${MEMORYDB_MAX_NODES_PER_CLUSTER} nodes per cluster (MemoryDB's limit), found ${t.shards} shards × ${1 + t.replicasPerShard} nodes = ${nodes}`,
      });
    else if (nodes > MEMORYDB_DEFAULT_NODES_QUOTA)
      warnings.push(
        `${at}: ${nodes} nodes in one MemoryDB cluster; the account's default quota is ${MEMORYDB_DEFAULT_NODES_QUOTA} nodes per cluster (NodesPerCluster): raise it first`,
      );
  },
  // locally on redis-server in cluster mode with TLS and the ACL user (lib/local/memorydb.ts, its local adapter)
  localIssues: () => [],
  localNeeds: ['secrets'],
  tableName: (_t, runScoped) => runScoped,
  loads: () => true,
  contextEntries: (t, { runId }) => [
    { type: MEMORYDB_LOGIN_ENTRY.shape.type.value, targetId: t.id, name: memoryDbSecretName(runId, t.id) },
    {
      type: MEMORYDB_CLUSTER_ENTRY.shape.type.value,
      targetId: t.id,
      name: memoryDbResourceName(runId, t.id),
    },
  ],
  provision: (t, ctx) => provisionMemoryDb(t, ctx),
  notReady: memoryDbReady,
  slowReady: { limits: MEMORYDB_READY_LIMITS, applies: () => true },
  runtime: memoryDbRuntime,
  resources: [MEMORYDB_LOGINS, MEMORYDB_CLUSTERS],
  runCost: MEMORYDB_RUN_COST,
  monthlyCost: MEMORYDB_MONTHLY_COST,
  priceRefresh: MEMORYDB_PRICE_REFRESH,
};
