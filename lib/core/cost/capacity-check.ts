/**
 * Validation's capacity check: a provisioned DynamoDB target whose RCU/WCU cannot serve a cell at
 * its target throughput is an error naming the cell, the units needed and the units provisioned —
 * or a warning when the target sets `allowOverdrive` (throttling studies).
 */
import type { Issue } from '../common/errors';
import type { RunSpec } from '../spec/schema';
import { CellLike, cellUnitsPerSec, dynamoOpUnits } from './workload-units';

const fmt = (x: number) => x.toLocaleString('en-US');

export interface CapacityFindings {
  issues: Issue[];
  warnings: string[];
}

export function capacityChecks(spec: RunSpec, cells: readonly CellLike[]): CapacityFindings {
  const issues: Issue[] = [];
  const warnings: string[] = [];
  spec.targets.forEach((target, i) => {
    if (target.kind !== 'dynamodb' || target.billing.mode !== 'provisioned') return;
    const billing = target.billing;
    const units = dynamoOpUnits(spec, target);
    // cells that differ only by distribution ask the same capacity: report them together
    const groups = new Map<string, { cells: string[]; reads: bigint; writes: bigint; ops: number }>();
    for (const cell of cells) {
      if (cell.target !== target.id) continue;
      const u = cellUnitsPerSec(cell, units);
      const key = `${u.reads.toString()}|${u.writes.toString()}`;
      const g = groups.get(key);
      if (g) g.cells.push(cell.id);
      else
        groups.set(key, {
          cells: [cell.id],
          reads: u.reads.ceil(),
          writes: u.writes.ceil(),
          ops: cell.targetOpsPerSec,
        });
    }
    for (const g of groups.values()) {
      const named =
        g.cells.length === 1 ? `cell "${g.cells[0]}"` : `cells ${g.cells.map((c) => `"${c}"`).join(', ')}`;
      const short: [string, bigint, number, string][] = [];
      if (g.writes > BigInt(billing.wcu)) {
        short.push([
          'wcu',
          g.writes,
          billing.wcu,
          `${units.writeUnitsPerWrite} WCU per ${units.itemBytes}-byte write`,
        ]);
      }
      if (g.reads > BigInt(billing.rcu)) {
        short.push([
          'rcu',
          g.reads,
          billing.rcu,
          `${units.readUnitsPerRead} RCU per ${units.consistency} read`,
        ]);
      }
      for (const [field, needed, provisioned, why] of short) {
        const text =
          `${named} at ${fmt(g.ops)} ops/s need${g.cells.length === 1 ? 's' : ''} ${fmt(Number(needed))} ` +
          `${field.toUpperCase()} (${why}), but ${fmt(provisioned)} are provisioned`;
        if (target.allowOverdrive)
          warnings.push(
            `targets[${i}].billing.${field}: ${text}; the cell will be throttled (allowOverdrive)`,
          );
        else
          issues.push({
            path: `targets[${i}].billing.${field}`,
            message: `${text}; provision at least ${fmt(Number(needed))}, or set allowOverdrive: true to study throttling`,
          });
      }
    }
  });
  return { issues, warnings };
}
