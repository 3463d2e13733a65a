/**
 * DAX (DynamoDB Accelerator) in front of a `dynamodb` target, as pure domain code: the names of the per-run
 * cluster, subnet group and parameter group, the parameter group's cache TTLs, and the endpoint the binding
 * gets (`dynamodb.daxEndpoint`). The DAX adapter (lib/aws/dax-admin.ts) implements the DaxAdmin port over this.
 *
 * Limits from the DAX API reference (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_dax_CreateCluster.html):
 * a cluster name has 1-20 characters, letters, digits or hyphens, starts with a letter, no trailing hyphen and
 * no two consecutive hyphens; ReplicationFactor (nodes) is 1-11 (AWS recommends at least 3 for production).
 */
import { loadPriceBook, type PriceBook } from '../../cost/book';
import type { Issue } from '../../common/errors';
import type { DynamoDbTarget } from '../../spec/schema';

/** DAX's default item and query cache TTL: 5 minutes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DAX.cluster-management.html#DAX.cluster-management.custom-settings.ttl). */
export const DAX_DEFAULT_TTL_MS = 300_000;
/** The only two parameters a DAX parameter group has (UpdateParameterGroup: "the only supported parameter names"). */
export const DAX_ITEM_TTL_PARAMETER = 'record-ttl-millis';
export const DAX_QUERY_TTL_PARAMETER = 'query-ttl-millis';
/** Ports of a cluster's discovery endpoint and nodes: 8111 unencrypted, 9111 with encryption in transit (TLS). */
export const DAX_PORTS = { plain: 8111, tls: 9111 } as const;
const NAME_MAX = 20;

export interface DaxCacheTtls {
  /** Item cache TTL in ms (GetItem/BatchGetItem results); 0 = items never expire by time (LRU only). */
  itemTtlMs: number;
  /** Query cache TTL in ms (Query/Scan results); 0 = not cached. */
  queryTtlMs: number;
}

/**
 * The run's DAX resource name (cluster, subnet group and parameter group share it): `fb` + a hash of run and
 * target, 20 characters at most, as DAX requires; the same inputs always give the same name, so teardown and the
 * janitor find it again.
 */
/** The prefix of every per-run DAX name: the stack's grants are scoped to it. */
export const DAX_NAME_PREFIX = 'fb-';
/** What daxResourceName makes: the prefix and 8 hex digits (adapters skip other clusters and groups by it). */
export const DAX_NAME_PATTERN = new RegExp(`^${DAX_NAME_PREFIX}[0-9a-f]{8}$`);

export function daxResourceName(runId: string, targetId: string): string {
  const name = `${DAX_NAME_PREFIX}${fnv1a(`${runId}/${targetId}`)}`;
  if (name.length > NAME_MAX) throw new Error(`DAX name ${name} is longer than ${NAME_MAX}`);
  return name;
}

/** Problems with a DAX cluster name, each naming what DAX expects (empty: valid). */
export function daxNameProblems(name: string): string[] {
  const out: string[] = [];
  if (name.length < 1 || name.length > NAME_MAX)
    out.push(`has ${name.length} characters; DAX allows 1-${NAME_MAX}`);
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(name))
    out.push('must start with a letter and hold only letters, digits and hyphens');
  if (name.endsWith('-') || name.includes('--'))
    out.push('must not end with a hyphen or hold two consecutive hyphens');
  return out;
}

/** The parameter group's values for the TTLs (whole milliseconds, as strings, as UpdateParameterGroup takes them). */
export function daxTtlParameters(ttls: DaxCacheTtls): { name: string; value: string }[] {
  for (const [field, v] of Object.entries(ttls)) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`DAX ${field}: ${v} is not a whole number of ms ≥ 0`);
  }
  return [
    { name: DAX_ITEM_TTL_PARAMETER, value: String(ttls.itemTtlMs) },
    { name: DAX_QUERY_TTL_PARAMETER, value: String(ttls.queryTtlMs) },
  ];
}

/**
 * The binding's `dynamodb.daxEndpoint` for a cluster's discovery endpoint: `dax://address:port`, or `daxs://`
 * for a cluster with encryption in transit (the DAX client's URL schemes).
 */
export function daxEndpointUrl(discovery: { address: string; port: number }, tls: boolean): string {
  return `${tls ? 'daxs' : 'dax'}://${discovery.address}:${discovery.port}`;
}

/** 32-bit FNV-1a as 8 hex digits: short, stable names (not a security hash). */
export function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Validation of a target's `dax` beyond its shape: the node type must be one the price book prices (the run's
 * cost and budget need it; `path` names the target, e.g. `targets[0]`); strongly consistent reads are a warning
 * (DAX passes them through to the table: the cache serves none of them).
 */
export function daxSpecFindings(
  t: DynamoDbTarget,
  path: string,
  issues: Issue[],
  warnings: string[],
  book: PriceBook = loadPriceBook(),
): void {
  const dax = t.dax;
  if (!dax) return;
  const known = Object.keys(book.dax ?? {});
  if (!known.includes(dax.nodeType))
    issues.push({
      path: `${path}.dax.nodeType`,
      message:
        `expected a DAX node type that price book "${book.id}" prices (${known.length ? known.join(', ') : 'none'}), ` +
        `found "${dax.nodeType}"`,
    });
  if (t.consistentReads)
    warnings.push(
      `${path}.consistentReads: DAX passes strongly consistent reads through to the table; the cluster caches none of them`,
    );
}

/** The cluster request fields a `dax` spec gives (the rest — network, role, tags — comes from the stack and the run). */
export function daxClusterShape(dax: NonNullable<DynamoDbTarget['dax']>): {
  nodeType: string;
  nodes: number;
  ttls: DaxCacheTtls;
  tls: boolean;
} {
  return {
    nodeType: dax.nodeType,
    nodes: dax.nodes,
    ttls: { itemTtlMs: dax.itemTtlMs, queryTtlMs: dax.queryTtlMs },
    tls: dax.tls,
  };
}
