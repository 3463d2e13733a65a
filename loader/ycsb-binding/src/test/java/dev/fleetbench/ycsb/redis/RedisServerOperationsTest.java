package dev.fleetbench.ycsb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetbench.ycsb.CapturingExporter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The Redis binding against one real standalone redis-server with a default-user password and an ACL user:
 * the records' layout (upstream's: a hash per record and the {@code _indices} sorted set), every operation,
 * AUTH, and real BUSY / TIMEOUT replies counted under their own status.
 */
class RedisServerOperationsTest {
  private static final String DEFAULT_PW = "default-pw";
  private static LocalRedis redis;

  @BeforeAll
  static void start() throws Exception {
    redis = LocalRedis.start("--requirepass", DEFAULT_PW, "--user", "bench", "on", ">s3cret", "~*", "&*", "+@all",
        "--busy-reply-threshold", "50");
  }

  @AfterAll
  static void stop() throws Exception {
    if (redis != null) {
      redis.close();
    }
  }

  private static Jedis admin() {
    Jedis j = redis.admin();
    j.auth(DEFAULT_PW);
    return j;
  }

  private static RedisDb open(Measurements m, String... kv) throws DBException {
    RedisDb db = new RedisDb();
    Properties p = redis.props("redis.password", DEFAULT_PW);
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    db.setProperties(p);
    db.useMeasurements(m);
    db.init();
    return db;
  }

  private static Map<String, ByteIterator> values(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  private static Map<String, String> strings(Map<String, ByteIterator> m) {
    Map<String, String> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }

  private static Measurements measurements() {
    Properties p = new Properties();
    p.setProperty("measurement.interval", "op");
    return new Measurements(p);
  }

  @Test
  void recordsAreStoredAsUpstreamAndEveryOperationWorks() throws Exception {
    RedisDb db = open(measurements());
    try (Jedis a = admin()) {
      a.flushAll();
      assertEquals(Status.OK, db.insert("usertable", "user1", values("field0", "a", "field1", "b")));
      assertEquals(Map.of("field0", "a", "field1", "b"), a.hgetAll("user1"), "a hash per record at the key");
      assertEquals((double) "user1".hashCode(), a.zscore("_indices", "user1"), "scan index: score = hashCode");

      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "user1", null, all));
      assertEquals(Map.of("field0", "a", "field1", "b"), strings(all));
      Map<String, ByteIterator> one = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "user1", Set.of("field1", "nope"), one));
      assertEquals(Map.of("field1", "b"), strings(one), "projection; absent fields left out");

      assertEquals(Status.OK, db.update("usertable", "user1", values("field1", "B")));
      assertEquals(Map.of("field0", "a", "field1", "B"), a.hgetAll("user1"), "update changes only given fields");
      assertEquals(Status.NOT_FOUND, db.read("usertable", "nobody", null, new HashMap<>()));

      assertEquals(Status.OK, db.delete("usertable", "user1"));
      assertEquals(0, a.exists("user1") ? 1 : 0);
      assertNull(a.zscore("_indices", "user1"), "delete also removes the index entry");
      assertEquals(Status.NOT_FOUND, db.delete("usertable", "user1"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void scanFollowsTheIndexInHashCodeOrder() throws Exception {
    RedisDb db = open(measurements());
    try (Jedis a = admin()) {
      a.flushAll();
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        keys.add("user" + (i * 7919L));
        assertEquals(Status.OK, db.insert("usertable", keys.get(i), values("field0", "v" + i)));
      }
      // independent: sort by (hashCode, key) as a sorted set orders equal scores, start at the start key's score
      String start = keys.get(11);
      List<String> expected = keys.stream().filter(k -> k.hashCode() >= start.hashCode())
          .sorted(Comparator.<String>comparingInt(String::hashCode).thenComparing(Comparator.naturalOrder()))
          .limit(6).toList();
      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      assertEquals(Status.OK, db.scan("usertable", start, 6, null, rows));
      List<String> got = new ArrayList<>();
      for (HashMap<String, ByteIterator> r : rows) {
        got.add(r.get("field0").toString());
      }
      List<String> want = expected.stream().map(k -> "v" + keys.indexOf(k)).toList();
      assertEquals(want, got);
    } finally {
      db.cleanup();
    }
  }

  @Test
  void authWithAnAclUserFromTheEnvironmentAndBadCredentialsFailAtInit() throws Exception {
    Properties p = redis.props();
    RedisConfig c = RedisConfig.from(p,
        Map.of(RedisConfig.USERNAME_ENV, "bench", RedisConfig.PASSWORD_ENV, "s3cret"));
    try (Jedis j = RedisConnections.standalone(c)) {
      assertEquals("bench", j.aclWhoAmI(), "authenticated as the ACL user from FLEETBENCH_REDIS_*");
    }
    RedisDb wrong = new RedisDb();
    wrong.setProperties(redis.props("redis.username", "bench", "redis.password", "nope"));
    wrong.useMeasurements(measurements());
    DBException e = assertThrows(DBException.class, wrong::init);
    assertTrue(e.getMessage().contains("WRONGPASS"), e.getMessage());
    RedisDb none = new RedisDb();
    none.setProperties(redis.props());
    none.useMeasurements(measurements());
    DBException e2 = assertThrows(DBException.class, none::init);
    assertTrue(e2.getMessage().contains("NOAUTH"), e2.getMessage());
  }

  @Test
  void badPropertiesNameTheProperty() {
    Properties p = new Properties();
    p.setProperty("redis.host", "a:1,b:99999");
    p.setProperty("redis.timeout", "-3");
    p.setProperty("redis.tls.caFile", "/x.pem");
    p.setProperty("redis.username", "u");
    DBException e = assertThrows(DBException.class, () -> RedisConfig.from(p, Map.of()));
    String m = e.getMessage();
    for (String want : new String[] {"redis.host[1]: port '99999'", "redis.timeout: -3 is outside",
        "redis.tls.caFile: set without redis.tls=true", "redis.username: set without redis.password"}) {
      assertTrue(m.contains(want), want + " in " + m);
    }
    Properties two = new Properties();
    two.setProperty("redis.host", "a,b");
    assertTrue(assertThrows(DBException.class, () -> RedisConfig.from(two, Map.of())).getMessage()
        .contains("redis.host: 2 hosts given without redis.cluster=true"));
  }

  private static boolean busy(Jedis a) {
    try {
      a.ping();
      return false;
    } catch (redis.clients.jedis.exceptions.JedisBusyException e) {
      return true;
    }
  }

  @Test
  void aBusyServerIsCountedAsBusyWithEachRetriedAttemptMeasured() throws Exception {
    Measurements m = measurements();
    RedisDb db = open(m, "redis.maxRetries", "2", "redis.retryBaseDelayMs", "1", "redis.timeout", "5000");
    CompletableFuture<Object> script = CompletableFuture.supplyAsync(() -> {
      try (Jedis a = admin()) {
        return a.eval("while true do end", 0);
      } catch (RuntimeException killed) {
        return killed;
      }
    });
    try (Jedis a = admin()) {
      // past busy-reply-threshold (50 ms) the server answers BUSY to everything else; wait until it does
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!busy(a)) {
        assertTrue(System.nanoTime() < deadline, "the script never made the server busy");
        Thread.sleep(20);
      }
      assertEquals("BUSY", db.read("usertable", "user1", null, new HashMap<>()).getName());
      assertEquals("BUSY", db.update("usertable", "user1", values("f", "v")).getName());
      assertEquals(4, CapturingExporter.of(m).operations("RETRY-BUSY"), "2 retried attempts per operation");
      a.scriptKill();
    } finally {
      script.get();
      db.cleanup();
    }
    assertTrue(RedisDb.errorCounts().getOrDefault("READ BUSY JedisBusyException", 0L) >= 1,
        "counted by kind: " + RedisDb.errorCounts());
  }

  @Test
  void aPausedServerIsATimeoutAndTheConnectionIsReopened() throws Exception {
    RedisDb db = open(measurements(), "redis.timeout", "150");
    try (Jedis a = admin()) {
      a.hset("user9", "field0", "x");
      a.clientPause(800);
      assertEquals("TIMEOUT", db.read("usertable", "user9", null, new HashMap<>()).getName());
      Thread.sleep(900);
      Map<String, ByteIterator> r = new HashMap<>();
      assertEquals(Status.OK, db.read("usertable", "user9", null, r), "a fresh connection after the timeout");
      assertEquals(Map.of("field0", "x"), strings(r));
    } finally {
      db.cleanup();
    }
  }
}
