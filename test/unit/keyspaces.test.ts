import {
  capacitySpecification,
  keyspaceName,
  keyspacesNameProblems,
  ycsbColumns,
} from '../../lib/core/targets/keyspaces/keyspace';

describe('Keyspaces names, columns and capacity', () => {
  it('keyspace names are valid CQL names of at most 48 characters, stable per run and target', () => {
    expect(keyspaceName('2026-11-23T14-00-00-nightly', 'ks')).toMatch(
      /^fb_2026_11_23T14_00_00_nightly_ks_[0-9a-f]{8}$/,
    );
    const long = keyspaceName('a'.repeat(60), 'ks');
    expect(long).toHaveLength(48);
    expect(long).toBe(keyspaceName('a'.repeat(60), 'ks'));
    expect(long).not.toBe(keyspaceName('a'.repeat(60), 'ks2'));
    expect(keyspacesNameProblems(long)).toEqual([]);
    // '-' becomes '_': the hash of run/target keeps (run x, target nightly-ks) and (run x-nightly, target ks) apart
    expect(keyspaceName('x', 'nightly-ks')).not.toBe(keyspaceName('x-nightly', 'ks'));
    expect(keyspaceName('x', 'nightly-ks')).toMatch(/^fb_x_nightly_ks_[0-9a-f]{8}$/);
    expect(keyspacesNameProblems('1ks')).toHaveLength(1);
    expect(keyspacesNameProblems('k'.repeat(49))).toHaveLength(1);
  });

  it('the YCSB columns and capacity modes as the Keyspaces API takes them', () => {
    expect(ycsbColumns(2)).toEqual({
      allColumns: [
        { name: 'y_id', type: 'text' },
        { name: 'field0', type: 'text' },
        { name: 'field1', type: 'text' },
      ],
      partitionKeys: [{ name: 'y_id' }],
    });
    expect(() => ycsbColumns(0)).toThrow(/fieldCount 0/);
    expect(capacitySpecification({ mode: 'on-demand' })).toEqual({ throughputMode: 'PAY_PER_REQUEST' });
    expect(capacitySpecification({ mode: 'provisioned', rcu: 10, wcu: 5 })).toEqual({
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 10,
      writeCapacityUnits: 5,
    });
    expect(() => capacitySpecification({ mode: 'provisioned', rcu: 0, wcu: 5 })).toThrow(/rcu: 0/);
  });
});
