package dev.fleetbench.ycsb.cql;

import dev.fleetbench.ycsb.PropertyValues;
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
  /** {@code cassandra} (any CQL server: Apache Cassandra, ScyllaDB) or {@code keyspaces} (Amazon Keyspaces). */
  public static final String SERVICE = "cql.service";
  /** {@code none}, {@code password} (cql.username/cql.password) or {@code sigv4} (AWS credentials). */
  public static final String AUTH = "cql.auth";
  /** The SigV4 signing region (cql.auth=sigv4). */
  public static final String REGION = "cql.region";
  /** TLS to the nodes, trusting the JVM's default trust store. */
  public static final String SSL = "cql.ssl";
  /** A trust store file (PKCS12 or JKS) instead of the JVM's default one, for a server with its own CA. */
  public static final String TRUSTSTORE = "cql.truststore";
  public static final String TRUSTSTORE_PASSWORD = "cql.truststorePassword";

  /** Amazon Keyspaces' CQL port (TLS only): https://docs.aws.amazon.com/keyspaces/latest/devguide/programmatic.endpoints.html */
  static final int KEYSPACES_PORT = 9142;
  /**
   * Consistency levels Amazon Keyspaces supports: writes always LOCAL_QUORUM; reads ONE, LOCAL_ONE or
   * LOCAL_QUORUM (https://docs.aws.amazon.com/keyspaces/latest/devguide/consistency.html).
   */
  static final List<DefaultConsistencyLevel> KEYSPACES_READ_LEVELS = List.of(DefaultConsistencyLevel.ONE,
      DefaultConsistencyLevel.LOCAL_ONE, DefaultConsistencyLevel.LOCAL_QUORUM);

  public enum Service { CASSANDRA, KEYSPACES }

  public enum Auth { NONE, PASSWORD, SIGV4 }

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
  public final Service service;
  public final Auth auth;
  /** The SigV4 signing region; null unless cql.auth=sigv4. */
  public final String region;
  public final boolean ssl;
  /** Null: the JVM's default trust store. */
  public final String truststore;
  public final String truststorePassword;

  private CqlConfig(Properties p, Map<String, String> env, List<String> problems) {
    service = choice(p, SERVICE, Service.class, Service.CASSANDRA, problems);
    boolean keyspaces = service == Service.KEYSPACES;
    port = PropertyValues.integer(p, PORT, keyspaces ? KEYSPACES_PORT : DEFAULT_PORT, 1, 65535, problems);
    hosts = hostsOf(p.getProperty(HOSTS, ""), port, problems);
    keyspace = identifier(p, KEYSPACE, DEFAULT_KEYSPACE, problems);
    table = identifier(p, TABLE, DEFAULT_TABLE, problems);
    String r = firstNonEmpty(p.getProperty(REGION), System.getProperty("aws.region"), env.get("AWS_REGION"),
        env.get("AWS_DEFAULT_REGION"));
    String dc = p.getProperty(LOCAL_DC, "").trim();
    // Keyspaces names its data centre after the region
    localDc = dc.isEmpty() ? (keyspaces && r != null ? r : null) : dc;
    DefaultConsistencyLevel dflt = keyspaces ? DefaultConsistencyLevel.LOCAL_QUORUM : DEFAULT_CONSISTENCY;
    readConsistency = consistency(p, READ_CONSISTENCY, dflt, problems);
    writeConsistency = consistency(p, WRITE_CONSISTENCY, dflt, problems);
    if (keyspaces && writeConsistency != DefaultConsistencyLevel.LOCAL_QUORUM) {
      problems.add(WRITE_CONSISTENCY + ": " + writeConsistency + " is not supported by Amazon Keyspaces, which "
          + "writes at LOCAL_QUORUM only; set LOCAL_QUORUM or leave it unset");
    }
    if (keyspaces && !KEYSPACES_READ_LEVELS.contains(readConsistency)) {
      problems.add(READ_CONSISTENCY + ": " + readConsistency + " is not supported by Amazon Keyspaces; expected "
          + "one of " + KEYSPACES_READ_LEVELS);
    }
    ssl = PropertyValues.bool(p, SSL, keyspaces, problems);
    if (keyspaces && !ssl) {
      problems.add(SSL + ": false, but Amazon Keyspaces accepts TLS connections only");
    }
    String ts = p.getProperty(TRUSTSTORE, "").trim();
    truststore = ts.isEmpty() ? null : ts;
    truststorePassword = p.getProperty(TRUSTSTORE_PASSWORD, "");
    if (truststore != null && !ssl) {
      problems.add(TRUSTSTORE + ": set, but " + SSL + " is false");
    }
    if (truststore != null && !java.nio.file.Files.isReadable(java.nio.file.Path.of(truststore))) {
      problems.add(TRUSTSTORE + ": '" + truststore + "' is not a readable file");
    }
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
    auth = choice(p, AUTH, Auth.class, keyspaces ? Auth.SIGV4 : username != null ? Auth.PASSWORD : Auth.NONE,
        problems);
    if (auth == Auth.SIGV4 && username != null) {
      problems.add(AUTH + ": sigv4 signs with AWS credentials; " + USERNAME + " must not be set with it");
    }
    if (auth == Auth.PASSWORD && username == null) {
      problems.add(AUTH + ": password needs " + USERNAME + " and " + PASSWORD + " (or " + USERNAME_ENV + "/"
          + PASSWORD_ENV + ")");
    }
    if (auth == Auth.NONE && username != null) {
      problems.add(AUTH + ": none, but " + USERNAME + " is set; use password or drop the credentials");
    }
    region = auth == Auth.SIGV4 ? r : null;
    if (auth == Auth.SIGV4 && r == null) {
      problems.add(REGION + ": missing; SigV4 needs the signing region (or aws.region, AWS_REGION, "
          + "AWS_DEFAULT_REGION)");
    }
    connectionsPerHost = PropertyValues.integer(p, CONNECTIONS_PER_HOST, 1, 1, 1024, problems);
    requestTimeoutMs = PropertyValues.integer(p, REQUEST_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE, problems);
    connectTimeoutMs = PropertyValues.integer(p, CONNECT_TIMEOUT_MS, 5_000, 1, Integer.MAX_VALUE, problems);
    maxRetries = PropertyValues.integer(p, MAX_RETRIES, 3, 0, 1000, problems);
    retryBaseDelayMs = PropertyValues.integer(p, RETRY_BASE_DELAY_MS, 50, 0, Integer.MAX_VALUE, problems);
    retryMaxDelayMs = PropertyValues.integer(p, RETRY_MAX_DELAY_MS, 5_000, 0, Integer.MAX_VALUE, problems);
    injectDelayUs = PropertyValues.integer(p, INJECT_DELAY_US, 0, 0, Integer.MAX_VALUE, problems);
    replicationFactor = PropertyValues.integer(p, REPLICATION_FACTOR, 3, 1, 100, problems);
    fieldCount = PropertyValues.integer(p, FIELD_COUNT, 10, 1, 1000, problems);
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
        Integer.toString(requestTimeoutMs), Integer.toString(connectTimeoutMs), auth.name(), String.valueOf(region),
        Boolean.toString(ssl), String.valueOf(truststore));
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
    if (raw.trim().isEmpty()) {
      problems.add(HOSTS + ": missing; expected host or host:port, comma separated, e.g. 10.0.0.5,10.0.0.6:9042");
      return Collections.emptyList();
    }
    return PropertyValues.hostPorts(raw, HOSTS, defaultPort, problems);
  }

  private static String identifier(Properties p, String name, String dflt, List<String> problems) {
    String v = p.getProperty(name, dflt).trim();
    if (!IDENTIFIER.matcher(v).matches()) {
      problems.add(name + ": '" + v + "' is not a CQL name (a letter, then up to 47 letters, digits or _)");
    }
    return v;
  }

  private static DefaultConsistencyLevel consistency(Properties p, String name, DefaultConsistencyLevel dflt,
      List<String> problems) {
    String v = p.getProperty(name, "").trim();
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      return DefaultConsistencyLevel.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      problems.add(name + ": '" + v + "' is not a consistency level; expected one of "
          + Arrays.toString(DefaultConsistencyLevel.values()));
      return dflt;
    }
  }

  private static <E extends Enum<E>> E choice(Properties p, String name, Class<E> type, E dflt,
      List<String> problems) {
    String v = p.getProperty(name, "").trim();
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      return Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      List<String> names = new ArrayList<>();
      for (E c : type.getEnumConstants()) {
        names.add(c.name().toLowerCase(Locale.ROOT));
      }
      problems.add(name + ": '" + v + "' is not one of " + names);
      return dflt;
    }
  }

  private static String firstNonEmpty(String... values) {
    for (String v : values) {
      if (v != null && !v.trim().isEmpty()) {
        return v.trim();
      }
    }
    return null;
  }

}
