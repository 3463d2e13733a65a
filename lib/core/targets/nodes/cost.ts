/**
 * What a run of database nodes on EC2 costs on AWS (scylla-ec2, cassandra-ec2): instance-hours and their EBS
 * volumes for the run's hours (an instance type the book does not price is an unpriced line), and for a month.
 */
import { z } from 'zod';
import { ec2HourlyPrice, usd, type PriceBook } from '../../cost/book';
import { ec2Cluster } from '../../cost/monthly';
import {
  type LinesCostReport,
  type CostInputBase,
  type KindMonthlyCost,
  linesReport,
} from '../../cost/report-parts';
import { cassandraEbsGbPerNode } from '../cassandra-ec2/node';
import { Q } from '../../cost/decimal';
import type { KindRunCost, Line, RunSpan, TargetEstimate } from '../../cost/lines';
import type { CassandraEc2Target, ScyllaEc2Target } from '../../spec/schema';

type NodesTarget = ScyllaEc2Target | CassandraEc2Target;

/** Database nodes on EC2: instance-hours and `ebsGb` of gp3 per node (none: no volume line). */
function nodesEstimate(t: NodesTarget, i: number, r: RunSpan, ebsGb: number | undefined): TargetEstimate {
  const { book, runHours } = r;
  const hpm = Q.of(book.hoursPerMonth);
  const lines: Line[] = [];
  const unpriced: string[] = [];
  const p = book.ec2[t.instanceType];
  if (p) {
    lines.push({
      kind: 'nodes',
      label: `${t.id}: ${t.nodes} × ${t.instanceType} nodes for the run`,
      target: t.id,
      quantity: runHours.mul(t.nodes),
      unit: 'instance-hour',
      unitUsd: usd(p),
    });
  } else
    unpriced.push(`targets[${i}].instanceType: no price for "${t.instanceType}" in price book "${book.id}"`);
  if (ebsGb) {
    lines.push({
      kind: 'storage',
      label: `${t.id}: ${t.nodes} × ${ebsGb} GB gp3`,
      target: t.id,
      quantity: Q.of(t.nodes).mul(ebsGb).mul(runHours).div(hpm),
      unit: 'GB-month',
      unitUsd: usd(book.ebs.gp3GbMonth),
    });
  }
  return { items: lines, unpriced };
}

/** The run cost of a node kind whose EBS volume per node `ebsGb` gives (the root or the data volume). */
export function nodesRunCost<T extends NodesTarget>(ebsGb: (t: T) => number | undefined): KindRunCost<T> {
  return { estimate: (t, i, r) => nodesEstimate(t, i, r, ebsGb(t)) };
}

const nonNeg = z.number().nonnegative();

/** Database nodes on EC2: ScyllaDB (data on the instance store) or Apache Cassandra (data on an EBS volume). */
const nodesCostTarget = z.looseObject({
  id: z.string().optional(),
  kind: z.enum(['scylla-ec2', 'cassandra-ec2']),
  nodes: z.number().int().positive().default(3),
  instanceType: z.string().min(1).default('i4i.2xlarge'),
  /** EBS gp3 GB per node, when the nodes use EBS rather than (or besides) instance storage. */
  ebsGb: nonNeg.optional(),
  /** A cassandra-ec2 spec target's data volume (with its root volume, priced as `ebsGb` when that is not given). */
  volume: z.looseObject({ sizeGb: nonNeg }).optional(),
  /** Overrides the price book's hourly price for the instance type. */
  usdPerHour: nonNeg.optional(),
});

/** Database nodes on EC2 (scylla-ec2, cassandra-ec2): instance-hours and their EBS volumes. */
function nodesReport(
  t: z.output<typeof nodesCostTarget>,
  input: CostInputBase,
  book: PriceBook,
): LinesCostReport {
  const hoursPerMonth = book.hoursPerMonth;
  const perHour =
    t.usdPerHour !== undefined
      ? Q.of(t.usdPerHour)
      : ec2HourlyPrice(book, t.instanceType, 'target.instanceType');
  const ebsGb = t.ebsGb ?? (t.volume ? cassandraEbsGbPerNode({ volume: t.volume }) : undefined);
  const c = ec2Cluster({
    nodes: t.nodes,
    usdPerHour: perHour,
    hours: hoursPerMonth,
    hoursPerMonth,
    ebsGbPerNode: ebsGb,
    ebsUsdPerGbMonth: usd(book.ebs.gp3GbMonth),
  });
  return linesReport(t, {
    input,
    book,
    lines: ebsGb ? { nodes: c.nodes, storage: c.storage } : { nodes: c.nodes },
    pricing: {
      nodes: t.nodes,
      instanceType: t.instanceType,
      usdPerNodeHour: perHour.toNumber(),
      usdPerNodeHourFrom: t.usdPerHour !== undefined ? 'target.usdPerHour' : `price book ${book.id}`,
      ...(ebsGb ? { ebsGbPerNode: ebsGb, ebsUsdPerGbMonth: usd(book.ebs.gp3GbMonth).toNumber() } : {}),
    },
  });
}

/** The node kinds' monthly cost (one cost input for both). */
export const NODES_MONTHLY_COST: KindMonthlyCost<typeof nodesCostTarget> = {
  input: nodesCostTarget,
  report: nodesReport,
};
