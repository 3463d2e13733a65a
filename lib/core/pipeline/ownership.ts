/**
 * The one rule every delete of a run's resources follows (Teardown, the DAX and Keyspaces teardown): a table,
 * keyspace, DAX cluster or group, database node or loader is removed only when its own `fleetbench:run-id` tag,
 * read on the resource right before the delete, is this run's id. A name from the run context is not enough:
 * another run (or a preloaded table given as `existingTable`) may hold that name, and such a resource is kept
 * and reported, never deleted.
 */
import { TAG_RUN_ID, type Tags } from '../common/ports';

/** Whether the tags (null: the resource does not exist) carry this run's id. */
export function ownedByRun(tags: Tags | null | undefined, runId: string): boolean {
  return tags?.[TAG_RUN_ID] === runId;
}

/** What removeOwned did with each name. */
export interface OwnedRemoval {
  /** Deleted (the delete was accepted). */
  removed: string[];
  /** There, without this run's tag: left alone. */
  kept: string[];
  /** Failures, each naming the resource (the other names were still tried). */
  errors: string[];
}

/**
 * Deletes each named resource that carries this run's tag (`tags` reads them on the resource; null when it
 * does not exist, which is skipped). `kind` names the resource in errors ("table", "keyspace").
 */
export async function removeOwned(
  runId: string,
  kind: string,
  names: Iterable<string>,
  resource: { tags(name: string): Promise<Tags | null>; remove(name: string): Promise<boolean> },
): Promise<OwnedRemoval> {
  const out: OwnedRemoval = { removed: [], kept: [], errors: [] };
  for (const name of names) {
    try {
      const tags = await resource.tags(name);
      if (tags === null) continue;
      if (!ownedByRun(tags, runId)) out.kept.push(name);
      else if (await resource.remove(name)) out.removed.push(name);
    } catch (err) {
      out.errors.push(`deleting ${kind} ${name}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The ids of listed instances (loaders, database nodes) that are not terminated and carry this run's tag. */
export function ownedInstanceIds(
  runId: string,
  instances: { id: string; state: string; tags: Tags }[],
): string[] {
  return instances.filter((i) => i.state !== 'terminated' && ownedByRun(i.tags, runId)).map((i) => i.id);
}
