import { InputError } from '../../../lib/core/common/errors';
import {
  itemSizeBytes,
  readUnitsPerRead,
  storageGbForItems,
  unitsToServe,
  writeUnitsPerWrite,
  ycsbItemBytes,
  YCSB_DEFAULT_KEY_BYTES,
} from '../../../lib/core/cost/capacity';

describe('DynamoDB item size', () => {
  it('is the sum of UTF-8 lengths of attribute names and string values, key included', () => {
    expect(itemSizeBytes({ p: 'user1', field0: 'abc' })).toBe(1 + 5 + 6 + 3);
    // multi-byte characters count by their UTF-8 bytes: é = 2, € = 3, 😀 = 4
    expect(itemSizeBytes({ é: '€😀' })).toBe(2 + 3 + 4);
  });

  it('sizes booleans and nulls as name + 1, binary as its bytes, lists/maps with 3 bytes of overhead', () => {
    expect(itemSizeBytes({ ok: true, nothing: null })).toBe(2 + 1 + 7 + 1);
    expect(itemSizeBytes({ b: new Uint8Array(10) })).toBe(1 + 10);
    expect(itemSizeBytes({ l: [] })).toBe(1 + 3);
    expect(itemSizeBytes({ l: ['ab', 'c'] })).toBe(1 + 3 + (1 + 2) + (1 + 1));
    expect(itemSizeBytes({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
  });

  it('sizes numbers as about one byte per two significant digits plus one', () => {
    expect(itemSizeBytes({ n: 7 })).toBe(1 + 2);
    expect(itemSizeBytes({ n: 12345 })).toBe(1 + 4);
    expect(itemSizeBytes({ n: 1200000 })).toBe(1 + 2); // two significant digits
  });
});

describe('YCSB item size', () => {
  it('reproduces seed 000 item of 1,081 bytes with the 20-byte key of calc_provision.py', () => {
    // 10 × ("fieldN" 6 bytes + 100 bytes) + "p" + 20 = 1,081 (seed 000: "an item size of 1081 bytes")
    expect(ycsbItemBytes({ fieldCount: 10, fieldLength: 100, keyBytes: 20 })).toBe(1081);
  });

  it('defaults to a 23-byte key, and agrees with the size of an item built the way YCSB builds it', () => {
    // keynum 0 under hashed insert order -> "user6284781860667377211" (YCSB 0.17.0 Utils.fnvhash64)
    const key = 'user6284781860667377211';
    expect(key.length).toBe(YCSB_DEFAULT_KEY_BYTES);
    const item: Record<string, string> = { p: key };
    for (let i = 0; i < 10; i++) item[`field${i}`] = '~'.repeat(100);
    expect(itemSizeBytes(item)).toBe(ycsbItemBytes());
    expect(ycsbItemBytes()).toBe(1084);
  });

  it('counts two-digit field names from field10 on and honours the key attribute name', () => {
    // field0..field9 = 6 bytes each, field10, field11 = 7 bytes each
    expect(ycsbItemBytes({ fieldCount: 12, fieldLength: 1, keyBytes: 1, keyAttribute: 'key' })).toBe(
      3 + 1 + 10 * 6 + 2 * 7 + 12,
    );
  });

  it('a composite key adds the sort key attribute and holds a partition-key value in the key attribute', () => {
    // the binding's {p: "pk42", sk: <23-byte key>, field0..field9}: p + "pk42" + sk + key + 60 + 1,000
    const item: Record<string, string> = { p: 'pk42', sk: 'user6284781860667377211' };
    for (let i = 0; i < 10; i++) item[`field${i}`] = 'x'.repeat(100);
    const shape = { sortKey: { attribute: 'sk', partitionValueBytes: 4 } };
    expect(ycsbItemBytes(shape)).toBe(itemSizeBytes(item));
    expect(ycsbItemBytes(shape)).toBe(1 + 4 + 2 + 23 + 60 + 1000);
  });

  it('rejects a bad shape with the field named', () => {
    expect(() => ycsbItemBytes({ fieldCount: -1 })).toThrow(InputError);
    expect(() => ycsbItemBytes({ fieldLength: 1.5 })).toThrow(/fieldLength/);
    expect(() => ycsbItemBytes({ sortKey: { attribute: '', partitionValueBytes: 3 } })).toThrow(
      /sortKey\.attribute/,
    );
  });
});

describe('capacity units per operation', () => {
  it('write units round up per 1 KB: 1,024 bytes is one unit, 1,025 bytes is two', () => {
    expect(writeUnitsPerWrite(1)).toBe(1);
    expect(writeUnitsPerWrite(1024)).toBe(1);
    expect(writeUnitsPerWrite(1025)).toBe(2);
    expect(writeUnitsPerWrite(1081)).toBe(2);
    expect(writeUnitsPerWrite(2048)).toBe(2);
    expect(writeUnitsPerWrite(2049)).toBe(3);
  });

  it('transactional writes cost double (AWS: a 3 KB write is 3 WCU, transactional 6)', () => {
    expect(writeUnitsPerWrite(3 * 1024)).toBe(3);
    expect(writeUnitsPerWrite(3 * 1024, { transactional: true })).toBe(6);
    expect(writeUnitsPerWrite(1025, { transactional: true })).toBe(4);
  });

  it('read units round up per 4 KB: 4,096 bytes is one unit, 4,097 bytes is two', () => {
    expect(readUnitsPerRead(4096, 'strong')).toBe(1);
    expect(readUnitsPerRead(4097, 'strong')).toBe(2);
    expect(readUnitsPerRead(1081, 'strong')).toBe(1);
  });

  it('eventually consistent reads cost half of strong ones, on both sides of the boundary', () => {
    expect(readUnitsPerRead(4096, 'eventual')).toBe(0.5);
    expect(readUnitsPerRead(4097, 'eventual')).toBe(1);
    expect(readUnitsPerRead(1, 'eventual')).toBe(0.5);
  });

  it('matches AWS example: an 8 KB item is 2 units strong, 1 eventual, 4 transactional', () => {
    expect(readUnitsPerRead(8 * 1024, 'strong')).toBe(2);
    expect(readUnitsPerRead(8 * 1024, 'eventual')).toBe(1);
    expect(readUnitsPerRead(8 * 1024, 'transactional')).toBe(4);
  });

  it('defaults to strong reads and rejects sizes that are not positive whole bytes', () => {
    expect(readUnitsPerRead(5000)).toBe(2);
    expect(() => writeUnitsPerWrite(0)).toThrow(/itemBytes/);
    expect(() => readUnitsPerRead(10.5)).toThrow(InputError);
  });
});

describe('storage from items', () => {
  it('adds 100 bytes per item and uses binary GB', () => {
    // 924 + 100 = 1,024 bytes per item; 1,048,576 items = exactly 1 GiB
    expect(storageGbForItems(1024 * 1024, 924).cmp(1)).toBe(0);
    // without the overhead it would be 924/1024 GB: the overhead is counted
    expect(storageGbForItems(1024 * 1024, 924).cmp(924 / 1024)).toBe(1);
    expect(storageGbForItems(0, 1000).isZero()).toBe(true);
  });

  it('one billion seed items (1,081 B) bill as about 1,100 GB', () => {
    const gb = storageGbForItems(1_000_000_000, 1081).toNumber();
    expect(gb).toBeCloseTo((1_000_000_000 * 1181) / 2 ** 30, 9);
    expect(gb).toBeGreaterThan(1099);
    expect(gb).toBeLessThan(1100);
  });
});

describe('units needed to serve a throughput', () => {
  it('is ops × units per op, whole units rounded up', () => {
    expect(unitsToServe(50_000, 2)).toBe(100_000n);
    expect(unitsToServe(3, 0.5)).toBe(2n);
  });

  it('divides by a target utilisation (the seeds 75% rule, auto scaling 70%)', () => {
    expect(unitsToServe(50_000, 2, 0.75)).toBe(133_334n); // 133,333.33…
    expect(unitsToServe(50_000, 2, 0.7)).toBe(142_858n); // 142,857.14…
    expect(unitsToServe(75, 1, 0.75)).toBe(100n); // exact: not 101 from float noise
  });

  it('rejects a utilisation outside (0, 1]', () => {
    expect(() => unitsToServe(1, 1, 0)).toThrow(/utilization/);
    expect(() => unitsToServe(1, 1, 1.2)).toThrow(InputError);
  });
});
