/**
 * Amazon Keyspaces targets in the pipeline: the run context's keyspace and table per target (Plan), creating
 * them (ProvisionTarget, idempotent on retry), waiting until the table is ACTIVE (WaitReady), giving a provisioned
 * table the spec's capacity again before each cell (ConfigureCell, as DynamoDB's tables get it), deleting the
 * run's keyspaces (Teardown: from the context, and by the run tag when there is none) and expired ones
 * (Janitor). Each step calls one function here; the KeyspacesAdmin port does the work
 * (lib/aws/keyspaces-admin.ts on AWS).
 */
import {
  ConflictError,
  StepFailedError,
  TAG_RUN_ID,
  type KeyspacesAdmin,
  type Tags,
} from '../../common/ports';
import type { KeyspacesTarget, RunSpec } from '../../spec/schema';
import type { RunContext } from '../../pipeline/run-context';
import { entriesOf, entryOf } from '../../resources/run-resource';
import { KEYSPACE_ENTRY, type KeyspaceEntry } from './entries';
import type { RemovalScope } from '../../resources/resource-type';
import { ownedByRun, removeOwned, type OwnedRemoval } from '../../pipeline/ownership';

/** The Keyspaces port a step needs (the run has keyspaces targets). */
function portOf(admin: KeyspacesAdmin | undefined, step: string): KeyspacesAdmin {
  if (!admin)
    throw new StepFailedError(
      step,
      'the run has Amazon Keyspaces targets and no Keyspaces port is configured',
    );
  return admin;
}

/** ProvisionTarget waits for a new keyspace at most KEYSPACE_READY_POLLS × KEYSPACE_POLL_MS. */
export const KEYSPACE_READY_POLLS = 15;
export const KEYSPACE_POLL_MS = 2000;
export { realSleep } from '../../pipeline/sleep';
import { realSleep } from '../../pipeline/sleep';

/**
 * Polls `read` (first at once, then every KEYSPACE_POLL_MS) until `ready` holds, at most KEYSPACE_READY_POLLS
 * times; `stop` ends the wait early. Fails with `step` and `why(last, seconds)`.
 */
async function pollKeyspaces<T>(
  read: () => Promise<T>,
  test: { ready: (v: T) => boolean; stop?: (v: T) => boolean },
  sleep: (ms: number) => Promise<void>,
  fail: { step: string; why: (last: T, seconds: number) => string },
): Promise<T> {
  for (let poll = 1; ; poll++) {
    const v = await read();
    if (test.ready(v)) return v;
    if (poll >= KEYSPACE_READY_POLLS || test.stop?.(v))
      throw new StepFailedError(fail.step, fail.why(v, ((poll - 1) * KEYSPACE_POLL_MS) / 1000));
    await sleep(KEYSPACE_POLL_MS);
  }
}

/**
 * CreateKeyspace is asynchronous (https://docs.aws.amazon.com/keyspaces/latest/APIReference/API_CreateKeyspace.html):
 * GetKeyspace finds the keyspace once it was created, and CreateTable in it is refused before. Returns its tags.
 */
async function awaitKeyspace(
  ks: KeyspacesAdmin,
  name: string,
  sleep: (ms: number) => Promise<void>,
): Promise<Tags> {
  const tags = await pollKeyspaces(() => ks.keyspaceTags(name), { ready: (t) => t !== null }, sleep, {
    step: 'ProvisionTarget',
    why: (_t, sec) =>
      `keyspace ${name}: GetKeyspace still finds no keyspace ${sec} s after CreateKeyspace (it must exist ` +
      'before its table is created)',
  });
  return tags!;
}

/**
 * ProvisionTarget: creates the target's keyspace, waits until it exists, and creates its table, tagged with the
 * run. On a retry a keyspace that exists is reused only when it carries this run's tag (else the step fails: it
 * is not ours); its table is then ours too. Returns `keyspace.table`.
 */
export async function provisionKeyspace(
  run: RunContext,
  spec: RunSpec,
  target: KeyspacesTarget,
  ports: { tags: Tags; admin: KeyspacesAdmin | undefined; sleep?: (ms: number) => Promise<void> },
): Promise<string | null> {
  const k = entryOf(run, KEYSPACE_ENTRY, target.id);
  if (!k) return null;
  const ks = portOf(ports.admin, 'ProvisionTarget');
  const { tags } = ports;
  try {
    await ks.createKeyspace(k.name, tags);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
  if (!ownedByRun(await awaitKeyspace(ks, k.name, ports.sleep ?? realSleep), run.runId))
    throw new StepFailedError('ProvisionTarget', `keyspace ${k.name} already exists and is not this run's`);
  try {
    await ks.createTable({
      keyspace: k.name,
      table: k.table,
      fieldCount: spec.dataset.fieldCount,
      capacity: target.capacity,
      tags,
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err; // in our keyspace: created by an earlier attempt
  }
  return `${k.name}.${k.table}`;
}

/** WaitReady: a line when the target's Keyspaces table is not ACTIVE yet (empty: it is). */
export async function keyspaceNotReady(
  run: RunContext,
  targetId: string,
  admin: KeyspacesAdmin | undefined,
): Promise<string[]> {
  const k = entryOf(run, KEYSPACE_ENTRY, targetId);
  if (!k) return [];
  const s = await portOf(admin, 'WaitReady').describeTable(k.name, k.table);
  return s.status === 'ACTIVE' ? [] : [`Keyspaces table ${k.name}.${k.table} is ${s.status}`];
}

/**
 * ConfigureCell: the target's table must exist, and a provisioned one gets the capacity the spec gives it when its
 * capacity differs (changed by hand or by scaling set up outside fleetbench since ProvisionTarget), as ConfigureCell
 * does for DynamoDB. An on-demand table is left as it is. Returns whether UpdateTable was sent.
 */
export async function configureKeyspacesCapacity(
  run: RunContext,
  target: KeyspacesTarget,
  admin: KeyspacesAdmin | undefined,
  sleep: (ms: number) => Promise<void> = realSleep,
): Promise<boolean> {
  const k = entryOf(run, KEYSPACE_ENTRY, target.id);
  if (!k)
    throw new StepFailedError('ConfigureCell', `the run context has no keyspace for target ${target.id}`);
  const ks = portOf(admin, 'ConfigureCell');
  const state = await ks.describeTable(k.name, k.table);
  if (state.status === 'MISSING' || state.status === 'DELETING')
    throw new StepFailedError('ConfigureCell', `Keyspaces table ${k.name}.${k.table} is ${state.status}`);
  const want = target.capacity;
  if (want.mode !== 'provisioned') return false;
  const have = state.capacity;
  if (have?.mode === 'provisioned' && have.rcu === want.rcu && have.wcu === want.wcu) return false;
  if (state.status !== 'ACTIVE') await awaitTableActive(ks, k, sleep);
  await ks.updateCapacity(k.name, k.table, want);
  return true;
}

/**
 * UpdateTable is refused unless the table is ACTIVE
 * (https://docs.aws.amazon.com/keyspaces/latest/APIReference/API_UpdateTable.html): a table still UPDATING from a
 * change made outside fleetbench is waited for, at most KEYSPACE_READY_POLLS × KEYSPACE_POLL_MS.
 */
async function awaitTableActive(
  ks: KeyspacesAdmin,
  k: KeyspaceEntry,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  await pollKeyspaces(
    () => ks.describeTable(k.name, k.table),
    { ready: (s) => s.status === 'ACTIVE', stop: (s) => s.status === 'MISSING' || s.status === 'DELETING' },
    sleep,
    {
      step: 'ConfigureCell',
      why: (s, sec) =>
        `Keyspaces table ${k.name}.${k.table} is ${s.status} ${sec} s on: its capacity can be set only when ` +
        'it is ACTIVE',
    },
  );
}

/**
 * Teardown: deletes the run's keyspaces with their tables: those the context names, and any keyspace carrying
 * the run tag (Plan may not have finished, or a retry may have created one), each only when its own tag, read
 * right before, is this run's (lib/core/pipeline/ownership.ts); a keyspace of that name without it is kept.
 */
export async function removeRunKeyspaces(
  runId: string,
  run: RunContext | null,
  admin: KeyspacesAdmin,
  scope?: RemovalScope,
): Promise<OwnedRemoval> {
  const names = new Set(entriesOf(run, KEYSPACE_ENTRY).map((k) => k.name));
  // one target's teardown: the context's keyspace (its own); the run's Teardown sweeps by the run tag
  if (!scope) for (const k of await admin.listKeyspaces({ runId })) names.add(k.name);
  return removeOwned(runId, 'keyspace', names, {
    tags: (name) => admin.keyspaceTags(name),
    remove: (name) => admin.deleteKeyspace(name),
  });
}

/** Janitor: deletes keyspaces of any run whose expiry tag has passed. */
export async function sweepExpiredKeyspaces(
  admin: KeyspacesAdmin,
  expired: (tags: Tags) => boolean,
): Promise<string[]> {
  const deleted: string[] = [];
  for (const k of await admin.listKeyspaces({}))
    if (k.tags[TAG_RUN_ID] && expired(k.tags) && (await admin.deleteKeyspace(k.name))) deleted.push(k.name);
  return deleted;
}
