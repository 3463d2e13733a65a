/**
 * The binding's QUERY measurements (loader/ycsb-binding QueryWorkload: YCSB's DBWrapper naming) are an operation
 * of their own in the results, like READ: successes, failures and throttled attempts.
 */
import { BASE_OPS, classifyName } from '../../../lib/core/results/names';

describe('QUERY measurement names', () => {
  it.each([
    ['QUERY', 'QUERY', 'ok', false],
    ['Intended-QUERY', 'QUERY', 'ok', true],
    ['QUERY-FAILED', 'QUERY', 'failed', false],
    ['QUERY-THROTTLED', 'QUERY', 'throttled', false],
    ['Intended-QUERY-THROTTLED', 'QUERY', 'throttled', true],
  ])('%s → op %s, %s', (name, op, kind, intended) => {
    expect(classifyName(name)).toEqual({ name, intended, op, kind });
  });

  it('QUERY is one of the operations the results count (ALL includes it)', () => {
    expect(BASE_OPS).toContain('QUERY');
  });
});
