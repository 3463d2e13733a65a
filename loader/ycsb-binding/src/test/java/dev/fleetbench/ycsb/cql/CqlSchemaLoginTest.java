package dev.fleetbench.ycsb.cql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * CqlSchema on a node with PasswordAuthenticator (cassandra-ec2 logins): with a setup login it creates the
 * binding's own role, raises system_auth, locks the setup login, then creates the schema as the new role. The
 * shared node's {@code cassandra} superuser stays usable for the other tests: this test's setup login is a
 * superuser of its own, standing in for it.
 */
@ExtendWith(LocalCassandra.class)
class CqlSchemaLoginTest {
  private static CqlSession as(String user, String password) throws Exception {
    Properties p = Cql.serverProps("system", CqlConfig.USERNAME, user, CqlConfig.PASSWORD, password);
    return CqlSessions.open(CqlConfig.from(p), false);
  }

  @Test
  void theRunsRoleReplacesTheSetupLogin() throws Exception {
    try (CqlSession root = as(LocalCassandra.USER, LocalCassandra.PASSWORD)) {
      root.execute("CREATE ROLE IF NOT EXISTS setup_admin WITH PASSWORD = 'setup' AND LOGIN = true "
          + "AND SUPERUSER = true");
    }
    Properties p = Cql.serverProps("authed", CqlConfig.USERNAME, "fb_run1", CqlConfig.PASSWORD, "s3cret'x",
        CqlSchema.SETUP_USERNAME, "setup_admin", CqlSchema.SETUP_PASSWORD, "setup", CqlConfig.FIELD_COUNT, "2");
    CqlSchema.create(p);
    CqlSchema.create(p); // a retry: the role works already

    try (CqlSession run = as("fb_run1", "s3cret'x")) {
      run.execute(SimpleStatement.newInstance("INSERT INTO authed.usertable (y_id, field0) VALUES ('k', 'v')"));
      assertEquals("v", run.execute("SELECT field0 FROM authed.usertable WHERE y_id = 'k'").one().getString(0));
      // NetworkTopologyStrategy's replication_factor is kept per data centre
      java.util.Map<String, String> rf = run.execute(
          "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = 'system_auth'")
          .one().getMap(0, String.class, String.class);
      assertTrue(rf.get("class").endsWith("NetworkTopologyStrategy") && rf.containsValue("1"), rf.toString());
    }
    long deadline = System.nanoTime() + 20_000_000_000L;
    RuntimeException refused = null;
    while (refused == null && System.nanoTime() < deadline) {
      try (CqlSession s = as("setup_admin", "setup")) {
        Thread.sleep(500); // the node caches roles for 2 s
      } catch (RuntimeException e) {
        refused = e;
      }
    }
    assertTrue(refused != null && CqlSchema.refusedLogin(refused), "the setup login still works: " + refused);
    assertThrows(IllegalArgumentException.class, () -> CqlSchema.create(Cql.props(CqlConfig.HOSTS,
        LocalCassandra.server().hosts(), CqlSchema.SETUP_USERNAME, "setup_admin")));
  }
}
