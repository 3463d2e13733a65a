package dev.fleetbench.ycsb;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import site.ycsb.ByteIterator;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

final class Bindings {
  private Bindings() {}

  static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  /** A binding initialised on these properties, measuring into its own registry. */
  static DynamoDbClient open(Properties p, Measurements m) throws Exception {
    DynamoDbClient db = new DynamoDbClient();
    db.setProperties(p);
    db.useMeasurements(m);
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
}
