package dev.fleetbench.ycsb.cql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import com.datastax.oss.driver.api.core.loadbalancing.LoadBalancingPolicy;
import com.datastax.oss.driver.internal.core.loadbalancing.DefaultLoadBalancingPolicy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The binding's CRUD and scan against a real Apache Cassandra node; expected values are read back through a
 * separate plain driver session (not through the binding).
 */
@ExtendWith(LocalCassandra.class)
class CqlServerOperationsTest {
  private static final String KS = "ops";
  private static final String TABLE = "usertable";
  private static CqlSession raw;

  @BeforeAll
  static void schema() throws Exception {
    CqlSchema.create(Cql.serverProps(KS, CqlConfig.FIELD_COUNT, "10"));
    raw = CqlSessions.open(CqlConfig.from(Cql.serverProps(KS)), false);
  }

  @AfterAll
  static void close() {
    if (raw != null) {
      raw.close();
    }
  }

  private static Map<String, String> rawRow(String key) {
    Row r = raw.execute(SimpleStatement.newInstance("SELECT * FROM ops.usertable WHERE y_id = ?", key)).one();
    if (r == null) {
      return null;
    }
    Map<String, String> out = new TreeMap<>();
    for (int i = 0; i < 10; i++) {
      String v = r.getString("field" + i);
      if (v != null) {
        out.put("field" + i, v);
      }
    }
    return out;
  }

  private static CqlDb open(String... extra) throws Exception {
    return Cql.open(Cql.serverProps(KS, extra), Cql.measurements("op"), null);
  }

  @Test
  void schemaHelperMadeTheSeedAppendixTable() {
    Row ks = raw.execute(SimpleStatement.newInstance(
        "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", KS)).one();
    assertNotNull(ks, "keyspace exists");
    Map<String, String> rep = ks.getMap("replication", String.class, String.class);
    assertTrue(rep.get("class").endsWith("NetworkTopologyStrategy"), rep.toString());
    assertEquals("1", rep.get("datacenter1"), "RF 1 in the node's data centre: " + rep);
    List<Row> cols = raw.execute(SimpleStatement.newInstance(
        "SELECT column_name, kind, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
        KS, TABLE)).all();
    Map<String, String> kinds = cols.stream()
        .collect(Collectors.toMap(r -> r.getString("column_name"), r -> r.getString("kind") + " " + r.getString("type")));
    Map<String, String> expected = new HashMap<>();
    expected.put("y_id", "partition_key text");
    for (int i = 0; i < 10; i++) {
      expected.put("field" + i, "regular text");
    }
    assertEquals(expected, kinds);
  }

  @Test
  void insertThenReadAllFieldsAndProjection() throws Exception {
    CqlDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user1", Cql.values("field0", "a", "field1", "b", "field7", "h")));
      assertEquals(Map.of("field0", "a", "field1", "b", "field7", "h"), rawRow("user1"));

      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "user1", null, all));
      assertEquals(Map.of("field0", "a", "field1", "b", "field7", "h"), Cql.strings(all), "key column not a field");

      Map<String, ByteIterator> some = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "user1", Set.of("field7", "field0"), some));
      assertEquals(Map.of("field0", "a", "field7", "h"), Cql.strings(some));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void updateChangesOnlyTheGivenFields() throws Exception {
    CqlDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user2", Cql.values("field0", "a", "field1", "b", "field2", "c")));
      assertEquals(Status.OK, db.update(TABLE, "user2", Cql.values("field1", "B", "field9", "J")));
      assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c", "field9", "J"), rawRow("user2"));
      // like CQL's UPDATE (an upsert), updating an absent row creates it
      assertEquals(Status.OK, db.update(TABLE, "user2-new", Cql.values("field3", "d")));
      assertEquals(Map.of("field3", "d"), rawRow("user2-new"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void missingRowIsNotFoundAndDeleteRemovesTheRow() throws Exception {
    CqlDb db = open();
    try {
      assertEquals(Status.NOT_FOUND, db.read(TABLE, "nobody", null, new HashMap<>()));
      assertEquals(Status.NOT_FOUND, db.read(TABLE, "nobody", Set.of("field1"), new HashMap<>()));
      assertEquals(Status.OK, db.insert(TABLE, "user3", Cql.values("field0", "x")));
      assertNotNull(rawRow("user3"));
      assertEquals(Status.OK, db.delete(TABLE, "user3"));
      assertNull(rawRow("user3"), "row gone on the server");
      assertEquals(Status.NOT_FOUND, db.read(TABLE, "user3", null, new HashMap<>()));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void scanReturnsRowsInTokenOrderFromTheStartKey() throws Exception {
    CqlDb db = Cql.open(Cql.serverProps(KS, CqlConfig.KEYSPACE, KS, "table", "scantable"),
        Cql.measurements("op"), null);
    try {
      CqlSchema.create(raw, KS, "scantable", 1, 3);
      for (int i = 0; i < 30; i++) {
        assertEquals(Status.OK,
            db.insert("scantable", "s" + i, Cql.values("field0", "v" + i, "field1", "w" + i, "field2", "z" + i)));
      }
      // independent expectation: every key with its token, sorted by token
      List<Row> tokens = raw.execute(SimpleStatement.newInstance(
          "SELECT y_id, token(y_id) AS t FROM ops.scantable")).all();
      List<Row> byToken = new ArrayList<>(tokens);
      byToken.sort(Comparator.comparingLong(r -> r.getLong("t")));
      assertEquals(30, byToken.size());
      int startIndex = 7;
      String start = byToken.get(startIndex).getString("y_id");
      List<String> expectedKeys = new ArrayList<>();
      for (int i = startIndex; i < startIndex + 10; i++) {
        expectedKeys.add(byToken.get(i).getString("y_id"));
      }

      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      assertEquals(Status.OK, db.scan("scantable", start, 10, null, rows));
      assertEquals(10, rows.size());
      List<String> got = new ArrayList<>();
      for (HashMap<String, ByteIterator> r : rows) {
        Map<String, String> s = Cql.strings(r);
        String key = "s" + s.get("field0").substring(1);
        assertEquals(Map.of("field0", "v" + key.substring(1), "field1", "w" + key.substring(1), "field2",
            "z" + key.substring(1)), s);
        got.add(key);
      }
      assertEquals(expectedKeys, got, "token order from the start key, start included");

      Vector<HashMap<String, ByteIterator>> projected = new Vector<>();
      assertEquals(Status.OK, db.scan("scantable", start, 3, Set.of("field1"), projected));
      assertEquals(3, projected.size());
      assertEquals(Set.of("field1"), projected.get(0).keySet());

      // near the end of the ring: fewer rows, still OK (no wrap-around)
      Vector<HashMap<String, ByteIterator>> tail = new Vector<>();
      assertEquals(Status.OK, db.scan("scantable", byToken.get(27).getString("y_id"), 10, null, tail));
      assertEquals(3, tail.size());
    } finally {
      db.cleanup();
    }
  }

  @Test
  void consistencyLevelsAreSetOnEveryBoundStatement() throws Exception {
    RecordingSession rec = new RecordingSession(raw);
    CqlDb db = Cql.open(Cql.serverProps(KS, CqlConfig.READ_CONSISTENCY, "local_quorum",
        CqlConfig.WRITE_CONSISTENCY, "ALL"), Cql.measurements("op"), rec.session);
    try {
      assertEquals(Status.OK, db.insert(TABLE, "c1", Cql.values("field0", "a")));
      assertEquals(Status.OK, db.update(TABLE, "c1", Cql.values("field1", "b")));
      assertEquals(Status.OK, db.read(TABLE, "c1", null, new HashMap<>()));
      assertEquals(Status.OK, db.scan(TABLE, "c1", 2, null, new Vector<>()));
      assertEquals(Status.OK, db.delete(TABLE, "c1"));
      assertEquals(5, rec.executed.size());
      Map<String, DefaultConsistencyLevel> expected = Map.of("INSERT", DefaultConsistencyLevel.ALL, "UPDATE",
          DefaultConsistencyLevel.ALL, "SELECT", DefaultConsistencyLevel.LOCAL_QUORUM, "DELETE",
          DefaultConsistencyLevel.ALL);
      for (Statement<?> st : rec.executed) {
        BoundStatement b = assertInstanceOf(BoundStatement.class, st, "prepared and bound");
        String verb = b.getPreparedStatement().getQuery().split(" ")[0];
        assertEquals(expected.get(verb), b.getConsistencyLevel(), b.getPreparedStatement().getQuery());
        // token-aware routing: the driver computes the partition key from the bound key
        assertEquals("ops", b.getRoutingKeyspace() == null ? null : b.getRoutingKeyspace().asInternal());
      }
      BoundStatement read = (BoundStatement) rec.executed.get(2);
      assertEquals(ByteBuffer.wrap("c1".getBytes(StandardCharsets.UTF_8)), read.getRoutingKey());
    } finally {
      db.cleanup();
    }
  }

  /**
   * Amazon Keyspaces' levels (LOCAL_QUORUM writes and reads, what cql.service=keyspaces enforces) on a real
   * server, in its local data centre: every operation succeeds (Keyspaces itself, SigV4 and TLS cannot run here).
   */
  @Test
  void keyspacesConsistencyLevelsOnARealServer() throws Exception {
    CqlDb db = open(CqlConfig.READ_CONSISTENCY, "LOCAL_QUORUM", CqlConfig.WRITE_CONSISTENCY, "LOCAL_QUORUM",
        CqlConfig.LOCAL_DC, "datacenter1");
    try {
      assertEquals(Status.OK, db.insert(TABLE, "lq1", Cql.values("field0", "a", "field1", "b")));
      assertEquals(Status.OK, db.update(TABLE, "lq1", Cql.values("field1", "c")));
      Map<String, ByteIterator> got = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "lq1", null, got));
      assertEquals("c", got.get("field1").toString());
      assertEquals(Map.of("field0", "a", "field1", "c"), rawRow("lq1"));
      assertEquals(Status.OK, db.delete(TABLE, "lq1"));
      assertNull(rawRow("lq1"));
    } finally {
      db.cleanup();
    }
  }

  /**
   * cql.ssl against the real server's TLS (what Keyspaces requires; here with the node's own certificate in
   * cql.truststore instead of Amazon's roots in the JVM's store): the operations succeed, the server lists the
   * connections as TLS, and without the trust store the untrusted certificate is refused.
   */
  @Test
  void tlsToARealServer() throws Exception {
    java.util.Properties p = Cql.serverProps(KS, CqlConfig.SSL, "true", CqlConfig.TRUSTSTORE,
        LocalCassandra.server().trustStore().toString(), CqlConfig.TRUSTSTORE_PASSWORD,
        LocalCassandra.STORE_PASSWORD);
    CqlDb db = Cql.open(p, Cql.measurements("op"), null);
    try {
      assertEquals(Status.OK, db.insert(TABLE, "tls1", Cql.values("field0", "t")));
      Map<String, ByteIterator> got = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "tls1", null, got));
      assertEquals("t", got.get("field0").toString());
    } finally {
      db.cleanup();
    }
    try (CqlSession tls = CqlSessions.open(CqlConfig.from(p), false)) {
      java.util.List<Row> clients = tls.execute("SELECT ssl_enabled, ssl_protocol FROM system_views.clients").all();
      assertTrue(clients.stream().anyMatch(r -> r.getBoolean("ssl_enabled") && r.getString("ssl_protocol") != null
          && r.getString("ssl_protocol").startsWith("TLS")), "no TLS connection listed by the server");
    }
    Exception untrusted = assertThrows(Exception.class, () -> Cql.open(Cql.serverProps(KS, CqlConfig.SSL, "true"),
        Cql.measurements("op"), null), "a self-signed certificate is not in the JVM's default trust store");
    StringBuilder chain = new StringBuilder();
    for (Throwable t = untrusted; t != null; t = t.getCause()) {
      chain.append(t).append('\n');
    }
    assertTrue(chain.toString().contains("PKIX") || chain.toString().contains("SSLHandshake"), chain.toString());
  }

  @Test
  void theServerSeesTheConsistencyLevel() throws Exception {
    // RF 1 on one node: THREE cannot be met, so a real server answers Unavailable -> ERROR, not retried
    CqlDb db = open(CqlConfig.READ_CONSISTENCY, "THREE", CqlConfig.WRITE_CONSISTENCY, "ONE");
    try {
      assertEquals(Status.OK, db.insert(TABLE, "cl3", Cql.values("field0", "a")));
      assertEquals(Status.ERROR, db.read(TABLE, "cl3", null, new HashMap<>()));
      assertTrue(CqlDb.errorCounts().getOrDefault("READ UnavailableException", 0L) >= 1, "" + CqlDb.errorCounts());
    } finally {
      db.cleanup();
    }
    // and the other way round: the write level is the one the server checks for writes
    CqlDb writes = open(CqlConfig.READ_CONSISTENCY, "ONE", CqlConfig.WRITE_CONSISTENCY, "THREE");
    try {
      assertEquals(Status.ERROR, writes.insert(TABLE, "cl3b", Cql.values("field0", "a")));
      assertEquals(Status.ERROR, writes.delete(TABLE, "cl3"));
      assertEquals(Status.OK, writes.read(TABLE, "cl3", null, new HashMap<>()));
      assertNull(rawRow("cl3b"), "the refused write did not happen");
    } finally {
      writes.cleanup();
    }
  }

  @Test
  void statementsArePreparedOncePerOperationAndFieldSet() throws Exception {
    RecordingSession rec = new RecordingSession(raw);
    CqlDb db = Cql.open(Cql.serverProps(KS), Cql.measurements("op"), rec.session);
    try {
      for (int i = 0; i < 40; i++) {
        assertEquals(Status.OK, db.insert(TABLE, "p" + i, Cql.values("field0", "a" + i, "field1", "b" + i)));
        assertEquals(Status.OK, db.read(TABLE, "p" + i, null, new HashMap<>()));
        // the same set in a different iteration order is the same statement
        Set<String> fields = i % 2 == 0 ? new TreeSet<>(List.of("field1", "field0"))
            : new TreeSet<>(Comparator.reverseOrder());
        fields.addAll(List.of("field0", "field1"));
        assertEquals(Status.OK, db.read(TABLE, "p" + i, fields, new HashMap<>()));
        assertEquals(Status.OK, db.update(TABLE, "p" + i, Cql.values("field1", "c" + i)));
      }
      assertEquals(160, rec.executes.get());
      assertEquals(4, rec.prepares.get(), "INSERT(f0,f1), READ *, READ (f0,f1), UPDATE(f1)");
      assertEquals(Status.OK, db.update(TABLE, "p0", Cql.values("field2", "x")));
      assertEquals(5, rec.prepares.get(), "a new field set is a new statement");
      assertEquals(5, db.prepareCount());
    } finally {
      db.cleanup();
    }
  }

  @Test
  void clientThreadsOfOneProcessShareTheSessionAndItsStatements() throws Exception {
    Properties p = Cql.serverProps(KS);
    CqlDb a = Cql.open(p, Cql.measurements("op"), null);
    CqlDb b = Cql.open(p, Cql.measurements("op"), null);
    try {
      assertSame(a.session(), b.session(), "one driver session per process");
      long before = a.prepareCount();
      assertEquals(Status.OK, a.insert(TABLE, "sh1", Cql.values("field4", "a", "field5", "a")));
      assertEquals(before + 1, a.prepareCount());
      assertEquals(Status.OK, b.insert(TABLE, "sh2", Cql.values("field5", "b", "field4", "b")));
      assertEquals(before + 1, b.prepareCount(), "the second thread reused the first one's statement");
      // token-aware, DC-aware driver default policy (replicas of the routing key first); driver retries off
      LoadBalancingPolicy lbp = a.session().getContext().getLoadBalancingPolicy(DriverExecutionProfile.DEFAULT_NAME);
      assertInstanceOf(DefaultLoadBalancingPolicy.class, lbp);
      assertInstanceOf(NeverRetryPolicy.class,
          a.session().getContext().getRetryPolicy(DriverExecutionProfile.DEFAULT_NAME));
    } finally {
      a.cleanup();
      b.cleanup();
    }
  }

  @Test
  void injectedDelayIsAddedToEveryOperation() throws Exception {
    CqlDb db = open(CqlConfig.INJECT_DELAY_US, "60000");
    try {
      long t0 = System.nanoTime();
      assertEquals(Status.OK, db.insert(TABLE, "slow", Cql.values("field0", "a")));
      assertEquals(Status.OK, db.read(TABLE, "slow", null, new HashMap<>()));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 120, "two operations with 60 ms injected each took " + ms + " ms");
    } finally {
      db.cleanup();
    }
  }

  @Test
  void badCredentialsOrMissingKeyspaceFailAtInit() {
    DBException auth = assertThrows(DBException.class,
        () -> Cql.open(Cql.serverProps(KS, CqlConfig.PASSWORD, "wrong"), Cql.measurements("op"), null));
    assertTrue(auth.getMessage().contains("cannot connect to"), auth.getMessage());
    assertTrue(auth.getMessage().toLowerCase().contains("authentication"), auth.getMessage());

    DBException ks = assertThrows(DBException.class,
        () -> Cql.open(Cql.serverProps("nosuchkeyspace"), Cql.measurements("op"), null));
    assertTrue(ks.getMessage().contains("nosuchkeyspace"), ks.getMessage());
  }
}
