package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.TreeSet;
import java.util.Vector;
import org.junit.jupiter.api.Test;

/** What goes over the wire: operation names, consistent-read flag, expressions, key attribute. */
class WireRequestTest {
  private static final String ITEM = "{\"Item\":{\"p\":{\"S\":\"k\"},\"field0\":{\"S\":\"v\"}}}";

  private static FakeDynamo fake() throws Exception {
    return new FakeDynamo(r -> FakeDynamo.ok(r.target().endsWith("GetItem") ? ITEM : "{}"));
  }

  @Test
  void readsAreEventuallyConsistentByDefault() throws Exception {
    try (FakeDynamo f = fake()) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint), measurements("op"));
      db.read("usertable", "k", null, new HashMap<>());
      db.scan("usertable", "k", 1, null, new Vector<>());
      db.cleanup();
      assertEquals("DynamoDB_20120810.GetItem", f.requests.get(0).target());
      assertTrue(f.requests.get(0).body().contains("\"ConsistentRead\":false"), f.requests.get(0).body());
      assertTrue(f.requests.get(1).body().contains("\"ConsistentRead\":false"), f.requests.get(1).body());
    }
  }

  @Test
  void consistentReadsFlagReachesGetItemAndScan() throws Exception {
    try (FakeDynamo f = fake()) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "dynamodb.consistentReads", "true"),
          measurements("op"));
      db.read("usertable", "k", new TreeSet<>(List.of("field3", "field1")), new HashMap<>());
      db.scan("usertable", "user5", 4, null, new Vector<>());
      db.cleanup();
      String get = f.requests.get(0).body();
      assertTrue(get.contains("\"ConsistentRead\":true"), get);
      assertTrue(get.contains("\"ProjectionExpression\":\"#f0, #f1\""), get);
      assertTrue(get.contains("\"#f0\":\"field1\"") && get.contains("\"#f1\":\"field3\""), get);
      String scan = f.requests.get(1).body();
      assertEquals("DynamoDB_20120810.Scan", f.requests.get(1).target());
      assertTrue(scan.contains("\"ConsistentRead\":true"), scan);
      assertTrue(scan.contains("\"Limit\":4"), scan);
      assertTrue(scan.contains("\"ExclusiveStartKey\":{\"p\":{\"S\":\"user5\"}}"), scan);
    }
  }

  @Test
  void writesUseTheKeyAttributeAndASetExpression() throws Exception {
    try (FakeDynamo f = fake()) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "dynamodb.keyAttribute", "pk"),
          measurements("op"));
      db.insert("t1", "user1", values("field0", "a"));
      db.update("t1", "user1", values("field0", "b"));
      db.delete("t1", "user1");
      db.cleanup();
      assertEquals("DynamoDB_20120810.PutItem", f.requests.get(0).target());
      assertTrue(f.requests.get(0).body().contains("\"pk\":{\"S\":\"user1\"}"), f.requests.get(0).body());
      assertTrue(f.requests.get(0).body().contains("\"TableName\":\"t1\""));
      String upd = f.requests.get(1).body();
      assertEquals("DynamoDB_20120810.UpdateItem", f.requests.get(1).target());
      assertTrue(upd.contains("\"UpdateExpression\":\"SET #f0 = :v0\""), upd);
      assertTrue(upd.contains("\":v0\":{\"S\":\"b\"}"), upd);
      assertFalse(upd.contains("AttributeUpdates"), upd);
      assertEquals("DynamoDB_20120810.DeleteItem", f.requests.get(2).target());
    }
  }

  @Test
  void injectedDelaySlowsEveryOperation() throws Exception {
    try (FakeDynamo f = fake()) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "fleetbench.injectDelayUs", "20000"),
          measurements("op"));
      long t0 = System.nanoTime();
      for (int i = 0; i < 5; i++) {
        db.read("usertable", "k", null, new HashMap<>());
      }
      long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
      db.cleanup();
      assertTrue(elapsedMs >= 100, "5 ops x 20 ms injected must take at least 100 ms, took " + elapsedMs);
    }
  }
}
