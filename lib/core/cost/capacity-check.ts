/**
 * Validation's capacity check: each target's kind checks the target against the cells planned for it (a
 * provisioned DynamoDB table whose RCU/WCU cannot serve a cell: lib/core/targets/dynamodb/capacity-check.ts).
 */
import type { Issue } from '../common/errors';
import type { RunSpec } from '../spec/schema';
import { kindOf } from '../targets/registry';
import type { CellLike } from './workload-units';

export interface CapacityFindings {
  issues: Issue[];
  warnings: string[];
}

export function capacityChecks(spec: RunSpec, cells: readonly CellLike[]): CapacityFindings {
  const out: CapacityFindings = { issues: [], warnings: [] };
  spec.targets.forEach((t, i) => kindOf(t).cellChecks?.(t, `targets[${i}]`, { spec, cells }, out));
  return out;
}
