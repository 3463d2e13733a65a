/**
 * Rules for seed 003's spec fields (issue #28): a DynamoDB target's key design, Query operations and
 * unpaced cells (`targetOpsPerSec: "max"`). Each problem names its field and what was expected.
 */
import type { Issue } from '../common/errors';
import { UNPACED, type RunSpec } from './schema';
import { operationMixes } from './workload';

const fmt = (x: number) => x.toLocaleString('en-US');

/** Key designs: N partition-key values within the records, a sort key only with N values, distinct names. */
function keyDesignChecks(spec: RunSpec, issues: Issue[]): void {
  spec.targets.forEach((t, i) => {
    if (t.kind !== 'dynamodb' || !t.keyDesign) return;
    const k = t.keyDesign;
    const at = `targets[${i}].keyDesign`;
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
  });
}

/** Query operations: only a DynamoDB target with N partition-key values (a sort key to query by) runs them. */
function queryChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  const query = Math.max(...operationMixes(w).map((m) => m.proportions.query));
  if (query <= 0) return;
  spec.targets.forEach((t, i) => {
    if (t.kind !== 'dynamodb')
      issues.push({
        path: 'workload.proportions.query',
        message:
          `expected 0 with target "${t.id}" (targets[${i}], kind ${t.kind}): only the dynamodb kind runs Query ` +
          `operations, found ${query}`,
      });
    else if (typeof t.keyDesign?.partitionKeyValues !== 'number')
      issues.push({
        path: `targets[${i}].keyDesign.partitionKeyValues`,
        message:
          `expected a number of partition-key values (a sort key to query by) with workload.proportions.query ` +
          `${query}, found ${JSON.stringify(t.keyDesign?.partitionKeyValues ?? 'per-item')}`,
      });
  });
}

/** "max" is one unpaced cell: alone, and with a loader count the spec gives (no rate to size from). */
function unpacedChecks(spec: RunSpec, issues: Issue[]): void {
  const t = spec.workload.targetOpsPerSec;
  if (Array.isArray(t)) {
    const i = t.indexOf(UNPACED);
    if (i >= 0)
      issues.push({
        path: `workload.targetOpsPerSec[${i}]`,
        message:
          'expected "max" alone (targetOpsPerSec: "max" is one unpaced cell), not in a list of rates: a ' +
          'staircase or list paces every cell, so run the unpaced cell in a spec of its own',
      });
    return;
  }
  if (t !== UNPACED) return;
  if (spec.loaders.count === 'auto')
    issues.push({
      path: 'loaders.count',
      message:
        'expected a number of loaders with targetOpsPerSec "max": an unpaced cell has no rate to size the fleet ' +
        "from by Little's Law, so the spec says how many loaders drive it",
    });
}

/** The rules of key designs, queries and unpaced cells, in the validator's (issues, warnings) form. */
export function keyDesignAndQueryChecks(spec: RunSpec, issues: Issue[], warnings: string[]): void {
  keyDesignChecks(spec, issues);
  queryChecks(spec, issues);
  unpacedChecks(spec, issues);
  const w = spec.workload;
  if (w.query && operationMixes(w).every((m) => m.proportions.query === 0))
    warnings.push(
      'workload.query: set, but no cell has a query proportion (workload.proportions.query): it is unused',
    );
}
