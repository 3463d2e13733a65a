/**
 * The Lambdas' ports (lambdas/shared/env.ts): a step that spreads them (`{ ...deps }`) reads every getter; the run
 * registry's throws by design (Plan builds its own from the execution's context), so it must not be enumerable.
 * Three steps met it in the cloud twin before this (ProvisionTarget, CellFailed, AggregateCell).
 */
import { awsPorts } from '../../../lambdas/shared/env';
import { MemoryDbClusterAdmin } from '../../../lib/aws/memorydb-admin';

const ENV = {
  AWS_REGION: 'us-east-1',
  RESULTS_BUCKET: 'bucket',
  LOADER_DOCUMENT: 'doc',
  TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:topic',
  LAUNCH_TEMPLATE_ID: 'lt-0',
  LAUNCH_TEMPLATE_ID_ARM: 'lt-1',
  SUBNET_IDS: 'subnet-0',
};

describe('the Lambda ports', () => {
  const saved = { ...process.env };
  beforeAll(() => Object.assign(process.env, ENV));
  afterAll(() => {
    process.env = saved;
  });

  it('spread without calling the run registry getter, which still refuses when asked', () => {
    expect(() => ({ ...awsPorts() })).not.toThrow();
    expect(Object.keys({ ...awsPorts() })).not.toContain('runs');
    expect(() => awsPorts().runs).toThrow(/execution's context/);
  });

  it("builds each kind's own adapter from the registry, on first use, only where the stack set its environment", () => {
    expect(awsPorts().kindServices?.memorydb).toBeUndefined();
    const mdb = {
      MEMORYDB_VPC_ID: 'vpc-1',
      MEMORYDB_SUBNET_IDS: 'subnet-a,subnet-b',
      MEMORYDB_LOADER_SECURITY_GROUP_ID: 'sg-1',
    };
    Object.assign(process.env, mdb);
    try {
      const ports = awsPorts();
      const admin = ports.kindServices?.memorydb;
      expect(admin).toBeInstanceOf(MemoryDbClusterAdmin);
      expect(admin!.network).toEqual({
        vpcId: 'vpc-1',
        subnetIds: ['subnet-a', 'subnet-b'],
        loaderSecurityGroupId: 'sg-1',
      });
      expect(ports.kindServices?.memorydb).toBe(admin); // built once
      delete process.env.MEMORYDB_SUBNET_IDS;
      expect(() => awsPorts().kindServices?.memorydb).toThrow(/MEMORYDB_SUBNET_IDS is not set/);
    } finally {
      for (const k of Object.keys(mdb)) delete process.env[k];
    }
  });
});
