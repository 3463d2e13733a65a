/**
 * `fleetbench cost` reads its targets with the run spec's own strict target schemas: a misspelt field is refused with
 * "did you mean", not ignored while its default is priced (a `consistentRead: true` typo priced eventual reads, half
 * the strong ones: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/provisioned-capacity-mode.html,
 * "one strongly consistent read per second, or two eventually consistent reads per second, for an item up to 4 KB").
 */
import { costDocument } from '../../../lib/cli/commands/cost';
import { InputError } from '../../../lib/core/common/errors';
import { loadPriceBook } from '../../../lib/core/cost/book';

const book = loadPriceBook();
const input = (target: Record<string, unknown>) => ({
  target,
  throughput: { readsPerSec: 1000, writesPerSec: 100 },
  itemBytes: 1000,
  storageGb: 1,
});

function issuesOf(target: Record<string, unknown>): string[] {
  try {
    costDocument(input(target), book, 'in.json');
  } catch (e) {
    if (e instanceof InputError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  return [];
}

describe('fleetbench cost: misspelt target fields', () => {
  it('refuses "consistentRead", naming the field and the one meant', () => {
    expect(issuesOf({ kind: 'dynamodb', id: 'a', consistentRead: true })).toEqual([
      expect.stringMatching(
        /^in\.json: target\.consistentRead: unknown key \(did you mean "consistentReads"\?\)/,
      ),
    ]);
  });

  it('refuses "tableclass" and misspellings under billing and dax', () => {
    const issues = issuesOf({
      kind: 'dynamodb',
      tableclass: 'STANDARD_INFREQUENT_ACCESS',
      billing: { mode: 'provisioned', rcu: 10, wcu: 10, rcus: 5 },
      dax: { nodeType: 'dax.r5.large', nodes: 1, node: 2 },
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/target\.tableclass: unknown key \(did you mean "tableClass"\?\)/),
        expect.stringMatching(/target\.billing\.rcus: unknown key \(did you mean "rcu"\?\)/),
        expect.stringMatching(/target\.dax\.node: unknown key \(did you mean "nodes"\?\)/),
      ]),
    );
    expect(issues).toHaveLength(3);
  });

  it("refuses a typo on the other kinds too, and keeps the cost input's own fields (a node's usdPerHour, ebsGb)", () => {
    expect(issuesOf({ kind: 'keyspaces', readconsistency: 'LOCAL_ONE' })).toEqual([
      expect.stringMatching(/target\.readconsistency: unknown key \(did you mean "readConsistency"\?\)/),
    ]);
    expect(issuesOf({ kind: 'memorydb', shard: 2 })).toEqual([
      expect.stringMatching(/target\.shard: unknown key \(did you mean "shards"\?\)/),
    ]);
    expect(issuesOf({ kind: 'scylla-ec2', instancetype: 'i4i.xlarge' })).toEqual([
      expect.stringMatching(/target\.instancetype: unknown key \(did you mean "instanceType"\?\)/),
    ]);
    expect(issuesOf({ kind: 'cassandra-ec2', nodes: 3, usdPerHour: 1, ebsGb: 100 })).toEqual([]);
  });

  it('prices the field spelt right: strong reads take twice the eventual read units', () => {
    const units = (consistentReads: boolean) =>
      (
        costDocument(input({ kind: 'dynamodb', consistentReads }), book) as {
          units: { readUnitsPerRead: number };
        }
      ).units.readUnitsPerRead;
    expect(units(true)).toBe(1); // a 1,000-B item: one 4-KB read unit, strongly consistent
    expect(units(false)).toBe(0.5);
  });
});
