/** ScyllaDB nodes the run launches on EC2 (Alternator or CQL) as a target kind (../kind.ts). */
import type { ScyllaEc2Target } from '../../spec/schema';
import {
  CQL_TABLE,
  ALTERNATOR_KEY_ATTRIBUTE,
  NODE_CLIENT_PORTS,
  scyllaJobProperties,
  scyllaSettings,
} from '../nodes/cluster';
import type { TargetKind } from '../kind';
import { NODES_MONTHLY_COST, nodesRunCost } from '../nodes/cost';
import { provisionNodes } from '../nodes/provision';
import { nodesReady, nodesRuntime } from '../nodes/steps';
import { DATABASE_NODES } from '../nodes/node-resource';
import { NODE_CLUSTER_ENTRY } from '../nodes/entries';

export const SCYLLA_EC2: TargetKind<ScyllaEc2Target> = {
  binding: (t) => (t.api === 'cql' ? 'cql' : 'dynamodb'),
  properties: (t, { spec, table }): Record<string, string> =>
    t.api === 'alternator'
      ? {
          table,
          'dynamodb.region': spec.region,
          'dynamodb.keyAttribute': ALTERNATOR_KEY_ATTRIBUTE,
          'dynamodb.consistentReads': String(t.alternator?.consistentReads ?? true),
        }
      : { table },
  endpointProperties: (t, endpoints) => scyllaJobProperties(t, endpoints),
  // the settings of the chosen API, when the spec gives none
  withDefaults: (t) =>
    t.alternator || t.cql
      ? t
      : t.api === 'alternator'
        ? { ...t, alternator: { port: 8000, writeIsolation: 'only_rmw_uses_lwt', consistentReads: true } }
        : { ...t, cql: { port: 9042, consistency: 'QUORUM' } },
  specChecks(t, at, _spec, { issues }) {
    if (t.api === 'alternator' && !t.alternator)
      issues.push({
        path: `${at}.alternator`,
        message: 'required when api is "alternator": Alternator settings, found nothing',
      });
    if (t.api === 'cql' && !t.cql)
      issues.push({ path: `${at}.cql`, message: 'required when api is "cql": CQL settings, found nothing' });
    if (t.replicationFactor > t.nodes)
      issues.push({
        path: `${at}.replicationFactor`,
        message: `expected at most the node count (${t.nodes}), found ${t.replicationFactor}`,
      });
  },
  deployChecks(t, at, _env, { issues }) {
    // the nodes' security group opens the default client ports only
    const s = scyllaSettings(t);
    if (t.api === 'alternator' && s.alternatorPort !== NODE_CLIENT_PORTS.alternator)
      issues.push({
        path: `${at}.alternator.port`,
        message: `the nodes' security group admits the loaders on ${NODE_CLIENT_PORTS.alternator} only; got ${s.alternatorPort}`,
      });
    if (t.api === 'cql' && s.cqlPort !== NODE_CLIENT_PORTS.cql)
      issues.push({
        path: `${at}.cql.port`,
        message: `the nodes' security group admits the loaders on ${NODE_CLIENT_PORTS.cql} only; got ${s.cqlPort}`,
      });
  },
  accountNeeds: (t, at) => ({
    nodes: { instanceType: t.instanceType, count: t.nodes, what: 'ScyllaDB nodes' },
    replication: { path: `${at}.replicationFactor`, factor: t.replicationFactor },
  }),
  localIssues: (t, at) =>
    t.api === 'alternator'
      ? []
      : [
          {
            path: `${at}.api`,
            message:
              'the local mode stands in for ScyllaDB nodes with Alternator endpoints over DynamoDB Local; "cql" needs AWS (fleetbench start)',
          },
        ],
  tableName: (t, runScoped) => (t.api === 'cql' ? CQL_TABLE : runScoped),
  localNeeds: ['nodes'],
  loads: () => true,
  contextEntries: (t, { table }) => [
    { type: NODE_CLUSTER_ENTRY.shape.type.value, targetId: t.id, nodes: t.nodes, api: t.api, table },
  ],
  provision: (t, ctx) => provisionNodes(t, ctx, { login: false }),
  notReady: (t, ctx) => nodesReady(t, ctx),
  runtime: (t, ctx) =>
    nodesRuntime(t, ctx, { login: false, endpointProperties: (eps) => scyllaJobProperties(t, eps) }),
  resources: [DATABASE_NODES],
  // EBS per node: the root volume when the spec sizes it (data on the instance store)
  runCost: nodesRunCost<ScyllaEc2Target>((t) => t.ebsGb),
  monthlyCost: NODES_MONTHLY_COST,
};
