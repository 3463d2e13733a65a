package dev.fleetbench.ycsb.cql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.auth.Authenticator;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.aws.mcs.auth.SigV4AuthProvider;

/**
 * Amazon Keyspaces in the CQL binding (cql.service=keyspaces): the properties, the driver settings, and the SigV4
 * signature the authentication plugin answers Keyspaces' challenge with, checked against a signature computed
 * here independently by AWS's documented Signature Version 4 steps
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
 */
class KeyspacesTest {
  private static final Map<String, String> NO_ENV = Map.of();

  private static CqlConfig keyspaces(String... kv) throws DBException {
    String[] all = Stream.concat(Stream.of(CqlConfig.HOSTS, "cassandra.us-east-1.amazonaws.com",
        CqlConfig.SERVICE, "keyspaces"), Stream.of(kv)).toArray(String[]::new);
    return CqlConfig.from(Cql.props(all), NO_ENV);
  }

  @Test
  void keyspacesDefaults() throws Exception {
    CqlConfig c = keyspaces(CqlConfig.REGION, "us-east-1");
    assertEquals(CqlConfig.Service.KEYSPACES, c.service);
    assertEquals(List.of(InetSocketAddress.createUnresolved("cassandra.us-east-1.amazonaws.com", 9142)), c.hosts);
    assertEquals(CqlConfig.Auth.SIGV4, c.auth);
    assertEquals("us-east-1", c.region);
    assertTrue(c.ssl);
    assertEquals(DefaultConsistencyLevel.LOCAL_QUORUM, c.writeConsistency);
    assertEquals(DefaultConsistencyLevel.LOCAL_QUORUM, c.readConsistency);
    assertEquals("us-east-1", c.localDc, "Keyspaces' data centre is named after the region");
    assertEquals(DefaultConsistencyLevel.LOCAL_ONE, keyspaces(CqlConfig.REGION, "eu-west-1",
        CqlConfig.READ_CONSISTENCY, "local_one").readConsistency);
    // the region also comes from the environment, as the AWS SDK takes it
    assertEquals("eu-west-1", CqlConfig.from(Cql.props(CqlConfig.HOSTS, "h", CqlConfig.SERVICE, "keyspaces"),
        Map.of("AWS_REGION", "eu-west-1")).region);
  }

  @Test
  void whatKeyspacesCannotDoIsRefusedByName() {
    DBException e = assertThrows(DBException.class, () -> keyspaces(CqlConfig.WRITE_CONSISTENCY, "QUORUM",
        CqlConfig.READ_CONSISTENCY, "ALL", CqlConfig.SSL, "false", CqlConfig.USERNAME, "u", CqlConfig.PASSWORD, "p"));
    String m = e.getMessage();
    assertTrue(m.contains("cql.writeConsistency: QUORUM is not supported by Amazon Keyspaces, which writes at "
        + "LOCAL_QUORUM only"), m);
    assertTrue(m.contains("cql.readConsistency: ALL is not supported by Amazon Keyspaces; expected one of [ONE, "
        + "LOCAL_ONE, LOCAL_QUORUM]"), m);
    assertTrue(m.contains("cql.ssl: false, but Amazon Keyspaces accepts TLS connections only"), m);
    assertTrue(m.contains("cql.auth: sigv4 signs with AWS credentials; cql.username must not be set"), m);
    assertTrue(m.contains("cql.region: missing; SigV4 needs the signing region"), m);
    DBException bad = assertThrows(DBException.class, () -> CqlConfig.from(Cql.props(CqlConfig.HOSTS, "h",
        CqlConfig.SERVICE, "dynamo", CqlConfig.AUTH, "kerberos"), NO_ENV));
    assertTrue(bad.getMessage().contains("cql.service: 'dynamo' is not one of [cassandra, keyspaces]"),
        bad.getMessage());
    assertTrue(bad.getMessage().contains("cql.auth: 'kerberos' is not one of [none, password, sigv4]"),
        bad.getMessage());
  }

  @Test
  void cassandraKeepsItsDefaults() throws Exception {
    CqlConfig c = CqlConfig.from(Cql.props(CqlConfig.HOSTS, "10.0.0.5"), Map.of("AWS_REGION", "us-east-1"));
    assertEquals(CqlConfig.Service.CASSANDRA, c.service);
    assertEquals(CqlConfig.Auth.NONE, c.auth);
    assertFalse(c.ssl);
    assertNull(c.region);
    assertNull(c.localDc);
    assertEquals(DefaultConsistencyLevel.QUORUM, c.writeConsistency);
    assertEquals(CqlConfig.Auth.PASSWORD,
        CqlConfig.from(Cql.props(CqlConfig.HOSTS, "h", CqlConfig.USERNAME, "u", CqlConfig.PASSWORD, "p"), NO_ENV).auth);
  }

  @Test
  void driverSettingsForKeyspaces() throws Exception {
    CqlConfig c = keyspaces(CqlConfig.REGION, "us-east-1");
    DriverExecutionProfile p = CqlSessions.driverConfig(c).build().getInitialConfig().getDefaultProfile();
    assertTrue(p.getString(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS).endsWith("DefaultSslEngineFactory"));
    assertTrue(p.getBoolean(DefaultDriverOption.SSL_HOSTNAME_VALIDATION));
    assertFalse(p.isDefined(DefaultDriverOption.SSL_TRUSTSTORE_PATH), "the JVM's default trust store");
    assertEquals("LOCAL_QUORUM", p.getString(DefaultDriverOption.REQUEST_CONSISTENCY));
    DriverExecutionProfile plain = CqlSessions.driverConfig(CqlConfig.from(Cql.props(CqlConfig.HOSTS, "h"), NO_ENV))
        .build().getInitialConfig().getDefaultProfile();
    assertFalse(plain.isDefined(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS));
  }

  /** The JVM running this (and the loaders' Corretto 17) trusts the roots Keyspaces' certificates chain to. */
  @Test
  void defaultTrustStoreHoldsAmazonRoots() throws Exception {
    TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    f.init((KeyStore) null);
    X509TrustManager tm = (X509TrustManager) f.getTrustManagers()[0];
    List<String> subjects = Stream.of(tm.getAcceptedIssuers()).map(X509Certificate::getSubjectX500Principal)
        .map(Object::toString).collect(Collectors.toList());
    for (int i = 1; i <= 4; i++) {
      String cn = "CN=Amazon Root CA " + i;
      assertTrue(subjects.stream().anyMatch(s -> s.startsWith(cn + ",")), cn + " missing");
    }
  }

  // ------------------------------------------------------------------------------------------ SigV4

  private static final String NONCE = "0123456789abcdef0123456789abcdef";

  private static Map<String, String> answer(SigV4AuthProvider provider) throws Exception {
    Authenticator a = provider.newAuthenticator(null, "com.amazonaws.cassandra.DefaultAuthenticator");
    ByteBuffer initial = a.initialResponse().toCompletableFuture().get();
    assertEquals("SigV4\0\0", StandardCharsets.UTF_8.decode(initial.duplicate()).toString());
    ByteBuffer r = a.evaluateChallenge(ByteBuffer.wrap(("nonce=" + NONCE).getBytes(StandardCharsets.UTF_8)))
        .toCompletableFuture().get();
    Map<String, String> out = new HashMap<>();
    for (String kv : StandardCharsets.UTF_8.decode(r).toString().split(",")) {
      int eq = kv.indexOf('=');
      out.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return out;
  }

  @Test
  void sigV4AnswerMatchesAnIndependentSignature() throws Exception {
    String key = "AKIDEXAMPLE";
    String secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    Instant before = Instant.now();
    Map<String, String> r = answer(new SigV4AuthProvider(
        StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)), "us-east-1"));
    assertEquals(key, r.get("access_key"));
    assertFalse(r.containsKey("session_token"));
    Instant at = Instant.parse(r.get("amzdate"));
    assertTrue(!at.isBefore(before.minusMillis(1)) && !at.isAfter(Instant.now()), r.get("amzdate"));
    assertEquals(signature(key, secret, "us-east-1", r.get("amzdate"), NONCE), r.get("signature"));

    // a different nonce, region or secret gives a different signature (the check above can fail)
    assertFalse(signature(key, secret, "us-east-2", r.get("amzdate"), NONCE).equals(r.get("signature")));

    Map<String, String> s = answer(new SigV4AuthProvider(StaticCredentialsProvider.create(
        AwsSessionCredentials.create(key, secret, "token/with+chars")), "eu-west-1"));
    assertEquals("token/with+chars", s.get("session_token"));
    assertEquals(signature(key, secret, "eu-west-1", s.get("amzdate"), NONCE), s.get("signature"));
  }

  /** The signing key derivation below reproduces AWS's published example (IAM, 20120215, us-east-1). */
  @Test
  void signingKeyDerivationMatchesAwsExample() throws Exception {
    // https://docs.aws.amazon.com/general/latest/gr/signature-v4-examples.html ("Examples of how to derive a signing key")
    assertEquals("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d",
        HexFormat.of().formatHex(signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1",
            "iam")));
  }

  /**
   * SigV4 for Keyspaces' CQL challenge, step by step: the canonical request of a presigned {@code PUT
   * /authenticate} to host {@code cassandra} (query: algorithm, credential, date, expires 900, sorted; payload =
   * SHA-256 of the nonce), the string to sign, the signing key for service {@code cassandra}, the HMAC.
   */
  static String signature(String key, String secret, String region, String amzdate, String nonce) throws Exception {
    String date = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC).format(Instant.parse(amzdate));
    String scope = date + "/" + region + "/cassandra/aws4_request";
    String query = String.join("&", "X-Amz-Algorithm=AWS4-HMAC-SHA256",
        "X-Amz-Credential=" + key + "%2F" + URLEncoder.encode(scope, StandardCharsets.UTF_8),
        "X-Amz-Date=" + URLEncoder.encode(amzdate, StandardCharsets.UTF_8), "X-Amz-Expires=900");
    String canonical = "PUT\n/authenticate\n" + query + "\nhost:cassandra\n\nhost\n" + sha256(nonce);
    String toSign = "AWS4-HMAC-SHA256\n" + amzdate + "\n" + scope + "\n" + sha256(canonical);
    return HexFormat.of().formatHex(hmac(signingKey(secret, date, region, "cassandra"), toSign));
  }

  private static byte[] signingKey(String secret, String date, String region, String service) throws Exception {
    byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
    k = hmac(k, region);
    k = hmac(k, service);
    return hmac(k, "aws4_request");
  }

  private static byte[] hmac(byte[] key, String data) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
