/**
 * The target kinds' spec modules (lib/core/targets/<kind>/spec.ts): one line per kind,
 * `export { <spec> as <kind> } from './<kind>/spec'`. The spec schema builds its target union and default latencies
 * from this list (./specs.ts); the kind registry (./registry.ts) fails to compile when a kind here has no declaration.
 */
export { DYNAMODB_SPEC as dynamodb } from './dynamodb/spec';
export { SCYLLA_EC2_SPEC as 'scylla-ec2' } from './scylla-ec2/spec';
export { CASSANDRA_EC2_SPEC as 'cassandra-ec2' } from './cassandra-ec2/spec';
export { EXTERNAL_SPEC as external } from './external/spec';
export { KEYSPACES_SPEC as keyspaces } from './keyspaces/spec';
export { MEMORYDB_SPEC as memorydb } from './memorydb/spec';
