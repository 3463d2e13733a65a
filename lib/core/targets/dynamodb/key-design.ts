/**
 * A dynamodb target's key design (spec `keyDesign`, issue #28): one item per partition-key value (today's tables),
 * or N partition-key values with the YCSB key as the sort key. One mapping from a YCSB key to its partition-key
 * value, shared by the binding (loader/ycsb-binding KeyDesign.java, the same rule), the capacity emulator and the
 * model: `pk` + (the number the key's decimal digits spell, mod N). YCSB names record i `user<i>` (insertorder=ordered)
 * or `user<fnvhash64(i)>` (hashed, its default), so ordered keys go round robin over the N values and hashed keys
 * spread evenly. Pure: no SDK, no I/O.
 */
import type { Issue } from '../../common/errors';
import type { DynamoDbTarget, RunSpec } from '../../spec/schema';

/** The YCSB properties the binding reads (loader/ycsb-binding/README.md "Key designs", "Query"). */
export const KEY_DESIGN_PROPERTIES = {
  partitionKeyValues: 'fleetbench.dynamodb.partitionKeyValues',
  sortKeyAttribute: 'fleetbench.dynamodb.sortKeyAttribute',
  loadOrder: 'fleetbench.dynamodb.loadOrder',
  queryLimit: 'fleetbench.query.limit',
  queryForward: 'fleetbench.query.forward',
} as const;

/** The sort key's attribute when the spec's keyDesign names none. */
export const DEFAULT_SORT_KEY = 's';

/** A table's keys as the emulator and the table definition need them: null for one item per partition-key value. */
export interface CompositeKey {
  partitionKeyValues: number;
  sortKeyAttribute: string;
}

/** The index (0 … n − 1) of a YCSB key's partition-key value: the number its decimal digits spell, mod n. */
export function partitionKeyIndex(ycsbKey: string, n: number): number {
  let r = 0;
  for (let i = 0; i < ycsbKey.length; i++) {
    const c = ycsbKey.charCodeAt(i) - 48;
    if (c >= 0 && c <= 9) r = (r * 10 + c) % n; // r < n ≤ 10^9: r * 10 + 9 stays exact in a double
  }
  return r;
}

/** The partition-key value with index `index`, as the binding writes it. */
export function partitionKeyValueName(index: number): string {
  return `pk${index}`;
}

/** The partition-key value of a YCSB key on a table with `n` partition-key values (the binding's KeyDesign rule). */
export function partitionKeyValue(ycsbKey: string, n: number): string {
  return partitionKeyValueName(partitionKeyIndex(ycsbKey, n));
}

/** The target's composite key, or null (one item per partition-key value, no sort key). */
export function compositeKeyOf(t: DynamoDbTarget): CompositeKey | null {
  const d = t.keyDesign;
  if (!d || d.partitionKeyValues === 'per-item') return null;
  return {
    partitionKeyValues: d.partitionKeyValues,
    sortKeyAttribute: d.sortKeyAttribute ?? DEFAULT_SORT_KEY,
  };
}

/**
 * YCSB's `zeropadding` for a load in key order: the digits of recordCount, so that every loaded key ("user" + its
 * record number, 0 … recordCount − 1) has as many digits and the keys sort as they are numbered.
 */
export function keyOrderZeroPadding(recordCount: number): number {
  return String(recordCount).length;
}

/**
 * YCSB properties of the key design and the query operation: the binding's, and YCSB's own `insertorder` and
 * `zeropadding` for a load in key order (keys that sort as they are numbered, so each partition-key value's items
 * arrive in ascending sort-key order; `shuffled` is YCSB's default hashed order). Nothing for today's design.
 */
export function keyDesignProperties(t: DynamoDbTarget, spec: RunSpec): Record<string, string> {
  const P = KEY_DESIGN_PROPERTIES;
  const out: Record<string, string> = {};
  const composite = compositeKeyOf(t);
  if (composite) {
    out[P.partitionKeyValues] = String(composite.partitionKeyValues);
    out[P.sortKeyAttribute] = composite.sortKeyAttribute;
    out[P.loadOrder] = t.keyDesign!.loadOrder;
    if (t.keyDesign!.loadOrder === 'key-order') {
      out.insertorder = 'ordered';
      out.zeropadding = String(keyOrderZeroPadding(spec.dataset.recordCount));
    }
  }
  // the query proportion itself is the cell's (lib/core/plan: per operation mix, as every proportion)
  const query = spec.workload.proportions?.query ?? 0;
  if (query > 0) {
    out[P.queryLimit] = String(spec.workload.query?.limit ?? 1);
    out[P.queryForward] = String(spec.workload.query?.forward ?? false);
  }
  return out;
}

const fmt = (x: number) => x.toLocaleString('en-US');

/** Key designs: N partition-key values within the records, a sort key only with N values, distinct names. */
export function keyDesignIssues(t: DynamoDbTarget, target: string, spec: RunSpec, issues: Issue[]): void {
  if (!t.keyDesign) return;
  const k = t.keyDesign;
  const at = `${target}.keyDesign`;
  if (typeof k.partitionKeyValues === 'number' && k.partitionKeyValues > spec.dataset.recordCount)
    issues.push({
      path: `${at}.partitionKeyValues`,
      message:
        `expected at most dataset.recordCount (${fmt(spec.dataset.recordCount)}) partition-key values: each ` +
        `value holds at least one item, found ${fmt(k.partitionKeyValues)}`,
    });
  if (k.partitionKeyValues === 'per-item' && k.sortKeyAttribute !== undefined)
    issues.push({
      path: `${at}.sortKeyAttribute`,
      message:
        'expected no sort key with partitionKeyValues "per-item" (one item per partition-key value has no ' +
        'sort key); give partitionKeyValues a number of values to use one',
    });
  if (k.sortKeyAttribute !== undefined && k.sortKeyAttribute === t.keyAttribute)
    issues.push({
      path: `${at}.sortKeyAttribute`,
      message: `expected a name other than keyAttribute ("${t.keyAttribute}"), found "${k.sortKeyAttribute}"`,
    });
  if (t.existingTable && k.partitionKeyValues !== 'per-item')
    issues.push({
      path: `${at}.partitionKeyValues`,
      message: `expected "per-item" with existingTable: a preloaded table's keys are not the run's to design`,
    });
}

/** Query operations run on a table with N partition-key values: a sort key to query by. */
export function queryIssue(t: DynamoDbTarget, at: string, query: number): Issue | null {
  if (typeof t.keyDesign?.partitionKeyValues === 'number') return null;
  return {
    path: `${at}.keyDesign.partitionKeyValues`,
    message:
      `expected a number of partition-key values (a sort key to query by) with workload.proportions.query ` +
      `${query}, found ${JSON.stringify(t.keyDesign?.partitionKeyValues ?? 'per-item')}`,
  };
}
