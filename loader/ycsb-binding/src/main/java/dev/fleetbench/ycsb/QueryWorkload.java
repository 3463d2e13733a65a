package dev.fleetbench.ycsb;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ThreadLocalRandom;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBWrapper;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * YCSB's CoreWorkload plus a query operation: with probability {@value #QUERY_PROPORTION} a transaction is a query
 * instead of one of CoreWorkload's operations (which then share the rest in their own proportions). A query picks
 * its key and fields exactly as CoreWorkload's read does (the same key chooser and request distribution) and asks
 * the binding's {@link Querying#query}; it is measured like YCSB's own operations, under the name {@code QUERY}
 * (latency, {@code Intended-QUERY}, {@code Return=} lines, {@code QUERY-FAILED} for failures, and
 * {@code QUERY-THROTTLED} per throttled attempt from the binding's retry loop). {@link Launcher} installs it when
 * {@code queryproportion} is above 0 and the workload is CoreWorkload.
 */
public class QueryWorkload extends CoreWorkload {
  public static final String QUERY_PROPORTION = "queryproportion";
  public static final String OP = "QUERY";

  /** A binding that can run a query. */
  public interface Querying {
    Status query(String table, String key, Set<String> fields, Vector<HashMap<String, ByteIterator>> result);
  }

  private static final Field WRAPPED = field();
  private static final Method MEASURE = measureMethod();

  private double queryProportion;

  @Override
  public void init(Properties p) throws WorkloadException {
    super.init(p);
    queryProportion = proportion(p.getProperty(QUERY_PROPORTION, "0"));
  }

  static double proportion(String raw) throws WorkloadException {
    try {
      double q = Double.parseDouble(raw.trim());
      if (q >= 0 && q <= 1) {
        return q;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new WorkloadException(QUERY_PROPORTION + ": '" + raw.trim() + "' is not a number from 0 to 1");
  }

  @Override
  public boolean doTransaction(DB db, Object threadstate) {
    if (queryProportion > 0 && (queryProportion >= 1 || ThreadLocalRandom.current().nextDouble() < queryProportion)) {
      doTransactionRead(new AsQuery(db));
      return true;
    }
    return super.doTransaction(db, threadstate);
  }

  /** CoreWorkload's read, turned into a query of the same key and fields, measured as QUERY. */
  private final class AsQuery extends DB {
    private final DB outer;
    private final Querying binding;

    AsQuery(DB outer) {
      this.outer = outer;
      DB inner = outer;
      if (outer instanceof DBWrapper) {
        try {
          inner = (DB) WRAPPED.get(outer);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("cannot reach the binding inside YCSB's DBWrapper", e);
        }
      }
      if (!(inner instanceof Querying)) {
        throw new IllegalStateException(QUERY_PROPORTION + " > 0 needs a binding with a query operation "
            + "(dev.fleetbench.ycsb.DynamoDbClient); " + inner.getClass().getName() + " has none");
      }
      this.binding = (Querying) inner;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
      Measurements m = Measurements.getMeasurements();
      long ist = m.getIntendedtartTimeNs();
      long st = System.nanoTime();
      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      Status res = binding.query(table, key, fields, rows);
      long en = System.nanoTime();
      if (!rows.isEmpty()) {
        result.putAll(rows.get(0));
      }
      measure(m, res, ist, st, en);
      m.reportStatus(OP, res);
      return res;
    }

    /** DBWrapper's own measure() (its naming of failed operations), or the same rule when it is not a DBWrapper. */
    private void measure(Measurements m, Status res, long ist, long st, long en) {
      if (outer instanceof DBWrapper && MEASURE != null) {
        try {
          MEASURE.invoke(outer, OP, res, ist, st, en);
          return;
        } catch (ReflectiveOperationException e) {
          // fall through to the plain rule
        }
      }
      String name = res != null && res.isOk() ? OP : OP + "-FAILED";
      m.measure(name, (int) ((en - st) / 1000));
      m.measureIntended(name, (int) ((en - ist) / 1000));
    }

    @Override
    public Status scan(String t, String k, int n, Set<String> f, Vector<HashMap<String, ByteIterator>> r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Status update(String t, String k, Map<String, ByteIterator> v) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Status insert(String t, String k, Map<String, ByteIterator> v) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Status delete(String t, String k) {
      throw new UnsupportedOperationException();
    }
  }

  private static Field field() {
    try {
      Field f = DBWrapper.class.getDeclaredField("db");
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("YCSB's DBWrapper has no field 'db' (YCSB 0.17.0 expected)", e);
    }
  }

  private static Method measureMethod() {
    try {
      Method m = DBWrapper.class.getDeclaredMethod("measure", String.class, Status.class, long.class, long.class,
          long.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }
}
