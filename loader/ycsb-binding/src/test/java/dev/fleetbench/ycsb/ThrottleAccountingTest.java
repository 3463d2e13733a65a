package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/** Throttled attempts are measured one by one; exhausted retries give Return=THROTTLED, not ERROR. */
class ThrottleAccountingTest {
  private static final String ITEM = "{\"Item\":{\"p\":{\"S\":\"k\"},\"field0\":{\"S\":\"v\"}}}";

  @ParameterizedTest
  @ValueSource(strings = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"})
  void everyAttemptIsMeasuredAndTheOpEndsThrottled(String code) throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.error(code, "Slow down"))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint, "dynamodb.maxRetries", "4",
          "dynamodb.retryBaseDelayMs", "1"), m);
      try {
        Status s = db.read("usertable", "k", null, new HashMap<>());
        assertEquals("THROTTLED", s.getName());
        assertEquals(DynamoDbClient.THROTTLED, s);
        assertTrue(!s.equals(Status.ERROR));
      } finally {
        db.cleanup();
      }
      assertEquals(5, fake.requests.size(), "1 attempt + 4 retries");
      CapturingExporter e = CapturingExporter.of(m);
      assertEquals(5, e.operations("READ-THROTTLED"));
    }
  }

  @Test
  void throttlesThenSuccessIsOkWithTheThrottlesCounted() throws Exception {
    AtomicInteger n = new AtomicInteger();
    try (FakeDynamo fake = new FakeDynamo(r -> n.incrementAndGet() <= 2
        ? FakeDynamo.error("ProvisionedThroughputExceededException", "busy")
        : FakeDynamo.ok(ITEM))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint, "dynamodb.retryBaseDelayMs", "1"), m);
      try {
        HashMap<String, site.ycsb.ByteIterator> out = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "k", null, out));
        assertEquals("v", out.get("field0").toString());
      } finally {
        db.cleanup();
      }
      assertEquals(3, fake.requests.size());
      assertEquals(2, CapturingExporter.of(m).operations("READ-THROTTLED"));
    }
  }

  @ParameterizedTest
  @CsvSource({
      // interval, measurement that must hold the attempts, measurement that must not exist
      "op,       READ-THROTTLED, Intended-READ-THROTTLED",
      "intended, READ-THROTTLED, Intended-READ-THROTTLED",
      "both,     READ-THROTTLED, ''"})
  void recordedInEveryMeasurementIntervalMode(String interval, String present, String absent) throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.error("ThrottlingException", "Rate exceeded"))) {
      Measurements m = measurements(interval);
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint, "dynamodb.maxRetries", "2",
          "dynamodb.retryBaseDelayMs", "0"), m);
      try {
        assertEquals("THROTTLED", db.read("usertable", "k", null, new HashMap<>()).getName());
      } finally {
        db.cleanup();
      }
      CapturingExporter e = CapturingExporter.of(m);
      assertEquals(3, e.operations(present), "mode " + interval + ": " + e.rows.keySet());
      if (!absent.isEmpty()) {
        assertEquals(0, e.operations(absent));
      }
      if (interval.equals("both")) {
        assertEquals(3, e.operations("Intended-READ-THROTTLED"));
      }
    }
  }

  @Test
  void eachOperationHasItsOwnThrottledMeasurement() throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.error("ProvisionedThroughputExceededException", "x"))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint, "dynamodb.maxRetries", "1",
          "dynamodb.retryBaseDelayMs", "0"), m);
      try {
        assertEquals(DynamoDbClient.THROTTLED, db.insert("usertable", "k", values("field0", "v")));
        assertEquals(DynamoDbClient.THROTTLED, db.update("usertable", "k", values("field0", "v")));
        assertEquals(DynamoDbClient.THROTTLED, db.delete("usertable", "k"));
        assertEquals(DynamoDbClient.THROTTLED, db.scan("usertable", "k", 5, null, new Vector<>()));
      } finally {
        db.cleanup();
      }
      CapturingExporter e = CapturingExporter.of(m);
      for (String op : new String[] {"INSERT", "UPDATE", "DELETE", "SCAN"}) {
        assertEquals(2, e.operations(op + "-THROTTLED"), op);
      }
      assertEquals(8, fake.requests.size());
    }
  }

  @Test
  void otherServiceErrorsAreErrorsAndNotRetried() throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.error("ResourceNotFoundException", "no table"))) {
      Measurements m = measurements("op");
      DynamoDbClient db = open(props("dynamodb.endpoint", fake.endpoint), m);
      try {
        for (int i = 0; i < 3; i++) {
          assertEquals(Status.ERROR, db.read("usertable", "k", null, new HashMap<>()));
        }
      } finally {
        db.cleanup();
      }
      assertEquals(3, fake.requests.size());
      assertEquals(0, CapturingExporter.of(m).operations("READ-THROTTLED"));
      long counted = DynamoDbClient.errorCounts().entrySet().stream()
          .filter(x -> x.getKey().startsWith("READ ") && x.getKey().contains("ResourceNotFoundException"))
          .mapToLong(x -> x.getValue()).sum();
      assertTrue(counted >= 3, "distinct errors are counted: " + DynamoDbClient.errorCounts());
    }
  }
}
