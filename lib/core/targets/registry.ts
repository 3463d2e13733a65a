/**
 * The target-kind registry: every kind of the spec schema's `Target` union maps to its declaration
 * (lib/core/targets/<kind>/kind.ts). A kind added to the schema without an entry here fails to compile; the
 * pipeline steps, the planner, validation and the local mode loop over this registry and never name a kind.
 * Adding a kind is its folder plus one line in ./kinds.ts and one in ./kind-specs.ts (README, "Target kinds").
 */
import type { Target } from '../spec/schema';
import type { Issue } from '../common/errors';
import type { ResourceType } from '../resources/resource-type';
import { LOADERS } from '../resources/loaders';
import type { DeployEnv, Findings, LocalNeed, TargetKind } from './kind';
import type { RunResource } from '../resources/run-resource';
import * as KINDS from './kinds';
import { KIND_NAMES } from './specs';

type Registry = { [K in Target['kind']]: TargetKind<Extract<Target, { kind: K }>> };

/** Every kind's declaration (./kinds.ts), in the kinds' order (their spec modules'). */
export const TARGET_KINDS: Registry = Object.fromEntries(
  KIND_NAMES.map((kind) => [kind, (KINDS satisfies Registry)[kind]]),
) as unknown as Registry;

/** A target's kind declaration. */
export function kindOf<T extends Target>(t: T): TargetKind<T> {
  return TARGET_KINDS[t.kind] as unknown as TargetKind<T>;
}

/** Every resource type a run may create: the loaders and each kind's, once each, in teardown order. */
export const RESOURCE_TYPES: readonly ResourceType[] = [
  ...new Set([LOADERS, ...Object.values(TARGET_KINDS).flatMap((k) => k.resources)]),
].sort((a, b) => a.order - b.order);

/**
 * The resource type of an entry of the run context's list (what removes, sweeps and lists it); undefined for a type
 * this version does not know.
 */
export function resourceTypeOf(r: Pick<RunResource, 'type'>): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.id === r.type);
}

/** Each target's kind rules beyond the schema (validate). */
export function targetSpecFindings(spec: DeployEnv['spec']): Findings {
  const out: Findings = { issues: [], warnings: [] };
  spec.targets.forEach((t, i) => kindOf(t).specChecks?.(t, `targets[${i}]`, spec, out));
  return out;
}

/** What the AWS pipeline cannot deploy of each target (Plan refuses the run before provisioning). */
export function deployFindings(env: DeployEnv): Findings {
  const out: Findings = { issues: [], warnings: [] };
  env.spec.targets.forEach((t, i) => kindOf(t).deployChecks?.(t, `targets[${i}]`, env, out));
  return out;
}

/** Why the local mode cannot run these targets (empty: it can). */
export function localIssues(targets: readonly Target[]): Issue[] {
  return targets.flatMap((t, i) => kindOf(t).localIssues(t, `targets[${i}]`));
}

/** Whether the run loads the data set into this target. */
export function loadsData(t: Target): boolean {
  return kindOf(t).loads(t);
}

/** The target with its kind's defaults filled in (validate, once). */
export function withKindDefaults<T extends Target>(t: T): T {
  return kindOf(t).withDefaults?.(t) ?? t;
}

/** What the local mode starts for these targets (each kind says what it needs). */
export function localNeeds(targets: readonly Target[]): Set<LocalNeed> {
  return new Set(targets.flatMap((t) => kindOf(t).localNeeds ?? []));
}

/** The run context's resources of every target, as each kind lists them, target by target (Plan). */
export function contextEntries(
  targets: readonly Target[],
  run: { runId: string; tables: Record<string, string> },
): RunResource[] {
  return targets.flatMap(
    (t) => kindOf(t).contextEntries?.(t, { runId: run.runId, table: run.tables[t.id]! }) ?? [],
  );
}
