/**
 * The spec's cell grid (what validation reads instead of planning) equals the planner's cells, id by id, on
 * every example and on the edge cases of the ids (hotspot fractions, A/A repeats, a 97.5 % read sweep, scans).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as plan from '../../../lib/core/plan';
import { cellGrid } from '../../../lib/core/plan/grid';
import { parseSpecText, validateSpec } from '../../../lib/core/spec';
import type { RunSpec } from '../../../lib/core/spec/schema';
import type { CellLike } from '../../../lib/core/cost/workload-units';
import { baseSpec, withValue } from '../spec/fixtures';

const dir = join(__dirname, '..', '..', '..', 'examples');
const examples = readdirSync(dir).filter((f) => f.endsWith('.json'));

const view = (c: CellLike) => ({
  id: c.id,
  target: c.target,
  targetOpsPerSec: c.targetOpsPerSec,
  durationSeconds: c.durationSeconds,
  proportions: c.proportions,
  maxscanlength: c.properties.maxscanlength,
});

function samePlan(spec: RunSpec): number {
  const planned = plan.planRun(spec).cells.map(view);
  expect(cellGrid(spec).map(view)).toEqual(planned);
  return planned.length;
}

describe('cell grid', () => {
  it.each(examples)('%s: the same cells as the planner', (file) => {
    const { spec } = validateSpec(parseSpecText(readFileSync(join(dir, file), 'utf8'), file));
    expect(samePlan(spec)).toBe(plan.planRun(spec).cells.length);
  });

  it('hotspot fractions, A/A repeats, a 97.5 % read sweep and scans with maxscanlength', () => {
    let s = withValue(baseSpec(), 'workload.distributions', [
      { type: 'hotspot', dataFraction: 0.013, opFraction: 0.95 },
      'hotspot',
      'latest',
    ]);
    s = withValue(s, 'workload.readProportions', [0.5, 0.975]);
    s = withValue(s, 'workload.repeats', 3);
    // 2 distributions' worth of hotspot ids, 2 mixes, 2 steps, 3 repeats
    expect(samePlan(validateSpec(s).spec)).toBe(3 * 2 * 2 * 3);
    expect(cellGrid(validateSpec(s).spec)[0]!.id).toBe('ddb.hotspot-1p3-95.r50.t100.aa1');

    let e = withValue(baseSpec(), 'workload.base', 'e');
    e = withValue(e, 'workload.readProportions', undefined);
    e = withValue(e, 'workload.extraProperties', { maxscanlength: '10' });
    e = withValue(e, 'targets.0.billing', { mode: 'on-demand' });
    const grid = cellGrid(validateSpec(e).spec);
    expect(grid.map((c) => c.properties.maxscanlength)).toEqual(['10', '10', '10', '10']);
    samePlan(validateSpec(e).spec);
  });
});

describe('validation does not plan', () => {
  it('validates every example without calling planRun, and still refuses short capacity', () => {
    const spy = jest.spyOn(plan, 'planRun');
    try {
      for (const file of examples) validateSpec(JSON.parse(readFileSync(join(dir, file), 'utf8')));
      // the capacity check (it used to read planRun's cells): 200 ops/s × 0.9 reads × 1 RCU > 100 RCU
      const short = withValue(baseSpec(), 'targets.0.billing', { mode: 'provisioned', rcu: 100, wcu: 1000 });
      expect(() => validateSpec(short)).toThrow(
        /targets\[0\]\.billing\.rcu: cells "ddb\.uniform\.r90\.t200", "ddb\.zipfian\.r90\.t200" at 200 ops\/s need 180 RCU/,
      );
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
