package dev.fleetbench.ycsb.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import dev.fleetbench.ycsb.CapturingExporter;
import dev.fleetbench.ycsb.MongoDbClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * Overload and timeout accounting. FerretDB has no load shedding, so a test double of the collection (a proxy over
 * the real collection on the local server) answers the first N calls with the error MongoDB's load shedding sends
 * (the reply documented in https://jira.mongodb.org/browse/SERVER-114890: code 462, labels SystemOverloadedError
 * and RetryableError); the rest really run on the server.
 */
@ExtendWith(LocalFerretDb.class)
class MongoOverloadAccountingTest {
  private static final String TABLE = "overload";
  private static final ServerAddress ADDRESS = new ServerAddress("127.0.0.1", 27017);

  static MongoCommandException overloaded() {
    BsonDocument reply = new BsonDocument("ok", new BsonInt32(0)).append("code", new BsonInt32(462))
        .append("codeName", new BsonString("IngressRequestRateLimitExceeded"))
        .append("errmsg", new BsonString("Rate limiter 'ingressRequestRateLimiter' rate exceeded"))
        .append("errorLabels", new BsonArray(List.of(new BsonString("SystemOverloadedError"),
            new BsonString("RetryableError"))));
    return new MongoCommandException(reply, ADDRESS);
  }

  /** Counts the collection's data calls; the first {@code n} throw {@code fault}. */
  static final class FailingFirst {
    final AtomicInteger calls = new AtomicInteger();
    private final int n;
    private final Supplier<RuntimeException> fault;

    FailingFirst(int n, Supplier<RuntimeException> fault) {
      this.n = n;
      this.fault = fault;
    }

    @SuppressWarnings("unchecked")
    MongoCollection<Document> wrap(MongoCollection<Document> real) {
      return (MongoCollection<Document>) Proxy.newProxyInstance(getClass().getClassLoader(),
          new Class<?>[] {MongoCollection.class}, (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("insertOne") || name.equals("find") || name.equals("updateOne")
                || name.equals("deleteOne") || name.equals("replaceOne")) {
              if (calls.incrementAndGet() <= n) {
                throw fault.get();
              }
            }
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }
  }

  private static MongoDb open(FailingFirst f, Measurements m, String... extra) throws Exception {
    Properties p = LocalFerretDb.server().props(LocalFerretDb.DATABASE, MongoConfig.MAX_RETRIES, "3",
        MongoConfig.RETRY_BASE_DELAY_MS, "1");
    for (int i = 0; i < extra.length; i += 2) {
      p.setProperty(extra[i], extra[i + 1]);
    }
    MongoDb db = new MongoDbClient();
    db.setProperties(p);
    db.useEnvironment(LocalFerretDb.credentials());
    db.useMeasurements(m);
    db.init();
    db.wrapCollections(f::wrap);
    return db;
  }

  private static Measurements measurements(String interval) {
    Properties p = new Properties();
    p.setProperty("measurement.interval", interval);
    return new Measurements(p);
  }

  private static Map<String, ByteIterator> values(String k, String v) {
    return StringByteIterator.getByteIteratorMap(Map.of(k, v));
  }

  @Test
  void overloadedAttemptsAreMeasuredAndRetriedThenSucceed() throws Exception {
    Measurements m = measurements("op");
    FailingFirst f = new FailingFirst(2, MongoOverloadAccountingTest::overloaded);
    MongoDb db = open(f, m);
    try {
      assertEquals(Status.OK, db.insert(TABLE, "o1", values("field0", "a")));
      assertEquals(3, f.calls.get(), "two overloaded attempts, then the real write");
      Map<String, ByteIterator> row = new HashMap<>();
      assertEquals(Status.OK, db.read(TABLE, "o1", null, row));
      assertEquals("a", row.get("field0").toString(), "the retried write reached the server");
      CapturingExporter e = CapturingExporter.of(m);
      assertEquals(2, e.operations("INSERT-THROTTLED"));
      assertEquals(0, e.operations("READ-THROTTLED"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void stillOverloadedAfterTheLastRetryIsThrottledInEveryMeasurementMode() throws Exception {
    Measurements m = measurements("both");
    FailingFirst f = new FailingFirst(100, MongoOverloadAccountingTest::overloaded);
    MongoDb db = open(f, m, MongoConfig.MAX_RETRIES, "2");
    try {
      assertEquals(MongoDb.THROTTLED, db.read(TABLE, "o1", null, new HashMap<>()));
      assertEquals("THROTTLED", MongoDb.THROTTLED.getName(), "the status name the other bindings use");
      assertEquals(3, f.calls.get(), "maxRetries 2: three attempts");
      CapturingExporter e = CapturingExporter.of(m);
      assertEquals(3, e.operations("READ-THROTTLED"));
      assertEquals(3, e.operations("Intended-READ-THROTTLED"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void aSocketTimeoutIsATimeoutAndNotRetried() throws Exception {
    Measurements m = measurements("op");
    FailingFirst f = new FailingFirst(1, () -> new MongoSocketReadTimeoutException("timed out", ADDRESS, null));
    MongoDb db = open(f, m);
    try {
      assertEquals(MongoDb.TIMEOUT, db.update(TABLE, "o1", values("field0", "b")));
      assertEquals(1, f.calls.get(), "no retry");
      assertEquals(0, CapturingExporter.of(m).operations("UPDATE-THROTTLED"));
    } finally {
      db.cleanup();
    }
  }
}
