package dev.fleetbench.ycsb.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The binding over TLS to a real redis-server that speaks only TLS, with a self-signed certificate for
 * 127.0.0.1 made by openssl: trusted through {@code redis.tls.caFile}; refused without it (the JVM's trust
 * store does not know it) and when the host name does not match the certificate.
 */
class RedisTlsTest {
  @TempDir
  Path dir;

  private RedisDb db(LocalRedis redis, String host, String... kv) throws DBException {
    Properties p = redis.props("redis.host", host, "redis.tls", "true");
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    Properties mp = new Properties();
    mp.setProperty("measurement.interval", "op");
    RedisDb db = new RedisDb();
    db.setProperties(p);
    db.useMeasurements(new Measurements(mp));
    db.init();
    return db;
  }

  private static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append('\n');
    }
    return b.toString();
  }

  @Test
  void tlsWithThePrivateCaAndRefusedWithoutItOrForAnotherHostName() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "1",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "openssl: " + out);

    try (LocalRedis redis = LocalRedis.startTls(cert, key)) {
      RedisDb db = db(redis, "127.0.0.1", "redis.tls.caFile", cert.toString());
      try {
        assertEquals(Status.OK, db.insert("usertable", "user1", StringByteIterator.getByteIteratorMap(
            Map.of("field0", "over-tls"))));
        Map<String, ByteIterator> r = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "user1", null, r));
        assertEquals("over-tls", r.get("field0").toString());
      } finally {
        db.cleanup();
      }
      DBException untrusted = assertThrows(DBException.class, () -> db(redis, "127.0.0.1"));
      assertTrue(chain(untrusted).contains("unable to find valid certification path"), chain(untrusted));
      DBException otherName = assertThrows(DBException.class,
          () -> db(redis, "localhost", "redis.tls.caFile", cert.toString()));
      assertTrue(chain(otherName).contains("No name matching localhost found"), chain(otherName));
      // the same name mismatch is accepted only when hostname verification is switched off explicitly
      db(redis, "localhost", "redis.tls.caFile", cert.toString(), "redis.tls.verifyHostname", "false").cleanup();
    }
  }
}
