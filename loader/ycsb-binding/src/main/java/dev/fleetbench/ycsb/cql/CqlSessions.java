package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.internal.core.loadbalancing.DcInferringLoadBalancingPolicy;
import com.datastax.oss.driver.internal.core.loadbalancing.DefaultLoadBalancingPolicy;
import com.datastax.oss.driver.internal.core.ssl.DefaultSslEngineFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.aws.mcs.auth.SigV4AuthProvider;

/**
 * One driver session per process and configuration, shared by every YCSB client thread (a {@link CqlSession}
 * is thread safe and keeps {@code cql.connectionsPerHost} connections to each node of the local data centre),
 * together with the process-wide cache of prepared statements. Reference counted: the last {@link #release}
 * closes the session.
 */
public final class CqlSessions {
  private static final Map<String, CqlSessions> SHARED = new HashMap<>();

  private final String key;
  private final boolean owned;
  final CqlSession session;
  private final ConcurrentHashMap<String, PreparedStatement> prepared = new ConcurrentHashMap<>();
  private final LongAdder prepares = new LongAdder();
  private int refs;

  private CqlSessions(String key, CqlSession session, boolean owned) {
    this.key = key;
    this.session = session;
    this.owned = owned;
  }

  static synchronized CqlSessions acquire(CqlConfig c) {
    String key = c.sessionKey();
    CqlSessions s = SHARED.get(key);
    if (s == null) {
      s = new CqlSessions(key, open(c, true), true);
      SHARED.put(key, s);
    }
    s.refs++;
    return s;
  }

  /** Wraps a session someone else owns (tests); {@link #release} never closes it. */
  static CqlSessions borrow(CqlSession session) {
    CqlSessions s = new CqlSessions("borrowed", session, false);
    s.refs = 1;
    return s;
  }

  static void release(CqlSessions s) {
    synchronized (CqlSessions.class) {
      if (--s.refs > 0 || !s.owned) {
        return;
      }
      SHARED.remove(s.key);
    }
    s.session.close();
  }

  /**
   * The statement prepared once per process for this cache key (operation, table and field set); the first
   * caller prepares it, concurrent callers wait for that.
   */
  PreparedStatement prepared(String cacheKey, Supplier<String> cql) {
    PreparedStatement ps = prepared.get(cacheKey);
    if (ps != null) {
      return ps;
    }
    return prepared.computeIfAbsent(cacheKey, k -> {
      prepares.increment();
      return session.prepare(cql.get());
    });
  }

  /** How many statements this process prepared (for tests and diagnostics). */
  long prepareCount() {
    return prepares.sum();
  }

  /**
   * A new driver session for these properties. With {@code inKeyspace} the session's keyspace is set to
   * {@code cql.keyspace} (so it must exist); without it (schema creation) no keyspace is set.
   */
  public static CqlSession open(CqlConfig c, boolean inKeyspace) {
    return open(c, inKeyspace, null, null);
  }

  /** As {@link #open(CqlConfig, boolean)}, logging in as {@code username} instead (CqlSchema's setup login). */
  static CqlSession open(CqlConfig c, boolean inKeyspace, String username, String password) {
    CqlSessionBuilder b = CqlSession.builder().withConfigLoader(driverConfig(c).build()).addContactPoints(c.hosts);
    if (c.localDc != null) {
      b.withLocalDatacenter(c.localDc);
    }
    if (username != null) {
      b.withAuthCredentials(username, password);
    } else if (c.auth == CqlConfig.Auth.PASSWORD) {
      b.withAuthCredentials(c.username, c.password);
    } else if (c.auth == CqlConfig.Auth.SIGV4) {
      b.withAuthProvider(sigV4(c));
    }
    if (inKeyspace) {
      b.withKeyspace(CqlConfig.quote(c.keyspace));
    }
    return b.build();
  }

  /**
   * Amazon Keyspaces' SigV4 authentication (software.aws.mcs:aws-sigv4-auth-cassandra-java-driver-plugin): the
   * AWS SDK's default credentials chain (on a loader: its instance role), signing for {@code cql.region}.
   */
  static SigV4AuthProvider sigV4(CqlConfig c) {
    return new SigV4AuthProvider(DefaultCredentialsProvider.create(), c.region);
  }

  /** The driver settings for these properties (what {@link #open} builds the session from). */
  static ProgrammaticDriverConfigLoaderBuilder driverConfig(CqlConfig c) {
    ProgrammaticDriverConfigLoaderBuilder cfg = DriverConfigLoader.programmaticBuilder()
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofMillis(c.requestTimeoutMs))
        .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, Duration.ofMillis(c.connectTimeoutMs))
        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofMillis(c.connectTimeoutMs))
        .withInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE, c.connectionsPerHost)
        .withInt(DefaultDriverOption.CONNECTION_POOL_REMOTE_SIZE, c.connectionsPerHost)
        // every error comes back to the binding, which measures and retries overload itself
        .withClass(DefaultDriverOption.RETRY_POLICY_CLASS, NeverRetryPolicy.class)
        // token-aware (replicas of the bound partition key first) and data-centre-aware; without
        // cql.localDc the data centre is inferred from the contact points
        .withClass(DefaultDriverOption.LOAD_BALANCING_POLICY_CLASS,
            c.localDc == null ? DcInferringLoadBalancingPolicy.class : DefaultLoadBalancingPolicy.class)
        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, c.readConsistency.name())
        .withString(DefaultDriverOption.SESSION_NAME, "fleetbench-ycsb");
    if (c.ssl) {
      // no trust store path: the driver's factory uses the JVM's default trust store (SSLContext.getDefault()),
      // which on Corretto 17 and Debian's OpenJDK 17 holds Amazon Root CA 1-4 and the Starfield roots
      cfg.withClass(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS, DefaultSslEngineFactory.class)
          .withBoolean(DefaultDriverOption.SSL_HOSTNAME_VALIDATION, true);
      if (c.truststore != null) {
        cfg.withString(DefaultDriverOption.SSL_TRUSTSTORE_PATH, c.truststore)
            .withString(DefaultDriverOption.SSL_TRUSTSTORE_PASSWORD, c.truststorePassword);
      }
    }
    return cfg;
  }
}
