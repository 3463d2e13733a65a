package dev.fleetbench.ycsb.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.AuthenticationMechanism;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.ServerAddress;
import com.mongodb.WriteConcern;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.types.Binary;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** Properties, driver settings, error classification and encoding, without a server. */
class MongoConfigTest {
  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  @Test
  void defaultsAreUpstreamYcsbs() throws Exception {
    MongoConfig c = MongoConfig.from(props(MongoConfig.URL, "mongodb://10.0.0.5:27017,10.0.0.6:27017"), Map.of());
    assertEquals("ycsb", c.database, "no database in the URL: ycsb, as upstream");
    assertEquals("acknowledged", c.writeConcernName);
    assertEquals(WriteConcern.W1, c.writeConcern, "upstream's default URL has w=1");
    assertEquals(ReadPreference.primary(), c.readPreference);
    assertEquals(ReadConcern.DEFAULT, c.readConcern, "no read concern sent: the server's default");
    assertFalse(c.tls);
    assertNull(c.username);
    assertEquals("admin", c.authSource);
    assertEquals(100, c.maxPoolSize);
    assertEquals(3, c.maxRetries);
    assertFalse(c.upsert);
    assertEquals("10.0.0.5:27017,10.0.0.6:27017", c.hosts());

    MongoClientSettings s = SharedMongoClients.settings(c);
    assertEquals(WriteConcern.W1, s.getWriteConcern());
    assertFalse(s.getRetryWrites(), "the driver never retries silently");
    assertFalse(s.getRetryReads());
    assertFalse(s.getSslSettings().isEnabled());
    assertNull(s.getCredential());
    assertEquals(10_000, s.getSocketSettings().getReadTimeout(TimeUnit.MILLISECONDS));
    assertEquals(5_000, s.getSocketSettings().getConnectTimeout(TimeUnit.MILLISECONDS));
    assertEquals(100, s.getConnectionPoolSettings().getMaxSize());
  }

  @Test
  void theUrlsDatabaseUnlessAdminAndSrvMeansTls() throws Exception {
    assertEquals("bench", MongoConfig.from(props(MongoConfig.URL, "mongodb://h/bench"), Map.of()).database);
    assertEquals("ycsb", MongoConfig.from(props(MongoConfig.URL, "mongodb://h/admin"), Map.of()).database);
    // an SRV URL (Atlas) is resolved by DNS only when a client is built; parsing it needs none
    MongoConfig srv = MongoConfig.from(props(MongoConfig.URL, "mongodb+srv://cluster0.example.net/ycsb"), Map.of());
    assertTrue(srv.tls, "mongodb+srv: TLS on unless mongodb.tls=false");
    assertFalse(MongoConfig.from(props(MongoConfig.URL, "mongodb+srv://cluster0.example.net/ycsb", MongoConfig.TLS,
        "false"), Map.of()).tls);
  }

  @Test
  void writeConcernReadPreferenceAndCredentialsReachTheSettings() throws Exception {
    MongoConfig c = MongoConfig.from(props(MongoConfig.URL, "mongodb://h1,h2/db1?replicaSet=rs0",
        MongoConfig.WRITE_CONCERN, "MAJORITY", MongoConfig.WRITE_TIMEOUT_MS, "2500", MongoConfig.READ_PREFERENCE,
        "secondary_preferred", MongoConfig.READ_CONCERN, "majority", MongoConfig.AUTH_MECHANISM, "scram-sha-256",
        MongoConfig.MAX_POOL_SIZE, "32"),
        Map.of(MongoConfig.USERNAME_ENV, "bench", MongoConfig.PASSWORD_ENV, "s3cret"));
    MongoClientSettings s = SharedMongoClients.settings(c);
    assertEquals(WriteConcern.MAJORITY.withWTimeout(2500, TimeUnit.MILLISECONDS), s.getWriteConcern());
    assertEquals(ReadPreference.secondaryPreferred(), s.getReadPreference());
    assertEquals(ReadConcern.MAJORITY, s.getReadConcern());
    assertEquals("rs0", s.getClusterSettings().getRequiredReplicaSetName(), "URL options other than ours stay");
    assertEquals(32, s.getConnectionPoolSettings().getMaxSize());
    MongoCredential cred = s.getCredential();
    assertEquals("bench", cred.getUserName());
    assertEquals("admin", cred.getSource());
    assertEquals("s3cret", new String(cred.getPassword()));
    assertEquals(AuthenticationMechanism.SCRAM_SHA_256, cred.getAuthenticationMechanism());
    MongoConfig j = MongoConfig.from(props(MongoConfig.URL, "mongodb://h", MongoConfig.WRITE_CONCERN,
        "journaled", MongoConfig.AUTH_MECHANISM, "SCRAM-SHA-1", MongoConfig.AUTH_SOURCE, "users"),
        Map.of(MongoConfig.USERNAME_ENV, "u", MongoConfig.PASSWORD_ENV, "p"));
    assertEquals(Boolean.TRUE, j.writeConcern.getJournal());
    assertEquals(1, j.writeConcern.getW());
    assertEquals(AuthenticationMechanism.SCRAM_SHA_1, SharedMongoClients.credential(j).getAuthenticationMechanism());
    assertEquals("users", SharedMongoClients.credential(j).getSource());
    MongoConfig neg = MongoConfig.from(props(MongoConfig.URL, "mongodb://h"),
        Map.of(MongoConfig.USERNAME_ENV, "u", MongoConfig.PASSWORD_ENV, "p"));
    assertNull(SharedMongoClients.credential(neg).getAuthenticationMechanism(), "negotiated with the server");
  }

  @Test
  void everyBadPropertyIsNamedWithWhatWasExpected() {
    DBException e = assertThrows(DBException.class, () -> MongoConfig.from(props(MongoConfig.URL,
        "mongodb://h1/ycsb?w=2&readPreference=nearest&retryWrites=true&appName=x", MongoConfig.WRITE_CONCERN,
        "all", MongoConfig.READ_PREFERENCE, "closest", MongoConfig.MAX_RETRIES, "-1", MongoConfig.TLS, "yes",
        MongoConfig.BATCH_SIZE, "100", MongoConfig.TLS_CA_FILE, "/no/such/ca.pem"),
        Map.of(MongoConfig.PASSWORD_ENV, "p")));
    String m = e.getMessage();
    assertTrue(m.contains("mongodb.url: option 'w' is set by the binding; remove it from the URL and set"
        + " mongodb.writeConcern"), m);
    assertTrue(m.contains("mongodb.url: option 'readPreference' is set by the binding"), m);
    assertTrue(m.contains("mongodb.url: option 'retryWrites' is set by the binding"), m);
    assertTrue(m.contains("mongodb.writeConcern: 'all' is not one of [unacknowledged, errors_ignored,"
        + " acknowledged, journaled, replica_acknowledged, majority]"), m);
    assertTrue(m.contains("mongodb.readPreference: 'closest' is not one of [primary,"), m);
    assertTrue(m.contains("mongodb.maxRetries: -1 is outside 0..1000"), m);
    assertTrue(m.contains("mongodb.tls: 'yes' is not true or false"), m);
    assertTrue(m.contains("batchsize: 100 is not supported"), m);
    assertTrue(m.contains("mongodb.tlsCaFile: '/no/such/ca.pem' is not a readable file"), m);
    assertTrue(m.contains("mongodb.tlsCaFile: set while mongodb.tls is false"), m);
    assertTrue(m.contains("FLEETBENCH_MONGODB_PASSWORD: set without FLEETBENCH_MONGODB_USERNAME"), m);
    assertEquals(11, m.split("\n").length - 1, m);
  }

  @Test
  void aUrlWithCredentialsIsRefusedWithoutEchoingIt() {
    DBException e = assertThrows(DBException.class, () -> MongoConfig.from(props(MongoConfig.URL,
        "mongodb://admin:hunter2@db.example:27017/ycsb"), Map.of()));
    assertTrue(e.getMessage().contains("mongodb.url: contains credentials (user@host); remove them and set the"
        + " environment variables FLEETBENCH_MONGODB_USERNAME and FLEETBENCH_MONGODB_PASSWORD"), e.getMessage());
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    DBException noPassword = assertThrows(DBException.class, () -> MongoConfig.from(props(MongoConfig.URL,
        "mongodb://h"), Map.of(MongoConfig.USERNAME_ENV, "bench")));
    assertTrue(noPassword.getMessage().contains("FLEETBENCH_MONGODB_PASSWORD: empty while"
        + " FLEETBENCH_MONGODB_USERNAME is set"), noPassword.getMessage());
    DBException missing = assertThrows(DBException.class, () -> MongoConfig.from(props(), Map.of()));
    assertTrue(missing.getMessage().contains("mongodb.url: missing"), missing.getMessage());
    DBException scheme = assertThrows(DBException.class,
        () -> MongoConfig.from(props(MongoConfig.URL, "http://db:27017"), Map.of()));
    assertTrue(scheme.getMessage().contains("does not start with mongodb:// or mongodb+srv://"), scheme.getMessage());
  }

  @Test
  void overloadIsThrottledTimeoutsAreTimeoutsAndTheRestErrors() {
    ServerAddress a = new ServerAddress("127.0.0.1", 27017);
    BsonDocument shed = new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(462))
        .append("codeName", new BsonString("IngressRequestRateLimitExceeded"))
        .append("errmsg", new BsonString("rate exceeded"))
        .append("errorLabels", new BsonArray(java.util.List.of(new BsonString("SystemOverloadedError"),
            new BsonString("RetryableError"))));
    assertSame(MongoDb.THROTTLED, MongoDb.classify(new MongoCommandException(shed, a)));
    BsonDocument labelOnly = new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(1))
        .append("errorLabels", new BsonArray(java.util.List.of(new BsonString("SystemOverloadedError"))));
    assertSame(MongoDb.THROTTLED, MongoDb.classify(new MongoCommandException(labelOnly, a)));
    BsonDocument maxTime = new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(2));
    assertSame(Status.ERROR, MongoDb.classify(new MongoCommandException(maxTime, a)));
    assertSame(MongoDb.TIMEOUT, MongoDb.classify(new MongoSocketReadTimeoutException("t", a, null)));
    assertSame(Status.ERROR, MongoDb.classify(new MongoTimeoutException("no server")),
        "no server selected: the cluster is unavailable, not slow");
    assertSame(Status.ERROR, MongoDb.classify(new IllegalStateException("x")));
    assertEquals("MongoCommandException 462", MongoDb.kind(new MongoCommandException(shed, a)));
  }

  @Test
  void valuesAreBinaryAndReadBackAsBytesOrText() {
    Map<String, ByteIterator> in = StringByteIterator.getByteIteratorMap(Map.of("field0", "abc"));
    Document d = MongoDb.fields(in);
    assertTrue(d.get("field0") instanceof byte[], "byte[] is encoded by the driver as BSON binary subtype 0");
    Document stored = new Document("_id", "k").append("field0", new Binary("abc".getBytes(StandardCharsets.UTF_8)))
        .append("field1", "text").append("n", 7);
    Map<String, ByteIterator> out = new java.util.HashMap<>();
    MongoDb.copyFields(stored, out);
    assertEquals(Set.of("field0", "field1"), out.keySet(), "no _id; values of other types are skipped");
    assertEquals("abc", out.get("field0").toString());
    assertEquals("text", out.get("field1").toString());
    assertNull(MongoDb.projection(null));
    assertEquals(new Document("field1", 1), MongoDb.projection(Set.of("field1")));
  }
}
