/**
 * A node kind declares what its nodes run (NODE_SOFTWARE) and the launch request carries it: the EC2 and local
 * adapters pick the image, volumes and start-up from `software`, never from the target's kind.
 */
import { nodeLaunchRequest } from '../../../lib/core/targets/nodes/provision';
import { RunSpecSchema, type Target } from '../../../lib/core/spec/schema';
import type { DbNodeTarget } from '../../../lib/core/targets/nodes/cluster';
import type { RunContext } from '../../../lib/core/pipeline/run-context';

const run = { runId: 'sw-run', specName: 'sw', expiresAt: 0 } as unknown as RunContext;

function target(t: Record<string, unknown>): DbNodeTarget {
  const spec = RunSpecSchema.parse({
    name: 'sw',
    targets: [t],
    dataset: { recordCount: 1000 },
    workload: { proportions: { read: 1 }, durationSeconds: 60, targetOpsPerSec: [100] },
  });
  return spec.targets[0] as Extract<Target, DbNodeTarget>;
}

const request = (t: DbNodeTarget) =>
  nodeLaunchRequest({ run, target: t, userTags: {}, indexes: [0], seeds: [], cassandraAsset: 's3://b/k' });

it('ScyllaDB nodes run scylladb on its own image; Cassandra nodes run apache-cassandra on Amazon Linux 2023', () => {
  const scylla = request(target({ id: 'scy', kind: 'scylla-ec2', nodes: 1 }));
  expect(scylla.software).toBe('scylladb');
  expect(scylla.ami).toEqual({ scyllaVersion: '2025.1' });
  const cassandra = request(target({ id: 'cas', kind: 'cassandra-ec2', nodes: 1 }));
  expect(cassandra.software).toBe('apache-cassandra');
  expect(cassandra.ami).toEqual({ amazonLinux2023: true });
  expect(cassandra.dataVolumeGb).toBe(500); // the schema's default data volume
  expect(Object.keys(cassandra)).not.toContain('kind');
});
