/** Apache Cassandra nodes the run launches on EC2 (CQL, with a generated login) as a target kind (../kind.ts). */
import type { CassandraEc2Target } from '../../spec/schema';
import { CQL_TABLE, NODE_CLIENT_PORTS, cassandraJobProperties } from '../nodes/cluster';
import { KNOWN_MEMORY_FAMILIES, cassandraEbsGbPerNode, instanceMemoryMib } from './node';
import type { TargetKind } from '../kind';
import { NODES_MONTHLY_COST, nodesRunCost } from '../nodes/cost';
import { provisionNodes } from '../nodes/provision';
import { nodesReady, nodesRuntime } from '../nodes/steps';
import { DATABASE_NODES } from '../nodes/node-resource';
import { LOGIN_SECRETS } from './login-resource';
import { NODE_CLUSTER_ENTRY } from '../nodes/entries';
import { LOGIN_SECRET_ENTRY } from './entries';
import { cqlLoginSecretName } from './cql-secret-name';

export const CASSANDRA_EC2: TargetKind<CassandraEc2Target> = {
  binding: () => 'cql',
  properties: (_t, { table }) => ({ table }),
  endpointProperties: (t, endpoints) => cassandraJobProperties(t, endpoints),
  specChecks(t, at, _spec, { issues }) {
    if (t.replicationFactor > t.nodes)
      issues.push({
        path: `${at}.replicationFactor`,
        message: `expected at most the node count (${t.nodes}), found ${t.replicationFactor}`,
      });
    // the heap follows the instance's memory (Cassandra's rule): the type must be one whose memory is known
    if (instanceMemoryMib(t.instanceType) === null)
      issues.push({
        path: `${at}.instanceType`,
        message:
          `expected an instance type whose memory fleetbench knows (families ${KNOWN_MEMORY_FAMILIES.join(', ')}; ` +
          `sizes whose vCPUs are known: medium, large, xlarge, Nxlarge, metal-Nxl and the listed metal sizes), found "${t.instanceType}"`,
      });
  },
  deployChecks(t, at, _env, { issues }) {
    if (t.cql.port !== NODE_CLIENT_PORTS.cql)
      issues.push({
        path: `${at}.cql.port`,
        message: `the nodes' security group admits the loaders on ${NODE_CLIENT_PORTS.cql} only; got ${t.cql.port}`,
      });
  },
  accountNeeds: (t, at) => ({
    nodes: { instanceType: t.instanceType, count: t.nodes, what: 'Cassandra nodes' },
    replication: { path: `${at}.replicationFactor`, factor: t.replicationFactor },
  }),
  localIssues: () => [],
  tableName: () => CQL_TABLE,
  localNeeds: ['nodes', 'cassandra', 'secrets'],
  loads: () => true,
  contextEntries: (t, { runId, table }) => [
    { type: NODE_CLUSTER_ENTRY.shape.type.value, targetId: t.id, nodes: t.nodes, api: 'cql', table },
    { type: LOGIN_SECRET_ENTRY.shape.type.value, targetId: t.id, name: cqlLoginSecretName(runId, t.id) },
  ],
  provision: (t, ctx) => provisionNodes(t, ctx, { login: true }),
  notReady: (t, ctx) => nodesReady(t, ctx, { version: t.version }),
  runtime: (t, ctx) =>
    nodesRuntime(t, ctx, { login: true, endpointProperties: (eps) => cassandraJobProperties(t, eps) }),
  resources: [DATABASE_NODES, LOGIN_SECRETS],
  // EBS per node: the data volume
  runCost: nodesRunCost<CassandraEc2Target>(cassandraEbsGbPerNode),
  monthlyCost: NODES_MONTHLY_COST,
};
