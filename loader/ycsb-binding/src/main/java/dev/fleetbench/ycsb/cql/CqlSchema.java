package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import dev.fleetbench.ycsb.BindingSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import site.ycsb.DBException;

/**
 * Creates the YCSB keyspace and table the way the seeds' appendix does, for the pipeline to call once the
 * cluster is up:
 *
 * <pre>
 * CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication =
 *   {'class': 'NetworkTopologyStrategy', 'replication_factor': '3'};
 * CREATE TABLE IF NOT EXISTS ycsb.usertable (y_id varchar PRIMARY KEY, field0 varchar, ..., field9 varchar);
 * </pre>
 *
 * <p>Command line (same property names as the binding; {@code -P file} and {@code -p name=value} as YCSB):
 *
 * <pre>
 * java -cp 'lib/*' dev.fleetbench.ycsb.cql.CqlSchema -p cql.hosts=10.0.0.5,10.0.0.6 \
 *      -p cql.replicationFactor=3 -p fieldcount=10 [-P credentials.properties]
 * </pre>
 *
 * Prints one JSON line with what it made; exit code 2 for bad arguments or properties, 1 when the cluster
 * refused.
 */
public final class CqlSchema {
  private CqlSchema() {}

  /** The statements, in order: keyspace, then table. */
  public static List<String> statements(String keyspace, String table, int replicationFactor, int fieldCount) {
    List<String> out = new ArrayList<>();
    out.add("CREATE KEYSPACE IF NOT EXISTS " + CqlConfig.quote(keyspace)
        + " WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': '" + replicationFactor
        + "'}");
    StringBuilder t = new StringBuilder("CREATE TABLE IF NOT EXISTS ")
        .append(CqlConfig.quote(keyspace)).append('.').append(CqlConfig.quote(table))
        .append(" (").append(CqlConfig.KEY_COLUMN).append(" varchar PRIMARY KEY");
    for (int i = 0; i < fieldCount; i++) {
      t.append(", field").append(i).append(" varchar");
    }
    out.add(t.append(')').toString());
    return out;
  }

  /** Runs {@link #statements} on the session and waits (up to a minute) for schema agreement. */
  public static void create(CqlSession session, String keyspace, String table, int replicationFactor,
      int fieldCount) {
    for (String cql : statements(keyspace, table, replicationFactor, fieldCount)) {
      session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!session.checkSchemaAgreement()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the nodes did not agree on the schema within 60 s");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for schema agreement", e);
      }
    }
  }

  /** Connects with the binding's properties and creates the keyspace and table they name. */
  public static void create(Properties p) throws DBException {
    CqlConfig c = CqlConfig.from(p);
    try (CqlSession s = CqlSessions.open(c, false)) {
      create(s, c.keyspace, c.table, c.replicationFactor, c.fieldCount);
    }
  }

  public static void main(String[] args) {
    try {
      Properties p = BindingSupport.cliProperties(args);
      CqlConfig c = CqlConfig.from(p);
      create(p);
      System.out.println("{\"keyspace\":\"" + c.keyspace + "\",\"table\":\"" + c.table
          + "\",\"replicationFactor\":" + c.replicationFactor + ",\"fields\":" + c.fieldCount + "}");
    } catch (IllegalArgumentException | DBException e) {
      System.err.println("CqlSchema: " + e.getMessage());
      System.exit(2);
    } catch (RuntimeException e) {
      System.err.println("CqlSchema: the cluster refused: " + e);
      System.exit(1);
    }
  }
}
