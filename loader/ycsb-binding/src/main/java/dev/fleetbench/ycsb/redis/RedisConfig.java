package dev.fleetbench.ycsb.redis;

import dev.fleetbench.ycsb.PropertyValues;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import redis.clients.jedis.HostAndPort;
import site.ycsb.DBException;

/**
 * The Redis binding's properties, parsed and checked once. Every problem names the property and what was
 * expected. Names follow upstream YCSB's redis binding where it has one ({@code redis.host}, {@code redis.port},
 * {@code redis.cluster}, {@code redis.timeout}, {@code redis.password}); defaults are documented in
 * loader/ycsb-binding/README.md (section "Redis binding"); keep the two in step.
 */
public final class RedisConfig {
  public static final String HOST = "redis.host";
  public static final String PORT = "redis.port";
  public static final String CLUSTER = "redis.cluster";
  public static final String TIMEOUT_MS = "redis.timeout";
  public static final String CONNECT_TIMEOUT_MS = "redis.connectTimeoutMs";
  public static final String USERNAME = "redis.username";
  public static final String PASSWORD = "redis.password";
  /**
   * Environment variables the credentials come from when the properties do not set them (the loader agent
   * hands an external target's secret over this way, as for the CQL binding's FLEETBENCH_CQL_*).
   */
  public static final String USERNAME_ENV = "FLEETBENCH_REDIS_USERNAME";
  public static final String PASSWORD_ENV = "FLEETBENCH_REDIS_PASSWORD";
  public static final String TLS = "redis.tls";
  public static final String TLS_CA_FILE = "redis.tls.caFile";
  public static final String TLS_VERIFY_HOSTNAME = "redis.tls.verifyHostname";
  public static final String MAX_RETRIES = "redis.maxRetries";
  public static final String RETRY_BASE_DELAY_MS = "redis.retryBaseDelayMs";
  public static final String RETRY_MAX_DELAY_MS = "redis.retryMaxDelayMs";
  public static final String CLUSTER_MAX_ATTEMPTS = "redis.cluster.maxAttempts";
  public static final String THREAD_COUNT = "threadcount";
  public static final String INJECT_DELAY_US = "fleetbench.injectDelayUs";

  static final int DEFAULT_PORT = 6379;

  /** One node (standalone) or the cluster's seed nodes. */
  public final List<HostAndPort> hosts;
  public final boolean cluster;
  public final int timeoutMs;
  public final int connectTimeoutMs;
  /** Null: the server's default user (AUTH with a password only) or no AUTH at all. */
  public final String username;
  /** Null: no AUTH. */
  public final String password;
  public final boolean tls;
  /** Null: the JVM's default trust store. */
  public final String tlsCaFile;
  public final boolean tlsVerifyHostname;
  public final int maxRetries;
  public final int retryBaseDelayMs;
  public final int retryMaxDelayMs;
  public final int clusterMaxAttempts;
  /** YCSB's threadcount: the size of each cluster node's connection pool. */
  public final int threadCount;
  public final long injectDelayUs;

  private RedisConfig(Properties p, Map<String, String> env, List<String> problems) {
    int port = PropertyValues.integer(p, PORT, DEFAULT_PORT, 1, 65535, problems);
    cluster = PropertyValues.bool(p, CLUSTER, false, problems);
    hosts = hostsOf(p.getProperty(HOST, ""), port, problems);
    if (!cluster && hosts.size() > 1) {
      problems.add(HOST + ": " + hosts.size() + " hosts given without " + CLUSTER + "=true; a standalone "
          + "Redis is one host[:port]");
    }
    timeoutMs = PropertyValues.integer(p, TIMEOUT_MS, 2_000, 1, Integer.MAX_VALUE, problems);
    connectTimeoutMs = PropertyValues.integer(p, CONNECT_TIMEOUT_MS, 2_000, 1, Integer.MAX_VALUE, problems);
    String user = p.getProperty(USERNAME, "").trim();
    String pass = p.getProperty(PASSWORD, "");
    if (user.isEmpty() && pass.isEmpty()) {
      user = env.getOrDefault(USERNAME_ENV, "").trim();
      pass = env.getOrDefault(PASSWORD_ENV, "");
    }
    username = user.isEmpty() ? null : user;
    password = pass.isEmpty() ? null : pass;
    if (username != null && password == null) {
      problems.add(USERNAME + ": set without " + PASSWORD + " (or " + USERNAME_ENV + " without " + PASSWORD_ENV
          + "); an ACL user needs its password");
    }
    tls = PropertyValues.bool(p, TLS, false, problems);
    String ca = p.getProperty(TLS_CA_FILE, "").trim();
    tlsCaFile = ca.isEmpty() ? null : ca;
    if (tlsCaFile != null && !tls) {
      problems.add(TLS_CA_FILE + ": set without " + TLS + "=true");
    }
    tlsVerifyHostname = PropertyValues.bool(p, TLS_VERIFY_HOSTNAME, true, problems);
    maxRetries = PropertyValues.integer(p, MAX_RETRIES, 0, 0, 1000, problems);
    retryBaseDelayMs = PropertyValues.integer(p, RETRY_BASE_DELAY_MS, 50, 0, Integer.MAX_VALUE, problems);
    retryMaxDelayMs = PropertyValues.integer(p, RETRY_MAX_DELAY_MS, 5_000, 0, Integer.MAX_VALUE, problems);
    clusterMaxAttempts = PropertyValues.integer(p, CLUSTER_MAX_ATTEMPTS, 5, 1, 100, problems);
    threadCount = PropertyValues.integer(p, THREAD_COUNT, 1, 1, 100_000, problems);
    injectDelayUs = PropertyValues.integer(p, INJECT_DELAY_US, 0, 0, Integer.MAX_VALUE, problems);
  }

  /** Parses and validates; throws a DBException listing every bad property. */
  public static RedisConfig from(Properties p) throws DBException {
    return from(p, System.getenv());
  }

  /** As {@link #from(Properties)}, with the environment the credentials may come from. */
  public static RedisConfig from(Properties p, Map<String, String> env) throws DBException {
    List<String> problems = new ArrayList<>();
    RedisConfig c = new RedisConfig(p, env, problems);
    if (!problems.isEmpty()) {
      throw new DBException("fleetbench Redis binding: bad properties:\n  " + String.join("\n  ", problems));
    }
    return c;
  }

  /** Identifies a cluster client that the DB instances (YCSB client threads) of one process can share. */
  String clientKey() {
    return String.join("|", hosts.toString(), String.valueOf(username),
        password == null ? "-" : Integer.toHexString(password.hashCode()), Boolean.toString(tls),
        String.valueOf(tlsCaFile), Boolean.toString(tlsVerifyHostname), Integer.toString(timeoutMs),
        Integer.toString(connectTimeoutMs), Integer.toString(clusterMaxAttempts), Integer.toString(threadCount));
  }

  /** {@code host} or {@code host:port} ({@code [v6]:port} for IPv6), comma separated. */
  static List<HostAndPort> hostsOf(String raw, int defaultPort, List<String> problems) {
    if (raw.trim().isEmpty()) {
      problems.add(HOST + ": missing; expected host or host:port (comma separated seed nodes with "
          + CLUSTER + "=true), e.g. 10.0.0.5 or 10.0.0.5:6379,10.0.0.6:6379");
      return Collections.emptyList();
    }
    List<HostAndPort> hosts = new ArrayList<>();
    for (InetSocketAddress a : PropertyValues.hostPorts(raw, HOST, defaultPort, problems)) {
      hosts.add(new HostAndPort(a.getHostString(), a.getPort()));
    }
    return Collections.unmodifiableList(hosts);
  }

}
