/**
 * Database nodes the run launches (scylla-ec2, cassandra-ec2) as a resource type (lib/core/resources): found
 * by the run tag whatever the context says (a retry of Provision may have launched more), terminated.
 */
import { ownedInstanceIds } from '../../pipeline/ownership';
import type { ResourceType } from '../../resources/resource-type';
import { NODE_CLUSTER_ENTRY } from './entries';
import { TAG_TARGET } from './cluster';

export const DATABASE_NODES: ResourceType = {
  id: NODE_CLUSTER_ENTRY.shape.type.value,
  order: 20,
  service: 'EC2',
  noun: 'database node',
  verb: 'terminated',
  activity: 'terminating database nodes',
  record: { removed: 'terminatedNodes' },
  swept: ['terminatedNodes'],
  available: (ports) => ports.cluster !== undefined,
  mayExist: () => true,
  namedIn: () => [],
  async removeForRun(runId, _run, { cluster }, scope) {
    const nodes = (await cluster!.list({ runId })).filter(
      (n) => !scope || n.tags[TAG_TARGET] === scope.targetId,
    );
    const ids = ownedInstanceIds(runId, nodes);
    if (ids.length) await cluster!.terminate(ids);
    return { removed: ids, kept: [], errors: [] };
  },
  async sweepExpired({ cluster }, expired) {
    const ids = (await cluster!.list({}))
      .filter((n) => n.state !== 'terminated' && expired(n.tags))
      .map((n) => n.id);
    if (ids.length) await cluster!.terminate(ids);
    return { removed: { terminatedNodes: ids } };
  },
  async liveByRun({ cluster }) {
    return (await cluster!.list({}))
      .filter((n) => n.state !== 'terminated')
      .map((n) => ({ tags: n.tags, label: `node ${n.id}` }));
  },
};
