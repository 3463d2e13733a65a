/**
 * `workload.search` (docs/slo-search.md): bad searches are refused by field, before anything is planned; a good one
 * plans its worst-case probes.
 */
import { InputError } from '../../../lib/core/common/errors';
import { validateSpec } from '../../../lib/core/spec';
import { baseSpec, withValue } from './fixtures';

function issuesOf(data: unknown): { path: string; message: string }[] {
  try {
    validateSpec(data);
  } catch (err) {
    if (err instanceof InputError) return err.issues;
    throw err;
  }
  throw new Error('expected the spec to be rejected');
}

const SEARCH = {
  slo: { percentile: 99, maxMs: 10 },
  startOpsPerSec: 100,
  maxOpsPerSec: 1600,
  resolutionOpsPerSec: 50,
};

/** The base spec with a search instead of its fixed rates (and one read proportion). */
function searchSpec(search: unknown = SEARCH): Record<string, unknown> {
  const s = withValue(
    withValue(baseSpec(), 'workload.targetOpsPerSec', undefined),
    'workload.search',
    search,
  );
  return withValue(s, 'workload.readProportions', [0.5]);
}

describe('workload.search', () => {
  it('validates with its defaults: all operations, intended time, 95 % attainment, 1 % errors, ramp ×2', () => {
    const { spec } = validateSpec(searchSpec());
    expect(spec.workload.search).toEqual({
      ...SEARCH,
      slo: { percentile: 99, maxMs: 10, operations: 'all', latency: 'intended' },
      minAttainment: 0.95,
      maxErrorRate: 0.01,
      rampFactor: 2,
    });
  });

  // [description, spec, expected path, regex on the message]
  const cases: [string, unknown, string, RegExp][] = [
    [
      'an SLO without a percentile',
      searchSpec({ ...SEARCH, slo: { maxMs: 10 } }),
      'workload.search.slo.percentile',
      /required/,
    ],
    [
      'a percentile the cells table does not carry',
      searchSpec({ ...SEARCH, slo: { percentile: 95, maxMs: 10 } }),
      'workload.search.slo.percentile',
      /99\.9/,
    ],
    [
      'bounds reversed',
      searchSpec({ ...SEARCH, startOpsPerSec: 2000 }),
      'workload.search.maxOpsPerSec',
      /expected an upper bound above startOpsPerSec \(2,000\), found 1,600/,
    ],
    [
      'a resolution above the range',
      searchSpec({ ...SEARCH, resolutionOpsPerSec: 1500 }),
      'workload.search.resolutionOpsPerSec',
      /expected a resolution below the searched range \(maxOpsPerSec − startOpsPerSec = 1,500\), found 1,500/,
    ],
    [
      'a search and fixed rates together',
      withValue(searchSpec(), 'workload.targetOpsPerSec', [100]),
      'workload.search',
      /found both/,
    ],
    [
      'neither a search nor fixed rates',
      withValue(searchSpec(), 'workload.search', undefined),
      'workload.targetOpsPerSec',
      /found none/,
    ],
    [
      'an intended-time SLO when only service time is recorded',
      withValue(searchSpec(), 'workload.measurement', 'op'),
      'workload.search.slo.latency',
      /does not record intended time/,
    ],
    [
      'an SLO on reads in a mix without reads',
      withValue(
        searchSpec({ ...SEARCH, slo: { percentile: 99, maxMs: 10, operations: 'read' } }),
        'workload.readProportions',
        [0, 0.5],
      ),
      'workload.search.slo.operations',
      /read proportion 0/,
    ],
    [
      'A/A repeats of probes',
      withValue(searchSpec(), 'workload.repeats', 3),
      'workload.repeats',
      /expected 1/,
    ],
    [
      'a resolution so fine the search could take more than 40 probes',
      searchSpec({ ...SEARCH, startOpsPerSec: 1, maxOpsPerSec: 2 ** 30, resolutionOpsPerSec: 1 }),
      'workload.search.resolutionOpsPerSec',
      /at most 40 probes/,
    ],
  ];
  it.each(cases)('refuses %s, naming the field', (_d, spec, path, message) => {
    const issues = issuesOf(spec);
    const issue = issues.find((i) => i.path === path);
    expect(issue).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  it('does not hold a provisioned table to the upper bound: a search probes past capacity on purpose', () => {
    // 1,000 WCU cannot serve 1,600 ops/s of 50 % updates of ~1 KB items; fixed rates of 1,600 are refused
    const fixed = withValue(
      withValue(searchSpec(), 'workload.search', undefined),
      'workload.targetOpsPerSec',
      [1600],
    );
    expect(issuesOf(fixed).some((i) => i.path.startsWith('targets[0]'))).toBe(true);
    expect(() => validateSpec(searchSpec())).not.toThrow();
  });
});
