/**
 * The one vCPU parser (lib/core/common/instance-types.ts) against the vCPU counts of the EC2 instance type
 * specifications (https://docs.aws.amazon.com/ec2/latest/instancetypes/): the union of what the plan's CPU
 * sizing, preflight and the Cassandra node's memory accepted before, and what none of them could tell.
 */
import { instanceMemoryMib } from '../../lib/core/targets/cassandra-ec2/node';
import { vcpusOf } from '../../lib/core/common/instance-types';
import { accountNeeds } from '../../lib/core/pipeline/preflight';
import { planRun } from '../../lib/core/plan';
import { cpuSizing } from '../../lib/core/plan/sizing';
import { validateSpec } from '../../lib/core/spec';

const DOCS = 'https://docs.aws.amazon.com/ec2/latest/instancetypes';

describe('vcpusOf, by the EC2 docs', () => {
  it.each([
    // general purpose (gp.html)
    ['m7i.large', 2, 'gp'],
    ['m5.24xlarge', 96, 'gp'],
    ['m6g.medium', 1, 'gp'],
    ['m5.metal', 96, 'gp'],
    ['m5zn.metal', 48, 'gp'],
    ['m7i.metal-24xl', 96, 'gp'],
    ['m7i.metal-48xl', 192, 'gp'],
    // burstable (gp.html): T2 has 1 vCPU up to small, T3/T3a/T4g have 2 from nano
    ['t2.nano', 1, 'gp'],
    ['t2.micro', 1, 'gp'],
    ['t2.small', 1, 'gp'],
    ['t2.medium', 2, 'gp'],
    ['t3.nano', 2, 'gp'],
    ['t3.micro', 2, 'gp'],
    ['t3a.small', 2, 'gp'],
    ['t4g.medium', 2, 'gp'],
    ['t3.xlarge', 4, 'gp'],
    // compute optimized (co.html)
    ['c5.large', 2, 'co'],
    ['c5.9xlarge', 36, 'co'],
    ['c5.18xlarge', 72, 'co'],
    ['c6g.medium', 1, 'co'],
    ['c7g.4xlarge', 16, 'co'],
    ['c5.metal', 96, 'co'],
    ['c5n.metal', 72, 'co'],
    ['c6i.metal', 128, 'co'],
    ['c7i.metal-48xl', 192, 'co'],
    // memory optimized (mo.html)
    ['r6i.metal', 128, 'mo'],
    ['r5.metal', 96, 'mo'],
    ['r6g.metal', 64, 'mo'],
    ['z1d.metal', 48, 'mo'],
    ['x2iezn.metal', 48, 'mo'],
    ['r7iz.metal-16xl', 64, 'mo'],
    // storage optimized (so.html)
    ['i4i.2xlarge', 8, 'so'],
    ['i4i.metal', 128, 'so'],
    ['i3.metal', 72, 'so'],
    ['i3en.3xlarge', 12, 'so'],
    ['i3en.metal', 96, 'so'],
    // previous generation (pg.html): 36, not 4 × 8
    ['c4.8xlarge', 36, 'pg'],
    ['d2.8xlarge', 36, 'pg'],
    ['m4.16xlarge', 64, 'pg'],
    // HPC (hpc.html): SMT off, so not by size
    ['hpc6a.48xlarge', 96, 'hpc'],
    ['hpc6id.32xlarge', 64, 'hpc'],
    ['hpc7a.12xlarge', 24, 'hpc'],
    ['hpc7a.96xlarge', 192, 'hpc'],
  ])(`%s has %p vCPUs (${DOCS}/%s.html)`, (type, vcpus) => expect(vcpusOf(type)).toBe(vcpus));

  it.each([
    ['mac1.metal', 'a metal size of a family not listed'],
    ['m2.xlarge', 'a previous-generation family whose vCPUs are not by size (m2.xlarge has 2)'],
    ['hpc7a.8xlarge', 'an HPC size not listed'],
    ['c5.jumbo', 'not a size'],
    ['c5', 'no size'],
    ['c5.2xlarge.x', 'not a type'],
    ['', 'empty'],
  ])('%s: null (%s)', (type) => expect(vcpusOf(type)).toBeNull());
});

describe('its users agree', () => {
  const spec = (instanceType: string) =>
    validateSpec({
      name: 'vcpus',
      targets: [{ id: 't', kind: 'dynamodb', billing: { mode: 'on-demand' }, expectedLatencyMs: 2 }],
      dataset: { recordCount: 1000 },
      workload: {
        readProportions: [0.5],
        targetOpsPerSec: [1000],
        distributions: ['uniform'],
        durationSeconds: 60,
      },
      loaders: { instanceType, count: 3, processesPerLoader: 1, threadsPerProcess: 10 },
    }).spec;

  it('preflight counts t2.medium as 2 vCPUs each (it counted 1) and r6i.metal as 128', () => {
    for (const [type, each] of [
      ['t2.medium', 2],
      ['r6i.metal', 128],
    ] as const) {
      const s = spec(type);
      const needs = accountNeeds(s, planRun(s, { runId: 'r' }));
      expect(needs.unknownTypes).toEqual([]);
      expect(needs.vcpus.map((v) => v.vcpus)).toEqual([3 * each]);
    }
  });

  it('CPU sizing knows a metal loader (0.7 × 128 vCPUs per r6i.metal)', () => {
    const book = {
      id: 'b',
      loaderCpu: {
        bindings: {
          dynamodb: {
            binding: 'dev.fleetbench.ycsb.DynamoDbClient',
            cpuMsPerThousandOps: 100,
            measuredWith: 'by hand',
            date: '2026-11-23',
            machine: 'test',
            source: 'test',
          },
        },
        families: { r6i: { perVcpuFactor: 1, basis: 'estimate' as const, source: 'test' } },
      },
    };
    // 1,000,000 ops/s × 0.1 CPU-ms = 100 vCPUs busy; 0.7 × 128 = 89.6 per loader → 2 loaders
    expect(cpuSizing(book, 'dynamodb', 'r6i.metal', 1_000_000)).toMatchObject({ vcpus: 128, loaders: 2 });
  });

  it("a Cassandra node's memory: vCPUs × GiB per vCPU, i3.metal as listed (512 GiB, not 72 × 7.625)", () => {
    expect(instanceMemoryMib('r6i.metal')).toBe(1024 * 1024);
    expect(instanceMemoryMib('c6g.medium')).toBe(2 * 1024);
    expect(instanceMemoryMib('i3.metal')).toBe(512 * 1024);
    expect(instanceMemoryMib('i3.2xlarge')).toBe(61 * 1024);
  });
});
