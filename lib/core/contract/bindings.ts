/**
 * The YCSB bindings a loader can run, one descriptor each: the `DB` class (loader/ycsb-binding), the
 * fields of its credentials secret and the JVM environment variables they go to, and what its load
 * phase may use (batched inserts). The planner picks a binding per target (its kind's declaration, lib/core/targets/<kind>/kind.ts), the job names it, the
 * agent turns its secret into environment variables with it. A new binding is one entry here plus its
 * Java class.
 */

export interface BindingDescriptor {
  /** The YCSB `DB` class (`-db`); null: the target names it (a user's binding). */
  dbClass: string | null;
  /**
   * The credentials secret (a JSON object in Secrets Manager): field → the JVMs' environment
   * variable, and which fields must be present; or, with `asProperties`, every field is a property of
   * the binding and the whole secret goes, as Java properties text, into that one environment variable
   * (read by the binding's bridge, loader/ycsb-binding IsolatedDb). Values never reach property files or logs.
   */
  secret: { env: Readonly<Record<string, string>>; required: readonly string[]; asProperties?: string };
  /** Properties the load phase adds for this binding: batched inserts where the binding supports them. */
  loadProperties: Readonly<Record<string, string>>;
}

export const BINDINGS = {
  /** fleetbench's DynamoDB JSON-protocol client: DynamoDB, Alternator, DynamoDB-compatible endpoints */
  dynamodb: {
    dbClass: 'dev.fleetbench.ycsb.DynamoDbClient',
    secret: {
      // the AWS SDKs' variables (https://docs.aws.amazon.com/sdkref/latest/guide/feature-static-credentials.html)
      env: {
        accessKeyId: 'AWS_ACCESS_KEY_ID',
        secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
        sessionToken: 'AWS_SESSION_TOKEN',
      },
      required: ['accessKeyId', 'secretAccessKey'],
    },
    // BatchWriteItem, 25 items a request (DynamoDB's limit)
    loadProperties: { 'dynamodb.batchInserts': '25' },
  },
  /** the CQL binding (DataStax Java driver 4): ScyllaDB, Apache Cassandra */
  cql: {
    dbClass: 'dev.fleetbench.ycsb.CqlClient',
    secret: {
      env: { username: 'FLEETBENCH_CQL_USERNAME', password: 'FLEETBENCH_CQL_PASSWORD' },
      required: ['username', 'password'],
    },
    loadProperties: {},
  },
  /** the Redis binding (Jedis): a hash per record plus upstream YCSB's `_indices` sorted set for scans */
  redis: {
    dbClass: 'dev.fleetbench.ycsb.RedisClient',
    secret: {
      // a password alone authenticates Redis's `default` user
      env: { username: 'FLEETBENCH_REDIS_USERNAME', password: 'FLEETBENCH_REDIS_PASSWORD' },
      required: ['password'],
    },
    loadProperties: {},
  },
  /** the MongoDB binding (official sync driver): documents as upstream YCSB's mongodb binding stores them */
  mongodb: {
    dbClass: 'dev.fleetbench.ycsb.MongoDbClient',
    secret: {
      env: { username: 'FLEETBENCH_MONGODB_USERNAME', password: 'FLEETBENCH_MONGODB_PASSWORD' },
      required: ['username', 'password'],
    },
    loadProperties: {},
  },
  /**
   * a user's YCSB binding: its jars (with their dependencies) in their own class loader, which cannot replace
   * YCSB core or HdrHistogram (loader/ycsb-binding README, "A user's YCSB binding"); its class from the target
   */
  custom: {
    dbClass: null,
    secret: { env: {}, required: [], asProperties: 'FLEETBENCH_BINDING_SECRET_PROPERTIES' },
    loadProperties: {},
  },
} as const satisfies Record<string, BindingDescriptor>;

export type BindingId = keyof typeof BINDINGS;
export const BINDING_IDS = Object.keys(BINDINGS) as [BindingId, ...BindingId[]];

export function bindingOf(id: BindingId): BindingDescriptor {
  return BINDINGS[id];
}
