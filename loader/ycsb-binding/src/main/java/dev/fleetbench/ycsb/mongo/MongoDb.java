package dev.fleetbench.ycsb.mongo;

import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import dev.fleetbench.ycsb.BindingSupport;
import dev.fleetbench.ycsb.DynamoDbClient;
import dev.fleetbench.ycsb.Retrying;
import dev.fleetbench.ycsb.Retrying.Failed;
import dev.fleetbench.ycsb.cql.CqlDb;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.Binary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The MongoDB binding on the MongoDB Java driver (sync); YCSB loads it as {@code dev.fleetbench.ycsb.MongoDbClient}.
 *
 * <p>Documents are stored as upstream YCSB's mongodb binding stores them
 * (https://github.com/brianfrankcooper/YCSB/blob/master/mongodb/src/main/java/site/ycsb/db/MongoDbClient.java):
 * {@code {_id: <ycsb key>, field0: BinData(0, <bytes>), ...}} in collection {@code <table>} of the URL's database
 * (else {@code ycsb}); read/update/delete by {@code _id}, scan as {@code _id >= startkey} sorted by {@code _id}.
 *
 * <p>Overload is counted, not hidden: the driver's retries are off; an attempt answered with an error labelled
 * {@code SystemOverloadedError} (or code 462 IngressRequestRateLimitExceeded) is recorded as {@code <OP>-THROTTLED}
 * and retried after a back-off, up to {@code mongodb.maxRetries} times, then the operation returns
 * {@link #THROTTLED}. Timeouts return {@link #TIMEOUT}; anything else {@link Status#ERROR}. Each distinct error is
 * logged once.
 */
public class MongoDb extends DB {
  /** Still overloaded after every retry: the same status as the DynamoDB-API and CQL bindings. */
  public static final Status THROTTLED = DynamoDbClient.THROTTLED;
  /** A socket read timeout, a server-side time limit or a write-concern timeout; the same status as CQL's. */
  public static final Status TIMEOUT = CqlDb.TIMEOUT;
  /** The error label MongoDB 8.x puts on operations its load shedding rejected. */
  static final String OVERLOADED_LABEL = "SystemOverloadedError";
  /** IngressRequestRateLimitExceeded. */
  static final int RATE_LIMITED_CODE = 462;
  /** WriteConcernFailed: a write concern that was not satisfied within wtimeout. */
  static final int WRITE_CONCERN_FAILED_CODE = 64;

  private static final Logger LOG = LoggerFactory.getLogger(MongoDb.class);
  private static final BindingSupport.ErrorLog ERRORS = new BindingSupport.ErrorLog(LOG);
  private static final Integer INCLUDE = 1;
  private static final ReplaceOptions UPSERT = new ReplaceOptions().upsert(true);

  private MongoConfig config;
  private SharedMongoClients clients;
  private MongoDatabase database;
  private final Map<String, MongoCollection<Document>> collections = new ConcurrentHashMap<>();
  private Measurements measurements;
  private Retrying retrying;
  private Map<String, String> environment = System.getenv();
  private UnaryOperator<MongoCollection<Document>> wrapper = UnaryOperator.identity();

  /** For tests: measure into this registry instead of the process-wide singleton. */
  void useMeasurements(Measurements m) {
    this.measurements = m;
  }

  /** For tests: wrap each collection (a test double that fails the first calls, over the real collection). */
  void wrapCollections(UnaryOperator<MongoCollection<Document>> wrapper) {
    this.wrapper = wrapper;
  }

  /** For tests: take the credentials' environment variables from this map instead of the process's. */
  void useEnvironment(Map<String, String> env) {
    this.environment = env;
  }

  @Override
  public void init() throws DBException {
    config = MongoConfig.from(getProperties(), environment);
    if (measurements == null) {
      measurements = Measurements.getMeasurements();
    }
    retrying = retrying();
    try {
      clients = SharedMongoClients.acquire(config);
    } catch (Exception e) {
      throw new DBException("fleetbench MongoDB binding: cannot set up the client for " + config.hosts() + ": "
          + e, e);
    }
    database = clients.client.getDatabase(config.database);
    try {
      // connects, authenticates and checks the server answers, so a wrong password or an unreachable
      // cluster fails here, not as errors of the first operations
      database.runCommand(new Document("ping", 1));
    } catch (RuntimeException e) {
      SharedMongoClients.release(clients);
      clients = null;
      throw new DBException("fleetbench MongoDB binding: cannot reach " + config.hosts() + " (database '"
          + config.database + "'): " + e, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    if (clients != null) {
      SharedMongoClients.release(clients);
      clients = null;
    }
  }

  MongoConfig config() {
    return config;
  }

  private MongoCollection<Document> collection(String table) {
    return collections.computeIfAbsent(table, t -> wrapper.apply(database.getCollection(t)));
  }

  // ------------------------------------------------------------------------------------------ operations

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      Document doc = call("READ", () -> {
        FindIterable<Document> find = collection(table).find(Filters.eq("_id", key));
        Bson projection = projection(fields);
        if (projection != null) {
          find.projection(projection);
        }
        return find.first();
      });
      if (doc == null) {
        return Status.NOT_FOUND;
      }
      copyFields(doc, result);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      List<HashMap<String, ByteIterator>> rows = call("SCAN", () -> {
        FindIterable<Document> find = collection(table).find(Filters.gte("_id", startkey))
            .sort(Sorts.ascending("_id")).limit(recordcount);
        Bson projection = projection(fields);
        if (projection != null) {
          find.projection(projection);
        }
        List<HashMap<String, ByteIterator>> out = new ArrayList<>();
        try (MongoCursor<Document> cursor = find.iterator()) {
          while (cursor.hasNext()) {
            HashMap<String, ByteIterator> r = new HashMap<>();
            copyFields(cursor.next(), r);
            out.add(r);
          }
        }
        return out;
      });
      result.addAll(rows);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    if (values.isEmpty()) {
      return Status.OK; // nothing to set
    }
    try {
      UpdateResult r = call("UPDATE",
          () -> collection(table).updateOne(Filters.eq("_id", key), new Document("$set", fields(values))));
      // as upstream: an update of an absent document is NOT_FOUND (no upsert)
      return r.wasAcknowledged() && r.getMatchedCount() == 0 ? Status.NOT_FOUND : Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    Document doc = new Document("_id", key);
    doc.putAll(fields(values));
    try {
      call("INSERT", () -> config.upsert
          ? collection(table).replaceOne(Filters.eq("_id", key), doc, UPSERT)
          : collection(table).insertOne(doc));
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status delete(String table, String key) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      DeleteResult r = call("DELETE", () -> collection(table).deleteOne(Filters.eq("_id", key)));
      // as upstream: deleting an absent document is NOT_FOUND
      return r.wasAcknowledged() && r.getDeletedCount() == 0 ? Status.NOT_FOUND : Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  // ------------------------------------------------------------------------------------------ retry loop

  /** Runs the request under the binding's retry loop (overloaded attempts measured as {@code <op>-THROTTLED}). */
  private <T> T call(String op, Retrying.Attempt<T> request) throws Failed {
    return retrying.call(op, request);
  }

  /** Retries overloaded attempts; other errors go to the error log as "OP ExceptionClass [code]". */
  private Retrying retrying() {
    return new Retrying(measurements, config.maxRetries, config.retryBaseDelayMs, config.retryMaxDelayMs) {
      @Override
      protected Status classify(Exception e) {
        return MongoDb.classify(e);
      }

      @Override
      protected void noteError(String op, Status status, Exception e) {
        ERRORS.note(op, kind(e), e.getMessage());
      }
    };
  }

  /** THROTTLED (retry), TIMEOUT or ERROR. */
  static Status classify(Throwable e) {
    if (e instanceof MongoException) {
      MongoException m = (MongoException) e;
      if (m.hasErrorLabel(OVERLOADED_LABEL) || m.getCode() == RATE_LIMITED_CODE) {
        return THROTTLED;
      }
      if (e instanceof MongoSocketReadTimeoutException || e instanceof MongoExecutionTimeoutException) {
        return TIMEOUT;
      }
      if (e instanceof MongoWriteConcernException
          && ((MongoWriteConcernException) e).getWriteConcernError().getCode() == WRITE_CONCERN_FAILED_CODE) {
        return TIMEOUT;
      }
      if (e.getClass().getSimpleName().equals("MongoOperationTimeoutException")) {
        return TIMEOUT;
      }
    }
    return Status.ERROR;
  }

  /** "ExceptionClass" or "ExceptionClass code" for the error log. */
  static String kind(Throwable e) {
    String k = e.getClass().getSimpleName();
    if (e instanceof MongoException && ((MongoException) e).getCode() != -1) {
      k += " " + ((MongoException) e).getCode();
    }
    return k;
  }

  /** How many times each distinct error ("OP ExceptionClass code") was seen in this process. */
  static Map<String, Long> errorCounts() {
    return ERRORS.counts();
  }

  // ------------------------------------------------------------------------------------------ encoding

  /** Null (the whole document) or {@code {f1: 1, f2: 1}}; {@code _id} comes along and is dropped on copy. */
  static Bson projection(Set<String> fields) {
    if (fields == null || fields.isEmpty()) {
      return null;
    }
    Document p = new Document();
    for (String f : fields) {
      p.put(f, INCLUDE);
    }
    return p;
  }

  /** The values as BSON binary (subtype 0), as upstream stores them. */
  static Document fields(Map<String, ByteIterator> values) {
    Document d = new Document();
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      d.put(e.getKey(), e.getValue().toArray());
    }
    return d;
  }

  /** Every field except {@code _id}: binary as bytes, strings (written by other tools) as their text. */
  static void copyFields(Document doc, Map<String, ByteIterator> out) {
    for (Map.Entry<String, Object> e : doc.entrySet()) {
      if (e.getKey().equals("_id")) {
        continue;
      }
      Object v = e.getValue();
      if (v instanceof Binary) {
        out.put(e.getKey(), new ByteArrayByteIterator(((Binary) v).getData()));
      } else if (v instanceof String) {
        out.put(e.getKey(), new StringByteIterator((String) v));
      }
    }
  }
}
