/**
 * The item a dynamodb target's binding writes, by its key design: one size rule for the capacity model, the plan's
 * units, the run's cost, the capacity check and the monthly cost (`fleetbench cost`, the cells' cost columns), and
 * the spec check against DynamoDB's item size limit. Pure: no SDK, no I/O.
 *
 * The binding (loader/ycsb-binding DynamoDbClient.java `insert`, `keyAttributes`) writes every YCSB field as a string
 * attribute and the key as `{<keyAttribute>: <YCSB key>}` on a table with one item per partition-key value, or as
 * `{<keyAttribute>: "pk<r>", <sortKeyAttribute>: <YCSB key>}` with N partition-key values (r < N, key-design.ts).
 * Sizes follow DynamoDB's rule: attribute names plus values, UTF-8
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 */
import type { Issue } from '../../common/errors';
import { YCSB_DEFAULT_KEY_BYTES, utf8Bytes, ycsbItemBytes, type YcsbItemShape } from '../../cost/capacity';
import type { DynamoDbTarget } from '../../spec/schema';
import { DEFAULT_SORT_KEY, keyOrderZeroPadding, partitionKeyValueName } from './key-design';

/**
 * DynamoDB's item size limit: "The maximum item size in DynamoDB is 400 KB, which includes both attribute name binary
 * length (UTF-8 length) and attribute value lengths (again binary length)", and the same page's units are binary
 * (1 KB = 1,024 bytes): 409,600 bytes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html, "Items").
 */
export const DYNAMODB_MAX_ITEM_BYTES = 400 * 1024;

/** "user", the prefix of every YCSB key (CoreWorkload `buildKeyName`). */
const YCSB_KEY_PREFIX_BYTES = 4;

/** What of a target the item depends on (a spec target, or a `fleetbench cost` input's). */
export interface ItemKeyDesign {
  keyAttribute: string;
  keyDesign?: DynamoDbTarget['keyDesign'];
}

/** What of the dataset the item depends on; `keyBytes` (the cost input's) overrides the key length. */
export interface ItemDataset {
  recordCount?: number;
  fieldCount: number;
  fieldLength: number;
  keyBytes?: number;
}

/**
 * The length of the YCSB keys the binding writes. A key-order load names record i "user" + i zero-padded to the
 * digits of recordCount (keyDesignProperties' `insertorder=ordered`, `zeropadding`): every loaded key has
 * 4 + that many bytes (run-phase inserts past the next power of ten would be a byte longer). Otherwise YCSB's hashed
 * keys, at most (and nine in ten exactly) 23 bytes (YCSB_DEFAULT_KEY_BYTES).
 */
export function ycsbKeyBytesOf(t: ItemKeyDesign, dataset: ItemDataset): number {
  if (dataset.keyBytes !== undefined) return dataset.keyBytes;
  const composite = typeof t.keyDesign?.partitionKeyValues === 'number';
  if (composite && t.keyDesign?.loadOrder === 'key-order' && dataset.recordCount !== undefined)
    return YCSB_KEY_PREFIX_BYTES + keyOrderZeroPadding(dataset.recordCount);
  return YCSB_DEFAULT_KEY_BYTES;
}

/**
 * The item's shape for ycsbItemBytes. With N partition-key values the partition-key value is the longest one the
 * binding writes, `pk<N − 1>` (the items spread evenly over pk0 … pk<N − 1>, so when N is a power of ten nine items
 * in ten have a value that long): like the 23-byte key, the item planned for is the largest the table holds, so a
 * 1 KB or 4 KB boundary some of its items cross is never missed.
 */
export function dynamoItemShape(t: ItemKeyDesign, dataset: ItemDataset): YcsbItemShape {
  const n = t.keyDesign?.partitionKeyValues;
  return {
    fieldCount: dataset.fieldCount,
    fieldLength: dataset.fieldLength,
    keyBytes: ycsbKeyBytesOf(t, dataset),
    keyAttribute: t.keyAttribute,
    ...(typeof n === 'number'
      ? {
          sortKey: {
            attribute: t.keyDesign?.sortKeyAttribute ?? DEFAULT_SORT_KEY,
            partitionValueBytes: utf8Bytes(partitionKeyValueName(n - 1)),
          },
        }
      : {}),
  };
}

/** Bytes of the (largest) item the binding writes for this target and dataset. */
export function dynamoItemBytes(t: ItemKeyDesign, dataset: ItemDataset): number {
  return ycsbItemBytes(dynamoItemShape(t, dataset));
}

const fmt = (x: number) => x.toLocaleString('en-US');

/**
 * A target whose item would exceed DynamoDB's 400 KB: every write of it is refused (ValidationException), after the
 * table and loaders are up. A spec error on `dataset.fieldLength`, with the computed size. `kindName` says which
 * service's limit it is (a DynamoDB table, or another kind that enforces the same one).
 */
export function itemSizeIssue(
  t: ItemKeyDesign,
  at: string,
  dataset: ItemDataset,
  kindName: string,
): Issue | null {
  const bytes = dynamoItemBytes(t, dataset);
  if (bytes <= DYNAMODB_MAX_ITEM_BYTES) return null;
  const shape = dynamoItemShape(t, dataset);
  const overhead = bytes - dataset.fieldCount * dataset.fieldLength;
  const maxLength = Math.floor((DYNAMODB_MAX_ITEM_BYTES - overhead) / dataset.fieldCount);
  return {
    path: 'dataset.fieldLength',
    message:
      `expected an item of at most 400 KB (${fmt(DYNAMODB_MAX_ITEM_BYTES)} B, DynamoDB's item size limit, attribute ` +
      `names included) for ${at} (${kindName}): ${fmt(dataset.fieldCount)} fields × ${fmt(dataset.fieldLength)} B ` +
      `plus ${fmt(overhead)} B of attribute names and key (${shape.keyBytes}-byte YCSB keys) make ` +
      `${fmt(bytes)} B; a fieldLength of at most ${fmt(Math.max(0, maxLength))} fits`,
  };
}
