/**
 * Transport to external targets: TLS is on by default for Redis and CQL endpoints (ExternalTarget.redis.tls and
 * .cql.tls in lib/core/spec/schema.ts); a spec that turns it off is warned, since the data and the credentials then cross the
 * network in plain text. Settings of one protocol on another are refused.
 */
import type { ExternalTarget } from '../../spec/schema';
import type { Findings } from '../kind';

export function transportChecks(t: ExternalTarget, at: string, { issues, warnings }: Findings): void {
  if (t.cql && t.protocol !== 'cql')
    issues.push({
      path: `${at}.cql`,
      message: `CQL settings on a "${t.protocol}" target: remove them or set protocol "cql"`,
    });
  const off =
    (t.protocol === 'redis' && t.redis?.tls === false) || (t.protocol === 'cql' && t.cql?.tls === false);
  if (off)
    warnings.push(
      `${at}.${t.protocol}.tls: false: the loaders reach ${t.endpoints.join(', ')} without TLS, so the ` +
        `records and the credentials cross the network in plain text; leave tls on unless the endpoints are on ` +
        `this machine or a network you trust`,
    );
}
