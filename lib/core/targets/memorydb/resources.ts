/**
 * A run's MemoryDB clusters (with their ACL, user, subnet group and security group) and their login secrets as
 * resource types (lib/core/resources). The names are the run context's entries (./entries.ts) and follow from the
 * run's spec (./names.ts: contexts of runs before the entries name none); without the spec, the clusters are found
 * by their run tag and the secrets by the clusters' `fleetbench:target` tag. Every delete
 * reads the resource's own run tag first (lib/core/pipeline/ownership.ts). Deleting a cluster takes minutes: its
 * supporting pieces are left pending for the Janitor while it is still deleting, as DAX's are.
 */
import { TAG_RUN_ID, type Tags } from '../../common/ports';
import { readOptional, specKey } from '../../pipeline/keys';
import { ownedByRun, removeOwned } from '../../pipeline/ownership';
import type { RunSpec } from '../../spec/schema';
import type { LifecyclePorts, Removal, RemovalScope, ResourceType } from '../../resources/resource-type';
import type { RunContext } from '../../pipeline/run-context';
import { entriesOf } from '../../resources/run-resource';
import { MEMORYDB_CLUSTER_ENTRY, MEMORYDB_LOGIN_ENTRY } from './entries';
import { memoryDbPort, type MemoryDbAdmin } from './port';
import { memoryDbResourceName, memoryDbSecretName } from './names';
import { TAG_TARGET, memoryDbTargets } from './lifecycle';
import { memoryDbResumeBlockers } from './resume';

/** The run's memorydb target ids from its stored spec; null when the spec is not there (the tags decide). */
async function specTargetIds(runId: string, ports: Pick<LifecyclePorts, 'store'>): Promise<string[] | null> {
  const spec = (await readOptional(ports.store, specKey(runId))) as RunSpec | null;
  return spec?.targets ? memoryDbTargets(spec).map((t) => t.id) : null;
}

/**
 * The run's cluster names: the context's, from the spec, and (whenever the spec names some, or is missing) by the
 * run tag.
 */
async function runClusterNames(
  runId: string,
  run: RunContext | null,
  ports: LifecyclePorts,
  scope?: RemovalScope,
): Promise<Set<string>> {
  // one target's teardown: the context's cluster (its own); the run's Teardown goes by the spec and the run tag
  if (scope) return new Set(entriesOf(run, MEMORYDB_CLUSTER_ENTRY).map((c) => c.name));
  const ids = await specTargetIds(runId, ports);
  const names = new Set([
    ...entriesOf(run, MEMORYDB_CLUSTER_ENTRY).map((c) => c.name),
    ...(ids ?? []).map((id) => memoryDbResourceName(runId, id)),
  ]);
  if (ids === null || ids.length)
    for (const c of await memoryDbPort(ports)!.listClusters({ runId })) names.add(c.name);
  return names;
}

/** Teardown of the clusters: each deleted only when its own tag is the run's; its pieces once it is gone. */
async function removeClusters(
  runId: string,
  run: RunContext | null,
  ports: LifecyclePorts,
  scope?: RemovalScope,
): Promise<Removal> {
  const admin: MemoryDbAdmin = memoryDbPort(ports)!;
  const names = await runClusterNames(runId, run, ports, scope);
  const groups = new Set(
    names.size
      ? (await admin.listSupporting({ runId })).filter((g) => ownedByRun(g.tags, runId)).map((g) => g.name)
      : [],
  );
  const pending: string[] = [];
  const handled = new Set<string>();
  const deleteGroups = async (name: string) => {
    if (groups.has(name) && !(await admin.deleteSupporting(name))) pending.push(name);
  };
  const clusters = await removeOwned(runId, 'MemoryDB cluster', names, {
    tags: (name) => admin.clusterTags(name),
    remove: async (name) => {
      handled.add(name);
      const started = await admin.deleteCluster(name);
      const s = await admin.describeCluster(name);
      if (s.status === 'MISSING') await deleteGroups(name);
      else pending.push(name);
      return started;
    },
  });
  // pieces of the run whose cluster is gone (an earlier pass deleted it, or its create failed part-way)
  if (!scope) for (const name of groups) if (!handled.has(name)) await deleteGroups(name);
  return { ...clusters, pending };
}

export const MEMORYDB_CLUSTERS: ResourceType = {
  id: MEMORYDB_CLUSTER_ENTRY.shape.type.value,
  order: 35,
  service: 'MemoryDB',
  noun: 'MemoryDB cluster',
  verb: 'started deleting',
  activity: 'deleting MemoryDB clusters',
  record: {
    removed: 'deletedMemoryDbClusters',
    kept: 'keptMemoryDbClusters',
    pending: 'pendingMemoryDbGroups',
  },
  swept: ['deletedMemoryDbClusters', 'deletedMemoryDbGroups'],
  available: (ports) => memoryDbPort(ports) !== undefined,
  // contexts of runs before the entries name none (the names follow from the spec): removeForRun reads the spec
  // first and calls MemoryDB only when the context or the spec names a memorydb target, or the spec is missing
  mayExist: () => true,
  namedIn: (run) => entriesOf(run, MEMORYDB_CLUSTER_ENTRY).map((c) => c.name),
  removeForRun: (runId, run, ports, scope) => removeClusters(runId, run, ports, scope),
  resumeBlockers: (runId, run, ports) => memoryDbResumeBlockers(runId, run, memoryDbPort(ports)!),
  async sweepExpired(ports, expired) {
    const memorydb = memoryDbPort(ports);
    const deletedMemoryDbClusters: string[] = [];
    for (const c of await memorydb!.listClusters({})) {
      if (!c.tags[TAG_RUN_ID] || !expired(c.tags) || c.status === 'deleting') continue;
      if (await memorydb!.deleteCluster(c.name)) deletedMemoryDbClusters.push(c.name);
    }
    const deletedMemoryDbGroups: string[] = [];
    for (const g of await memorydb!.listSupporting({}))
      if (g.tags[TAG_RUN_ID] && expired(g.tags) && (await memorydb!.deleteSupporting(g.name)))
        deletedMemoryDbGroups.push(g.name);
    return { removed: { deletedMemoryDbClusters, deletedMemoryDbGroups } };
  },
  async liveByRun(ports) {
    return (await memoryDbPort(ports)!.listClusters({}))
      .filter((c) => c.status !== 'deleting')
      .map((c) => ({ tags: c.tags, label: `MemoryDB cluster ${c.name}` }));
  },
};

/** The login secrets of a run's clusters: the context's, by the spec's targets, else by the clusters' target tags. */
async function runSecretNames(
  runId: string,
  run: RunContext | null,
  ports: LifecyclePorts,
  scope?: RemovalScope,
): Promise<string[]> {
  // one target's teardown: the context's login (its own)
  if (scope) return entriesOf(run, MEMORYDB_LOGIN_ENTRY).map((s) => s.name);
  const fromSpec = await specTargetIds(runId, ports);
  const ids = new Set(fromSpec ?? []);
  // MemoryDB is asked only for runs that have (or may have, without their spec) memorydb targets
  if (memoryDbPort(ports) && (fromSpec === null || fromSpec.length))
    for (const c of await memoryDbPort(ports)!.listClusters({ runId }))
      if (c.tags[TAG_TARGET]) ids.add(c.tags[TAG_TARGET]);
  const named = entriesOf(run, MEMORYDB_LOGIN_ENTRY).map((s) => s.name);
  return [...new Set([...named, ...[...ids].map((id) => memoryDbSecretName(runId, id))])];
}

async function deleteOwnedSecret(
  secrets: NonNullable<LifecyclePorts['secrets']>,
  runId: string,
  name: string,
): Promise<boolean> {
  const s = await secrets.describeSecret(name);
  if (!s || !ownedByRun(s.tags, runId)) return false;
  await secrets.deleteSecret(s.arn);
  return true;
}

export const MEMORYDB_LOGINS: ResourceType = {
  id: MEMORYDB_LOGIN_ENTRY.shape.type.value,
  // before the clusters: a run without its spec finds the secrets by its clusters' tags
  order: 34,
  service: 'Secrets Manager',
  noun: 'MemoryDB login secret',
  verb: 'deleted',
  activity: 'deleting MemoryDB login secrets',
  record: { removed: 'deletedMemoryDbSecrets', kept: 'keptMemoryDbSecrets' },
  swept: ['deletedMemoryDbSecrets'],
  // a stack without the MemoryDB port made no cluster, and so no login
  available: (ports) => ports.secrets !== undefined && memoryDbPort(ports) !== undefined,
  mayExist: () => true,
  namedIn: (run) => entriesOf(run, MEMORYDB_LOGIN_ENTRY).map((s) => s.name),
  async removeForRun(runId, run, ports, scope) {
    const arns = new Map<string, string>();
    return removeOwned(runId, 'MemoryDB login secret', await runSecretNames(runId, run, ports, scope), {
      tags: async (name) => {
        const s = await ports.secrets!.describeSecret(name);
        if (s) arns.set(name, s.arn);
        return s?.tags ?? null;
      },
      remove: async (name) => {
        await ports.secrets!.deleteSecret(arns.get(name)!);
        return true;
      },
    });
  },
  // the secrets of expired clusters (Secrets Manager is not listed: the clusters' tags name the secrets)
  async sweepExpired(ports, expired) {
    const { secrets } = ports;
    const memorydb = memoryDbPort(ports);
    const deletedMemoryDbSecrets: string[] = [];
    if (!memorydb) return { removed: { deletedMemoryDbSecrets } };
    for (const c of await memorydb.listClusters({})) {
      const runId = c.tags[TAG_RUN_ID];
      const target = c.tags[TAG_TARGET];
      if (!runId || !target || !expired(c.tags as Tags)) continue;
      const name = memoryDbSecretName(runId, target);
      if (await deleteOwnedSecret(secrets!, runId, name)) deletedMemoryDbSecrets.push(name);
    }
    return { removed: { deletedMemoryDbSecrets } };
  },
  liveByRun: async () => [],
};
