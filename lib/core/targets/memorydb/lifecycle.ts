/**
 * A memorydb target's lifecycle in the pipeline: ProvisionTarget creates the run's ACL user login (kept in Secrets
 * Manager, tagged with the run) and the cluster (in the loaders' network, TLS on, the ACL holding that user);
 * WaitReady asks what keeps the clusters from being ready; StartLoad/StartCell give the binding the cluster
 * endpoint (known only once the cluster runs) and the login by reference. The names follow from the run id and
 * the target id (./names.ts); Plan lists them in the run context (./entries.ts) for Teardown and `resume`.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, StepFailedError, TAG_RUN_ID, type SecretAdmin, type Tags } from '../../common/ports';
import { ownedByRun } from '../../pipeline/ownership';
import type { RunSpec } from '../../spec/schema';
import type { ProvisionContext, Provisioned, ReadyCheck, Runtime, StepContext } from '../kind';
import { memoryDbPort, type MemoryDbAdmin, type MemoryDbClusterState } from './port';
import type { MemoryDbTarget } from './target';
import { memoryDbResourceName, memoryDbSecretName } from './names';

/** The tag naming the target a cluster serves (teardown finds the target's login secret by it). */
export const TAG_TARGET = 'fleetbench:target';

/** The ACL user's login as the Redis binding's secret holds it (lib/core/contract/bindings.ts: username, password). */
export interface MemoryDbLogin {
  username: string;
  password: string;
}

/**
 * A fresh login: the user is named like the cluster; a 256-bit password, hex only (MemoryDB takes 16-128 printable
 * characters without spaces, quotes or '@': https://docs.aws.amazon.com/memorydb/latest/APIReference/API_AuthenticationMode.html).
 */
export function generateMemoryDbLogin(
  username: string,
  random: (n: number) => Buffer = randomBytes,
): MemoryDbLogin {
  return { username, password: random(32).toString('hex') };
}

export function memoryDbTargets(spec: Pick<RunSpec, 'targets'>): MemoryDbTarget[] {
  return spec.targets.filter((t): t is MemoryDbTarget => t.kind === 'memorydb');
}

/** The login a run's secret holds (an earlier attempt's), checked: its user is the cluster's name, a password is set. */
export function parseLogin(secretName: string, username: string, text: string): MemoryDbLogin {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = undefined;
  }
  const l = v as Partial<MemoryDbLogin> | undefined;
  if (l?.username !== username || typeof l.password !== 'string' || !l.password)
    throw new StepFailedError(
      'ProvisionTarget',
      `the run's login secret ${secretName} does not hold a login for user ${username} ` +
        '(JSON with username and password)',
    );
  return { username: l.username, password: l.password };
}

function needPort(step: string, admin: MemoryDbAdmin | undefined): MemoryDbAdmin {
  if (!admin)
    throw new StepFailedError(step, 'the run has a MemoryDB cluster and no MemoryDB port is configured');
  return admin;
}

function needSecrets(step: string, secrets: SecretAdmin | undefined): SecretAdmin {
  if (!secrets) throw new StepFailedError(step, 'the run has a MemoryDB cluster and no Secrets Manager port');
  return secrets;
}

/**
 * ProvisionTarget: the login secret, then the cluster with that login. Idempotent: a secret or cluster of the
 * run's name that carries this run's tag is this run's (a retry) and is adopted; one that does not fails the step
 * and is left alone. A retry that finds the run's secret but no cluster (the first attempt died part-way) reads
 * the login back from it and creates the cluster with it; the adapter adopts the pieces that attempt left when
 * they carry the run's tag.
 */
export async function provisionMemoryDb(t: MemoryDbTarget, ctx: ProvisionContext): Promise<Provisioned> {
  const { run, ports } = ctx;
  const admin = needPort('ProvisionTarget', memoryDbPort(ports));
  const secrets = needSecrets('ProvisionTarget', ports.secrets);
  if (!admin.network)
    throw new StepFailedError(
      'ProvisionTarget',
      'the MemoryDB port has no network (VPC, subnets, loader security group): the stack sets them',
    );
  const name = memoryDbResourceName(run.runId, t.id);
  const secretName = memoryDbSecretName(run.runId, t.id);
  const tags: Tags = { ...ctx.targetTags, [TAG_RUN_ID]: run.runId, [TAG_TARGET]: t.id };
  let login = generateMemoryDbLogin(name);
  try {
    await secrets.createSecret({ name: secretName, value: JSON.stringify(login), tags });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const have = await secrets.describeSecret(secretName);
    if (!have || !ownedByRun(have.tags, run.runId))
      throw new StepFailedError(
        'ProvisionTarget',
        `secret ${secretName} already exists and is not this run's`,
      );
    if (ownedByRun(await admin.clusterTags(name), run.runId))
      return { secrets: [secretName], created: [name] };
    login = parseLogin(secretName, name, await secrets.secretString(have.arn));
  }
  try {
    await admin.createCluster({
      name,
      nodeType: t.nodeType,
      shards: t.shards,
      replicasPerShard: t.replicasPerShard,
      engine: t.engine.engine,
      engineVersion: t.engine.version,
      password: login.password,
      tags,
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    if (!ownedByRun(await admin.clusterTags(name), run.runId))
      throw new StepFailedError(
        'ProvisionTarget',
        `MemoryDB cluster ${name} already exists and is not this run's`,
      );
  }
  return { secrets: [secretName], created: [name] };
}

/** What keeps one cluster from serving the run (null: available, TLS on, with its endpoint). */
export function clusterNotReady(targetId: string, s: MemoryDbClusterState): string | null {
  if (s.status === 'MISSING')
    throw new StepFailedError('WaitReady', `MemoryDB cluster ${s.name} of ${targetId} does not exist`);
  if (s.status !== 'available' || !s.endpoint)
    return `MemoryDB cluster ${s.name} of ${targetId} is ${s.status}${s.endpoint ? '' : ' (no endpoint yet)'}`;
  if (s.tls === false)
    throw new StepFailedError('WaitReady', `MemoryDB cluster ${s.name} of ${targetId} has TLS off`);
  return null;
}

/** WaitReady: what keeps the target's cluster from being ready (empty: `available` with an endpoint). */
export async function memoryDbReady(t: MemoryDbTarget, { run, ports }: StepContext): Promise<ReadyCheck> {
  const s = await needPort('WaitReady', memoryDbPort(ports)).describeCluster(
    memoryDbResourceName(run.runId, t.id),
  );
  const why = clusterNotReady(t.id, s);
  return { problems: why ? [why] : [] };
}

/**
 * The Redis binding's endpoint properties for a running cluster: its cluster endpoint, cluster mode, TLS (and the
 * CA to trust when the cluster's is not a public one: the local stand-in's).
 */
export function memoryDbEndpointProperties(
  endpoint: { host: string; port: number },
  caFile?: string,
): Record<string, string> {
  return {
    'redis.host': `${endpoint.host}:${endpoint.port}`,
    'redis.cluster': 'true',
    'redis.tls': 'true',
    ...(caFile ? { 'redis.tls.caFile': caFile } : {}),
  };
}

/**
 * StartLoad/StartCell: the binding's cluster endpoint (known once the cluster runs) and the run's login by
 * reference (the loaders fetch it at job start).
 */
export async function memoryDbRuntime(
  t: MemoryDbTarget,
  { run, ports, step }: StepContext,
): Promise<Runtime> {
  const s = await needPort(step, memoryDbPort(ports)).describeCluster(memoryDbResourceName(run.runId, t.id));
  if (s.status !== 'available' || !s.endpoint)
    throw new StepFailedError(step, `MemoryDB cluster ${s.name} of ${t.id} is ${s.status}, not available`);
  const name = memoryDbSecretName(run.runId, t.id);
  const secret = await needSecrets(step, ports.secrets).describeSecret(name);
  if (!secret || !ownedByRun(secret.tags, run.runId))
    throw new StepFailedError(step, `the login secret ${name} of ${t.id} is missing or not this run's`);
  return {
    properties: memoryDbEndpointProperties(s.endpoint, s.caFile),
    credentials: { secretArn: secret.arn, binding: 'redis' },
  };
}
