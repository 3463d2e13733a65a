/**
 * What a run of database nodes on EC2 costs on AWS (scylla-ec2, cassandra-ec2): instance-hours and their EBS
 * volumes for the run's hours. An instance type the book does not price is an unpriced line.
 */
import { usd } from '../../cost/book';
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
