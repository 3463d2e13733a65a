/**
 * YCSB properties a spec hands to the loaders (`workload.extraProperties`, a custom binding's `properties`):
 * checked against the loader agent's own rules for a job's properties (lib/core/contract/job.ts: PROPERTY_NAME,
 * AGENT_OWNED_PROPERTIES), so a spec the agent would refuse at StartLoad fails at validate; and refused when they
 * carry what belongs in Secrets Manager.
 */
import type { Issue } from '../common/errors';
import { AGENT_OWNED_PROPERTIES, PROPERTY_NAME } from '../contract/job';
import { CREDENTIALS_SECRET_PREFIX } from '../targets/nodes/cluster';
import { jsonPath } from './errors';
import type { RunSpec } from './schema';

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
 * Property names that hold secrets: a password, a token, a secret, a credential, an API or access key. Their values
 * would sit in the spec, the plan and the job documents in S3 and in the loaders' property files.
 */
export const SECRET_PROPERTY_NAME =
  /password|passwd|secret|token|credential|api[._-]?key|access[._-]?key|private[._-]?key/i;

/** userinfo in a URL: scheme://user:password@ or scheme://user@ */
const URL_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i;

/** Where a secret goes instead (the message every refusal ends with). */
export function secretsManagerPointer(targetIndex: number | null): string {
  const where = targetIndex === null ? "the target's" : `targets[${targetIndex}]`;
  return (
    `put it in a Secrets Manager secret named ${CREDENTIALS_SECRET_PREFIX}... (the loaders may read those only) and ` +
    `name it in ${where}.credentialsSecretArn: the agent fetches it at job start and hands its fields to the binding ` +
    `in memory, never to a file, a job or a log (README, "Rules checked before anything is paid for")`
  );
}

/** A URL's credentials: in its userinfo, or in a query parameter named like a secret. */
export function urlCredentialProblem(url: string): string | null {
  if (URL_USERINFO.test(url)) return 'a URL with credentials (user:password@)';
  const q = url.indexOf('?');
  if (q < 0) return null;
  for (const pair of url.slice(q + 1).split(/[&;]/)) {
    const name = decodeURIComponentSafe(pair.split('=')[0] ?? '');
    const value = decodeURIComponentSafe(pair.slice(pair.indexOf('=') + 1));
    if (SECRET_PROPERTY_NAME.test(name) || /AWS_SESSION_TOKEN|AWS_SECRET/i.test(value))
      return `a URL whose query carries credentials ("${name}")`;
  }
  return null;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One property (name and value) that carries a secret, or null. */
function secretPropertyProblem(name: string, value: string): string | null {
  if (SECRET_PROPERTY_NAME.test(name) && value !== '')
    return `a property named like a secret ("${name}") may not hold its value in the spec`;
  return urlCredentialProblem(value);
}

/**
 * Secrets in plain text: binding properties and extra properties named like secrets (`*.password`, `*token*`,
 * `*secret*`, ...), URLs with credentials among their values, and connection strings (endpoints) with credentials
 * in their userinfo or query. Each is refused with where the secret goes instead.
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
  spec.targets.forEach((t, i) => {
    if (t.kind !== 'external') return;
    for (const [k, v] of Object.entries(t.binding?.properties ?? {})) {
      const problem = secretPropertyProblem(k, v);
      if (problem)
        issues.push({
          path: jsonPath(['targets', i, 'binding', 'properties', k]),
          message: `${problem}: ${secretsManagerPointer(i)}`,
        });
    }
    t.endpoints.forEach((e, k) => {
      // a MongoDB connection string's userinfo is semanticChecks' (one message per problem)
      if (t.protocol === 'mongodb' && URL_USERINFO.test(e)) return;
      const problem = urlCredentialProblem(e);
      if (problem)
        issues.push({
          path: `targets[${i}].endpoints[${k}]`,
          message: `${problem}: ${secretsManagerPointer(i)}`,
        });
    });
  });
}
