package dev.fleetbench.ycsb.cql;

import dev.fleetbench.ycsb.CapturingExporter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.servererrors.DefaultWriteType;
import com.datastax.oss.driver.api.core.servererrors.OverloadedException;
import com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException;
import java.util.HashMap;
import java.util.Map;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/**
 * Overload and timeout accounting. A single local node cannot be made to answer "overloaded" on demand, so a
 * test double of the session (wrapping a real session to the local Cassandra node) answers the first N
 * executions with the driver's own exception types; the rest really run on the server.
 */
@ExtendWith(LocalCassandra.class)
class OverloadAccountingTest {
  private static final String KS = "overload";
  private static CqlSession raw;
  private static Node node;

  @BeforeAll
  static void schema() throws Exception {
    CqlSchema.create(Cql.serverProps(KS, CqlConfig.FIELD_COUNT, "2"));
    raw = CqlSessions.open(CqlConfig.from(Cql.serverProps(KS)), false);
    node = raw.getMetadata().getNodes().values().iterator().next();
  }

  @AfterAll
  static void close() {
    if (raw != null) {
      raw.close();
    }
  }

  /** A session whose first {@code n} executions throw {@code e}. */
  private static RecordingSession failingFirst(int n, RuntimeException e) {
    RecordingSession rec = new RecordingSession(raw);
    AtomicInteger left = new AtomicInteger(n);
    rec.fault = st -> left.getAndDecrement() > 0 ? e : null;
    return rec;
  }

  private static CqlDb open(RecordingSession rec, Measurements m) throws Exception {
    return Cql.open(Cql.serverProps(KS, CqlConfig.MAX_RETRIES, "3", CqlConfig.RETRY_BASE_DELAY_MS, "1"), m,
        rec.session);
  }

  @Test
  void overloadedAttemptsAreMeasuredAndRetriedThenSucceed() throws Exception {
    Measurements m = Cql.measurements("op");
    RecordingSession rec = failingFirst(2, new OverloadedException(node));
    CqlDb db = open(rec, m);
    try {
      assertEquals(Status.OK, db.insert("usertable", "o1", Cql.values("field0", "a")));
      assertEquals(3, rec.executes.get(), "two overloaded attempts, then the real write");
      Map<String, ByteIterator> row = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "o1", null, row));
      assertEquals(Map.of("field0", "a"), Cql.strings(row), "the retried write reached the server");
      CapturingExporter e = CapturingExporter.of(m);
      assertEquals(2, e.operations("INSERT-THROTTLED"));
      assertEquals(0, e.operations("READ-THROTTLED"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void overloadedOnEveryAttemptReturnsThrottledInEveryIntervalMode() throws Exception {
    for (String mode : new String[] {"op", "intended", "both"}) {
      Measurements m = Cql.measurements(mode);
      RecordingSession rec = failingFirst(Integer.MAX_VALUE, new OverloadedException(node, "Queue full"));
      CqlDb db = open(rec, m);
      try {
        assertEquals(CqlDb.THROTTLED, db.read("usertable", "o2", null, new HashMap<>()), mode);
        assertEquals("THROTTLED", db.scan("usertable", "o2", 5, null, new Vector<>()).getName(), mode);
        assertEquals(8, rec.executes.get(), mode + ": maxRetries 3 -> 4 attempts per operation");
        CapturingExporter e = CapturingExporter.of(m);
        assertEquals(4, e.operations("READ-THROTTLED"), mode + " " + e.rows.keySet());
        assertEquals(4, e.operations("SCAN-THROTTLED"), mode);
        assertEquals(mode.equals("both") ? 4 : 0, e.operations("Intended-READ-THROTTLED"), mode);
      } finally {
        db.cleanup();
      }
    }
  }

  /**
   * On Amazon Keyspaces (cql.service=keyspaces) a coordinator read/write timeout is its insufficient-capacity
   * signal: measured and retried as a throttle; the client's own timeout stays a TIMEOUT.
   */
  @Test
  void keyspacesTimeoutsAreThrottles() throws Exception {
    RuntimeException[] capacity = {
      new ReadTimeoutException(node, DefaultConsistencyLevel.LOCAL_QUORUM, 1, 2, false),
      new WriteTimeoutException(node, DefaultConsistencyLevel.LOCAL_QUORUM, 1, 2, DefaultWriteType.SIMPLE)
    };
    for (RuntimeException t : capacity) {
      Measurements m = Cql.measurements("op");
      RecordingSession rec = failingFirst(2, t);
      CqlDb db = Cql.open(Cql.props(CqlConfig.HOSTS, LocalCassandra.server().hosts(), CqlConfig.KEYSPACE, KS,
          CqlConfig.SERVICE, "keyspaces", CqlConfig.REGION, "us-east-1", CqlConfig.MAX_RETRIES, "3",
          CqlConfig.RETRY_BASE_DELAY_MS, "1"), m, rec.session);
      try {
        assertEquals(Status.OK, db.update("usertable", "k1", Cql.values("field1", "x")), t.toString());
        assertEquals(3, rec.executes.get(), "two throttled attempts, then the real write: " + t);
        assertEquals(2, CapturingExporter.of(m).operations("UPDATE-THROTTLED"), t.toString());
      } finally {
        db.cleanup();
      }
    }
    assertEquals(CqlDb.TIMEOUT, CqlDb.classify(new DriverTimeoutException("t"), true));
    assertEquals(CqlDb.TIMEOUT, CqlDb.classify(capacity[0], false), "on Cassandra a timeout is not a throttle");
  }

  @Test
  void timeoutsAreTheirOwnStatusAndNotRetried() throws Exception {
    RuntimeException[] timeouts = {
      new ReadTimeoutException(node, DefaultConsistencyLevel.QUORUM, 1, 2, false),
      new WriteTimeoutException(node, DefaultConsistencyLevel.QUORUM, 1, 2, DefaultWriteType.SIMPLE),
      new DriverTimeoutException("Query timed out after PT10S")
    };
    for (RuntimeException t : timeouts) {
      Measurements m = Cql.measurements("op");
      RecordingSession rec = failingFirst(1, t);
      CqlDb db = open(rec, m);
      try {
        assertEquals(CqlDb.TIMEOUT, db.update("usertable", "t1", Cql.values("field1", "x")), t.toString());
        assertEquals(1, rec.executes.get(), "not retried: " + t);
        assertEquals(0, CapturingExporter.of(m).operations("UPDATE-THROTTLED"), "a timeout is not a throttle");
      } finally {
        db.cleanup();
      }
    }
  }

  @Test
  void unavailableIsAnErrorLoggedOnceAndCounted() throws Exception {
    long before = CqlDb.errorCounts().getOrDefault("DELETE UnavailableException", 0L);
    RecordingSession rec = failingFirst(3, new UnavailableException(node, DefaultConsistencyLevel.QUORUM, 2, 1));
    CqlDb db = open(rec, Cql.measurements("op"));
    try {
      for (int i = 0; i < 3; i++) {
        assertEquals(Status.ERROR, db.delete("usertable", "u" + i));
      }
      assertEquals(3, rec.executes.get(), "not retried");
      assertEquals(before + 3, CqlDb.errorCounts().get("DELETE UnavailableException"));
      assertEquals(Status.OK, db.delete("usertable", "u3"), "the next (real) request succeeds");
    } finally {
      db.cleanup();
    }
  }

  @Test
  void classificationOfTheDriversErrors() {
    assertEquals(CqlDb.THROTTLED, CqlDb.classify(new OverloadedException(node)));
    assertEquals(CqlDb.TIMEOUT, CqlDb.classify(new DriverTimeoutException("t")));
    assertEquals(Status.ERROR, CqlDb.classify(new UnavailableException(node, DefaultConsistencyLevel.ONE, 1, 0)));
    assertEquals(Status.ERROR, CqlDb.classify(new IllegalStateException("x")));
    assertTrue(CqlDb.TIMEOUT.getName().equals("TIMEOUT") && CqlDb.THROTTLED.getName().equals("THROTTLED"));
  }
}
