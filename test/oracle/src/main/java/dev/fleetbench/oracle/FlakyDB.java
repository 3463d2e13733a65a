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
 * (default true) turns the failures off; {@code flakydb.twinstatus} (default false) makes 2% of calls return
 * {@link Status#SERVICE_UNAVAILABLE} and 2% the binding's own SERVICE_UNAVAILABLE, a status with the same name
 * and another description. YCSB counts statuses by name AND description ({@code Status.equals}) and prints the
 * name only ({@code OneMeasurement.exportStatusCounts}), so such a summary repeats
 * {@code [OP], Return=SERVICE_UNAVAILABLE} lines.
 */
public class FlakyDB extends BasicDB {
  private static final Status THROTTLED = new Status("THROTTLED", "Throttled after all retries");
  private static final Status RESTARTING = new Status("SERVICE_UNAVAILABLE", "The node is restarting.");
  private boolean failures = true;
  private boolean twinStatus = false;

  @Override
  public void init() {
    super.init();
    failures = Boolean.parseBoolean(getProperties().getProperty("flakydb.failures", "true"));
    twinStatus = Boolean.parseBoolean(getProperties().getProperty("flakydb.twinstatus", "false"));
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
    if (twinStatus && r < 0.13) {
      return Status.SERVICE_UNAVAILABLE;
    }
    if (twinStatus && r < 0.15) {
      return RESTARTING;
    }
    return s;
  }
}
