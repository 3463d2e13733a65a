package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The binding's operations against a real DynamoDB Local. */
class DynamoDbLocalOperationsTest {
  private static LocalDynamo local;

  @BeforeAll
  static void start() throws Exception {
    local = LocalDynamo.start();
  }

  @AfterAll
  static void stop() throws Exception {
    local.close();
  }

  private static String str(Map<String, ByteIterator> m, String k) {
    return m.get(k).toString();
  }

  @Test
  void readInsertUpdateDeleteRoundTrip() throws Exception {
    local.createTable("crud", "p");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint), measurements("op"));
    try {
      assertEquals(Status.OK, db.insert("crud", "user1", values("field0", "a0", "field1", "a1", "field2", "a2")));

      // stored as {p: S user1, field*: S ...}
      Map<String, AttributeValue> raw = local.admin()
          .getItem(r -> r.tableName("crud").key(Map.of("p", AttributeValue.fromS("user1")))).item();
      assertEquals("user1", raw.get("p").s());
      assertEquals("a1", raw.get("field1").s());

      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read("crud", "user1", null, all));
      assertEquals(Set.of("field0", "field1", "field2"), all.keySet());
      assertEquals("a2", str(all, "field2"));

      // projection: only the requested fields come back
      Map<String, ByteIterator> some = new HashMap<>();
      assertEquals(Status.OK, db.read("crud", "user1", new HashSet<>(List.of("field1")), some));
      assertEquals(Set.of("field1"), some.keySet());

      assertEquals(Status.OK, db.update("crud", "user1", values("field1", "b1")));
      Map<String, ByteIterator> after = new HashMap<>();
      db.read("crud", "user1", null, after);
      assertEquals("b1", str(after, "field1"));
      assertEquals("a0", str(after, "field0"), "update must leave other fields alone");

      assertEquals(Status.NOT_FOUND, db.read("crud", "nobody", null, new HashMap<>()));

      assertEquals(Status.OK, db.delete("crud", "user1"));
      assertEquals(Status.NOT_FOUND, db.read("crud", "user1", null, new HashMap<>()));
      assertEquals(0, local.count("crud"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void fieldNamesThatAreReservedWordsWork() throws Exception {
    local.createTable("reserved", "p");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint), measurements("op"));
    try {
      assertEquals(Status.OK, db.insert("reserved", "k", values("name", "n", "size", "s")));
      assertEquals(Status.OK, db.update("reserved", "k", values("size", "t")));
      Map<String, ByteIterator> r = new HashMap<>();
      assertEquals(Status.OK, db.read("reserved", "k", new HashSet<>(List.of("name", "size")), r));
      assertEquals("t", str(r, "size"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void keyAttributeNameIsConfigurable() throws Exception {
    local.createTable("byid", "id");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint, "dynamodb.keyAttribute", "id"),
        measurements("op"));
    try {
      assertEquals(Status.OK, db.insert("byid", "user7", values("field0", "x")));
      Map<String, AttributeValue> raw = local.admin()
          .getItem(r -> r.tableName("byid").key(Map.of("id", AttributeValue.fromS("user7")))).item();
      assertEquals("x", raw.get("field0").s());
      assertFalse(raw.containsKey("p"));
      assertEquals(Status.OK, db.read("byid", "user7", null, new HashMap<>()));
    } finally {
      db.cleanup();
    }
    // the default key attribute `p` does not match this table's schema: DynamoDB rejects it -> ERROR
    DynamoDbClient wrong = open(props("dynamodb.endpoint", local.endpoint), measurements("op"));
    try {
      assertEquals(Status.ERROR, wrong.insert("byid", "user8", values("field0", "x")));
    } finally {
      wrong.cleanup();
    }
  }

  @Test
  void scanReturnsUpToRecordcountItemsAfterTheStartKeyInTableOrder() throws Exception {
    local.createTable("scan", "p");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint), measurements("op"));
    try {
      for (int i = 0; i < 30; i++) {
        db.insert("scan", "user" + i, values("field0", "v" + i));
      }
      // the table's own order (hash order), as a plain paginated Scan sees it
      List<String> order = new java.util.ArrayList<>();
      local.admin().scanPaginator(r -> r.tableName("scan").limit(7))
          .items().forEach(it -> order.add(it.get("p").s()));
      assertEquals(30, order.size());

      String start = order.get(4);
      Vector<HashMap<String, ByteIterator>> got = new Vector<>();
      assertEquals(Status.OK, db.scan("scan", start, 10, null, got));
      assertEquals(10, got.size());
      List<String> gotValues = new java.util.ArrayList<>();
      for (HashMap<String, ByteIterator> row : got) {
        gotValues.add(row.get("field0").toString());
      }
      List<String> expected = new java.util.ArrayList<>();
      for (String k : order.subList(5, 15)) {
        expected.add("v" + k.substring(4));
      }
      assertEquals(expected, gotValues, "the items right after the (excluded) start key, in table order");

      // near the end of the table: fewer items, no wrap-around, still OK
      Vector<HashMap<String, ByteIterator>> tail = new Vector<>();
      assertEquals(Status.OK, db.scan("scan", order.get(27), 10, new TreeSet<>(Set.of("field0")), tail));
      assertEquals(2, tail.size());
      assertEquals(Set.of("field0"), tail.get(0).keySet());
    } finally {
      db.cleanup();
    }
  }

  @Test
  void requestsAreSpreadOverEveryEndpoint() throws Exception {
    try (LocalDynamo second = LocalDynamo.start()) {
      local.createTable("spread", "p");
      second.createTable("spread", "p");
      DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint + " , " + second.endpoint),
          measurements("op"));
      try {
        assertEquals(2, db.config().endpoints.size());
        for (int i = 0; i < 20; i++) {
          assertEquals(Status.OK, db.insert("spread", "user" + i, values("field0", "v")));
        }
      } finally {
        db.cleanup();
      }
      int a = local.count("spread");
      int b = second.count("spread");
      assertEquals(20, a + b);
      assertTrue(a > 0 && b > 0, "both endpoints must receive writes, got " + a + " and " + b);
      assertEquals(10, a, "round robin per operation splits 20 inserts 10/10");
    }
  }
}
