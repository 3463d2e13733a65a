/**
 * The target kinds' declarations (lib/core/targets/<kind>/kind.ts): one line per kind,
 * `export { <declaration> as <kind> } from './<kind>/kind'`. The registry (./registry.ts) reads this list as a
 * whole and fails to compile when a kind of the spec schema has no line here.
 */
export { DYNAMODB as dynamodb } from './dynamodb/kind';
export { SCYLLA_EC2 as 'scylla-ec2' } from './scylla-ec2/kind';
export { CASSANDRA_EC2 as 'cassandra-ec2' } from './cassandra-ec2/kind';
export { EXTERNAL as external } from './external/kind';
export { KEYSPACES_KIND as keyspaces } from './keyspaces/kind';
export { MEMORYDB as memorydb } from './memorydb/kind';
