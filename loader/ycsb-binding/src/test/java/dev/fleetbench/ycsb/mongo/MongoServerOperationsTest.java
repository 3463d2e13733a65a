package dev.fleetbench.ycsb.mongo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import dev.fleetbench.ycsb.MongoDbClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import org.bson.BsonBinarySubType;
import org.bson.Document;
import org.bson.types.Binary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The binding's operations against a real MongoDB wire-protocol server (FerretDB 1.24 on SQLite, SCRAM on, plain
 * and TLS listeners). Expected values are read back through a separate plain driver client, not the binding.
 */
@ExtendWith(LocalFerretDb.class)
class MongoServerOperationsTest {
  private static final String TABLE = "usertable";
  private static MongoClient raw;
  private static MongoCollection<Document> coll;

  @BeforeAll
  static void connect() throws Exception {
    MongoConfig c = MongoConfig.from(LocalFerretDb.server().props(LocalFerretDb.DATABASE),
        LocalFerretDb.credentials());
    raw = MongoClients.create(SharedMongoClients.settings(c));
    coll = raw.getDatabase(LocalFerretDb.DATABASE).getCollection(TABLE);
  }

  @AfterAll
  static void close() {
    if (raw != null) {
      raw.close();
    }
  }

  static MongoDb open(Properties p, Map<String, String> env) throws DBException {
    MongoDb db = new MongoDbClient();
    db.setProperties(p);
    db.useEnvironment(env);
    db.useMeasurements(new Measurements(new Properties()));
    db.init();
    return db;
  }

  private static MongoDb open(String... extra) throws DBException {
    return open(LocalFerretDb.server().props(LocalFerretDb.DATABASE, extra), LocalFerretDb.credentials());
  }

  private static Map<String, ByteIterator> values(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return StringByteIterator.getByteIteratorMap(m);
  }

  private static Map<String, String> strings(Map<String, ByteIterator> m) {
    Map<String, String> out = new TreeMap<>();
    m.forEach((k, v) -> out.put(k, v.toString()));
    return out;
  }

  /** The stored document's fields as text, each checked to be BSON binary of subtype 0 as upstream stores them. */
  private static Map<String, String> rawFields(String key) {
    Document d = coll.find(new Document("_id", key)).first();
    if (d == null) {
      return null;
    }
    assertEquals(key, d.get("_id"), "_id is the YCSB key as a string");
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, Object> e : d.entrySet()) {
      if (!e.getKey().equals("_id")) {
        Binary b = assertInstanceOf(Binary.class, e.getValue(), e.getKey() + " is stored as BSON binary");
        assertEquals(BsonBinarySubType.BINARY.getValue(), b.getType(), e.getKey() + ": generic binary subtype");
        out.put(e.getKey(), new String(b.getData(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  @Test
  void insertStoresUpstreamsDocumentShapeAndReadReturnsTheBytes() throws Exception {
    MongoDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-ins-1", values("field0", "alpha", "field1", "beta")));
      assertEquals(Map.of("field0", "alpha", "field1", "beta"), rawFields("user-ins-1"));

      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "user-ins-1", null, all));
      assertEquals(Map.of("field0", "alpha", "field1", "beta"), strings(all), "no _id among the fields");

      Map<String, ByteIterator> one = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "user-ins-1", Set.of("field1"), one));
      assertEquals(Map.of("field1", "beta"), strings(one), "projection");

      byte[] bytes = {0, (byte) 0xff, 10, 13};
      Map<String, ByteIterator> bin = new HashMap<>();
      bin.put("field0", new site.ycsb.ByteArrayByteIterator(bytes));
      assertEquals(Status.OK, db.insert(TABLE, "user-ins-2", bin));
      Map<String, ByteIterator> back = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "user-ins-2", null, back));
      assertArrayEquals(bytes, back.get("field0").toArray(), "arbitrary bytes survive");

      assertEquals(Status.NOT_FOUND, db.read(TABLE, "user-absent", null, new HashMap<>()));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void updateSetsOnlyTheGivenFieldsAndAnAbsentDocumentIsNotFound() throws Exception {
    MongoDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-upd", values("field0", "a0", "field1", "a1", "field2", "a2")));
      assertEquals(Status.OK, db.update(TABLE, "user-upd", values("field1", "b1", "field3", "b3")));
      assertEquals(Map.of("field0", "a0", "field1", "b1", "field2", "a2", "field3", "b3"), rawFields("user-upd"));
      assertEquals(Status.NOT_FOUND, db.update(TABLE, "user-upd-absent", values("field0", "x")),
          "as upstream: no upsert");
      assertNull(rawFields("user-upd-absent"), "and nothing was created");
    } finally {
      db.cleanup();
    }
  }

  @Test
  void deleteRemovesAndASecondDeleteIsNotFound() throws Exception {
    MongoDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-del", values("field0", "x")));
      assertEquals(Status.OK, db.delete(TABLE, "user-del"));
      assertNull(rawFields("user-del"));
      assertEquals(Status.NOT_FOUND, db.delete(TABLE, "user-del"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void scanReturnsKeysFromTheStartKeyInKeyOrder() throws Exception {
    MongoDb db = open();
    try {
      // keys in their own collection so other tests' documents do not interleave
      String t = "scantable";
      for (String k : new String[] {"k05", "k01", "k04", "k02", "k03"}) {
        assertEquals(Status.OK, db.insert(t, k, values("field0", "v" + k, "field1", "w" + k)));
      }
      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      assertEquals(Status.OK, db.scan(t, "k02", 3, null, rows));
      List<String> got = new ArrayList<>();
      for (HashMap<String, ByteIterator> r : rows) {
        got.add(strings(r).toString());
      }
      assertEquals(List.of("{field0=vk02, field1=wk02}", "{field0=vk03, field1=wk03}",
          "{field0=vk04, field1=wk04}"), got, "start key included, sorted by _id, limited to 3");

      Vector<HashMap<String, ByteIterator>> tail = new Vector<>();
      assertEquals(Status.OK, db.scan(t, "k04", 10, Set.of("field1"), tail));
      assertEquals(2, tail.size(), "no wrap-around"); // (printing a ByteIterator consumes it)
      assertEquals(Map.of("field1", "wk04"), strings(tail.get(0)));
      assertEquals(Map.of("field1", "wk05"), strings(tail.get(1)));

      Vector<HashMap<String, ByteIterator>> none = new Vector<>();
      assertEquals(Status.OK, db.scan(t, "k99", 5, null, none), "past the last key: OK and empty");
      assertTrue(none.isEmpty());
    } finally {
      db.cleanup();
    }
  }

  @Test
  void aDuplicateInsertIsAnErrorAndCountedWhileUpsertModeOverwrites() throws Exception {
    MongoDb db = open();
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-dup", values("field0", "first")));
      long before = MongoDb.errorCounts().getOrDefault("INSERT MongoWriteException 11000", 0L);
      assertEquals(Status.ERROR, db.insert(TABLE, "user-dup", values("field0", "second")));
      assertEquals(before + 1, MongoDb.errorCounts().get("INSERT MongoWriteException 11000"),
          "the server's duplicate-key error is counted: " + MongoDb.errorCounts());
      assertEquals(Map.of("field0", "first"), rawFields("user-dup"), "the first insert stands");
    } finally {
      db.cleanup();
    }
    MongoDb up = open(MongoConfig.UPSERT, "true");
    try {
      assertEquals(Status.OK, up.insert(TABLE, "user-dup", values("field1", "replaced")));
      assertEquals(Map.of("field1", "replaced"), rawFields("user-dup"), "replaceOne: the whole document");
    } finally {
      up.cleanup();
    }
  }

  @Test
  void writeConcernAndReadPreferenceReachTheDriver() throws Exception {
    MongoDb db = open(MongoConfig.WRITE_CONCERN, "majority", MongoConfig.READ_PREFERENCE, "primary_preferred");
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-wc", values("field0", "m")));
      assertEquals(Map.of("field0", "m"), rawFields("user-wc"));
      assertEquals(com.mongodb.WriteConcern.MAJORITY, db.config().writeConcern);
    } finally {
      db.cleanup();
    }
    MongoDb fire = open(MongoConfig.WRITE_CONCERN, "unacknowledged");
    try {
      // w:0: the server does not answer, so an absent document cannot be reported
      assertEquals(Status.OK, fire.delete(TABLE, "user-never-there"));
    } finally {
      fire.cleanup();
    }
  }

  @Test
  void aWrongPasswordFailsAtInitAndNoCredentialsAreCountedErrors() throws Exception {
    Properties p = LocalFerretDb.server().props(LocalFerretDb.DATABASE);
    DBException wrong = assertThrows(DBException.class, () -> open(p,
        Map.of(MongoConfig.USERNAME_ENV, LocalFerretDb.USER, MongoConfig.PASSWORD_ENV, "not-the-password")));
    assertTrue(wrong.getMessage().contains("cannot reach 127.0.0.1:"), wrong.getMessage());
    assertTrue(wrong.getMessage().contains("MongoSecurityException"), wrong.getMessage());
    assertFalse(wrong.getMessage().contains("not-the-password"), "the password is never echoed");
    // ping needs no authentication (on MongoDB as on FerretDB), so init passes; every operation is refused
    MongoDb anonymous = open(p, Map.of());
    try {
      Map<String, Long> before = MongoDb.errorCounts();
      assertEquals(Status.ERROR, anonymous.insert(TABLE, "user-anon", values("field0", "x")));
      assertEquals(Status.ERROR, anonymous.read(TABLE, "user-ins-1", null, new HashMap<>()));
      Map<String, Long> after = MongoDb.errorCounts();
      long insertErrors = 0;
      long readErrors = 0;
      for (Map.Entry<String, Long> e : after.entrySet()) {
        long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
        insertErrors += e.getKey().startsWith("INSERT ") ? d : 0;
        readErrors += e.getKey().startsWith("READ ") ? d : 0;
      }
      assertEquals(1, insertErrors, "counted: " + after);
      assertEquals(1, readErrors, "counted: " + after);
      assertNull(rawFields("user-anon"), "nothing written");
    } finally {
      anonymous.cleanup();
    }
  }

  @Test
  void tlsWithTheServersCaWorksAndWithoutItFailsAtInit() throws Exception {
    LocalFerretDb.Server s = LocalFerretDb.server();
    Properties p = s.props(LocalFerretDb.DATABASE, MongoConfig.URL, s.tlsUrl(LocalFerretDb.DATABASE),
        MongoConfig.TLS, "true", MongoConfig.TLS_CA_FILE, s.caFile.toString());
    MongoDb db = open(p, LocalFerretDb.credentials());
    try {
      assertEquals(Status.OK, db.insert(TABLE, "user-tls", values("field0", "over tls")));
      assertEquals(Map.of("field0", "over tls"), rawFields("user-tls"));
    } finally {
      db.cleanup();
    }
    Properties untrusted = s.props(LocalFerretDb.DATABASE, MongoConfig.URL, s.tlsUrl(LocalFerretDb.DATABASE),
        MongoConfig.TLS, "true", MongoConfig.SERVER_SELECTION_TIMEOUT_MS, "2000");
    DBException e = assertThrows(DBException.class, () -> open(untrusted, LocalFerretDb.credentials()));
    assertTrue(e.getMessage().contains("cannot reach"), e.getMessage());
    Properties plainToTls = s.props(LocalFerretDb.DATABASE, MongoConfig.URL, s.tlsUrl(LocalFerretDb.DATABASE),
        MongoConfig.SERVER_SELECTION_TIMEOUT_MS, "2000");
    assertThrows(DBException.class, () -> open(plainToTls, LocalFerretDb.credentials()),
        "a plain client on the TLS port cannot talk to it");
  }
}
