/**
 * Rules for seed 003's spec fields (issue #28) that span targets and workload: Query operations (each kind says
 * whether and when its targets run them; a DynamoDB target's key design is its kind's rule) and unpaced cells
 * (`targetOpsPerSec: "max"`). Each problem names its field and what was expected.
 */
import type { Issue } from '../common/errors';
import { UNPACED, type RunSpec } from './schema';
import { operationMixes } from './workload';
import { TARGET_KINDS, kindOf } from '../targets/registry';

/** The kinds whose targets run Query operations (they declare `queryIssue`). */
const queryKinds = (): string =>
  Object.entries(TARGET_KINDS)
    .filter(([, k]) => k.queryIssue)
    .map(([name]) => name)
    .join(', ');

/** Query operations: only a target whose kind runs them, set up for them (its kind says how). */
function queryChecks(spec: RunSpec, issues: Issue[]): void {
  const w = spec.workload;
  const query = Math.max(...operationMixes(w).map((m) => m.proportions.query));
  if (query <= 0) return;
  spec.targets.forEach((t, i) => {
    const kind = kindOf(t);
    const at = `targets[${i}]`;
    if (!kind.queryIssue)
      issues.push({
        path: 'workload.proportions.query',
        message:
          `expected 0 with target "${t.id}" (${at}, kind ${t.kind}): only the ${queryKinds()} kind runs Query ` +
          `operations, found ${query}`,
      });
    else {
      const issue = kind.queryIssue(t as never, at, query);
      if (issue) issues.push(issue);
    }
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
  queryChecks(spec, issues);
  unpacedChecks(spec, issues);
  const w = spec.workload;
  if (w.query && operationMixes(w).every((m) => m.proportions.query === 0))
    warnings.push(
      'workload.query: set, but no cell has a query proportion (workload.proportions.query): it is unused',
    );
}
