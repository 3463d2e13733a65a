package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.CqlSession;
import dev.fleetbench.ycsb.CqlClient;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/** Small helpers for the CQL binding's tests. */
final class Cql {
  private Cql() {}

  static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  /** Properties that reach the local server, as the superuser, in this keyspace, plus the extra ones. */
  static Properties serverProps(String keyspace, String... extra) {
    Properties p = props(CqlConfig.HOSTS, LocalCassandra.server().hosts(), CqlConfig.KEYSPACE, keyspace,
        CqlConfig.USERNAME, LocalCassandra.USER, CqlConfig.PASSWORD, LocalCassandra.PASSWORD,
        CqlConfig.REPLICATION_FACTOR, "1", CqlConfig.READ_CONSISTENCY, "ONE", CqlConfig.WRITE_CONSISTENCY, "ONE");
    p.putAll(props(extra));
    return p;
  }

  /** A binding on these properties, measuring into its own registry, optionally on a given session. */
  static CqlDb open(Properties p, Measurements m, CqlSession session) throws Exception {
    CqlDb db = new CqlClient();
    db.setProperties(p);
    db.useMeasurements(m);
    if (session != null) {
      db.useSession(session);
    }
    db.init();
    return db;
  }

  static Measurements measurements(String interval) {
    return new Measurements(props("measurement.interval", interval));
  }

  static Map<String, ByteIterator> values(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  static Map<String, String> strings(Map<String, ByteIterator> m) {
    return StringByteIterator.getStringMap(m);
  }
}
