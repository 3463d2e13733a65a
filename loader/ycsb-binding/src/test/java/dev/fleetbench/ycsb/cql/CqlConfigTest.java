package dev.fleetbench.ycsb.cql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

class CqlConfigTest {
  @Test
  void defaultsFollowTheSeeds() throws Exception {
    CqlConfig c = CqlConfig.from(Cql.props(CqlConfig.HOSTS, "10.0.0.5"));
    assertEquals(List.of(InetSocketAddress.createUnresolved("10.0.0.5", 9042)), c.hosts);
    assertEquals("ycsb", c.keyspace);
    assertEquals("usertable", c.table);
    assertEquals(DefaultConsistencyLevel.QUORUM, c.readConsistency, "QUORUM reads, as in seeds 001 and 002");
    assertEquals(DefaultConsistencyLevel.QUORUM, c.writeConsistency);
    assertNull(c.localDc, "inferred from the contact points");
    assertNull(c.username);
    assertEquals(1, c.connectionsPerHost);
    assertEquals(10_000, c.requestTimeoutMs);
    assertEquals(3, c.maxRetries);
    assertEquals(50, c.retryBaseDelayMs);
    assertEquals(0, c.injectDelayUs);
    assertEquals(3, c.replicationFactor);
    assertEquals(10, c.fieldCount);
    assertEquals("\"ycsb\".\"usertable\"", c.qualifiedTable(c.table));
  }

  @Test
  void hostListsWithPortsAndIpv6() throws Exception {
    CqlConfig c = CqlConfig.from(Cql.props(CqlConfig.HOSTS, " a.example , 10.0.0.6:19042,[::1]:9043, ::1",
        CqlConfig.PORT, "9100", CqlConfig.READ_CONSISTENCY, "local_one", CqlConfig.LOCAL_DC, "us-east-1"));
    assertEquals(List.of(InetSocketAddress.createUnresolved("a.example", 9100),
        InetSocketAddress.createUnresolved("10.0.0.6", 19042), InetSocketAddress.createUnresolved("::1", 9043),
        InetSocketAddress.createUnresolved("::1", 9100)), c.hosts);
    assertEquals(DefaultConsistencyLevel.LOCAL_ONE, c.readConsistency);
    assertEquals("us-east-1", c.localDc);
  }

  @Test
  void everyBadPropertyIsNamedWithWhatWasExpected() {
    DBException e = assertThrows(DBException.class, () -> CqlConfig.from(Cql.props(CqlConfig.HOSTS,
        "h1,,h3:99999", CqlConfig.READ_CONSISTENCY, "MOST", CqlConfig.KEYSPACE, "my-ks", CqlConfig.MAX_RETRIES,
        "-1", CqlConfig.CONNECTIONS_PER_HOST, "two", CqlConfig.PASSWORD, "secret")));
    String m = e.getMessage();
    assertTrue(m.contains("cql.hosts[1]: empty entry"), m);
    assertTrue(m.contains("cql.hosts[2]: port '99999'"), m);
    assertTrue(m.contains("cql.readConsistency: 'MOST' is not a consistency level; expected one of [ANY, ONE"), m);
    assertTrue(m.contains("cql.keyspace: 'my-ks' is not a CQL name"), m);
    assertTrue(m.contains("cql.maxRetries: -1 is outside 0..1000"), m);
    assertTrue(m.contains("cql.connectionsPerHost: 'two' is not an integer"), m);
    assertTrue(m.contains("cql.password: set without cql.username"), m);
    assertEquals(7, m.split("\n").length - 1, m);
  }

  @Test
  void hostsAreRequired() {
    DBException e = assertThrows(DBException.class, () -> CqlConfig.from(Cql.props()));
    assertTrue(e.getMessage().contains("cql.hosts: missing"), e.getMessage());
  }

  @Test
  void schemaStatementsAreTheSeedAppendixOnes() {
    List<String> s = CqlSchema.statements("ycsb", "usertable", 3, 10);
    assertEquals("CREATE KEYSPACE IF NOT EXISTS \"ycsb\" WITH replication = {'class': 'NetworkTopologyStrategy', "
        + "'replication_factor': '3'}", s.get(0));
    assertEquals("CREATE TABLE IF NOT EXISTS \"ycsb\".\"usertable\" (y_id varchar PRIMARY KEY, field0 varchar, "
        + "field1 varchar, field2 varchar, field3 varchar, field4 varchar, field5 varchar, field6 varchar, "
        + "field7 varchar, field8 varchar, field9 varchar)", s.get(1));
  }

  @Test
  void credentialsFromTheEnvironmentWhenThePropertiesHaveNone() throws Exception {
    Map<String, String> env = Map.of(CqlConfig.USERNAME_ENV, "bench", CqlConfig.PASSWORD_ENV, "s3cr3t");
    CqlConfig c = CqlConfig.from(Cql.props(CqlConfig.HOSTS, "10.0.0.5"), env);
    assertEquals("bench", c.username);
    assertEquals("s3cr3t", c.password);
    // properties win over the environment
    CqlConfig p = CqlConfig.from(Cql.props(CqlConfig.HOSTS, "10.0.0.5", CqlConfig.USERNAME, "other",
        CqlConfig.PASSWORD, "pw"), env);
    assertEquals("other", p.username);
    assertEquals("pw", p.password);
    // no username anywhere: no authentication, whatever the password variable says
    CqlConfig none = CqlConfig.from(Cql.props(CqlConfig.HOSTS, "10.0.0.5"), Map.of(CqlConfig.PASSWORD_ENV, "x"));
    assertNull(none.username);
    assertEquals("", none.password);
  }
}
