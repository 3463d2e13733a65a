/**
 * The run's cell grid from the spec alone: each cell's id, target, operation mix and throughput target, in the
 * planner's order (target × distribution × read proportion × throughput step × A/A repeat), without sizing the
 * fleet or enumerating processes. Validation reads it (validation does not plan: the Plan step plans once).
 *
 * The ids must be the planner's own (lib/core/plan/index.ts builds them inside planRun);
 * test/unit/plan/grid.test.ts holds both equal, cell by cell, on every example spec and on the edge cases.
 */
import type { RunSpec } from '../spec/schema';
import {
  BASE_WORKLOADS,
  distributionInfo,
  distributionsOf,
  operationMixes,
  rateSteps,
} from '../spec/workload';
import { unpacedOpsPerSec } from './sizing';
import { aaCellId } from '../regression/noise';
import type { CellLike } from '../cost/workload-units';

/** A number as it appears in an id: 0.95 -> "95", 0.975 -> "97p5". */
export function pct(x: number): string {
  return String(Math.round(x * 100 * 1e6) / 1e6).replace('.', 'p');
}

export function distributionSlug(d: ReturnType<typeof distributionInfo>): string {
  if (d.type !== 'hotspot') return d.type;
  return `hotspot-${pct(Number(d.properties.hotspotdatafraction))}-${pct(Number(d.properties.hotspotopnfraction))}`;
}

/** One cell of the grid; `properties` holds the one property the capacity check reads (maxscanlength). */
export type GridCell = CellLike;

/** The YCSB properties the capacity rules read of every cell of the spec (maxscanlength: a scan's units). */
export function capacityProperties(w: RunSpec['workload']): Record<string, string> {
  const scan = { ...BASE_WORKLOADS[w.base].properties, ...w.extraProperties }.maxscanlength;
  return scan === undefined ? {} : { maxscanlength: scan };
}

export function cellGrid(spec: RunSpec): GridCell[] {
  const w = spec.workload;
  const steps = rateSteps(w);
  const mixes = operationMixes(w);
  const properties = capacityProperties(w);
  const cells: GridCell[] = [];
  for (const t of spec.targets) {
    for (const d of distributionsOf(w)) {
      const slug = distributionSlug(distributionInfo(d));
      for (const m of mixes) {
        for (const step of steps) {
          const ops = step.opsPerSec;
          const id = `${t.id}.${slug}.r${pct(m.proportions.read)}.${step.slug}`;
          for (let k = 1; k <= w.repeats; k++) {
            cells.push({
              id: w.repeats > 1 ? aaCellId(id, k) : id,
              target: t.id,
              // an unpaced cell's nominal rate: what the spec's loaders reach (./sizing.ts)
              targetOpsPerSec: ops === 'max' ? unpacedOpsPerSec(spec, t) : ops,
              durationSeconds: w.durationSeconds,
              proportions: m.proportions,
              loaders: 1,
              processesPerLoader: 1,
              properties,
            });
          }
        }
      }
    }
  }
  return cells;
}
