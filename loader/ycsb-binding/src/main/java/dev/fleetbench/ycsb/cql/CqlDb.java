package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import dev.fleetbench.ycsb.BindingSupport;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.servererrors.OverloadedException;
import com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException;
import dev.fleetbench.ycsb.DynamoDbClient;
import dev.fleetbench.ycsb.Retrying;
import dev.fleetbench.ycsb.Retrying.Failed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The CQL binding (ScyllaDB, Apache Cassandra) on the ScyllaDB Java driver 4.x; YCSB loads it as
 * {@code dev.fleetbench.ycsb.CqlClient}.
 *
 * <p>Rows are {@code usertable (y_id varchar PRIMARY KEY, field0 varchar, ...)}. Every statement is prepared
 * once per process and (operation, table, field set) and bound with the YCSB key, so the driver routes it to
 * a replica of that key (token-aware). Reads and scans run at {@code cql.readConsistency}, inserts, updates and
 * deletes at {@code cql.writeConsistency} (both QUORUM by default).
 *
 * <p>Overload is counted, not hidden: the driver's retries are off ({@link NeverRetryPolicy}); an attempt
 * answered with {@code OverloadedException} is recorded as the measurement {@code <OP>-THROTTLED} and retried
 * after a back-off, up to {@code cql.maxRetries} times; then the operation returns {@link #THROTTLED}. Server
 * (read/write) and client request timeouts return {@link #TIMEOUT} without retry; anything else
 * ({@code UnavailableException}, no node available, bad query...) returns {@link Status#ERROR}. Each distinct
 * error is logged once.
 */
public class CqlDb extends DB {
  /** Still overloaded after every retry. The same status the DynamoDB-API binding returns for throttling. */
  public static final Status THROTTLED = DynamoDbClient.THROTTLED;
  /** A coordinator read/write timeout or the client's request timeout ({@code cql.requestTimeoutMs}). */
  public static final Status TIMEOUT =
      new Status("TIMEOUT", "The coordinator or the client timed out waiting for replicas.");

  private static final Logger LOG = LoggerFactory.getLogger(CqlDb.class);
  private static final BindingSupport.ErrorLog ERRORS = new BindingSupport.ErrorLog(LOG);
  private static final String KEY = CqlConfig.quote(CqlConfig.KEY_COLUMN);

  private CqlConfig config;
  private CqlSessions sessions;
  private Measurements measurements;
  private Retrying retrying;
  private CqlSession borrowed;

  /** For tests: measure into this registry instead of the process-wide singleton. */
  void useMeasurements(Measurements m) {
    this.measurements = m;
  }

  /** For tests: use this session (not closed by cleanup) instead of opening one from the properties. */
  void useSession(CqlSession session) {
    this.borrowed = session;
  }

  @Override
  public void init() throws DBException {
    config = CqlConfig.from(getProperties());
    if (measurements == null) {
      measurements = Measurements.getMeasurements();
    }
    retrying = retrying();
    if (borrowed != null) {
      sessions = CqlSessions.borrow(borrowed);
      return;
    }
    try {
      sessions = CqlSessions.acquire(config);
    } catch (RuntimeException e) {
      throw new DBException("fleetbench CQL binding: cannot connect to " + config.hosts + " (keyspace '"
          + config.keyspace + "'): " + e, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    if (sessions != null) {
      CqlSessions.release(sessions);
      sessions = null;
    }
  }

  CqlConfig config() {
    return config;
  }

  /** The driver session this DB uses (shared by the DB instances of the process). */
  CqlSession session() {
    return sessions.session;
  }

  /** Statements prepared by this DB's (shared) session so far. */
  long prepareCount() {
    return sessions.prepareCount();
  }

  // ------------------------------------------------------------------------------------------ operations

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    List<String> columns = sorted(fields);
    try {
      Row row = call("READ", s -> {
        PreparedStatement ps = sessions.prepared("READ|" + table + "|" + columns,
            () -> "SELECT " + selection(columns) + " FROM " + config.qualifiedTable(table) + " WHERE " + KEY
                + " = ?");
        return s.execute(readStatement(ps.bind(key))).one();
      });
      if (row == null) {
        return Status.NOT_FOUND;
      }
      copyFields(row, result);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    List<String> columns = sorted(fields);
    try {
      List<HashMap<String, ByteIterator>> rows = call("SCAN", s -> {
        PreparedStatement ps = sessions.prepared("SCAN|" + table + "|" + columns,
            () -> "SELECT " + selection(columns) + " FROM " + config.qualifiedTable(table) + " WHERE token(" + KEY
                + ") >= token(?) LIMIT ?");
        List<HashMap<String, ByteIterator>> out = new ArrayList<>();
        // iterating fetches further pages; a failure there fails (and retries) the whole scan
        for (Row row : s.execute(readStatement(ps.bind(startkey, recordcount)))) {
          HashMap<String, ByteIterator> r = new HashMap<>();
          copyFields(row, r);
          out.add(r);
        }
        return out;
      });
      result.addAll(rows);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    if (values.isEmpty()) {
      return Status.OK; // nothing to set
    }
    TreeMap<String, String> sortedValues = strings(values);
    List<String> columns = new ArrayList<>(sortedValues.keySet());
    try {
      call("UPDATE", s -> {
        PreparedStatement ps = sessions.prepared("UPDATE|" + table + "|" + columns, () -> {
          List<String> sets = new ArrayList<>();
          for (String c : columns) {
            sets.add(CqlConfig.quote(c) + " = ?");
          }
          return "UPDATE " + config.qualifiedTable(table) + " SET " + String.join(", ", sets) + " WHERE " + KEY
              + " = ?";
        });
        BoundStatementBuilder b = ps.boundStatementBuilder();
        int i = 0;
        for (String v : sortedValues.values()) {
          b.setString(i++, v);
        }
        b.setString(i, key);
        return s.execute(writeStatement(b.build()));
      });
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    TreeMap<String, String> sortedValues = strings(values);
    List<String> columns = new ArrayList<>(sortedValues.keySet());
    try {
      call("INSERT", s -> {
        PreparedStatement ps = sessions.prepared("INSERT|" + table + "|" + columns, () -> {
          StringBuilder names = new StringBuilder(KEY);
          StringBuilder marks = new StringBuilder("?");
          for (String c : columns) {
            names.append(", ").append(CqlConfig.quote(c));
            marks.append(", ?");
          }
          return "INSERT INTO " + config.qualifiedTable(table) + " (" + names + ") VALUES (" + marks + ")";
        });
        BoundStatementBuilder b = ps.boundStatementBuilder().setString(0, key);
        int i = 1;
        for (String v : sortedValues.values()) {
          b.setString(i++, v);
        }
        return s.execute(writeStatement(b.build()));
      });
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status delete(String table, String key) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      call("DELETE", s -> {
        PreparedStatement ps = sessions.prepared("DELETE|" + table,
            () -> "DELETE FROM " + config.qualifiedTable(table) + " WHERE " + KEY + " = ?");
        return s.execute(writeStatement(ps.bind(key)));
      });
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  private BoundStatement readStatement(BoundStatement b) {
    return b.setConsistencyLevel(config.readConsistency);
  }

  private BoundStatement writeStatement(BoundStatement b) {
    return b.setConsistencyLevel(config.writeConsistency);
  }

  // ------------------------------------------------------------------------------------------ retry loop

  /** Runs the request under the binding's retry loop (overloaded attempts measured as {@code <op>-THROTTLED}). */
  private <T> T call(String op, Function<CqlSession, T> request) throws Failed {
    return retrying.call(op, () -> request.apply(sessions.session));
  }

  /** Retries overloaded attempts; other errors go to the error log as "OP ExceptionClass". */
  private Retrying retrying() {
    boolean keyspaces = config.service == CqlConfig.Service.KEYSPACES;
    return new Retrying(measurements, config.maxRetries, config.retryBaseDelayMs, config.retryMaxDelayMs) {
      @Override
      protected Status classify(Exception e) {
        return CqlDb.classify(e, keyspaces);
      }

      @Override
      protected void noteError(String op, Status status, Exception e) {
        ERRORS.note(op, e.getClass().getSimpleName(), e.getMessage());
      }
    };
  }

  /** THROTTLED (retry), TIMEOUT or ERROR, for a Cassandra or ScyllaDB server. */
  static Status classify(Throwable e) {
    return classify(e, false);
  }

  /**
   * As {@link #classify(Throwable)}; on Amazon Keyspaces a coordinator read or write timeout is a throttle:
   * Keyspaces reports an insufficient-capacity event (table, partition or connection) with Cassandra's
   * ReadTimeout/WriteTimeout, as its own retry policy says (AmazonKeyspacesRetryPolicy in
   * software.aws.mcs:aws-sigv4-auth-cassandra-java-driver-plugin: "it's likely that WriteTimeoutException or
   * ReadTimeoutException is the result of exceeding current table capacity"; see
   * https://docs.aws.amazon.com/keyspaces/latest/devguide/troubleshooting.serverless.html). The client's own
   * request timeout stays a TIMEOUT.
   */
  static Status classify(Throwable e, boolean keyspaces) {
    if (e instanceof OverloadedException) {
      return THROTTLED;
    }
    if (keyspaces && (e instanceof ReadTimeoutException || e instanceof WriteTimeoutException)) {
      return THROTTLED;
    }
    if (e instanceof ReadTimeoutException || e instanceof WriteTimeoutException
        || e instanceof DriverTimeoutException) {
      return TIMEOUT;
    }
    if (e instanceof AllNodesFailedException) {
      // every node tried answered; overloaded only if each answer was "overloaded"
      Map<Node, List<Throwable>> all = ((AllNodesFailedException) e).getAllErrors();
      boolean any = false;
      for (List<Throwable> errors : all.values()) {
        for (Throwable t : errors) {
          if (!(t instanceof OverloadedException)) {
            return Status.ERROR;
          }
          any = true;
        }
      }
      return any ? THROTTLED : Status.ERROR;
    }
    return Status.ERROR;
  }

  /** How many times each distinct error ("OP ExceptionClass") was seen in this process. */
  static Map<String, Long> errorCounts() {
    return ERRORS.counts();
  }

  // ------------------------------------------------------------------------------------------ helpers

  /** Null (all columns) or the requested fields in a stable order, one prepared statement per set. */
  private static List<String> sorted(Set<String> fields) {
    return fields == null || fields.isEmpty() ? null : new ArrayList<>(new TreeSet<>(fields));
  }

  private static String selection(List<String> columns) {
    if (columns == null) {
      return "*";
    }
    List<String> quoted = new ArrayList<>();
    for (String c : columns) {
      quoted.add(CqlConfig.quote(c));
    }
    return String.join(", ", quoted);
  }

  private static TreeMap<String, String> strings(Map<String, ByteIterator> values) {
    TreeMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      out.put(e.getKey(), e.getValue().toString());
    }
    return out;
  }

  /** Every non-null column except the key; absent (null) columns are not returned. */
  private static void copyFields(Row row, Map<String, ByteIterator> out) {
    int i = 0;
    for (ColumnDefinition d : row.getColumnDefinitions()) {
      String name = d.getName().asInternal();
      if (!name.equals(CqlConfig.KEY_COLUMN)) {
        String v = row.getString(i);
        if (v != null) {
          out.put(name, new StringByteIterator(v));
        }
      }
      i++;
    }
  }
}
