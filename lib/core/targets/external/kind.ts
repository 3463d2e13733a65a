/**
 * A database the run does not create, reached at its endpoints (DynamoDB-compatible, CQL, Redis, MongoDB, or a
 * user's own YCSB binding), as a target kind (../kind.ts).
 */
import type { ExternalTarget } from '../../spec/schema';
import {
  CQL_TABLE,
  ALTERNATOR_KEY_ATTRIBUTE,
  CQL_KEYSPACE,
  CREDENTIALS_SECRET_PREFIX,
  readableByLoaders,
} from '../nodes/cluster';
import type { Issue } from '../../common/errors';
import type { TargetKind } from '../kind';
import { EXTERNAL_MONTHLY_COST, EXTERNAL_RUN_COST } from './cost';
import { externalSpecChecks } from './spec-checks';
import { externalSecretChecks } from './secret-checks';
import { bindingJarIssues } from './binding-jars';

/** TLS to an external Redis or CQL target: on unless the spec sets it false. */
export function externalTls(t: ExternalTarget): boolean {
  if (t.protocol === 'redis') return t.redis?.tls ?? true;
  if (t.protocol === 'cql') return t.cql?.tls ?? true;
  return false;
}

function properties(t: ExternalTarget, region: string, table: string): Record<string, string> {
  switch (t.protocol) {
    case 'dynamodb':
      return {
        table,
        'dynamodb.region': t.region ?? region,
        'dynamodb.keyAttribute': ALTERNATOR_KEY_ATTRIBUTE,
        'dynamodb.endpoint': t.endpoints.join(','),
      };
    case 'cql':
      return {
        table,
        'cql.hosts': t.endpoints.join(','),
        'cql.keyspace': CQL_KEYSPACE,
        'cql.ssl': String(externalTls(t)),
      };
    case 'redis':
      // the binding ignores the table: records are keyed by YCSB's key, as upstream's redis binding does
      return {
        table,
        'redis.host': t.endpoints.join(','),
        'redis.cluster': String(t.redis?.cluster ?? false),
        'redis.tls': String(externalTls(t)),
      };
    case 'custom':
      // a user's binding: the properties it was given, and the run's table name
      return { table, ...t.binding!.properties };
    case 'mongodb':
      // the collection is the table; TLS follows the connection string (on for mongodb+srv)
      return {
        table,
        'mongodb.url': t.endpoints[0]!,
        'mongodb.writeConcern': t.mongodb?.writeConcern ?? 'acknowledged',
        'mongodb.readPreference': t.mongodb?.readPreference ?? 'primary',
      };
  }
}

/** The local mode serves Redis (redis-server) and runs users' bindings; the other protocols need their servers. */
function localIssues(t: ExternalTarget, at: string): Issue[] {
  if (t.protocol === 'redis') return [];
  if (t.protocol !== 'custom')
    return [
      {
        path: `${at}.kind`,
        message:
          'the local mode runs DynamoDB and scylla-ec2 (Alternator) targets on DynamoDB Local, cassandra-ec2 targets as ' +
          'loopback Cassandra nodes, external Redis targets on redis-server, and external targets with your own ' +
          `binding; "external" (${t.protocol}) needs AWS (fleetbench start)`,
      },
    ];
  return t.binding!.jars.flatMap((j, k) =>
    j.startsWith('file://')
      ? []
      : [{ path: `${at}.binding.jars[${k}]`, message: `a local run reads file:// jars; got ${j}` }],
  );
}

export const EXTERNAL: TargetKind<ExternalTarget> = {
  binding: (t) => t.protocol,
  properties: (t, { spec, table }) => properties(t, spec.region, table),
  credentialsSecretArn: (t) => t.credentialsSecretArn,
  userBinding: (t) => t.binding,
  specChecks: externalSpecChecks,
  secretChecks: externalSecretChecks,
  localRedis: (t) =>
    t.protocol === 'redis'
      ? { endpoints: t.endpoints, clusterOrTls: Boolean(t.redis?.cluster) || externalTls(t) }
      : undefined,
  deployChecks(t, at, { spec, storeUri, network, account }, { issues, warnings }) {
    const stack = { region: spec.region, ...(account ? { account } : {}) };
    if (t.credentialsSecretArn && !readableByLoaders(t.credentialsSecretArn, stack))
      issues.push({
        path: `${at}.credentialsSecretArn`,
        message: `the loaders may read secrets named ${CREDENTIALS_SECRET_PREFIX}* in the stack's region and account only (arn:aws:secretsmanager:${spec.region}:${account ?? '<account>'}:secret:${CREDENTIALS_SECRET_PREFIX}...); got ${t.credentialsSecretArn}`,
      });
    if (network === 'private')
      warnings.push(
        `${at}.endpoints: this stack's private network has no route to the internet; ` +
          `the loaders reach ${t.endpoints.join(', ')} only if it is inside the VPC`,
      );
    if (!t.binding) return;
    // a user's binding: its jars where the loaders can read them (the results bucket's bindings/ on AWS)
    if (!t.binding.jars.length)
      issues.push({
        path: `${at}.binding.maven`,
        message:
          'Maven coordinates are resolved into jars by the CLI (fleetbench start, fleetbench run --local); ' +
          `a start from the console or a schedule needs binding.jars (uploaded under ${storeUri}/bindings/)`,
      });
    issues.push(...bindingJarIssues(t.binding.jars, at, storeUri));
  },
  localIssues,
  tableName: (t, runScoped) => t.table ?? (t.protocol === 'cql' ? CQL_TABLE : runScoped),
  loads: () => true,
  resources: [],
  runCost: EXTERNAL_RUN_COST,
  monthlyCost: EXTERNAL_MONTHLY_COST,
};
