package dev.fleetbench.ycsb.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCredential;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * One driver client per process and configuration, shared by every YCSB client thread (a {@link MongoClient} is
 * thread safe and pools up to {@code mongodb.maxPoolSize} connections per server). Reference counted: the last
 * {@link #release} closes it.
 */
public final class SharedMongoClients {
  private static final Map<String, SharedMongoClients> SHARED = new HashMap<>();

  private final String key;
  final MongoClient client;
  private int refs;

  private SharedMongoClients(String key, MongoClient client) {
    this.key = key;
    this.client = client;
  }

  static synchronized SharedMongoClients acquire(MongoConfig c) throws IOException, GeneralSecurityException {
    String key = c.clientKey();
    SharedMongoClients s = SHARED.get(key);
    if (s == null) {
      s = new SharedMongoClients(key, MongoClients.create(settings(c)));
      SHARED.put(key, s);
    }
    s.refs++;
    return s;
  }

  static void release(SharedMongoClients s) {
    synchronized (SharedMongoClients.class) {
      if (--s.refs > 0) {
        return;
      }
      SHARED.remove(s.key);
    }
    s.client.close();
  }

  /**
   * The driver settings for these properties: hosts and connection options from the URL; write concern, read
   * preference and read concern, TLS, credentials, pool size and timeouts from the binding's properties; the
   * driver's own retries off (every error comes back to the binding, which counts it).
   */
  public static MongoClientSettings settings(MongoConfig c) throws IOException, GeneralSecurityException {
    MongoClientSettings.Builder b = MongoClientSettings.builder()
        .applyConnectionString(c.url)
        .writeConcern(c.writeConcern)
        .readPreference(c.readPreference)
        .readConcern(c.readConcern)
        .retryWrites(false)
        .retryReads(false)
        .applicationName("fleetbench-ycsb")
        .applyToClusterSettings(s -> s.serverSelectionTimeout(c.serverSelectionTimeoutMs, TimeUnit.MILLISECONDS))
        .applyToSocketSettings(s -> s.connectTimeout(c.connectTimeoutMs, TimeUnit.MILLISECONDS)
            .readTimeout(c.socketTimeoutMs, TimeUnit.MILLISECONDS))
        .applyToConnectionPoolSettings(s -> s.maxSize(c.maxPoolSize));
    SSLContext ssl = c.tlsCaFile == null ? null : trusting(c);
    b.applyToSslSettings(s -> {
      s.enabled(c.tls);
      if (ssl != null) {
        s.context(ssl);
      }
    });
    if (c.username != null) {
      b.credential(credential(c));
    }
    return b.build();
  }

  static MongoCredential credential(MongoConfig c) {
    char[] pw = c.password.toCharArray();
    switch (c.authMechanism) {
      case "SCRAM-SHA-256":
        return MongoCredential.createScramSha256Credential(c.username, c.authSource, pw);
      case "SCRAM-SHA-1":
        return MongoCredential.createScramSha1Credential(c.username, c.authSource, pw);
      default:
        // the driver asks the server (hello saslSupportedMechs) and picks SCRAM-SHA-256 when offered
        return MongoCredential.createCredential(c.username, c.authSource, pw);
    }
  }

  /** A TLS context that trusts exactly the CA certificates of {@code mongodb.tlsCaFile} (PEM). */
  private static SSLContext trusting(MongoConfig c) throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    int n = 0;
    try (InputStream in = Files.newInputStream(c.tlsCaFile)) {
      for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("ca" + n++, cert);
      }
    }
    if (n == 0) {
      throw new GeneralSecurityException(MongoConfig.TLS_CA_FILE + ": no certificate in " + c.tlsCaFile);
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
