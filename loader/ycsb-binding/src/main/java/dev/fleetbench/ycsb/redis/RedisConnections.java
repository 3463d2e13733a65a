package dev.fleetbench.ycsb.redis;

import dev.fleetbench.ycsb.BindingSupport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClusterCommandObjects;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.executors.ClusterCommandExecutor;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import site.ycsb.measurements.Measurements;

/**
 * Connections of the Redis binding. Standalone: one connection per YCSB client thread (as upstream's binding),
 * reopened after a connection error. Cluster: one cluster client per process and configuration, shared by every
 * client thread (a pool of up to {@code threadcount} connections per node), reference counted; the last
 * {@link #release} closes it.
 */
public final class RedisConnections {
  /** Measurement of each redirect the cluster client followed (one sample per redirected attempt). */
  public static final String REDIRECT_MOVED = "REDIRECT-MOVED";
  public static final String REDIRECT_ASK = "REDIRECT-ASK";

  private static final Map<String, RedisConnections> SHARED = new HashMap<>();

  private final String key;
  final UnifiedJedis cluster;
  private int refs;

  private RedisConnections(String key, UnifiedJedis cluster) {
    this.key = key;
    this.cluster = cluster;
  }

  static synchronized RedisConnections acquireCluster(RedisConfig c, Measurements m) {
    String key = c.clientKey();
    RedisConnections s = SHARED.get(key);
    if (s == null) {
      GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
      pool.setMaxTotal(c.threadCount);
      pool.setMaxIdle(c.threadCount);
      pool.setJmxEnabled(false);
      ClusterConnectionProvider provider =
          new ClusterConnectionProvider(new LinkedHashSet<>(c.hosts), clientConfig(c), pool);
      // Jedis's own default for the total time of one command's attempts: socket timeout × attempts
      Duration total = Duration.ofMillis((long) c.timeoutMs * c.clusterMaxAttempts);
      UnifiedJedis client = new UnifiedJedis(new RedirectCounting(provider, c.clusterMaxAttempts, total, m),
          provider, new ClusterCommandObjects());
      s = new RedisConnections(key, client);
      SHARED.put(key, s);
    }
    s.refs++;
    return s;
  }

  static void release(RedisConnections s) {
    synchronized (RedisConnections.class) {
      if (--s.refs > 0) {
        return;
      }
      SHARED.remove(s.key);
    }
    s.cluster.close();
  }

  /** A new connection to the standalone server (connects and authenticates now). */
  static Jedis standalone(RedisConfig c) {
    return new Jedis(c.hosts.get(0), clientConfig(c));
  }

  static JedisClientConfig clientConfig(RedisConfig c) {
    DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
        .socketTimeoutMillis(c.timeoutMs)
        .connectionTimeoutMillis(c.connectTimeoutMs)
        .clientName("fleetbench-ycsb");
    if (c.password != null) {
      b.user(c.username).password(c.password);
    }
    if (c.tls) {
      b.ssl(true);
      if (c.tlsCaFile != null) {
        b.sslSocketFactory(trusting(Path.of(c.tlsCaFile)).getSocketFactory());
      }
      if (c.tlsVerifyHostname) {
        SSLParameters params = new SSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS"); // the server certificate must name the host
        b.sslParameters(params);
      }
    }
    return b.build();
  }

  /** An SSL context that trusts exactly the certificates of a PEM file (a private CA or a self-signed server). */
  static SSLContext trusting(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca-" + i++, cert);
      }
      if (i == 0) {
        throw new IllegalArgumentException(RedisConfig.TLS_CA_FILE + ": no certificate in " + pem);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(RedisConfig.TLS_CA_FILE + ": cannot read CA certificates from " + pem
          + ": " + e, e);
    }
  }

  /**
   * Jedis's cluster executor, which follows MOVED and ASK redirects itself (up to
   * {@code redis.cluster.maxAttempts} attempts), with every redirect reply measured as {@link #REDIRECT_MOVED} /
   * {@link #REDIRECT_ASK} (the redirected attempt's time; followed or not), so a slot migration shows in the
   * results instead of only as higher latency. When the attempts run out the operation fails with status MOVED
   * or ASK.
   */
  static final class RedirectCounting extends ClusterCommandExecutor {
    private final Measurements measurements;

    RedirectCounting(ClusterConnectionProvider provider, int maxAttempts, Duration total, Measurements m) {
      super(provider, maxAttempts, total);
      this.measurements = m;
    }

    @Override
    protected <T> T execute(Connection connection, CommandObject<T> command) {
      long st = System.nanoTime();
      try {
        return super.execute(connection, command);
      } catch (JedisRedirectionException e) {
        long en = System.nanoTime();
        long intended = measurements.getIntendedtartTimeNs();
        BindingSupport.recordAttempt(measurements,
            e instanceof JedisAskDataException ? REDIRECT_ASK : REDIRECT_MOVED, intended == 0 ? st : intended, st,
            en);
        throw e;
      }
    }
  }
}
