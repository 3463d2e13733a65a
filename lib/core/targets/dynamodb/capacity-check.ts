/**
 * A provisioned DynamoDB table whose RCU/WCU cannot serve a cell at its target throughput is an error naming the
 * cell, the units needed and the units provisioned, or a warning when the target sets `allowOverdrive`
 * (throttling studies).
 */
import { type CellLike, cellUnitsPerSec, dynamoOpUnits } from '../../cost/workload-units';
import type { DynamoDbTarget, RunSpec } from '../../spec/schema';
import type { Findings } from '../kind';

const fmt = (x: number) => x.toLocaleString('en-US');

/** The table's provisioned capacity against every cell of the target (`at`: its JSON path), added to `out`. */
export function dynamoDbCellChecks(
  t: DynamoDbTarget,
  at: string,
  run: { spec: RunSpec; cells: readonly CellLike[] },
  out: Findings,
): void {
  if (t.billing.mode !== 'provisioned') return;
  const { spec, cells } = run;
  const billing = t.billing;
  const units = dynamoOpUnits(spec, t);
  // cells that differ only by distribution ask the same capacity: report them together
  const groups = new Map<string, { cells: string[]; reads: bigint; writes: bigint; ops: number }>();
  for (const cell of cells) {
    if (cell.target !== t.id) continue;
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
      if (t.allowOverdrive)
        out.warnings.push(`${at}.billing.${field}: ${text}; the cell will be throttled (allowOverdrive)`);
      else
        out.issues.push({
          path: `${at}.billing.${field}`,
          message: `${text}; provision at least ${fmt(Number(needed))}, or set allowOverdrive: true to study throttling`,
        });
    }
  }
}
