package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.props;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

/**
 * The partition-key mapping and the key-design properties. The expected values are worked by hand from the rule
 * (decimal digits of the key, mod N); lib/core/targets/dynamodb/key-design.test.ts checks the TypeScript function
 * against the same rows.
 */
class KeyDesignTest {
  @ParameterizedTest
  @CsvSource({
    "user0, 7, pk0",
    "user123, 10, pk3",
    "user123, 1, pk0",
    "user0000000042, 5, pk2",
    // YCSB's hashed key (fnvhash64 of a record number): 19 digits; 1000 is a multiple of 200, so 211 mod 200
    "user6284781860667377211, 200, pk11",
    // the largest long and beyond, digit by digit without overflow: 9223372036854775807 has digit sum 88, ≡ 7 mod 9
    "user9223372036854775807, 9, pk7",
    "user99999999999999999999, 1000000000, pk999999999",
    "nodigits, 13, pk0",
  })
  void partitionValueIsTheKeysDigitsModN(String key, long n, String expected) {
    assertEquals(expected, KeyDesign.partitionValue(key, n));
  }

  @Test
  void perItemIsTheDefaultAndHasNoSortKey() throws Exception {
    BindingConfig c = BindingConfig.from(props());
    assertEquals(0, c.partitionKeyValues);
    assertNull(c.sortKeyAttribute);
    assertEquals(1, c.queryLimit);
    assertEquals(false, c.queryForward);
    assertEquals(0, BindingConfig.from(props(BindingConfig.PARTITION_KEY_VALUES, "per-item")).partitionKeyValues);
  }

  @Test
  void composite() throws Exception {
    BindingConfig c = BindingConfig.from(props(BindingConfig.PARTITION_KEY_VALUES, "200",
        BindingConfig.QUERY_LIMIT, "3", BindingConfig.QUERY_FORWARD, "true", BindingConfig.LOAD_ORDER, "key-order"));
    assertEquals(200, c.partitionKeyValues);
    assertEquals("s", c.sortKeyAttribute);
    assertEquals(3, c.queryLimit);
    assertTrue(c.queryForward);
  }

  @Test
  void badValuesAreNamed() {
    DBException e = assertThrows(DBException.class, () -> BindingConfig.from(props(
        BindingConfig.PARTITION_KEY_VALUES, "0", BindingConfig.LOAD_ORDER, "sorted", BindingConfig.QUERY_LIMIT, "0",
        BindingConfig.QUERY_FORWARD, "yes")));
    String m = e.getMessage();
    assertTrue(m.contains("fleetbench.dynamodb.partitionKeyValues: '0' is not per-item or a whole number"), m);
    assertTrue(m.contains("fleetbench.dynamodb.loadOrder: 'sorted' is not key-order or shuffled"), m);
    assertTrue(m.contains("fleetbench.query.limit: 0 is below the minimum 1"), m);
    assertTrue(m.contains("fleetbench.query.forward: 'yes' is not true or false"), m);
    DBException same = assertThrows(DBException.class, () -> BindingConfig.from(props(
        BindingConfig.PARTITION_KEY_VALUES, "4", BindingConfig.SORT_KEY_ATTRIBUTE, "p")));
    assertTrue(same.getMessage().contains("fleetbench.dynamodb.sortKeyAttribute: 'p' is also dynamodb.keyAttribute"),
        same.getMessage());
  }
}
