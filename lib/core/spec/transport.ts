/**
 * Transport to external targets: TLS is on by default for Redis and CQL endpoints (ExternalTarget.redis.tls and
 * .cql.tls in ./schema); a spec that turns it off is warned, since the data and the credentials then cross the
 * network in plain text. Settings of one protocol on another are refused.
 */
import type { Issue } from '../errors';
import type { RunSpec } from './schema';

export function transportChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  spec.targets.forEach((t, i) => {
    if (t.kind !== 'external') return;
    if (t.cql && t.protocol !== 'cql')
      issues.push({
        path: `targets[${i}].cql`,
        message: `CQL settings on a "${t.protocol}" target: remove them or set protocol "cql"`,
      });
    const off =
      (t.protocol === 'redis' && t.redis?.tls === false) || (t.protocol === 'cql' && t.cql?.tls === false);
    if (off)
      warnings.push(
        `targets[${i}].${t.protocol}.tls: false: the loaders reach ${t.endpoints.join(', ')} without TLS, so the ` +
          `records and the credentials cross the network in plain text; leave tls on unless the endpoints are on ` +
          `this machine or a network you trust`,
      );
  });
}
