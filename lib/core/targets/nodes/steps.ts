/**
 * Node targets (scylla-ec2, cassandra-ec2) in the steps after provisioning: WaitReady (every node running and
 * answering on its client port; a Cassandra node on the spec's version; then the keyspace and table, created
 * once the whole run is ready) and StartLoad/StartCell (the endpoints of the running nodes, and the login secret
 * of a cassandra-ec2 target by reference: the loaders fetch it at job start).
 */
import { nodeApi, nodeEndpoints, schemaRequest, targetNodes, type DbNodeTarget } from './cluster';
import { cqlLoginSecretName } from '../cassandra-ec2/cql-auth';
import { StepFailedError, type EndpointHealth } from '../../common/ports';
import { ownedByRun } from '../../pipeline/ownership';
import type { ReadyCheck, Runtime, StepContext } from '../kind';
import { entryOf } from '../../resources/run-resource';
import { NODE_CLUSTER_ENTRY } from './entries';

function clusterOf(t: DbNodeTarget, { run, ports, step }: StepContext) {
  const c = entryOf(run, NODE_CLUSTER_ENTRY, t.id);
  if (!c) return null;
  if (!ports.cluster)
    throw new StepFailedError(step, `${t.id} has database nodes and no cluster port is configured`);
  return { c, cluster: ports.cluster };
}

/** `version`: the release every node must answer with (cassandra-ec2), when the probe reads it. */
export async function nodesReady(
  t: DbNodeTarget,
  ctx: StepContext,
  { version }: { version?: string } = {},
): Promise<ReadyCheck> {
  const found = clusterOf(t, ctx);
  if (!found) return { problems: [] };
  const { run, spec, ports } = ctx;
  if (!ports.probe)
    throw new StepFailedError('WaitReady', `${t.id} has database nodes and no probe port is configured`);
  const running = targetNodes(await found.cluster.list({ runId: run.runId }), t.id).filter(
    (n) => n.state === 'running' && n.privateIp,
  );
  if (running.length < found.c.nodes)
    return {
      problems: [`${running.length} of ${found.c.nodes} nodes of ${t.id} running`],
      counts: { nodesAnswering: 0 },
    };
  const endpoints = nodeEndpoints(t, running);
  const api = nodeApi(t);
  const health = await ports.probe.check(api, endpoints, { runId: run.runId });
  // a Cassandra node must run the spec's version (the probe reads its release_version): another version never
  // becomes the right one, so the run fails now instead of at the deadline
  if (version) refuseOtherVersions({ id: t.id, version }, spec.targets.indexOf(t), health);
  const down = health.filter((h) => !h.ok);
  const nodesAnswering = health.length - down.length;
  if (down.length)
    return {
      problems: [
        `${t.id}: ${down.length} of ${health.length} nodes do not answer on ${api}: ` +
          down.map((d) => `${d.endpoint}${d.detail ? ` (${d.detail})` : ''}`).join(', '),
      ],
      counts: { nodesAnswering },
    };
  const req = schemaRequest({
    target: t,
    endpoints,
    table: found.c.table,
    fieldCount: spec.dataset.fieldCount,
    // the run made a login (ProvisionTarget) where there is a secrets port
    ...(ports.secrets ? { runId: run.runId } : {}),
  });
  // every node answers: the keyspace/table (CQL) or the table (Alternator), idempotently, once all is ready
  return {
    problems: [],
    counts: { nodesAnswering },
    whenAllReady: () => ports.probe!.createSchema(req, { runId: run.runId }),
  };
}

/** Fails the step when a node of a cassandra-ec2 target answers with another release_version than the spec's. */
function refuseOtherVersions(
  target: { id: string; version: string },
  index: number,
  health: EndpointHealth[],
): void {
  const other = health.filter((h) => h.version !== undefined && h.version !== target.version);
  if (!other.length) return;
  throw new StepFailedError(
    'WaitReady',
    `${target.id}: ${other.map((h) => `node ${h.endpoint} runs Apache Cassandra ${h.version}`).join(', ')}; ` +
      `the spec asks for ${target.version} (targets[${index}].version)`,
  );
}

/**
 * The endpoint properties of a node target from its running nodes (as its kind writes them: `endpointProperties`),
 * and (`login`) its login secret.
 */
export async function nodesRuntime(
  t: DbNodeTarget,
  ctx: StepContext,
  how: {
    login: boolean;
    endpointProperties: (endpoints: { host: string; port: number }[]) => Record<string, string>;
  },
): Promise<Runtime> {
  const found = clusterOf(t, ctx);
  if (!found) return {};
  const { run, ports, step } = ctx;
  const running = targetNodes(await found.cluster.list({ runId: run.runId }), t.id).filter(
    (n) => n.state === 'running',
  );
  if (running.length < found.c.nodes)
    throw new StepFailedError(step, `${running.length} of ${found.c.nodes} nodes of ${t.id} are running`);
  const properties = how.endpointProperties(nodeEndpoints(t, running));
  if (!how.login || !ports.secrets) return { properties };
  const name = cqlLoginSecretName(run.runId, t.id);
  const s = await ports.secrets.describeSecret(name);
  if (!s || !ownedByRun(s.tags, run.runId))
    throw new StepFailedError(step, `the login secret ${name} of ${t.id} is missing or not this run's`);
  return { properties, credentials: { secretArn: s.arn, binding: 'cql' } };
}
