package dev.fleetbench.oracle;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import site.ycsb.BasicDB;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/**
 * A YCSB binding for fixtures: BasicDB's simulated delay, plus failures shaped like the fleetbench
 * DynamoDB-API binding's. Per read/update: 5% of calls record one throttled attempt as the
 * measurement {@code <OP>-THROTTLED} (then succeed), 3% return ERROR, 2% NOT_FOUND (reads only),
 * 1% return THROTTLED (a throttle that outlived its retries). Properties: {@code flakydb.failures}
 * (default true) turns the failures off.
 */
public class FlakyDB extends BasicDB {
  private static final Status THROTTLED = new Status("THROTTLED", "Throttled after all retries");
  private boolean failures = true;

  @Override
  public void init() {
    super.init();
    failures = Boolean.parseBoolean(getProperties().getProperty("flakydb.failures", "true"));
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    long st = System.nanoTime();
    Status s = super.read(table, key, fields, result);
    return outcome("READ", s, st, true);
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    long st = System.nanoTime();
    Status s = super.update(table, key, values);
    return outcome("UPDATE", s, st, false);
  }

  private Status outcome(String op, Status s, long st, boolean canBeMissing) {
    if (!failures) {
      return s;
    }
    double r = ThreadLocalRandom.current().nextDouble();
    if (r < 0.05) {
      Measurements.getMeasurements().measure(op + "-THROTTLED", (int) ((System.nanoTime() - st) / 1000));
      return s;
    }
    if (r < 0.08) {
      return Status.ERROR;
    }
    if (r < 0.10 && canBeMissing) {
      return Status.NOT_FOUND;
    }
    if (r < 0.11) {
      return THROTTLED;
    }
    return s;
  }
}
