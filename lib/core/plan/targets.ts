/**
 * What the plan keeps per target: the YCSB binding its loaders run and the properties every process gets, as
 * its kind declares them (lib/core/targets/registry.ts). The planner asks this once per target (`targetBinding`,
 * kept in the plan); StartLoad/StartCell add only the runtime endpoints.
 */
import type { RunSpec, Target } from '../spec/schema';
import { BINDINGS, type BindingId } from '../contract/bindings';
import type { JobCredentials } from '../contract/job';
import { kindOf } from '../targets/registry';
import type { TargetSizing } from './sizing-types';

/** What the plan keeps per target: the binding and its properties, set once. */
export interface TargetBinding {
  binding: BindingId;
  /** the YCSB `DB` class (BINDINGS[binding].dbClass) */
  db: string;
  /** properties every process of every phase of this target gets */
  properties: Record<string, string>;
  /** where the loaders fetch the target's credentials (a secret reference, never the values) */
  credentials?: JobCredentials;
  /** a user's binding: its jars (store URIs), which the agent fetches (the job's bindingJars) */
  jars?: string[];
  /** each jar's SHA-256 (lowercase hex), recorded by Plan (lib/core/pipeline/binding-digests.ts) */
  jarSha256?: string[];
}

/** Which binding a target's loaders run. */
export function bindingIdOf(t: Target): BindingId {
  return kindOf(t).binding(t);
}

/** The binding of a target, as the plan keeps it (`run`: the run id and the target's loader sizing). */
export function targetBinding(
  spec: RunSpec,
  t: Target,
  table: string,
  run: { runId: string; sizing?: TargetSizing },
): TargetBinding {
  const k = kindOf(t);
  const binding = k.binding(t);
  const secretArn = k.credentialsSecretArn?.(t);
  const custom = k.userBinding?.(t);
  return {
    binding,
    db: BINDINGS[binding].dbClass ?? custom!.dbClass,
    properties: k.properties(t, { spec, table, ...run }),
    ...(secretArn ? { credentials: { secretArn, binding } } : {}),
    ...(custom ? { jars: [...custom.jars] } : {}),
  };
}

/** The endpoint properties of a target whose nodes run at these addresses. */
export function runtimeEndpointProperties(
  t: Target,
  endpoints: { host: string; port: number }[],
): Record<string, string> {
  const k = kindOf(t);
  return k.endpointProperties ? k.endpointProperties(t, endpoints) : {};
}
