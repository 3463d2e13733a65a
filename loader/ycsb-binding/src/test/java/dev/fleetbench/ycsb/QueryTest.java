package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Key designs and the query operation against a real DynamoDB Local (composite-key tables: HASH p, RANGE s), and
 * the query's throttle accounting against the fake endpoint.
 */
class QueryTest {
  private static LocalDynamo local;

  @BeforeAll
  static void start() throws Exception {
    local = LocalDynamo.start();
  }

  @AfterAll
  static void stop() throws Exception {
    local.close();
  }

  private static void compositeTable(String name) {
    local.admin().createTable(r -> r.tableName(name)
        .attributeDefinitions(
            AttributeDefinition.builder().attributeName("p").attributeType(ScalarAttributeType.S).build(),
            AttributeDefinition.builder().attributeName("s").attributeType(ScalarAttributeType.S).build())
        .keySchema(KeySchemaElement.builder().attributeName("p").keyType(KeyType.HASH).build(),
            KeySchemaElement.builder().attributeName("s").keyType(KeyType.RANGE).build())
        .billingMode(BillingMode.PAY_PER_REQUEST));
  }

  private static List<String> query(DynamoDbClient db, String table, String key) {
    Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
    assertEquals(Status.OK, db.query(table, key, null, rows));
    List<String> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.get("field0").toString()));
    return out;
  }

  @Test
  void itemsCarryBothKeysAndAreAddressedByBoth() throws Exception {
    compositeTable("kdesign");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint,
        BindingConfig.PARTITION_KEY_VALUES, "2", "dynamodb.batchInserts", "3"), measurements("op"));
    try {
      for (String k : new String[] {"user1", "user2", "user3"}) {
        db.insert("kdesign", k, values("field0", "v-" + k)); // the third fills the batch: one BatchWriteItem
      }
      Map<String, AttributeValue> raw = local.admin().getItem(r -> r.tableName("kdesign").key(Map.of(
          "p", AttributeValue.fromS("pk1"), "s", AttributeValue.fromS("user3")))).item();
      assertEquals("v-user3", raw.get("field0").s());
      assertEquals("pk0", local.admin().getItem(r -> r.tableName("kdesign").key(Map.of(
          "p", AttributeValue.fromS("pk0"), "s", AttributeValue.fromS("user2")))).item().get("p").s());

      Map<String, ByteIterator> got = new HashMap<>();
      assertEquals(Status.OK, db.read("kdesign", "user3", null, got));
      assertEquals(Set.of("field0"), got.keySet(), "neither key attribute is a field");
      assertEquals(Status.OK, db.update("kdesign", "user3", values("field0", "w")));
      got.clear();
      db.read("kdesign", "user3", null, got);
      assertEquals("w", got.get("field0").toString());
      assertEquals(Status.OK, db.delete("kdesign", "user1"));
      assertEquals(Status.NOT_FOUND, db.read("kdesign", "user1", null, new HashMap<>()));
      assertEquals(2, local.count("kdesign"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void queryReturnsTheNearestItemsAtOrBelowTheKeyInItsPartitionKeyValue() throws Exception {
    compositeTable("qnear");
    Properties p = props("dynamodb.endpoint", local.endpoint, BindingConfig.PARTITION_KEY_VALUES, "2");
    DynamoDbClient db = open(p, measurements("op"));
    try {
      // pk0: user10 user20 user30 user40; pk1: user15 user25 user35
      for (int i = 10; i <= 40; i += 5) {
        assertEquals(Status.OK, db.insert("qnear", "user" + i, values("field0", "user" + i)));
      }
      assertEquals(List.of("user20"), query(db, "qnear", "user22"), "at or below 22 in pk0 (22 is even)");
      assertEquals(List.of("user25"), query(db, "qnear", "user27"), "at or below 27 in pk1; user26 would be pk0");
      assertEquals(List.of("user30"), query(db, "qnear", "user30"), "an existing key finds itself");
      assertEquals(List.of(), query(db, "qnear", "user08"), "nothing at or below: OK, no items");
    } finally {
      db.cleanup();
    }
    p.setProperty(BindingConfig.QUERY_LIMIT, "2");
    DynamoDbClient two = open(p, measurements("op"));
    try {
      assertEquals(List.of("user40", "user30"), query(two, "qnear", "user98"), "Limit 2, nearest first");
    } finally {
      two.cleanup();
    }
    p.setProperty(BindingConfig.QUERY_FORWARD, "true");
    DynamoDbClient fwd = open(p, measurements("op"));
    try {
      assertEquals(List.of("user30", "user40"), query(fwd, "qnear", "user22"), "forward: at or above, ascending");
    } finally {
      fwd.cleanup();
    }
  }

  @Test
  void perItemTableQueryIsTheItemItself() throws Exception {
    local.createTable("qperitem", "p");
    DynamoDbClient db = open(props("dynamodb.endpoint", local.endpoint), measurements("op"));
    try {
      db.insert("qperitem", "user7", values("field0", "seven"));
      assertEquals(List.of("seven"), query(db, "qperitem", "user7"));
      assertEquals(List.of(), query(db, "qperitem", "user8"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void throttledQueryAttemptsAreCountedOneByOne() throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.error("ThrottlingException", "Slow down"))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint, "dynamodb.maxRetries", "2",
          "dynamodb.retryBaseDelayMs", "1", BindingConfig.PARTITION_KEY_VALUES, "1"), m);
      try {
        assertEquals(DynamoDbClient.THROTTLED, db.query("t", "user5", null, new Vector<>()));
      } finally {
        db.cleanup();
      }
      assertEquals(3, fake.requests.size());
      assertEquals("DynamoDB_20120810.Query", fake.requests.get(0).target());
      String body = fake.requests.get(0).body();
      assertTrue(body.contains("\"KeyConditionExpression\":\"#k0 = :k0 AND #k1 <= :k1\""), body);
      assertTrue(body.contains("\"ScanIndexForward\":false") && body.contains("\"Limit\":1"), body);
      assertEquals(3, CapturingExporter.of(m).operations("QUERY-THROTTLED"));
    }
  }
}
