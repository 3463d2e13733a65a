package dev.fleetbench.ycsb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetbench.ycsb.CapturingExporter;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The Redis binding against a real three-node Redis Cluster on loopback (three redis-server processes joined by
 * {@code redis-cli --cluster create}): records spread over the nodes, followed redirects measured, exhausted
 * redirects and a standalone client pointed at a cluster node counted as MOVED / ASK.
 */
class RedisClusterTest {
  private static RedisCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster = RedisCluster.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Measurements measurements() {
    Properties p = new Properties();
    p.setProperty("measurement.interval", "op");
    return new Measurements(p);
  }

  private static RedisDb open(Measurements m, boolean clusterMode, String host, String... kv) throws DBException {
    RedisDb db = new RedisDb();
    Properties p = new Properties();
    p.setProperty("redis.host", host);
    p.setProperty("redis.cluster", Boolean.toString(clusterMode));
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    db.setProperties(p);
    db.useMeasurements(m);
    db.init();
    return db;
  }

  private static Map<String, ByteIterator> values(String v) {
    return StringByteIterator.getByteIteratorMap(Map.of("field0", v));
  }

  private static int slot(String key) {
    try (Jedis j = cluster.nodes.get(0).admin()) {
      return (int) j.clusterKeySlot(key); // the server's CRC16, not the client's
    }
  }

  /** Each test starts from an empty cluster (the other test's keys gone). */
  @BeforeEach
  void empty() {
    for (LocalRedis node : cluster.nodes) {
      try (Jedis j = node.admin()) {
        j.flushAll();
      }
    }
  }

  @Test
  void recordsSpreadOverTheNodesAndAStandaloneClientOnOneNodeCountsMoved() throws Exception {
    RedisDb db = open(measurements(), true, cluster.seeds(), "threadcount", "2");
    int n = 300;
    try {
      for (int i = 0; i < n; i++) {
        assertEquals(Status.OK, db.insert("usertable", "user" + i, values("v" + i)));
      }
      for (int i = 0; i < n; i++) {
        Map<String, ByteIterator> r = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user" + i, null, r));
        assertEquals("v" + i, r.get("field0").toString());
      }
    } finally {
      db.cleanup();
    }
    long total = 0;
    for (LocalRedis node : cluster.nodes) {
      try (Jedis j = node.admin()) {
        long keys = j.dbSize();
        assertTrue(keys > 0, "node " + node.port + " holds records");
        total += keys;
      }
    }
    assertEquals(n + 1, total, "300 hashes and one _indices set over the three nodes");

    LocalRedis first = cluster.nodes.get(0);
    int notHere = 0;
    for (int i = 0; i < n; i++) {
      notHere += cluster.ownerOf(slot("user" + i)) == first ? 0 : 1;
    }
    RedisDb direct = open(measurements(), false, "127.0.0.1:" + first.port);
    int moved = 0;
    int ok = 0;
    try {
      for (int i = 0; i < n; i++) {
        Status s = direct.read("usertable", "user" + i, null, new HashMap<>());
        moved += s.getName().equals("MOVED") ? 1 : 0;
        ok += s == Status.OK ? 1 : 0;
      }
    } finally {
      direct.cleanup();
    }
    assertTrue(notHere > 0 && notHere < n, "keys on other nodes: " + notHere);
    assertEquals(notHere, moved, "every key of another node's slot is a MOVED status");
    assertEquals(n - notHere, ok);
  }

  @Test
  void aSlotMigrationIsMeasuredAsRedirectsAndExhaustedRedirectsAreAskOrMoved() throws Exception {
    String key = "migrating-key";
    int slot = slot(key);
    LocalRedis source = cluster.ownerOf(slot);
    LocalRedis target = cluster.nodes.get((cluster.nodes.indexOf(source) + 1) % 3);
    Measurements follows = measurements();
    Measurements once = measurements();
    RedisDb a = open(follows, true, cluster.seeds());
    RedisDb b = open(once, true, cluster.seeds(), "redis.cluster.maxAttempts", "1");
    try (Jedis src = source.admin(); Jedis dst = target.admin()) {
      String sourceId = src.clusterMyId();
      String targetId = dst.clusterMyId();
      assertEquals(0, src.clusterCountKeysInSlot(slot), "the slot is empty, so it can move without MIGRATE");
      dst.clusterSetSlotImporting(slot, sourceId);
      src.clusterSetSlotMigrating(slot, targetId);

      // migrating: the source answers ASK for a key it does not have
      assertEquals(Status.OK, a.insert("usertable", key, values("x")));
      assertEquals(1, CapturingExporter.of(follows).operations(RedisConnections.REDIRECT_ASK));
      dst.asking(); // the importing node serves the slot only to a client that says ASKING first
      assertEquals(Map.of("field0", "x"), dst.hgetAll(key), "written to the importing node");
      assertEquals("ASK", b.read("usertable", key, null, new HashMap<>()).getName(), "one attempt: ASK");

      for (LocalRedis node : cluster.nodes) {
        try (Jedis j = node.admin()) {
          j.clusterSetSlotNode(slot, targetId);
        }
      }
      // moved: both clients' slot caches still name the source
      Map<String, ByteIterator> r = new HashMap<>();
      assertEquals(Status.OK, a.read("usertable", key, null, r));
      assertEquals(1, CapturingExporter.of(follows).operations(RedisConnections.REDIRECT_MOVED));
      assertEquals("MOVED", b.update("usertable", key, values("y")).getName(), "one attempt: MOVED");
      assertEquals(Status.OK, b.update("usertable", key, values("y")), "the MOVED reply refreshed the slots");
      assertEquals("y", dst.hget(key, "field0"));
      CapturingExporter o = CapturingExporter.of(once);
      assertEquals(1, o.operations(RedisConnections.REDIRECT_ASK), "the unfollowed ASK is measured too");
      assertEquals(1, o.operations(RedisConnections.REDIRECT_MOVED), "the unfollowed MOVED is measured too");
    } finally {
      a.cleanup();
      b.cleanup();
    }
  }
}
