/** Amazon Keyspaces (for Apache Cassandra) as a target kind (../kind.ts). */
import type { KeyspacesTarget } from '../../spec/schema';
import { keyspaceName, keyspacesJobProperties } from './keyspace';
import { keyspacesTargetChecks } from './spec-checks';
import { CQL_TABLE } from '../nodes/cluster';
import type { TargetKind } from '../kind';
import { KEYSPACES_MONTHLY_COST, KEYSPACES_RUN_COST, keyspacesOpUnits } from './cost';
import { configureKeyspacesCapacity, keyspaceNotReady, provisionKeyspace } from './lifecycle';
import { KEYSPACES } from './keyspace-resource';
import { KEYSPACE_ENTRY } from './entries';

/** Why a keyspaces target cannot run locally: no stand-in for the service exists here. */
export const LOCAL_KEYSPACES_REFUSAL =
  '"keyspaces" is Amazon Keyspaces, an AWS service with no local stand-in (no emulator serves its API, its SigV4 ' +
  'authentication or its TLS CQL endpoint): it needs an AWS account with the stack deployed (fleetbench start)';

export const KEYSPACES_KIND: TargetKind<KeyspacesTarget> = {
  // the CQL binding in keyspaces mode (SigV4, TLS, LOCAL_QUORUM writes) on the run's keyspace
  binding: () => 'cql',
  properties: (t, ctx) => keyspacesJobProperties(t, ctx),
  specChecks(_t, at, spec, { issues }) {
    keyspacesTargetChecks(spec, at, issues);
  },
  deployChecks(_t, at, { spec, network }, { issues }) {
    // the private network has no NAT and no Keyspaces interface endpoint: the loaders could not reach the service
    if (network === 'private')
      issues.push({
        path: `${at}.kind`,
        message:
          `a keyspaces target needs the loaders to reach cassandra.${spec.region}.amazonaws.com:9142, and this stack's ` +
          `private network has no route there (no NAT, no Keyspaces interface endpoint): deploy with the public ` +
          `network, or into a VPC (vpcId) with a route or a com.amazonaws.${spec.region}.cassandra endpoint`,
      });
  },
  localIssues: (_t, at) => [{ path: `${at}.kind`, message: LOCAL_KEYSPACES_REFUSAL }],
  tableName: () => CQL_TABLE,
  loads: () => true,
  contextEntries: (t, { runId, table }) => [
    { type: KEYSPACE_ENTRY.shape.type.value, targetId: t.id, name: keyspaceName(runId, t.id), table },
  ],
  async provision(t, { run, spec, ports, targetTags, sleep }) {
    const table = await provisionKeyspace(run, spec, t, { tags: targetTags, admin: ports.keyspaces, sleep });
    return table ? { created: [table] } : {};
  },
  notReady: async (t, { run, ports }) => ({ problems: await keyspaceNotReady(run, t.id, ports.keyspaces) }),
  configureCell: (t, { run, ports, sleep }) => configureKeyspacesCapacity(run, t, ports.keyspaces, sleep),
  resources: [KEYSPACES],
  runCost: KEYSPACES_RUN_COST,
  monthlyCost: KEYSPACES_MONTHLY_COST,
  opUnits: keyspacesOpUnits,
};
