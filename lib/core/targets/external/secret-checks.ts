/**
 * Secrets in plain text in an external target (the kind's `secretChecks`): its binding's properties named like
 * secrets or holding URLs with credentials, and endpoints with credentials in their userinfo or query
 * (lib/core/spec/secret-text.ts). Each is refused with where the secret goes instead.
 */
import type { Issue } from '../../common/errors';
import type { ExternalTarget } from '../../spec/schema';
import { jsonPath } from '../../spec/errors';
import {
  URL_USERINFO,
  secretPropertyProblem,
  secretsManagerPointer,
  urlCredentialProblem,
} from '../../spec/secret-text';

export function externalSecretChecks(t: ExternalTarget, at: string, issues: Issue[]): void {
  for (const [k, v] of Object.entries(t.binding?.properties ?? {})) {
    const problem = secretPropertyProblem(k, v);
    if (problem)
      issues.push({
        path: `${at}.${jsonPath(['binding', 'properties', k])}`,
        message: `${problem}: ${secretsManagerPointer(at)}`,
      });
  }
  t.endpoints.forEach((e, k) => {
    // a MongoDB connection string's userinfo is the kind's spec checks' (one message per problem)
    if (t.protocol === 'mongodb' && URL_USERINFO.test(e)) return;
    const problem = urlCredentialProblem(e);
    if (problem)
      issues.push({ path: `${at}.endpoints[${k}]`, message: `${problem}: ${secretsManagerPointer(at)}` });
  });
}
