/**
 * Teardown (end of every run, every Catch, and the abort rule) and the scheduled Janitor.
 * Teardown is idempotent: it finds the run's loaders by tag and its tables by the run context (or,
 * when Plan never finished, by the run tag), removes what is there and records what it did.
 */
import { NotFoundError } from '../store';
import {
  TABLE_PREFIX,
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type Clock,
  type ClusterAdmin,
  type DaxAdmin,
  type FleetAdmin,
  type KeyspacesAdmin,
  type Notifier,
  type ObjectStore,
  type SecretAdmin,
  type TableAdmin,
} from '../ports';
import { InputError } from '../errors';
import { contextKey, failureKey, runIdFromExecutionName, teardownKey, type RunContext } from './context';
import { deleteExpiredKeyspaces, deleteRunKeyspaces } from './keyspaces';
import { janitorDax, teardownDax, type DaxTeardown } from './dax';
import { deleteRunLogins } from '../cql-auth';

export interface TeardownInput {
  /** The run context when Plan succeeded. */
  run?: RunContext | null;
  /** Otherwise the execution name (the run id is derived from it). */
  executionName?: string;
  /** The caught error ({Error, Cause} from Step Functions), or the abort status. */
  error?: { Error?: string; Cause?: string } | null;
  /** FAILED / TIMED_OUT / ABORTED when started by the abort rule. */
  status?: string;
}

export interface TeardownResult {
  runId: string;
  terminated: string[];
  deletedTables: string[];
  keptTables: string[];
  /** ScyllaDB nodes terminated (found by the run tag). */
  terminatedNodes?: string[];
  /** Amazon Keyspaces keyspaces deleted with their tables (from the context and by the run tag). */
  deletedKeyspaces?: string[];
  /** DAX clusters whose deletion was started, and names whose groups the Janitor removes later. */
  deletedDaxClusters?: string[];
  pendingDaxGroups?: string[];
  /** cassandra-ec2 login secrets deleted (names; only those tagged with the run). */
  deletedSecrets?: string[];
  failed: boolean;
}

export async function teardown(
  input: TeardownInput,
  deps: {
    store: ObjectStore;
    tables: TableAdmin;
    fleet: FleetAdmin;
    clock: Clock;
    notifier?: Notifier;
    cluster?: ClusterAdmin;
    keyspaces?: KeyspacesAdmin;
    dax?: DaxAdmin;
    secrets?: SecretAdmin;
  },
): Promise<TeardownResult> {
  let runId = input.run?.runId;
  if (!runId) {
    if (!input.executionName) {
      throw new InputError([
        { path: 'run', message: 'teardown needs the run context or the execution name' },
      ]);
    }
    runId = runIdFromExecutionName(input.executionName);
  }
  let run: RunContext | null = input.run ?? null;
  if (!run) {
    try {
      run = (await deps.store.getJson(contextKey(runId))) as RunContext;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  // Each kind of resource is removed even when another kind fails (a loader API error must not leave
  // $2/h of database nodes running); the failures are raised together once everything was tried.
  const errors: string[] = [];
  const attempt = async <T>(what: string, fallback: T, f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      errors.push(`${what}: ${(err as Error).message}`);
      return fallback;
    }
  };
  const terminated = await attempt('terminating loaders', [] as string[], async () => {
    const ids = (await deps.fleet.list({ runId })).filter((i) => i.state !== 'terminated').map((i) => i.id);
    if (ids.length) await deps.fleet.terminate(ids);
    return ids;
  });
  // ScyllaDB nodes: by the run tag, whatever the context says (a retry of Provision may have launched more)
  const terminatedNodes = deps.cluster
    ? await attempt('terminating database nodes', [] as string[], async () => {
        const ids = (await deps.cluster!.list({ runId }))
          .filter((n) => n.state !== 'terminated')
          .map((n) => n.id);
        if (ids.length) await deps.cluster!.terminate(ids);
        return ids;
      })
    : [];

  // cassandra-ec2 login secrets: only those tagged with the run (lib/core/cql-auth.ts)
  const deletedSecrets = deps.secrets
    ? await attempt('deleting login secrets', [] as string[], () =>
        deleteRunLogins(runId, run, deps.secrets!),
      )
    : [];

  // DAX clusters before the tables they cache (by the run tag and the context's names)
  // (Plan writes the context before anything is provisioned: a context naming no cluster means none was made)
  const daxAdmin = deps.dax && (!run || run.dax?.length) ? deps.dax : undefined;
  const dax: DaxTeardown | null = daxAdmin
    ? await attempt('deleting DAX clusters', null, () => teardownDax(runId, run, daxAdmin))
    : null;
  if (dax?.stuckDaxClusters.length)
    errors.push(`DAX did not start deleting ${dax.stuckDaxClusters.join(', ')}`);

  const deletedTables: string[] = [];
  const keptTables: string[] = [];
  const owned = new Set<string>();
  if (run) {
    for (const t of run.tables) {
      if (t.owned) owned.add(t.name);
      else keptTables.push(t.name);
    }
  } else {
    // Plan did not finish: anything tagged with this run id is ours
    await attempt('listing tables', undefined, async () => {
      for (const t of await deps.tables.listTables(TABLE_PREFIX))
        if (t.tags[TAG_RUN_ID] === runId) owned.add(t.name);
    });
  }
  for (const name of owned)
    await attempt(`deleting table ${name}`, undefined, async () => {
      if (await deps.tables.deleteTable(name)) deletedTables.push(name);
    });

  // a run whose context names no keyspace made none (Plan writes the context before anything is provisioned):
  // no Keyspaces call then, so runs of other targets never depend on Keyspaces being offered in the region
  const deletedKeyspaces =
    deps.keyspaces && (!run || run.keyspaces?.length)
      ? await attempt('deleting keyspaces', [] as string[], () =>
          deleteRunKeyspaces(runId, run, deps.keyspaces!),
        )
      : [];
  if (!deps.keyspaces && run?.keyspaces?.length)
    errors.push(
      `deleting keyspaces: no Keyspaces port to delete ${run.keyspaces.map((k) => k.keyspace).join(', ')}`,
    );

  const failed = Boolean(input.error || (input.status && input.status !== 'SUCCEEDED'));
  const result: TeardownResult = {
    runId,
    terminated,
    deletedTables,
    keptTables,
    ...(deps.cluster ? { terminatedNodes } : {}),
    ...(deps.keyspaces ? { deletedKeyspaces } : {}),
    ...(deletedSecrets.length ? { deletedSecrets } : {}),
    ...(dax ? { deletedDaxClusters: dax.deletedDaxClusters, pendingDaxGroups: dax.pendingDaxGroups } : {}),
    failed,
  };
  // A run can be torn down more than once (the Catch, then the abort rule on FAILED; a retried
  // teardown): the record keeps everything any pass removed, and the first failure's error stays.
  const previous = (await readOptional(deps.store, teardownKey(runId))) as
    (TeardownResult & { passes?: number }) | null;
  const union = (a: string[] | undefined, b: string[]) => [...new Set([...(a ?? []), ...b])];
  await deps.store.putJson(teardownKey(runId), {
    ...result,
    terminated: union(previous?.terminated, terminated),
    deletedTables: union(previous?.deletedTables, deletedTables),
    keptTables: union(previous?.keptTables, keptTables),
    ...(deps.cluster || previous?.terminatedNodes
      ? { terminatedNodes: union(previous?.terminatedNodes, terminatedNodes) }
      : {}),
    ...(deps.keyspaces || previous?.deletedKeyspaces
      ? { deletedKeyspaces: union(previous?.deletedKeyspaces, deletedKeyspaces) }
      : {}),
    ...(dax || previous?.deletedDaxClusters
      ? {
          deletedDaxClusters: union(previous?.deletedDaxClusters, dax?.deletedDaxClusters ?? []),
          // what is still pending is this pass's view
          pendingDaxGroups: dax?.pendingDaxGroups ?? previous?.pendingDaxGroups ?? [],
        }
      : {}),
    failed: failed || Boolean(previous?.failed),
    passes: (previous?.passes ?? 1) + (previous ? 1 : 0),
    ...(errors.length ? { errors } : {}),
    atMs: deps.clock.nowMs(),
  });
  if (failed) {
    const earlier = (await readOptional(deps.store, failureKey(runId))) as {
      error: string | null;
      cause: string | null;
    } | null;
    const failure = {
      runId,
      status: input.status ?? 'FAILED',
      error: earlier?.error ?? input.error?.Error ?? null,
      cause: earlier?.cause ?? input.error?.Cause ?? null,
      atMs: deps.clock.nowMs(),
    };
    await deps.store.putJson(failureKey(runId), failure);
    // one message per failed run, unless a later pass had to remove something the first left
    const removedNow =
      terminated.length +
      terminatedNodes.length +
      deletedTables.length +
      deletedKeyspaces.length +
      (dax?.deletedDaxClusters.length ?? 0);
    if (deps.notifier && (!earlier || removedNow > 0)) {
      await deps.notifier.publish(
        `fleetbench run ${runId}: ${failure.status}`.slice(0, 99),
        `Run ${runId} ended ${failure.status}: ${failure.error ?? ''} ${failure.cause ?? ''}\n` +
          `Teardown terminated ${terminated.length} loaders${terminatedNodes.length ? ` and ${terminatedNodes.length} database nodes` : ''} and deleted ${deletedTables.length} tables` +
          `${dax?.deletedDaxClusters.length ? ` and ${dax.deletedDaxClusters.length} DAX clusters` : ''}.`,
      );
    }
  }
  if (errors.length)
    throw new Error(`teardown of run ${runId} incomplete (it is retried): ${errors.join('; ')}`);
  return result;
}

async function readOptional(store: ObjectStore, key: string): Promise<unknown> {
  try {
    return await store.getJson(key);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

export interface JanitorResult {
  terminated: string[];
  deletedTables: string[];
  terminatedNodes?: string[];
  deletedKeyspaces?: string[];
  deletedDaxClusters?: string[];
  deletedDaxGroups?: string[];
}

/** Removes loaders and tables whose expires-at tag has passed (whatever their run's state). */
export async function janitor(deps: {
  tables: TableAdmin;
  fleet: FleetAdmin;
  clock: Clock;
  cluster?: ClusterAdmin;
  keyspaces?: KeyspacesAdmin;
  dax?: DaxAdmin;
}): Promise<JanitorResult> {
  const nowS = deps.clock.nowMs() / 1000;
  const expired = (tags: Record<string, string>): boolean => {
    const v = Number(tags[TAG_EXPIRES_AT]);
    return Number.isFinite(v) && v > 0 && v < nowS;
  };
  const errors: string[] = [];
  const attempt = async (what: string, f: () => Promise<void>): Promise<void> => {
    try {
      await f();
    } catch (err) {
      errors.push(`${what}: ${(err as Error).message}`);
    }
  };
  const terminated: string[] = [];
  await attempt('terminating loaders', async () => {
    const ids = (await deps.fleet.list({}))
      .filter((i) => i.state !== 'terminated' && expired(i.tags))
      .map((i) => i.id);
    if (ids.length) await deps.fleet.terminate(ids);
    terminated.push(...ids);
  });
  const deletedTables: string[] = [];
  await attempt('listing tables', async () => {
    for (const t of await deps.tables.listTables(TABLE_PREFIX)) {
      if (!t.tags[TAG_RUN_ID] || !expired(t.tags)) continue;
      await attempt(`deleting table ${t.name}`, async () => {
        if (await deps.tables.deleteTable(t.name)) deletedTables.push(t.name);
      });
    }
  });
  const terminatedNodes: string[] = [];
  if (deps.cluster) {
    await attempt('terminating database nodes', async () => {
      const ids = (await deps.cluster!.list({}))
        .filter((n) => n.state !== 'terminated' && expired(n.tags))
        .map((n) => n.id);
      if (ids.length) await deps.cluster!.terminate(ids);
      terminatedNodes.push(...ids);
    });
  }
  const deletedKeyspaces: string[] = [];
  if (deps.keyspaces)
    await attempt('deleting keyspaces', async () => {
      deletedKeyspaces.push(...(await deleteExpiredKeyspaces(deps.keyspaces!, expired)));
    });
  const daxAdmin = deps.dax;
  const dax = { deletedDaxClusters: [] as string[], deletedDaxGroups: [] as string[] };
  if (daxAdmin)
    await attempt('deleting DAX clusters and groups', async () => {
      const r = await janitorDax(daxAdmin, expired);
      dax.deletedDaxClusters.push(...r.deletedDaxClusters);
      dax.deletedDaxGroups.push(...r.deletedDaxGroups);
    });
  if (errors.length) throw new Error(`janitor incomplete: ${errors.join('; ')}`);
  return {
    terminated,
    deletedTables,
    ...(deps.cluster ? { terminatedNodes } : {}),
    ...(deps.keyspaces ? { deletedKeyspaces } : {}),
    ...(daxAdmin ? dax : {}),
  };
}
