/**
 * Teardown (end of every run, every Catch, and the abort rule) and the scheduled Janitor.
 * Teardown is idempotent: it finds the run's loaders by tag and its tables by the run context (or,
 * when Plan never finished, by the run tag), removes what is there and records what it did.
 */
import {
  TABLE_PREFIX,
  TAG_EXPIRES_AT,
  TAG_RUN_ID,
  type Ports,
  type SecretAdmin,
  type TableAdmin,
} from '../ports';
import { InputError } from '../errors';
import {
  contextKey,
  failureKey,
  readOptional,
  runIdFromExecutionName,
  teardownKey,
  type RunContext,
} from './context';
import { deleteExpiredKeyspaces, deleteRunKeyspaces } from './keyspaces';
import { janitorDax, teardownDax, type DaxTeardown } from './dax';
import { ownedByRun, ownedInstanceIds, removeOwned, type OwnedRemoval } from './ownership';
import { lateArrivals, type LateArrivalDeps, type LateArrivalsResult } from './late-arrivals';
import { cqlLoginSecretName } from '../cql-auth';
import type { TeardownInput } from './teardown-input';

export type { TeardownInput };

export interface TeardownResult {
  runId: string;
  terminated: string[];
  deletedTables: string[];
  /** Tables left alone: not the run's (`existingTable`), or named in the context without the run's tag. */
  keptTables: string[];
  /** ScyllaDB nodes terminated (found by the run tag). */
  terminatedNodes?: string[];
  /** Amazon Keyspaces keyspaces deleted with their tables (from the context and by the run tag). */
  deletedKeyspaces?: string[];
  /** Keyspaces named in the context that do not carry the run's tag: another's, left alone. */
  keptKeyspaces?: string[];
  /** DAX clusters whose deletion was started, and names whose groups the Janitor removes later. */
  deletedDaxClusters?: string[];
  pendingDaxGroups?: string[];
  /** DAX clusters of the run's names that do not carry the run's tag: another's, left alone. */
  keptDaxClusters?: string[];
  /** cassandra-ec2 login secrets deleted (names; only those tagged with the run). */
  deletedSecrets?: string[];
  /** Login secrets of the run's names that do not carry the run's tag: another's, left alone. */
  keptSecrets?: string[];
  failed: boolean;
}

type TeardownDeps = LateArrivalDeps & Partial<Pick<Ports, 'notifier'>>;

/**
 * Removes what the run owns: every delete goes through the ownership rule (./ownership.ts), so a resource is
 * removed only when its own run tag is this run's id; a table, keyspace or DAX cluster the context names
 * without that tag is kept and reported. `existingTable`s are never deleted.
 */
export async function teardown(input: TeardownInput, deps: TeardownDeps): Promise<TeardownResult> {
  const runId = runIdOf(input);
  let run: RunContext | null = input.run ?? null;
  if (!run) run = (await readOptional(deps.store, contextKey(runId))) as RunContext | null;
  const { result, errors } = await removeRunResources(runId, run, deps);
  result.failed = Boolean(input.error || (input.status && input.status !== 'SUCCEEDED'));
  const previous = (await readOptional(deps.store, teardownKey(runId))) as TeardownRecord | null;
  await deps.store.putJson(teardownKey(runId), {
    ...mergeRecord(result, previous),
    ...(errors.length ? { errors } : {}),
    atMs: deps.clock.nowMs(),
  });
  await recordFailureAndNotify(input, result, errors, deps);
  if (errors.length)
    throw new Error(`teardown of run ${runId} incomplete (it is retried): ${errors.join('; ')}`);
  return result;
}

function runIdOf(input: TeardownInput): string {
  if (input.run?.runId) return input.run.runId;
  if (!input.executionName)
    throw new InputError([{ path: 'run', message: 'teardown needs the run context or the execution name' }]);
  return runIdFromExecutionName(input.executionName);
}

/**
 * Each kind of resource is removed even when another kind fails (a loader API error must not leave $2/h of
 * database nodes running); the failures are returned together once everything was tried.
 */
async function removeRunResources(
  runId: string,
  run: RunContext | null,
  deps: TeardownDeps,
): Promise<{ result: TeardownResult; errors: string[] }> {
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
    const ids = ownedInstanceIds(runId, await deps.fleet.list({ runId }));
    if (ids.length) await deps.fleet.terminate(ids);
    return ids;
  });
  // database nodes: by the run tag, whatever the context says (a retry of Provision may have launched more)
  const cluster = deps.cluster;
  const terminatedNodes = cluster
    ? await attempt('terminating database nodes', [] as string[], async () => {
        const ids = ownedInstanceIds(runId, await cluster.list({ runId }));
        if (ids.length) await cluster.terminate(ids);
        return ids;
      })
    : [];
  // cassandra-ec2 login secrets (lib/core/cql-auth.ts): the context's node clusters name them
  const secretAdmin = deps.secrets;
  const secrets =
    secretAdmin && run?.clusters?.length ? await removeRunLogins(runId, run, secretAdmin) : null;
  errors.push(...(secrets?.errors ?? []));
  // DAX clusters before the tables they cache (by the run tag and the context's names)
  // (Plan writes the context before anything is provisioned: a context naming no cluster means none was made)
  const daxAdmin = deps.dax && (!run || run.dax?.length) ? deps.dax : undefined;
  const dax: DaxTeardown | null = daxAdmin
    ? await attempt('deleting DAX clusters', null, () => teardownDax(runId, run, daxAdmin))
    : null;
  if (dax?.stuckDaxClusters.length)
    errors.push(`DAX did not start deleting ${dax.stuckDaxClusters.join(', ')}`);
  const tables = await removeRunTables(runId, run, deps.tables, attempt);
  errors.push(...tables.errors);
  // a run whose context names no keyspace made none (Plan writes the context before anything is provisioned):
  // no Keyspaces call then, so runs of other targets never depend on Keyspaces being offered in the region
  const ks = deps.keyspaces;
  const keyspaces =
    ks && (!run || run.keyspaces?.length)
      ? await attempt('deleting keyspaces', null, () => deleteRunKeyspaces(runId, run, ks))
      : null;
  errors.push(...(keyspaces?.errors ?? []));
  if (!ks && run?.keyspaces?.length)
    errors.push(
      `deleting keyspaces: no Keyspaces port to delete ${run.keyspaces.map((k) => k.keyspace).join(', ')}`,
    );
  const result: TeardownResult = {
    runId,
    terminated,
    deletedTables: tables.removed,
    keptTables: tables.kept,
    ...(cluster ? { terminatedNodes } : {}),
    ...(ks ? { deletedKeyspaces: keyspaces?.removed ?? [], keptKeyspaces: keyspaces?.kept ?? [] } : {}),
    ...(secrets ? { deletedSecrets: secrets.removed, keptSecrets: secrets.kept } : {}),
    ...(dax
      ? {
          deletedDaxClusters: dax.deletedDaxClusters,
          pendingDaxGroups: dax.pendingDaxGroups,
          keptDaxClusters: dax.keptDaxClusters,
        }
      : {}),
    failed: false,
  };
  return { result, errors };
}

/**
 * The login secrets of the run's node clusters (by their names from the context), each deleted only when it
 * carries the run's tag (DescribeSecret, then DeleteSecret by the ARN it answered).
 */
async function removeRunLogins(runId: string, run: RunContext, secrets: SecretAdmin): Promise<OwnedRemoval> {
  const arns = new Map<string, string>();
  return removeOwned(
    runId,
    'login secret',
    (run.clusters ?? []).map((c) => cqlLoginSecretName(runId, c.target)),
    {
      tags: async (name) => {
        const s = await secrets.describeSecret(name);
        if (s) arns.set(name, s.arn);
        return s?.tags ?? null;
      },
      remove: async (name) => {
        await secrets.deleteSecret(arns.get(name)!);
        return true;
      },
    },
  );
}

/** The run's tables: those the context says the run created (else, when Plan did not finish, by the run tag). */
async function removeRunTables(
  runId: string,
  run: RunContext | null,
  tables: TableAdmin,
  attempt: <T>(what: string, fallback: T, f: () => Promise<T>) => Promise<T>,
): Promise<OwnedRemoval> {
  const candidates = new Set<string>();
  const notOurs: string[] = [];
  if (run) {
    for (const t of run.tables) {
      if (t.owned) candidates.add(t.name);
      else notOurs.push(t.name); // existingTable: never deleted, whatever its tags
    }
  } else {
    await attempt('listing tables', undefined, async () => {
      for (const t of await tables.listTables(TABLE_PREFIX))
        if (ownedByRun(t.tags, runId)) candidates.add(t.name);
    });
  }
  const r = await removeOwned(runId, 'table', candidates, {
    tags: (name) => tables.tableTags(name),
    remove: (name) => tables.deleteTable(name),
  });
  return { ...r, kept: [...notOurs, ...r.kept] };
}

type TeardownRecord = TeardownResult & { passes?: number };

/**
 * A run can be torn down more than once (the Catch, then the abort rule on FAILED; a retried teardown): the
 * record keeps everything any pass removed or kept, and the first failure's error stays.
 */
function mergeRecord(result: TeardownResult, previous: TeardownRecord | null): TeardownRecord {
  const union = (a: string[] | undefined, b: string[] | undefined) => [
    ...new Set([...(a ?? []), ...(b ?? [])]),
  ];
  const lists = [
    'terminated',
    'deletedTables',
    'keptTables',
    'terminatedNodes',
    'deletedKeyspaces',
    'keptKeyspaces',
    'deletedDaxClusters',
    'keptDaxClusters',
    'deletedSecrets',
    'keptSecrets',
  ] as const;
  const merged: TeardownRecord = { ...result };
  for (const key of lists)
    if (result[key] || previous?.[key]) merged[key] = union(previous?.[key], result[key]);
  // what is still pending is this pass's view
  if (result.deletedDaxClusters || previous?.deletedDaxClusters)
    merged.pendingDaxGroups = result.pendingDaxGroups ?? previous?.pendingDaxGroups ?? [];
  merged.failed = result.failed || Boolean(previous?.failed);
  merged.passes = (previous?.passes ?? 1) + (previous ? 1 : 0);
  return merged;
}

/**
 * A failed run gets failure.json and one SNS message (unless a later pass had to remove something the first
 * left); a teardown that could not remove everything sends one too. The message names every kind removed or
 * kept and the teardown's errors.
 */
async function recordFailureAndNotify(
  input: TeardownInput,
  result: TeardownResult,
  errors: string[],
  deps: TeardownDeps,
): Promise<void> {
  const runId = result.runId;
  type Failure = { status: string; error: string | null; cause: string | null };
  let earlier: Failure | null = null;
  let failure: Failure | null = null;
  if (result.failed) {
    earlier = (await readOptional(deps.store, failureKey(runId))) as Failure | null;
    failure = {
      status: input.status ?? 'FAILED',
      error: earlier?.error ?? input.error?.Error ?? null,
      cause: earlier?.cause ?? input.error?.Cause ?? null,
    };
    await deps.store.putJson(failureKey(runId), { runId, ...failure, atMs: deps.clock.nowMs() });
  }
  const removed = removedSummary(result);
  const worthTelling = failure ? !earlier || removed.length > 0 : errors.length > 0;
  if (!deps.notifier || !worthTelling) return;
  const status = failure?.status ?? 'SUCCEEDED';
  const lines = [
    failure
      ? `Run ${runId} ended ${status}: ${failure.error ?? ''} ${failure.cause ?? ''}`.trimEnd()
      : `Run ${runId} ended ${status}.`,
    `Teardown ${removed.length ? removed.join(', ') : 'removed nothing'}.`,
    ...keptSummary(result),
    ...(errors.length
      ? [`Teardown errors (it is retried; what is left is named here):`, ...errors.map((e) => `- ${e}`)]
      : []),
  ];
  const subject = `fleetbench run ${runId}: ${status}${errors.length ? ', teardown incomplete' : ''}`;
  await deps.notifier.publish(subject.slice(0, 99), lines.join('\n'));
}

/** "terminated 2 loaders", "deleted 1 Keyspaces keyspace (fb_…)", ... for each kind removed. */
function removedSummary(r: TeardownResult): string[] {
  const kinds: [string, string, string[] | undefined][] = [
    ['terminated', 'loader', r.terminated],
    ['terminated', 'database node', r.terminatedNodes],
    ['started deleting', 'DAX cluster', r.deletedDaxClusters],
    ['deleted', 'DynamoDB table', r.deletedTables],
    ['deleted', 'Keyspaces keyspace', r.deletedKeyspaces],
    ['deleted', 'login secret', r.deletedSecrets],
  ];
  return kinds
    .filter(([, , list]) => list?.length)
    .map(
      ([verb, noun, list]) =>
        `${verb} ${list!.length} ${noun}${list!.length === 1 ? '' : 's'} (${list!.join(', ')})`,
    );
}

function keptSummary(r: TeardownResult): string[] {
  const kept = [
    ...r.keptTables,
    ...(r.keptKeyspaces ?? []),
    ...(r.keptDaxClusters ?? []),
    ...(r.keptSecrets ?? []),
  ];
  return kept.length ? [`Kept (not this run's, or given as existingTable): ${kept.join(', ')}.`] : [];
}

export interface JanitorResult {
  /** The second pass (./late-arrivals.ts): runs torn down again, and what each still owned. */
  lateArrivals?: LateArrivalsResult['tornDownAgain'];
  terminated: string[];
  deletedTables: string[];
  terminatedNodes?: string[];
  deletedKeyspaces?: string[];
  deletedDaxClusters?: string[];
  deletedDaxGroups?: string[];
}

/**
 * Removes loaders and tables whose expires-at tag has passed (whatever their run's state); then, with a
 * store, tears down again every run that still owns resources 15 minutes after its teardown (./late-arrivals.ts).
 */
export async function janitor(
  deps: Omit<LateArrivalDeps, 'store'> & Partial<Pick<Ports, 'store'>>,
): Promise<JanitorResult> {
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
  // (named ports only: the Lambda's ports build lazily, and a spread would build every one of them)
  const { store, tables, fleet, clock, cluster, keyspaces, secrets } = deps;
  const late = store
    ? await lateArrivals(
        { store, tables, fleet, clock, cluster, keyspaces, dax: daxAdmin, secrets },
        teardown,
      )
    : undefined;
  errors.push(...(late?.errors ?? []));
  if (errors.length) throw new Error(`janitor incomplete: ${errors.join('; ')}`);
  return {
    ...(late ? { lateArrivals: late.tornDownAgain } : {}),
    terminated,
    deletedTables,
    ...(deps.cluster ? { terminatedNodes } : {}),
    ...(deps.keyspaces ? { deletedKeyspaces } : {}),
    ...(daxAdmin ? dax : {}),
  };
}
