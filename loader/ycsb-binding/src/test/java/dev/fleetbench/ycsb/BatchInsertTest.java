package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/** dynamodb.batchInserts: inserts go out as BatchWriteItem; unprocessed items are throttles and are resent. */
class BatchInsertTest {
  @Test
  void insertsAreSentInBatchesAndTheRestAtCleanup() throws Exception {
    try (FakeDynamo f = new FakeDynamo(r -> FakeDynamo.ok("{\"UnprocessedItems\":{}}"))) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "dynamodb.batchInserts", "3"),
          measurements("op"));
      Status[] s = new Status[7];
      for (int i = 0; i < 7; i++) {
        s[i] = db.insert("usertable", "user" + i, values("field0", "v" + i));
      }
      assertEquals(Status.BATCHED_OK, s[0]);
      assertEquals(Status.BATCHED_OK, s[1]);
      assertEquals(Status.OK, s[2], "the third insert sends the batch");
      assertEquals(Status.OK, s[5]);
      assertEquals(Status.BATCHED_OK, s[6]);
      assertEquals(2, f.requests.size());
      db.cleanup();
      assertEquals(3, f.requests.size(), "cleanup sends the last, partial batch");
      String first = f.requests.get(0).body();
      assertEquals("DynamoDB_20120810.BatchWriteItem", f.requests.get(0).target());
      assertTrue(first.startsWith("{\"RequestItems\":{\"usertable\":[{\"PutRequest\":{\"Item\":{"), first);
      for (int i = 0; i < 3; i++) {
        assertTrue(first.contains("\"p\":{\"S\":\"user" + i + "\"}") && first.contains("{\"S\":\"v" + i + "\"}"),
            first);
      }
      assertTrue(f.requests.get(2).body().contains("user6") && !f.requests.get(2).body().contains("user5"));
    }
  }

  @Test
  void unprocessedItemsAreThrottledAttemptsAndAreResent() throws Exception {
    AtomicInteger n = new AtomicInteger();
    String left = "{\"UnprocessedItems\":{\"usertable\":[{\"PutRequest\":{\"Item\":{\"field0\":{\"S\":\"v1\"},"
        + "\"p\":{\"S\":\"user1\"}}}}]}}";
    try (FakeDynamo f = new FakeDynamo(r -> FakeDynamo.ok(n.incrementAndGet() == 1 ? left : "{}"))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "dynamodb.batchInserts", "2",
          "dynamodb.retryBaseDelayMs", "0"), m);
      assertEquals(Status.BATCHED_OK, db.insert("usertable", "user0", values("field0", "v0")));
      assertEquals(Status.OK, db.insert("usertable", "user1", values("field0", "v1")));
      db.cleanup();
      assertEquals(2, f.requests.size());
      String resent = f.requests.get(1).body();
      assertTrue(resent.contains("user1") && !resent.contains("user0"), resent);
      assertEquals(1, CapturingExporter.of(m).operations("INSERT-THROTTLED"));
    }
  }

  @Test
  void aFailedBatchStaysPendingAndARetriedKeyReplacesItsEntry() throws Exception {
    AtomicInteger n = new AtomicInteger();
    try (FakeDynamo f = new FakeDynamo(r -> n.incrementAndGet() == 1
        ? FakeDynamo.error("InternalServerError", "oops") : FakeDynamo.ok("{}"))) {
      DynamoDbClient db = open(props("dynamodb.endpoint", f.endpoint, "dynamodb.batchInserts", "2"),
          measurements("op"));
      assertEquals(Status.BATCHED_OK, db.insert("usertable", "user0", values("field0", "a")));
      assertEquals(Status.ERROR, db.insert("usertable", "user1", values("field0", "b")));
      // YCSB retries the failed insert with the same key
      assertEquals(Status.OK, db.insert("usertable", "user1", values("field0", "c")));
      db.cleanup();
      assertEquals(2, f.requests.size());
      String second = f.requests.get(1).body();
      assertTrue(second.contains("user0") && second.contains("{\"S\":\"c\"}"), second);
      assertFalse(second.contains("{\"S\":\"b\"}"), "one entry per key: " + second);
    }
  }
}
