/**
 * Secrets in plain text: what gives a property or a URL away as carrying one, and where a secret goes instead
 * (./properties.ts checks the workload's properties, each target kind its own: lib/core/targets/<kind>/kind.ts
 * `secretChecks`). A leaf: the kinds import it.
 */
import { CREDENTIALS_SECRET_PREFIX } from '../targets/nodes/cluster';

/**
 * Property names that hold secrets: a password, a token, a secret, a credential, an API or access key. Their values
 * would sit in the spec, the plan and the job documents in S3 and in the loaders' property files.
 */
export const SECRET_PROPERTY_NAME =
  /password|passwd|secret|token|credential|api[._-]?key|access[._-]?key|private[._-]?key/i;

/** userinfo in a URL: scheme://user:password@ or scheme://user@ */
export const URL_USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i;

/** Where a secret goes instead (the message every refusal ends with); `at`: the target's path (`targets[2]`). */
export function secretsManagerPointer(at: string | null): string {
  const where = at ?? "the target's";
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
export function secretPropertyProblem(name: string, value: string): string | null {
  if (SECRET_PROPERTY_NAME.test(name) && value !== '')
    return `a property named like a secret ("${name}") may not hold its value in the spec`;
  return urlCredentialProblem(value);
}
