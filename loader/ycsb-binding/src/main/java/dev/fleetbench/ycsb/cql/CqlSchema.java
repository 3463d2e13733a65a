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

  /**
   * The login a node with PasswordAuthenticator is set up with (Apache Cassandra's {@code cassandra} superuser):
   * with it, {@link #create(Properties)} first makes the binding's own login (cql.username/cql.password or their
   * environment variables) a superuser role, raises {@code system_auth} to cql.replicationFactor, and, as the new
   * role, disables this one.
   */
  public static final String SETUP_USERNAME = "cql.setupUsername";
  public static final String SETUP_PASSWORD = "cql.setupPassword";

  /** As the setup login: system_auth at the data's replication factor, then the run's role (a superuser). */
  static List<String> createRoleStatements(String username, String password, int replicationFactor) {
    return List.of("ALTER KEYSPACE system_auth WITH replication = {'class': 'NetworkTopologyStrategy', "
        + "'replication_factor': '" + replicationFactor + "'}",
        "CREATE ROLE IF NOT EXISTS " + CqlConfig.quote(username) + " WITH PASSWORD = " + text(password)
        + " AND LOGIN = true AND SUPERUSER = true");
  }

  /** As the run's role: the setup login can no longer log in (a random password as well). */
  static String lockStatement(String setupUsername) {
    byte[] b = new byte[32];
    new java.security.SecureRandom().nextBytes(b);
    return "ALTER ROLE " + CqlConfig.quote(setupUsername) + " WITH PASSWORD = " + text(java.util.HexFormat.of()
        .formatHex(b)) + " AND LOGIN = false AND SUPERUSER = false";
  }

  private static String text(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** Connects with the binding's properties and creates the keyspace and table they name. */
  public static void create(Properties p) throws DBException {
    CqlConfig c = CqlConfig.from(p);
    String setupUser = p.getProperty(SETUP_USERNAME, "").trim();
    if (!setupUser.isEmpty()) {
      if (c.auth != CqlConfig.Auth.PASSWORD) {
        throw new IllegalArgumentException(SETUP_USERNAME + ": set, but the binding has no login of its own ("
            + CqlConfig.USERNAME + " or " + CqlConfig.USERNAME_ENV + ")");
      }
      secure(c, setupUser, p.getProperty(SETUP_PASSWORD, ""));
    }
    try (CqlSession s = CqlSessions.open(c, false)) {
      create(s, c.keyspace, c.table, c.replicationFactor, c.fieldCount);
    }
  }

  /**
   * Makes the binding's login work: nothing when it already does (a retry); else logs in with the setup login
   * (which a fresh Cassandra creates some seconds after it serves CQL: refusals are retried for two minutes),
   * creates the role and locks the setup login.
   */
  static void secure(CqlConfig c, String setupUser, String setupPassword) {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    for (;;) {
      try (CqlSession s = CqlSessions.open(c, false)) {
        return;
      } catch (RuntimeException e) {
        if (!refusedLogin(e)) {
          throw e;
        }
      }
      try (CqlSession admin = CqlSessions.open(c, false, setupUser, setupPassword)) {
        for (String cql : createRoleStatements(c.username, c.password, c.replicationFactor)) {
          admin.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
        }
      } catch (RuntimeException e) {
        if (!refusedLogin(e) || System.nanoTime() > deadline) {
          throw e;
        }
        sleep(1000);
        continue;
      }
      try (CqlSession s = CqlSessions.open(c, false)) {
        s.execute(SimpleStatement.newInstance(lockStatement(setupUser)).setTimeout(Duration.ofSeconds(60)));
        return;
      } catch (RuntimeException e) {
        // the new role may take a moment to reach the node's caches
        if (!refusedLogin(e) || System.nanoTime() > deadline) {
          throw e;
        }
        sleep(1000);
      }
    }
  }

  /** Whether a connection failed because a node refused the login (the driver wraps it per node). */
  static boolean refusedLogin(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof com.datastax.oss.driver.api.core.auth.AuthenticationException) {
        return true;
      }
      if (t instanceof com.datastax.oss.driver.api.core.AllNodesFailedException a) {
        for (List<Throwable> errs : a.getAllErrors().values()) {
          for (Throwable x : errs) {
            if (refusedLogin(x)) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while securing the cluster", e);
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
