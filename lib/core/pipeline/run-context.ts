/**
 * The run context: the small JSON the state machine carries between steps (./context.ts has the store layout and
 * its readers), its one reader (readRunContext: the current shape, and the per-kind shape of older runs), and the
 * tags every resource of the run carries. A leaf module: the target kinds read it.
 */
import { InputError } from '../common/errors';
import { TAG_EXPIRES_AT, TAG_ROLE, TAG_RUN_ID, TAG_SPEC, type Tags } from '../common/ports';
import { RUN_RESOURCES, type RunResource } from '../resources/run-resource';
import { LEGACY_CONTEXT_FIELDS, LEGACY_FIELD_NAMES, legacyResources } from './legacy-context';

/** What Plan returns; every later step receives it as `run`. */
export interface RunContext {
  runId: string;
  specName: string;
  /** The results store's root URI (s3://bucket or file:///dir). */
  storeUri: string;
  startedAtMs: number;
  cellCount: number;
  /** Targets loaded before the cells (ids, in order); empty when there is no load phase. */
  loadTargets: string[];
  /** loadTargets.length (`fleetbench status` shows a load's place among them). */
  loadCount: number;
  loaders: number;
  instanceType: string;
  /**
   * The resources of the run's targets, as each kind lists them at Plan (lib/core/resources/run-resource.ts has the
   * entry schema and the helpers: a type's entries, a target's resources).
   */
  resources: RunResource[];
  /**
   * The targets in the order the state machine runs them (docs/aws-pipeline.md, "Per-target lifecycles"): each is
   * provisioned, loaded (loads [loadStart, loadEnd)), measured (cells [cellStart, cellEnd)) and torn down before the
   * next ("sequential"), or side by side ("parallel"). Plan writes it (targetSpans); the targets' Map runs over it.
   */
  targets?: TargetSpan[];
  /**
   * How many targets are under way at once: the targets' Map's MaxConcurrency (1: sequential; the number of
   * targets: parallel). A context without it (a run before the Map) is read as 1.
   */
  targetConcurrency?: number;
  /** Epoch seconds after which the janitor may remove anything of this run. */
  expiresAt: number;
  scheduleName?: string;
  /**
   * Set when this execution resumes a failed run (`fleetbench resume`, lib/core/pipeline/resume.ts): the cells it runs
   * (those without a complete row); the others are skipped by ConfigureCell.
   */
  resume?: { executionName: string; atMs: number; cells: number[] };
}

/** One target's place in the run: its load phases and its cells, as half-open index ranges. */
export interface TargetSpan {
  id: string;
  loadStart: number;
  loadEnd: number;
  cellStart: number;
  cellEnd: number;
  /**
   * A parallel run only: the size of the target's own loader group (its loaders carry TAG_LOADER_GROUP = its id);
   * absent, the target uses the run's loaders (one fleet shared by the targets in turn).
   */
  loaders?: number;
}

/** The tag of a parallel run's loaders naming the target whose group they are. */
export const TAG_LOADER_GROUP = 'fleetbench:loader-group';

/** The loader group of a target of the run (parallel runs), or null when the targets share the run's loaders. */
export function loaderGroupOf(
  run: Pick<RunContext, 'targets'>,
  targetId: string,
): { id: string; loaders: number } | null {
  const span = run.targets?.find((t) => t.id === targetId);
  return span?.loaders !== undefined ? { id: span.id, loaders: span.loaders } : null;
}

/**
 * Each target's span: its cells (the plan orders them by target) and its load (the order of `loadTargets`). A target
 * the plan gives no cell (none) is left out: nothing of it is provisioned.
 */
export function targetSpans(
  targetIds: readonly string[],
  cells: readonly { target: string }[],
  loadTargets: readonly string[],
): TargetSpan[] {
  return targetIds.flatMap((id) => {
    const first = cells.findIndex((c) => c.target === id);
    if (first < 0) return [];
    let end = first;
    while (end < cells.length && cells[end]!.target === id) end++;
    if (cells.slice(end).some((c) => c.target === id))
      throw new Error(`the plan's cells of target "${id}" are not consecutive`);
    const load = loadTargets.indexOf(id);
    return [
      {
        id,
        loadStart: load < 0 ? 0 : load,
        loadEnd: load < 0 ? 0 : load + 1,
        cellStart: first,
        cellEnd: end,
      },
    ];
  });
}

/** The span of the run's target at `index` (a Task's `target` input); an InputError naming the field otherwise. */
export function spanAt(run: Pick<RunContext, 'targets'>, index: unknown): TargetSpan {
  const span = Number.isInteger(index) ? run.targets?.[index as number] : undefined;
  if (!span)
    throw new InputError([
      { path: 'target', message: `an index into run.targets (0 to ${(run.targets?.length ?? 0) - 1})` },
    ]);
  return span;
}

/**
 * The targets' Map's concurrency for a spec's `execution`: one target at a time, or all of them (at least 1: a
 * MaxConcurrency of 0 would mean no limit).
 */
export function targetConcurrency(execution: 'sequential' | 'parallel' | undefined, targets: number): number {
  return execution === 'parallel' ? Math.max(1, targets) : 1;
}

/** The tags every resource of the run carries (its id, spec, expiry and role), over the user's. */
export function runTags(run: RunContext, role: string, extra: Tags = {}): Tags {
  return {
    ...extra,
    [TAG_RUN_ID]: run.runId,
    [TAG_SPEC]: run.specName,
    [TAG_EXPIRES_AT]: String(run.expiresAt),
    [TAG_ROLE]: role,
  };
}

type Issues = { path: string; message: string }[];

/** The resource list of a context: its own, or the one its per-kind fields stand for (older runs). */
function resourcesOf(r: Record<string, unknown>, field: string, issues: Issues): RunResource[] {
  const issue = (path: (PropertyKey | number)[], message: string) =>
    issues.push({ path: [field, ...path.map(String)].join('.'), message });
  if (r.resources !== undefined) {
    const parsed = RUN_RESOURCES.safeParse(r.resources);
    if (parsed.success) return parsed.data;
    for (const q of parsed.error.issues) issue(['resources', ...q.path], q.message);
    return [];
  }
  if (r.tables === undefined) {
    issue(['resources'], "missing (the list of the run's resources)");
    return [];
  }
  const legacy = LEGACY_CONTEXT_FIELDS.safeParse(r);
  if (legacy.success) return legacyResources(String(r.runId), legacy.data);
  for (const q of legacy.error.issues) issue(q.path, q.message);
  return [];
}

/**
 * The run context a step received (from the state machine's state) or read (context.json): checked, and a context
 * of an older run (per-kind fields `tables`, `clusters`, `keyspaces`, `dax`) turned into the resource list
 * (./legacy-context.ts). Bad input fails naming the field.
 */
export function readRunContext(run: unknown, field = 'run'): RunContext {
  if (!run || typeof run !== 'object' || Array.isArray(run))
    throw new InputError([{ path: field, message: 'missing run context' }]);
  const r = run as Record<string, unknown>;
  const issues: Issues = [];
  if (typeof r.runId !== 'string' || r.runId === '')
    issues.push({ path: `${field}.runId`, message: 'missing' });
  if (typeof r.storeUri !== 'string') issues.push({ path: `${field}.storeUri`, message: 'missing' });
  if (typeof r.cellCount !== 'number') issues.push({ path: `${field}.cellCount`, message: 'missing' });
  const resources = resourcesOf(r, field, issues);
  if (issues.length) throw new InputError(issues);
  const rest = Object.fromEntries(
    Object.entries(r).filter(([k]) => !(LEGACY_FIELD_NAMES as readonly string[]).includes(k)),
  );
  return { ...rest, resources } as unknown as RunContext;
}

/**
 * The execution working on the run: a resuming execution's name, else the run id (the run's first execution). Jobs
 * carry it (the agent's lock, its manifests), and AggregateCell reads only this execution's processes.
 */
export const executionOf = (run: Pick<RunContext, 'runId' | 'resume'>): string =>
  run.resume?.executionName ?? run.runId;
