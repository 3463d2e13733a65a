/**
 * vCPUs of an EC2 instance type: the one parser the plan's CPU sizing (plan/sizing.ts), preflight's vCPU quota
 * needs (preflight.ts) and a Cassandra node's memory (cassandra-node.ts) use.
 *
 * By the size's name (https://docs.aws.amazon.com/ec2/latest/instancetypes/gp.html, co.html, mo.html, so.html):
 * nano, micro, small and medium 1, large 2, xlarge 4, <n>xlarge 4n, and the half-size bare-metal sizes
 * metal-<n>xl as <n>xlarge (m7i.metal-24xl 96). What the name does not tell is listed per family in one table:
 * the burstable T types, whose small sizes have 2 vCPUs (gp.html),
 * the plain `metal` size of the families fleetbench sizes (its vCPUs differ by family), and the previous-generation
 * c4.8xlarge and d2.8xlarge with 36 (https://docs.aws.amazon.com/ec2/latest/instancetypes/pg.html).
 * Families whose vCPUs do not follow their size (the HPC types, whose SMT is off: hpc6a.48xlarge has 96) give
 * only what the table lists; anything else this cannot tell is null, never a guess.
 */

/** vCPUs by size name, for sizes not named <n>xlarge. */
const VCPUS_BY_SIZE: Readonly<Record<string, number>> = {
  nano: 1,
  micro: 1,
  small: 1,
  medium: 1,
  large: 2,
  xlarge: 4,
};

const T3_SMALL_SIZES = { nano: 2, micro: 2, small: 2, medium: 2 };

/**
 * Sizes whose vCPUs the name does not tell, by family (the specification pages above; the HPC types from
 * https://docs.aws.amazon.com/ec2/latest/instancetypes/hpc.html).
 */
const VCPUS_BY_FAMILY_SIZE: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  // burstable: T2 from medium, T3/T3a/T4g from nano have 2 vCPUs
  t2: { medium: 2 },
  t3: T3_SMALL_SIZES,
  t3a: T3_SMALL_SIZES,
  t4g: T3_SMALL_SIZES,
  // previous generation: 36 vCPUs, not 32
  c4: { '8xlarge': 36 },
  d2: { '8xlarge': 36 },
  // bare metal
  a1: { metal: 16 },
  c5: { metal: 96 },
  c5d: { metal: 96 },
  c5n: { metal: 72 },
  c6a: { metal: 192 },
  c6g: { metal: 64 },
  c6gd: { metal: 64 },
  c6i: { metal: 128 },
  c6id: { metal: 128 },
  c7g: { metal: 64 },
  c7gd: { metal: 64 },
  g4dn: { metal: 96 },
  i3: { metal: 72 },
  i3en: { metal: 96 },
  i4i: { metal: 128 },
  m5: { metal: 96 },
  m5d: { metal: 96 },
  m5dn: { metal: 96 },
  m5n: { metal: 96 },
  m5zn: { metal: 48 },
  m6a: { metal: 192 },
  m6g: { metal: 64 },
  m6gd: { metal: 64 },
  m6i: { metal: 128 },
  m6id: { metal: 128 },
  m7g: { metal: 64 },
  m7gd: { metal: 64 },
  r5: { metal: 96 },
  r5d: { metal: 96 },
  r5dn: { metal: 96 },
  r5n: { metal: 96 },
  r6a: { metal: 192 },
  r6g: { metal: 64 },
  r6gd: { metal: 64 },
  r6i: { metal: 128 },
  r6id: { metal: 128 },
  r7g: { metal: 64 },
  r7gd: { metal: 64 },
  x2idn: { metal: 128 },
  x2iedn: { metal: 128 },
  x2iezn: { metal: 48 },
  z1d: { metal: 48 },
  // HPC: simultaneous multithreading off, so not by size (see IRREGULAR_FAMILY)
  hpc6a: { '48xlarge': 96 },
  hpc6id: { '32xlarge': 64 },
  hpc7a: { '12xlarge': 24, '24xlarge': 48, '48xlarge': 96, '96xlarge': 192 },
  hpc7g: { '4xlarge': 16, '8xlarge': 32, '16xlarge': 64 },
};

/** Families whose vCPUs are not told by their size names: only the table above counts for them. */
const IRREGULAR_FAMILY = /^(hpc|c1$|m2$|hs1$)/;

/**
 * vCPUs of an instance type (`m7i.large` 2, `c7g.4xlarge` 16, `r6i.metal` 128, `t3.micro` 2), or null when
 * the type's name does not tell them (a metal size or a family not in the table).
 */
export function vcpusOf(instanceType: string): number | null {
  const [family = '', size = '', ...rest] = instanceType.split('.');
  if (!family || !size || rest.length) return null;
  const listed = VCPUS_BY_FAMILY_SIZE[family]?.[size];
  if (listed !== undefined) return listed;
  if (IRREGULAR_FAMILY.test(family)) return null;
  const bySize = VCPUS_BY_SIZE[size];
  if (bySize !== undefined) return bySize;
  const n = /^(?:(\d+)xlarge|metal-(\d+)xl)$/.exec(size);
  return n ? 4 * Number(n[1] ?? n[2]) : null;
}
