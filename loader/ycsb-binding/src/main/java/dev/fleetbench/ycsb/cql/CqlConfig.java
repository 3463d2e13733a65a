package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import site.ycsb.DBException;

/**
 * The CQL binding's properties, parsed and checked once. Every problem names the property and what was
 * expected. Defaults are documented in loader/ycsb-binding/README.md (section "CQL binding"); keep the two in
 * step.
 */
public final class CqlConfig {
  public static final String HOSTS = "cql.hosts";
  public static final String PORT = "cql.port";
  public static final String KEYSPACE = "cql.keyspace";
  public static final String TABLE = "table";
  public static final String LOCAL_DC = "cql.localDc";
  public static final String READ_CONSISTENCY = "cql.readConsistency";
  public static final String WRITE_CONSISTENCY = "cql.writeConsistency";
  public static final String USERNAME = "cql.username";
  public static final String PASSWORD = "cql.password";
  /**
   * Environment variables the credentials come from when the properties do not set them: the loader
   * agent fetches an external target's secret at job start and hands it over this way, so it never
   * appears in a property file, the job document or a log.
   */
  public static final String USERNAME_ENV = "FLEETBENCH_CQL_USERNAME";
  public static final String PASSWORD_ENV = "FLEETBENCH_CQL_PASSWORD";
  public static final String CONNECTIONS_PER_HOST = "cql.connectionsPerHost";
  public static final String REQUEST_TIMEOUT_MS = "cql.requestTimeoutMs";
  public static final String CONNECT_TIMEOUT_MS = "cql.connectTimeoutMs";
  public static final String MAX_RETRIES = "cql.maxRetries";
  public static final String RETRY_BASE_DELAY_MS = "cql.retryBaseDelayMs";
  public static final String RETRY_MAX_DELAY_MS = "cql.retryMaxDelayMs";
  public static final String INJECT_DELAY_US = "fleetbench.injectDelayUs";
  /** Used by {@link CqlSchema} only. */
  public static final String REPLICATION_FACTOR = "cql.replicationFactor";
  /** YCSB core's field count; {@link CqlSchema} creates field0..field(n-1). */
  public static final String FIELD_COUNT = "fieldcount";

  public static final String KEY_COLUMN = "y_id";
  static final int DEFAULT_PORT = 9042;
  static final String DEFAULT_KEYSPACE = "ycsb";
  static final String DEFAULT_TABLE = "usertable";
  static final DefaultConsistencyLevel DEFAULT_CONSISTENCY = DefaultConsistencyLevel.QUORUM;
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,47}");

  /** Contact points, resolved lazily by the driver. */
  public final List<InetSocketAddress> hosts;
  public final int port;
  public final String keyspace;
  public final String table;
  /** Null: inferred by the driver from the contact points (they must all be in one data centre). */
  public final String localDc;
  public final DefaultConsistencyLevel readConsistency;
  public final DefaultConsistencyLevel writeConsistency;
  /** Null: no authentication. */
  public final String username;
  public final String password;
  public final int connectionsPerHost;
  public final int requestTimeoutMs;
  public final int connectTimeoutMs;
  public final int maxRetries;
  public final int retryBaseDelayMs;
  public final int retryMaxDelayMs;
  public final long injectDelayUs;
  public final int replicationFactor;
  public final int fieldCount;

  private CqlConfig(Properties p, Map<String, String> env, List<String> problems) {
    port = integer(p, PORT, DEFAULT_PORT, 1, 65535, problems);
    hosts = hostsOf(p.getProperty(HOSTS, ""), port, problems);
    keyspace = identifier(p, KEYSPACE, DEFAULT_KEYSPACE, problems);
    table = identifier(p, TABLE, DEFAULT_TABLE, problems);
    String dc = p.getProperty(LOCAL_DC, "").trim();
    localDc = dc.isEmpty() ? null : dc;
    readConsistency = consistency(p, READ_CONSISTENCY, problems);
    writeConsistency = consistency(p, WRITE_CONSISTENCY, problems);
    String user = p.getProperty(USERNAME, "").trim();
    if (user.isEmpty() && p.getProperty(PASSWORD, "").isEmpty()) {
      user = env.getOrDefault(USERNAME_ENV, "").trim();
      username = user.isEmpty() ? null : user;
      password = username == null ? "" : env.getOrDefault(PASSWORD_ENV, "");
    } else {
      username = user.isEmpty() ? null : user;
      password = p.getProperty(PASSWORD, "");
    }
    if (username == null && !password.isEmpty()) {
      problems.add(PASSWORD + ": set without " + USERNAME + "; give both or neither");
    }
    connectionsPerHost = integer(p, CONNECTIONS_PER_HOST, 1, 1, 1024, problems);
    requestTimeoutMs = integer(p, REQUEST_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE, problems);
    connectTimeoutMs = integer(p, CONNECT_TIMEOUT_MS, 5_000, 1, Integer.MAX_VALUE, problems);
    maxRetries = integer(p, MAX_RETRIES, 3, 0, 1000, problems);
    retryBaseDelayMs = integer(p, RETRY_BASE_DELAY_MS, 50, 0, Integer.MAX_VALUE, problems);
    retryMaxDelayMs = integer(p, RETRY_MAX_DELAY_MS, 5_000, 0, Integer.MAX_VALUE, problems);
    injectDelayUs = integer(p, INJECT_DELAY_US, 0, 0, Integer.MAX_VALUE, problems);
    replicationFactor = integer(p, REPLICATION_FACTOR, 3, 1, 100, problems);
    fieldCount = integer(p, FIELD_COUNT, 10, 1, 1000, problems);
  }

  /** Parses and validates; throws a DBException listing every bad property. */
  public static CqlConfig from(Properties p) throws DBException {
    return from(p, System.getenv());
  }

  /** As {@link #from(Properties)}, with the environment the credentials may come from. */
  public static CqlConfig from(Properties p, Map<String, String> env) throws DBException {
    List<String> problems = new ArrayList<>();
    CqlConfig c = new CqlConfig(p, env, problems);
    if (!problems.isEmpty()) {
      throw new DBException("fleetbench CQL binding: bad properties:\n  " + String.join("\n  ", problems));
    }
    return c;
  }

  /** Identifies sessions that can be shared by the DB instances (YCSB client threads) of one process. */
  String sessionKey() {
    return String.join("|", hosts.toString(), keyspace, String.valueOf(localDc), String.valueOf(username),
        Integer.toHexString(password.hashCode()), Integer.toString(connectionsPerHost),
        Integer.toString(requestTimeoutMs), Integer.toString(connectTimeoutMs));
  }

  /** {@code "keyspace"."table"} */
  String qualifiedTable(String tableName) {
    return quote(keyspace) + "." + quote(tableName);
  }

  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /**
   * {@code host}, {@code host:port}, {@code [v6]:port} or a bare IPv6 address, comma separated. The
   * addresses stay unresolved here; the driver resolves them when it connects.
   */
  static List<InetSocketAddress> hostsOf(String raw, int defaultPort, List<String> problems) {
    List<InetSocketAddress> out = new ArrayList<>();
    if (raw.trim().isEmpty()) {
      problems.add(HOSTS + ": missing; expected host or host:port, comma separated, e.g. 10.0.0.5,10.0.0.6:9042");
      return out;
    }
    String[] parts = raw.split(",");
    for (int i = 0; i < parts.length; i++) {
      String s = parts[i].trim();
      String where = HOSTS + "[" + i + "]";
      if (s.isEmpty()) {
        problems.add(where + ": empty entry in '" + raw + "'; expected host or host:port");
        continue;
      }
      String host = s;
      String portText = null;
      if (s.startsWith("[")) {
        int close = s.indexOf(']');
        if (close < 0) {
          problems.add(where + ": '" + s + "' has no closing ']'; expected [ipv6]:port");
          continue;
        }
        host = s.substring(1, close);
        String rest = s.substring(close + 1);
        if (rest.startsWith(":")) {
          portText = rest.substring(1);
        } else if (!rest.isEmpty()) {
          problems.add(where + ": '" + s + "' has text after ']'; expected [ipv6]:port");
          continue;
        }
      } else if (s.indexOf(':') >= 0 && s.indexOf(':') == s.lastIndexOf(':')) {
        host = s.substring(0, s.indexOf(':'));
        portText = s.substring(s.indexOf(':') + 1);
      }
      int hostPort = defaultPort;
      if (portText != null) {
        try {
          hostPort = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
          hostPort = -1;
        }
        if (hostPort < 1 || hostPort > 65535) {
          problems.add(where + ": port '" + portText + "' in '" + s + "' is not in 1..65535");
          continue;
        }
      }
      if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
        problems.add(where + ": '" + s + "' has no valid host name or address");
        continue;
      }
      out.add(InetSocketAddress.createUnresolved(host, hostPort));
    }
    return Collections.unmodifiableList(out);
  }

  private static String identifier(Properties p, String name, String dflt, List<String> problems) {
    String v = p.getProperty(name, dflt).trim();
    if (!IDENTIFIER.matcher(v).matches()) {
      problems.add(name + ": '" + v + "' is not a CQL name (a letter, then up to 47 letters, digits or _)");
    }
    return v;
  }

  private static DefaultConsistencyLevel consistency(Properties p, String name, List<String> problems) {
    String v = p.getProperty(name, "").trim();
    if (v.isEmpty()) {
      return DEFAULT_CONSISTENCY;
    }
    try {
      return DefaultConsistencyLevel.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      problems.add(name + ": '" + v + "' is not a consistency level; expected one of "
          + Arrays.toString(DefaultConsistencyLevel.values()));
      return DEFAULT_CONSISTENCY;
    }
  }

  private static int integer(Properties p, String name, int dflt, int min, int max, List<String> problems) {
    String v = p.getProperty(name);
    if (v == null || v.trim().isEmpty()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min || n > max) {
        problems.add(name + ": " + n + " is outside " + min + ".." + max);
        return dflt;
      }
      return n;
    } catch (NumberFormatException e) {
      problems.add(name + ": '" + v + "' is not an integer");
      return dflt;
    }
  }
}
