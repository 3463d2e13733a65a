package dev.fleetbench.ycsb;

/**
 * The table's key design (fleetbench.dynamodb.partitionKeyValues): one item per partition-key value (the YCSB key
 * is the partition key, today's tables), or N partition-key values with the YCSB key as the sort key.
 *
 * <p>With N values, item {@code key} gets the partition-key value {@code "pk" + (D mod N)}, where D is the number
 * written by the key's decimal digits in order (every digit of {@code user123} gives 123; a key without digits gives
 * pk0). YCSB names record i {@code user<i>} (insertorder=ordered) or {@code user<fnvhash64(i)>} (hashed, the default),
 * so ordered keys go round robin ({@code pk<i mod N>}) and hashed keys spread evenly. The same function is
 * lib/core/targets/dynamodb/key-design.ts {@code partitionKeyValue}; KeyDesignTest and key-design.test.ts check both
 * against the same table of keys.
 */
public final class KeyDesign {
  /** The largest N: keeps {@code r * 10 + 9} inside a long and far above any sensible item collection count. */
  public static final long MAX_PARTITION_KEY_VALUES = 1_000_000_000L;

  private KeyDesign() {}

  /** The partition-key value of a YCSB key on a table with {@code n} partition-key values (n ≥ 1). */
  public static String partitionValue(String ycsbKey, long n) {
    long r = 0;
    for (int i = 0; i < ycsbKey.length(); i++) {
      char c = ycsbKey.charAt(i);
      if (c >= '0' && c <= '9') {
        r = (r * 10 + (c - '0')) % n;
      }
    }
    return "pk" + r;
  }
}
