/**
 * DynamoDB capacity-unit math: item size by DynamoDB's rule, and the read/write units one
 * operation consumes. Source: AWS DynamoDB Developer Guide, "Capacity unit consumption"
 * (CapacityUnitCalculations.html) and the provisioned/on-demand pricing pages; 1 KB = 1,024 bytes.
 */
import { InputError } from '../common/errors';
import { Q } from './decimal';

/** Bytes one write unit covers (1 KB). */
export const WRITE_UNIT_BYTES = 1024;
/** Bytes one read unit covers (4 KB). */
export const READ_UNIT_BYTES = 4096;
/** Per-item indexing overhead DynamoDB adds when it bills storage. */
export const STORAGE_OVERHEAD_BYTES_PER_ITEM = 100;
/** Bytes in a billed GB (DynamoDB's size units are binary). */
export const BYTES_PER_GB = 1024 ** 3;

/**
 * The length YCSB 0.17.0 keys are assumed to have by default: "user" + the decimal form of
 * Math.abs(fnvhash64(keynum)), at most 19 digits, so at most 23 bytes. Nine keys in ten have all
 * 19 digits, so 23 is both the worst case and the usual case. Seed 000's 1,081-byte item assumes
 * 20 (the length of str(2**64-1) in the alternator-benchmark's calc_provision.py); pass
 * keyBytes: 20 to reproduce it.
 */
export const YCSB_DEFAULT_KEY_BYTES = 23;

export type Consistency = 'eventual' | 'strong' | 'transactional';

/** A DynamoDB attribute value in plain JS form (the document-client shape). */
export type AttributeValue =
  string | number | boolean | null | Uint8Array | AttributeValue[] | { [name: string]: AttributeValue };

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Size of a number attribute value: about one byte per two significant digits plus one byte
 * (AWS's stated approximation).
 */
function numberBytes(x: number): number {
  if (!Number.isFinite(x)) throw new RangeError(`DynamoDB numbers must be finite, got ${x}`);
  const digits = Math.abs(x)
    .toExponential()
    .replace(/e.*$/, '')
    .replace(/[.-]/g, '')
    .replace(/^0+|0+$/g, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function valueBytes(v: AttributeValue): number {
  if (v === null || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return utf8Bytes(v);
  if (typeof v === 'number') return numberBytes(v);
  if (v instanceof Uint8Array) return v.byteLength;
  // List or map: 3 bytes of overhead plus one byte per element, plus the elements themselves.
  if (Array.isArray(v)) return 3 + v.reduce<number>((s, e) => s + 1 + valueBytes(e), 0);
  return 3 + Object.entries(v).reduce((s, [k, e]) => s + 1 + utf8Bytes(k) + valueBytes(e), 0);
}

/**
 * DynamoDB item size in bytes: the sum over attributes of the UTF-8 length of the attribute name
 * plus the size of its value, the key attributes included.
 */
export function itemSizeBytes(item: Record<string, AttributeValue>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8Bytes(name) + valueBytes(value);
  return size;
}

export interface YcsbItemShape {
  /** YCSB fieldcount (default 10) */
  fieldCount?: number;
  /** YCSB fieldlength in bytes (default 100; YCSB values are ASCII, one byte per character) */
  fieldLength?: number;
  /** length of the YCSB key value, e.g. 23 for "user" + 19 digits (default YCSB_DEFAULT_KEY_BYTES) */
  keyBytes?: number;
  /** name of the DynamoDB key attribute (default "p", as the seeds' tables and dynamodb.primaryKey) */
  keyAttribute?: string;
  /** field name prefix (default "field", giving field0..field{n-1}) */
  fieldPrefix?: string;
  /**
   * A composite key (a key design with N partition-key values): the key attribute holds a partition-key value of
   * `partitionValueBytes` bytes and the sort key attribute (`attribute`) holds the YCSB key.
   */
  sortKey?: { attribute: string; partitionValueBytes: number };
}

function nonNegInt(value: unknown, path: string, issues: { path: string; message: string }[]): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    issues.push({ path, message: `expected a non-negative integer, got ${JSON.stringify(value)}` });
    return 0;
  }
  return value;
}

/**
 * Size of the item YCSB's DynamoDB binding writes: the key attribute (the YCSB key, or with a composite key a
 * partition-key value, plus the sort key attribute holding the YCSB key) and fieldCount string attributes named
 * field0..field{n-1} of fieldLength bytes each. A target's item is lib/core/targets/dynamodb/item-size.ts's
 * dynamoItemBytes, which gives this the shape its key design writes.
 */
export function ycsbItemBytes(shape: YcsbItemShape = {}): number {
  const issues: { path: string; message: string }[] = [];
  const fieldCount = nonNegInt(shape.fieldCount ?? 10, 'fieldCount', issues);
  const fieldLength = nonNegInt(shape.fieldLength ?? 100, 'fieldLength', issues);
  const keyBytes = nonNegInt(shape.keyBytes ?? YCSB_DEFAULT_KEY_BYTES, 'keyBytes', issues);
  const keyAttribute = shape.keyAttribute ?? 'p';
  const prefix = shape.fieldPrefix ?? 'field';
  if (keyAttribute === '') issues.push({ path: 'keyAttribute', message: 'expected a non-empty name' });
  const sk = shape.sortKey;
  const partitionValue = sk ? nonNegInt(sk.partitionValueBytes, 'sortKey.partitionValueBytes', issues) : 0;
  if (sk?.attribute === '') issues.push({ path: 'sortKey.attribute', message: 'expected a non-empty name' });
  if (issues.length) throw new InputError(issues);
  let names = 0;
  for (let i = 0; i < fieldCount; i++) names += utf8Bytes(prefix + i);
  const key = sk ? partitionValue + utf8Bytes(sk.attribute) + keyBytes : keyBytes;
  return utf8Bytes(keyAttribute) + key + names + fieldCount * fieldLength;
}

function positiveSize(sizeBytes: number, what: string): void {
  if (!Number.isInteger(sizeBytes) || sizeBytes < 1) {
    throw new InputError([
      { path: what, message: `expected a positive whole number of bytes, got ${sizeBytes}` },
    ]);
  }
}

/** Write units one write of an item of this size consumes: ceil(size / 1 KB), doubled for transactions. */
export function writeUnitsPerWrite(sizeBytes: number, opts: { transactional?: boolean } = {}): number {
  positiveSize(sizeBytes, 'itemBytes');
  return Math.ceil(sizeBytes / WRITE_UNIT_BYTES) * (opts.transactional ? 2 : 1);
}

/**
 * Read units one read of an item of this size consumes: ceil(size / 4 KB) for a strongly
 * consistent read, half that for an eventually consistent one, double for a transactional one.
 */
export function readUnitsPerRead(sizeBytes: number, consistency: Consistency = 'strong'): number {
  positiveSize(sizeBytes, 'itemBytes');
  const blocks = Math.ceil(sizeBytes / READ_UNIT_BYTES);
  return consistency === 'eventual' ? blocks / 2 : consistency === 'transactional' ? blocks * 2 : blocks;
}

/**
 * Billed storage in GB for a number of items of a given size, with DynamoDB's 100-byte per-item
 * overhead (GB = 2^30 bytes). Exact.
 */
export function storageGbForItems(itemCount: number, itemBytes: number): Q {
  if (!Number.isInteger(itemCount) || itemCount < 0) {
    throw new InputError([
      { path: 'itemCount', message: `expected a non-negative integer, got ${itemCount}` },
    ]);
  }
  positiveSize(itemBytes, 'itemBytes');
  return Q.of(itemCount)
    .mul(itemBytes + STORAGE_OVERHEAD_BYTES_PER_ITEM)
    .div(BYTES_PER_GB);
}

/**
 * Capacity units per second needed to serve a throughput, at a target utilisation (1 = run the
 * table flat out; 0.7 = auto scaling's default target; 0.75 = the seeds' rule). Whole units,
 * rounded up.
 */
export function unitsToServe(opsPerSec: number | Q, unitsPerOp: number, utilization: number | Q = 1): bigint {
  const u = Q.of(utilization);
  if (u.cmp(0) <= 0 || u.cmp(1) > 0) {
    throw new InputError([
      { path: 'utilization', message: `expected a fraction in (0, 1], got ${u.toNumber()}` },
    ]);
  }
  return Q.of(opsPerSec).mul(unitsPerOp).div(u).ceil();
}
