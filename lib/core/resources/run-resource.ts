/**
 * The run context's list of resources (lib/core/pipeline/run-context.ts `resources`): one entry per cloud resource
 * a target of the run uses, `{ type, targetId, name, ... }`, where `type` is the id of its resource type
 * (./resource-type.ts) and the rest is what that type records (a table's `owned`, a node cluster's node count).
 * Plan writes the list before anything is provisioned (each kind's `contextEntries`); the steps, Teardown and the
 * Janitor find a type's entries by its type id. This module is the one schema of an entry: a type's own fields are
 * declared once, in its module, with `runResourceSchema`. A leaf: it imports nothing of the project.
 */
import { z } from 'zod';

/** What every entry has; a type's own fields pass through (its schema, `runResourceSchema`, reads them). */
export const RUN_RESOURCE = z.looseObject({
  /** The resource type's id (./resource-type.ts `id`: "dynamodb-table", "dax-cluster", "keyspace", ...). */
  type: z.string().min(1),
  /** The spec target the resource serves. */
  targetId: z.string().min(1),
  /** Its name, where it has one (a table, keyspace, cluster, secret); a node cluster's nodes go by their tags. */
  name: z.string().min(1).optional(),
});

/** One resource of a run, as the run context lists it. */
export type RunResource = z.infer<typeof RUN_RESOURCE>;

/** The run context's list (lib/core/pipeline/run-context.ts). */
export const RUN_RESOURCES = z.array(RUN_RESOURCE);

/** The schema of one type's entries: the common fields, its type id as a literal, and its own fields. */
export function runResourceSchema<const Id extends string, Shape extends z.ZodRawShape>(
  type: Id,
  own: Shape,
) {
  return z.object({ type: z.literal(type), targetId: z.string().min(1), ...own });
}

/** An entry schema made by runResourceSchema. */
export type EntrySchema = z.ZodObject<{ type: z.ZodLiteral<string>; targetId: z.ZodString }>;

/** What the helpers below read of a run context (so this module needs no import of it). */
export interface HasResources {
  resources: readonly RunResource[];
}

/**
 * Every entry of one type, read with its schema (a malformed entry fails naming its place in the list). `run`
 * null (no context): none.
 */
export function entriesOf<S extends EntrySchema>(run: HasResources | null, schema: S): z.infer<S>[] {
  const type = schema.shape.type.value;
  const out: z.infer<S>[] = [];
  (run?.resources ?? []).forEach((r, i) => {
    if (r.type !== type) return;
    const parsed = schema.safeParse(r);
    if (!parsed.success)
      throw new Error(
        `run.resources[${i}] (${type}): ${parsed.error.issues.map((q) => `${q.path.join('.') || '.'}: ${q.message}`).join('; ')}`,
      );
    out.push(parsed.data);
  });
  return out;
}

/** The entry of one type that serves a target (undefined: the target has none). */
export function entryOf<S extends EntrySchema>(
  run: HasResources | null,
  schema: S,
  targetId: string,
): z.infer<S> | undefined {
  return entriesOf(run, schema).find((e) => e.targetId === targetId);
}

/** The resources of one target (what `fleetbench resume` re-checks of it), in the order Plan listed them. */
export function targetResources(run: HasResources, targetId: string): RunResource[] {
  return run.resources.filter((r) => r.targetId === targetId);
}

/** All resources of the run, grouped by target (in the order Plan listed them). */
export function resourcesByTarget(run: HasResources): Map<string, RunResource[]> {
  const out = new Map<string, RunResource[]>();
  for (const r of run.resources) out.set(r.targetId, [...(out.get(r.targetId) ?? []), r]);
  return out;
}
