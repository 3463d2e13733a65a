/** The report's "Targets" section (issue #33): how long targets were measured side by side, and what it says. */
import { executionOf, executionSection } from '../../../lib/core/report/targets';

const T0 = Date.UTC(2026, 10, 27, 8, 0, 0);
const s = (x: number) => T0 + x * 1000;
const targets = [
  { id: 'ddb', kind: 'dynamodb' },
  { id: 'cache', kind: 'external' },
];

describe('executionOf', () => {
  it("parallel: the overlap is the time both targets' windows were open, each target with its own group", () => {
    // ddb measured 0-10 s and 20-30 s, cache 5-25 s: both at once 5-10 and 20-25 = 10 s
    const e = executionOf({
      mode: 'parallel',
      targets,
      loaderGroups: [
        { target: 'ddb', loaders: 2 },
        { target: 'cache', loaders: 1 },
      ],
      fleetLoaders: 2,
      windows: [
        { target: 'ddb', startMs: s(0), endMs: s(10) },
        { target: 'ddb', startMs: s(20), endMs: s(30) },
        { target: 'cache', startMs: s(5), endMs: s(25) },
      ],
    });
    expect(e.overlapSeconds).toBe(10);
    expect(e.targets).toEqual([
      { target: 'ddb', kind: 'dynamodb', loaders: 2, cells: 2, firstMs: s(0), lastMs: s(30) },
      { target: 'cache', kind: 'external', loaders: 1, cells: 1, firstMs: s(5), lastMs: s(25) },
    ]);
    const html = executionSection(e).join('\n');
    expect(html).toMatch(/side by side/);
    expect(html).toMatch(/at the same time for 10 s/);
  });

  it("sequential: windows that only touch do not overlap; one target's own windows never count", () => {
    const e = executionOf({
      mode: 'sequential',
      targets,
      fleetLoaders: 3,
      windows: [
        { target: 'ddb', startMs: s(0), endMs: s(10) },
        { target: 'ddb', startMs: s(5), endMs: s(12) },
        { target: 'cache', startMs: s(12), endMs: s(20) },
      ],
    });
    expect(e.overlapSeconds).toBe(0);
    expect(e.targets.map((t) => t.loaders)).toEqual([3, 3]);
    expect(executionSection(e).join('\n')).toMatch(/no two targets were measured at the same time/);
  });

  it('a target without a measured cell has no span; one target gets no section', () => {
    const e = executionOf({ mode: 'sequential', targets, fleetLoaders: 1, windows: [] });
    expect(e.targets[1]).toMatchObject({ cells: 0, firstMs: null, lastMs: null });
    expect(executionSection({ ...e, targets: e.targets.slice(0, 1) })).toEqual([]);
  });
});
