import {
  DAX_DEFAULT_TTL_MS,
  daxEndpointUrl,
  daxNameProblems,
  daxResourceName,
  daxTtlParameters,
} from '../../lib/core/targets/dynamodb/dax';

describe('DAX names, TTL parameters and endpoint', () => {
  it('the resource name is stable, per run and target, and valid for DAX (≤ 20 characters)', () => {
    const a = daxResourceName('2026-11-23T14-00-00-nightly', 'ddb');
    expect(a).toBe(daxResourceName('2026-11-23T14-00-00-nightly', 'ddb'));
    expect(a).not.toBe(daxResourceName('2026-11-23T14-00-00-nightly', 'ddb2'));
    expect(a).not.toBe(daxResourceName('2026-11-23T14-00-01-nightly', 'ddb'));
    expect(a).toMatch(/^fb-[0-9a-f]{8}$/);
    expect(daxNameProblems(a)).toEqual([]);
  });

  it('names DAX refuses are named with the rule they break', () => {
    expect(daxNameProblems('a'.repeat(21))).toEqual(['has 21 characters; DAX allows 1-20']);
    expect(daxNameProblems('1abc')).toEqual([
      'must start with a letter and hold only letters, digits and hyphens',
    ]);
    expect(daxNameProblems('ab--c')).toEqual(['must not end with a hyphen or hold two consecutive hyphens']);
    expect(daxNameProblems('abc-')).toEqual(['must not end with a hyphen or hold two consecutive hyphens']);
  });

  it("TTLs become the parameter group's two parameters, whole ms as strings", () => {
    expect(daxTtlParameters({ itemTtlMs: DAX_DEFAULT_TTL_MS, queryTtlMs: 0 })).toEqual([
      { name: 'record-ttl-millis', value: '300000' },
      { name: 'query-ttl-millis', value: '0' },
    ]);
    expect(() => daxTtlParameters({ itemTtlMs: 1.5, queryTtlMs: 0 })).toThrow(
      /itemTtlMs: 1.5 is not a whole number/,
    );
    expect(() => daxTtlParameters({ itemTtlMs: 0, queryTtlMs: -1 })).toThrow(/queryTtlMs: -1/);
  });

  it("the endpoint uses the DAX client's schemes: dax:// plain, daxs:// with TLS", () => {
    expect(daxEndpointUrl({ address: 'c.abc.dax-clusters.us-east-1.amazonaws.com', port: 8111 }, false)).toBe(
      'dax://c.abc.dax-clusters.us-east-1.amazonaws.com:8111',
    );
    expect(daxEndpointUrl({ address: 'c.abc.dax-clusters.us-east-1.amazonaws.com', port: 9111 }, true)).toBe(
      'daxs://c.abc.dax-clusters.us-east-1.amazonaws.com:9111',
    );
  });
});
