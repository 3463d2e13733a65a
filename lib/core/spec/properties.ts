/**
 * YCSB properties a spec hands to the loaders (`workload.extraProperties`, a custom binding's `properties`):
 * checked against the loader agent's own rules for a job's properties (lib/core/contract/job.ts: PROPERTY_NAME,
 * AGENT_OWNED_PROPERTIES), so a spec the agent would refuse at StartLoad fails at validate; and refused when they
 * carry what belongs in Secrets Manager.
 */
import type { Issue } from '../common/errors';
import { AGENT_OWNED_PROPERTIES, PROPERTY_NAME } from '../contract/job';
import { jsonPath } from './errors';
import type { RunSpec } from './schema';
import { secretPropertyProblem, secretsManagerPointer } from './secret-text';
import { kindOf } from '../targets/registry';

/** What the agent says of a property name in a job, or null when it accepts it. */
export function agentPropertyProblem(name: string): string | null {
  if (!PROPERTY_NAME.test(name))
    return (
      `expected a YCSB property name the loader agent accepts (a letter or "_", then letters, digits, "_", "." ` +
      `or "-"; no spaces or line breaks), found ${JSON.stringify(name)}`
    );
  if ((AGENT_OWNED_PROPERTIES as readonly string[]).includes(name))
    return `"${name}" is set by the loader agent itself (it refuses a job that sets it); remove it`;
  return null;
}

/** `workload.extraProperties` keys against the agent's rules (the managed ones are semanticChecks'). */
export function extraPropertyChecks(spec: RunSpec, issues: Issue[]): void {
  for (const key of Object.keys(spec.workload.extraProperties ?? {})) {
    const problem = agentPropertyProblem(key);
    if (problem) issues.push({ path: jsonPath(['workload', 'extraProperties', key]), message: problem });
  }
}

/**
 * Secrets in plain text: extra properties named like secrets (`*.password`, `*token*`, `*secret*`, ...) or with URLs
 * with credentials among their values (./secret-text.ts), and what each target's kind checks of its own (a user's
 * binding properties, endpoints with credentials: its `secretChecks`). Each is refused with where the secret goes
 * instead.
 */
export function secretChecks(spec: RunSpec, issues: Issue[]): void {
  for (const [k, v] of Object.entries(spec.workload.extraProperties ?? {})) {
    const problem = secretPropertyProblem(k, v);
    if (problem)
      issues.push({
        path: jsonPath(['workload', 'extraProperties', k]),
        message: `${problem}: ${secretsManagerPointer(null)}`,
      });
  }
  spec.targets.forEach((t, i) => kindOf(t).secretChecks?.(t, `targets[${i}]`, issues));
}
