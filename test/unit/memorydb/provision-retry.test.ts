/**
 * provisionMemoryDb retried after a first attempt that stored the run's login and died before the cluster (the
 * state machine retries ProvisionTarget once after a Lambda timeout): the login is read back from the run's own
 * secret and the cluster created with it; a secret of the name without the run's tag, or one that does not hold a
 * login for the cluster's user, fails the step and creates nothing. The secrets port is the local one
 * (lib/local/secrets.ts); the MemoryDB port a recorder (its adoption of pieces is test/integration/memorydb-pipeline.test.ts's).
 */
import { StepFailedError, TAG_RUN_ID } from '../../../lib/core/common/ports';
import type { RunContext } from '../../../lib/core/pipeline';
import { validateSpec } from '../../../lib/core/spec';
import { provisionMemoryDb } from '../../../lib/core/targets/memorydb/lifecycle';
import { memoryDbResourceName, memoryDbSecretName } from '../../../lib/core/targets/memorydb/names';
import type { MemoryDbAdmin, MemoryDbClusterRequest } from '../../../lib/core/targets/memorydb/port';
import type { MemoryDbTarget } from '../../../lib/core/targets/memorydb/target';
import { LocalSecrets } from '../../../lib/local/secrets';

const { spec } = validateSpec({
  name: 'mdb',
  targets: [{ id: 'mdb', kind: 'memorydb' }],
  dataset: { recordCount: 100 },
  workload: { readProportions: [0.5], targetOpsPerSec: [10], durationSeconds: 60 },
  loaders: { count: 1 },
});
const target = spec.targets[0] as MemoryDbTarget;
const run = { runId: 'retry-run' } as RunContext;
const name = memoryDbResourceName('retry-run', 'mdb');
const secretName = memoryDbSecretName('retry-run', 'mdb');

/** A MemoryDB port with no cluster, recording what it is asked to create. */
function recorder() {
  const created: MemoryDbClusterRequest[] = [];
  const admin = {
    network: { vpcId: 'vpc-1', subnetIds: ['subnet-1'], loaderSecurityGroupId: 'sg-loaders' },
    createCluster: async (req: MemoryDbClusterRequest) => void created.push(req),
    clusterTags: async () => null,
  } as unknown as MemoryDbAdmin;
  return { admin, created };
}

const provision = (secrets: LocalSecrets, admin: MemoryDbAdmin) =>
  provisionMemoryDb(target, {
    run,
    spec,
    targetTags: {},
    ports: { store: {} as never, tables: {} as never, secrets, kindServices: { memorydb: admin } },
  });

describe('a retried ProvisionTarget of a memorydb target', () => {
  it("reads the login back from the run's secret and creates the cluster with its password", async () => {
    const secrets = new LocalSecrets();
    const stored = JSON.stringify({ username: name, password: 'f00d'.repeat(16) });
    await secrets.createSecret({ name: secretName, value: stored, tags: { [TAG_RUN_ID]: 'retry-run' } });
    const { admin, created } = recorder();
    expect(await provision(secrets, admin)).toEqual({ secrets: [secretName], created: [name] });
    expect(created.map((r) => [r.name, r.password])).toEqual([[name, 'f00d'.repeat(16)]]);
    expect(await secrets.secretString(secretName)).toBe(stored);
  });

  it("a secret of the run's name without the run's tag: refused, nothing created", async () => {
    const secrets = new LocalSecrets();
    await secrets.createSecret({
      name: secretName,
      value: JSON.stringify({ username: name, password: 'x'.repeat(32) }),
      tags: { [TAG_RUN_ID]: 'another-run' },
    });
    const { admin, created } = recorder();
    await expect(provision(secrets, admin)).rejects.toThrow(
      new StepFailedError('ProvisionTarget', `secret ${secretName} already exists and is not this run's`),
    );
    expect(created).toEqual([]);
  });

  it("the run's secret holding no login for the cluster's user: refused naming the secret, nothing created", async () => {
    for (const value of ['not json', JSON.stringify({ username: 'someone', password: 'x'.repeat(32) })]) {
      const secrets = new LocalSecrets();
      await secrets.createSecret({ name: secretName, value, tags: { [TAG_RUN_ID]: 'retry-run' } });
      const { admin, created } = recorder();
      await expect(provision(secrets, admin)).rejects.toThrow(
        `the run's login secret ${secretName} does not hold a login for user ${name}`,
      );
      expect(created).toEqual([]);
    }
  });
});
