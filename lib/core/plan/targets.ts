/**
 * One descriptor per target kind: which YCSB binding its loaders run, the binding properties every
 * process gets (table, endpoints known at plan time, consistency), the endpoint properties known only
 * once the target runs (cluster nodes), and where its credentials are. The planner asks this once per
 * target (`targetBinding`, kept in the plan); StartLoad/StartCell add only the runtime endpoints. A new
 * target kind is one entry here plus its provisioning.
 */
import type {
  CassandraEc2Target,
  DynamoDbTarget,
  ExternalTarget,
  KeyspacesTarget,
  RunSpec,
  ScyllaEc2Target,
  Target,
} from '../spec/schema';
import { BINDINGS, type BindingId } from '../contract/bindings';
import type { JobCredentials } from '../contract/job';
import {
  ALTERNATOR_KEY_ATTRIBUTE,
  CQL_KEYSPACE,
  cassandraJobProperties,
  scyllaJobProperties,
} from '../cluster';
import { keyspacesJobProperties } from '../keyspaces';
import type { TargetSizing } from './sizing-types';

/** What the plan keeps per target: the binding and its properties, set once. */
export interface TargetBinding {
  binding: BindingId;
  /** the YCSB `DB` class (BINDINGS[binding].dbClass) */
  db: string;
  /** properties every process of every phase of this target gets */
  properties: Record<string, string>;
  /** where the loaders fetch the target's credentials (a secret reference, never the values) */
  credentials?: JobCredentials;
  /** a user's binding: its jars (store URIs), which the agent fetches (the job's bindingJars) */
  jars?: string[];
  /** each jar's SHA-256 (lowercase hex), recorded by Plan (lib/core/pipeline/binding-digests.ts) */
  jarSha256?: string[];
}

/** What a descriptor may read to set a target's properties: the spec, the run's table, id and loader sizing. */
interface PropertiesContext {
  spec: RunSpec;
  table: string;
  runId: string;
  sizing?: TargetSizing;
}

interface KindDescriptor<T extends Target> {
  binding(t: T): BindingId;
  properties(t: T, ctx: PropertiesContext): Record<string, string>;
  /** endpoint properties from the running nodes (kinds whose nodes the run launches) */
  endpointProperties?(t: T, endpoints: { host: string; port: number }[]): Record<string, string>;
  credentialsSecretArn?(t: T): string | undefined;
}

const dynamodb: KindDescriptor<DynamoDbTarget> = {
  binding: () => 'dynamodb',
  properties: (t, { spec, table }) => ({
    table,
    'dynamodb.region': spec.region,
    'dynamodb.keyAttribute': t.keyAttribute,
    'dynamodb.consistentReads': String(t.consistentReads),
  }),
};

const scyllaEc2: KindDescriptor<ScyllaEc2Target> = {
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
};

/** TLS to an external Redis or CQL target: on unless the spec sets it false. */
export function externalTls(t: ExternalTarget): boolean {
  if (t.protocol === 'redis') return t.redis?.tls ?? true;
  if (t.protocol === 'cql') return t.cql?.tls ?? true;
  return false;
}

const external: KindDescriptor<ExternalTarget> = {
  binding: (t) => t.protocol,
  properties: (t, { spec, table }): Record<string, string> => {
    switch (t.protocol) {
      case 'dynamodb':
        return {
          table,
          'dynamodb.region': t.region ?? spec.region,
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
  },
  credentialsSecretArn: (t) => t.credentialsSecretArn,
};

const cassandraEc2: KindDescriptor<CassandraEc2Target> = {
  binding: () => 'cql',
  properties: (_t, { table }) => ({ table }),
  endpointProperties: (t, endpoints) => cassandraJobProperties(t, endpoints),
};

// Amazon Keyspaces: the CQL binding in keyspaces mode (SigV4, TLS, LOCAL_QUORUM writes) on the run's keyspace
const keyspaces: KindDescriptor<KeyspacesTarget> = {
  binding: () => 'cql',
  properties: (t, ctx) => keyspacesJobProperties(t, ctx),
};

const KINDS: { [K in Target['kind']]: KindDescriptor<Extract<Target, { kind: K }>> } = {
  dynamodb,
  'scylla-ec2': scyllaEc2,
  'cassandra-ec2': cassandraEc2,
  external,
  keyspaces,
};

function kindOf<T extends Target>(t: T): KindDescriptor<T> {
  return KINDS[t.kind] as unknown as KindDescriptor<T>;
}

/** Which binding a target's loaders run. */
export function bindingIdOf(t: Target): BindingId {
  return kindOf(t).binding(t);
}

/** The binding of a target, as the plan keeps it (`run`: the run id and the target's loader sizing). */
export function targetBinding(
  spec: RunSpec,
  t: Target,
  table: string,
  run: { runId: string; sizing?: TargetSizing },
): TargetBinding {
  const k = kindOf(t);
  const binding = k.binding(t);
  const secretArn = k.credentialsSecretArn?.(t);
  const custom = t.kind === 'external' ? t.binding : undefined;
  return {
    binding,
    db: BINDINGS[binding].dbClass ?? custom!.dbClass,
    properties: k.properties(t, { spec, table, ...run }),
    ...(secretArn ? { credentials: { secretArn, binding } } : {}),
    ...(custom ? { jars: [...custom.jars] } : {}),
  };
}

/** The endpoint properties of a target whose nodes run at these addresses. */
export function runtimeEndpointProperties(
  t: Target,
  endpoints: { host: string; port: number }[],
): Record<string, string> {
  const k = kindOf(t);
  return k.endpointProperties ? k.endpointProperties(t, endpoints) : {};
}
