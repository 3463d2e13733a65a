/**
 * ProvisionTarget for the kinds whose database nodes the run launches on EC2 (scylla-ec2, cassandra-ec2): node 0
 * (the seed) first, the others once it runs; a cassandra-ec2 target's login secret before its nodes (they start
 * with PasswordAuthenticator). Idempotent: nodes are found again by their tags.
 */
import { cassandraBootstrapScript, ec2ClusterParams, initialToken } from '../cassandra-ec2/node';
import { cqlLoginSecretName, provisionCqlLogin } from '../cassandra-ec2/cql-auth';
import {
  NODE_ROLES,
  NODE_SOFTWARE,
  TAG_NODE_INDEX,
  TAG_TARGET,
  nodeUserDataBase64,
  targetNodes,
  type ClusterNode,
  type DbNodeTarget,
} from './cluster';
import { StepFailedError, type DbNodeAdmin, type NodeLaunchRequest, type Tags } from '../../common/ports';
import { runTags, type RunContext } from '../../pipeline/run-context';
import { realSleep } from '../../pipeline/sleep';
import { entryOf } from '../../resources/run-resource';
import { NODE_CLUSTER_ENTRY } from './entries';
import type { ProvisionContext, Provisioned } from '../kind';

/** ProvisionTarget waits for node 0 to run for at most SEED_RUNNING_POLLS × SEED_POLL_MS (its Lambda has 2 min). */
export const SEED_RUNNING_POLLS = 16;
export const SEED_POLL_MS = 5000;

/** Tags of node `index` of a scylla-ec2 (or, with its role, cassandra-ec2) target. */
export function nodeTags(
  run: RunContext,
  targetId: string,
  index: number,
  userTags: Tags,
  role: string,
): Tags {
  return runTags(run, role, { ...userTags, [TAG_TARGET]: targetId, [TAG_NODE_INDEX]: String(index) });
}

/** What nodes of a target are launched with: the image, volumes and per-node user data of its kind. */
export function nodeLaunchRequest(args: {
  run: RunContext;
  target: DbNodeTarget;
  userTags: Tags;
  indexes: number[];
  /** Node 0's private IP; empty when launching node 0. */
  seeds: string[];
  /** Where cassandra-ec2 nodes fetch Cassandra (DbNodeAdmin.cassandraAsset). */
  cassandraAsset?: string;
  /** cassandra-ec2: the run made a login for the target (its nodes ask for credentials). */
  login?: boolean;
}): NodeLaunchRequest {
  const { run, target, indexes, seeds } = args;
  const tags = (index: number) => nodeTags(run, target.id, index, args.userTags, NODE_ROLES[target.kind]);
  const base = {
    runId: run.runId,
    targetId: target.id,
    instanceType: target.instanceType,
    software: NODE_SOFTWARE[target.kind],
  };
  if (target.kind === 'scylla-ec2') {
    return {
      ...base,
      ami: target.ami,
      ...(target.ebsGb ? { ebsGb: target.ebsGb } : {}),
      nodes: indexes.map((index) => ({
        index,
        userData: nodeUserDataBase64({ target, runId: run.runId, seeds }),
        tags: tags(index),
      })),
    };
  }
  if (!args.cassandraAsset) {
    throw new StepFailedError(
      'ProvisionTarget',
      `target ${target.id} needs the Apache Cassandra asset and the cluster port has none (build it: npm run build:cassandra)`,
    );
  }
  // the same for every node but its token: computed once
  const cluster = ec2ClusterParams({
    target,
    runId: run.runId,
    asset: args.cassandraAsset,
    ...(seeds[0] ? { seedIp: seeds[0] } : {}),
    login: args.login === true,
  });
  return {
    ...base,
    ami: { amazonLinux2023: true },
    dataVolumeGb: target.volume.sizeGb,
    nodes: indexes.map((index) => ({
      index,
      userData: Buffer.from(
        cassandraBootstrapScript({ ...cluster, initialToken: initialToken(index, target.nodes) }),
      ).toString('base64'),
      tags: tags(index),
    })),
  };
}

/**
 * Launches the nodes of a scylla-ec2 or cassandra-ec2 target that are not there yet: node 0 (the seed)
 * first, then, once node 0 is running, the others with node 0's private IP as their seed. Idempotent:
 * nodes are found again by tags.
 */
export async function provisionCluster(
  run: RunContext,
  target: DbNodeTarget,
  userTags: Tags,
  cluster: DbNodeAdmin,
  sleep: (ms: number) => Promise<void> = realSleep,
  login = false,
): Promise<string[]> {
  const have = targetNodes(await cluster.list({ runId: run.runId }), target.id);
  const present = new Set(have.map((n) => Number(n.tags[TAG_NODE_INDEX])));
  const launched: ClusterNode[] = [];
  const launch = async (indexes: number[], seeds: string[]) => {
    if (!indexes.length) return;
    launched.push(
      ...(await cluster.launch(
        nodeLaunchRequest({
          run,
          target,
          userTags,
          indexes,
          seeds,
          ...(cluster.cassandraAsset ? { cassandraAsset: cluster.cassandraAsset } : {}),
          login,
        }),
      )),
    );
  };
  if (!present.has(0)) await launch([0], []);
  let seed = [...have, ...launched].find((n) => n.tags[TAG_NODE_INDEX] === '0');
  if (!seed?.privateIp) {
    throw new StepFailedError(
      'ProvisionTarget',
      `node 0 of ${target.id} has no private IP to seed the others`,
    );
  }
  const rest = Array.from({ length: target.nodes }, (_, i) => i).filter((i) => i > 0 && !present.has(i));
  if (!rest.length) return launched.map((n) => n.id);
  // the others join through node 0: they are launched once it runs (its database boots first), never
  // before; a seed that does not run in time fails the step (teardown removes it)
  for (let poll = 0; seed?.state !== 'running'; poll++) {
    if (poll >= SEED_RUNNING_POLLS || seed === undefined || /terminat|stop/.test(seed.state)) {
      throw new StepFailedError(
        'ProvisionTarget',
        `node 0 (the seed) of ${target.id} is ${seed?.state ?? 'gone'} ${poll * (SEED_POLL_MS / 1000)} s after launch; ` +
          `nodes 1-${target.nodes - 1} were not launched`,
      );
    }
    await sleep(SEED_POLL_MS);
    seed = targetNodes(await cluster.list({ runId: run.runId }), target.id).find(
      (n) => n.tags[TAG_NODE_INDEX] === '0',
    );
  }
  await launch(rest, [seed.privateIp!]);
  return launched.map((n) => n.id);
}

/** A node target's nodes (and, with `login` and a secrets port, its login secret first). */
export async function provisionNodes(
  t: DbNodeTarget,
  ctx: ProvisionContext,
  { login }: { login: boolean },
): Promise<Provisioned> {
  const { run, spec, ports } = ctx;
  if (!entryOf(run, NODE_CLUSTER_ENTRY, t.id)) return {};
  if (!ports.cluster)
    throw new StepFailedError(
      'ProvisionTarget',
      `target ${t.id} needs database nodes and no cluster port is configured`,
    );
  const secrets: string[] = [];
  const withLogin = login && ports.secrets !== undefined;
  if (withLogin) {
    await provisionCqlLogin(run.runId, t.id, ctx.targetTags, ports.secrets!);
    secrets.push(cqlLoginSecretName(run.runId, t.id));
  }
  const nodes = await provisionCluster(run, t, spec.tags, ports.cluster, ctx.sleep, withLogin);
  return { nodes, ...(secrets.length ? { secrets } : {}) };
}
