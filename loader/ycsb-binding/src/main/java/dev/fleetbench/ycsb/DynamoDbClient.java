package dev.fleetbench.ycsb;

import dev.fleetbench.ycsb.Retrying.Failed;
import dev.fleetbench.ycsb.wire.DynamoTransport;
import dev.fleetbench.ycsb.wire.DynamoWire;
import dev.fleetbench.ycsb.wire.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * YCSB binding for the DynamoDB API (Amazon DynamoDB and ScyllaDB Alternator): a lean JSON-protocol client
 * ({@link DynamoWire}: hand-written request bodies, SigV4, one persistent connection per thread and endpoint);
 * the AWS SDK for Java v2 only resolves credentials. With {@code dynamodb.daxEndpoint} the same requests go through
 * the DAX client instead ({@code dax.DaxTransport}), under the same retry loop and accounting.
 *
 * <p>Items are {@code {<keyAttribute>: S <ycsb key>, field0: S ..., ...}}, or with N partition-key values
 * ({@link KeyDesign}) {@code {<keyAttribute>: S pk<r>, <sortKeyAttribute>: S <ycsb key>, ...}}. Operations: read =
 * GetItem (projection of the requested fields), insert = PutItem, update = UpdateItem with a SET expression,
 * delete = DeleteItem, scan = Scan from ExclusiveStartKey (unordered; see README.md), query ({@link QueryWorkload})
 * = Query of the key's partition-key value with {@code sk <= key} (or {@code >=}) and a Limit.
 *
 * <p>Throttling is counted, not hidden: this class retries throttled requests itself. Every throttled attempt is recorded as the YCSB measurement {@code <OP>-THROTTLED} (service time of
 * the attempt; in intended mode the time since the operation's intended start). An operation still throttled
 * after {@code dynamodb.maxRetries} retries returns {@link #THROTTLED}; other failures return
 * {@link Status#ERROR}, each distinct error logged once.
 */
public class DynamoDbClient extends DB implements QueryWorkload.Querying {
  /** Returned when an operation was still throttled after every retry (summary line {@code Return=THROTTLED}). */
  public static final Status THROTTLED =
      new Status("THROTTLED", "The request was throttled on every attempt; retries exhausted.");

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbClient.class);
  private static final BindingSupport.ErrorLog ERRORS = new BindingSupport.ErrorLog(LOG);
  private BindingConfig config;
  private EndpointClients clients;
  private DynamoTransport wire;
  private final StringBuilder body = new StringBuilder(2048);
  /** dynamodb.batchInserts: this thread's inserts not sent yet, by key (a retried insert replaces its entry). */
  private final LinkedHashMap<String, String> pending = new LinkedHashMap<>();
  private String pendingTable;
  private Measurements measurements;
  private Retrying retrying;

  /** For tests: measure into this registry instead of the process-wide singleton. */
  void useMeasurements(Measurements m) {
    this.measurements = m;
  }

  @Override
  public void init() throws DBException {
    config = BindingConfig.from(getProperties());
    if (measurements == null) {
      measurements = Measurements.getMeasurements();
    }
    retrying = retrying();
    try {
      clients = EndpointClients.acquire(config);
    } catch (RuntimeException e) {
      throw new DBException("fleetbench DynamoDB binding: cannot " + (config.daxEndpoint == null
          ? "resolve AWS credentials: " : "resolve AWS credentials or open the DAX client: ") + e, e);
    }
    wire = clients.newWire();
  }

  @Override
  public void cleanup() throws DBException {
    if (!pending.isEmpty()) {
      int n = pending.size();
      Status s = flushPending();
      if (!s.isOk()) {
        ERRORS.note("INSERT", "unsent-batch/" + s.getName(), n + " buffered inserts could not be written at cleanup");
        for (int i = 0; i < n; i++) {
          measurements.reportStatus("INSERT", Status.ERROR); // in the summary as Return=ERROR, one per lost item
        }
        throw new DBException("fleetbench DynamoDB binding: " + n + " buffered inserts of this thread could not be "
            + "written at cleanup (" + s.getName() + ")");
      }
    }
    if (wire != null) {
      wire.close();
      wire = null;
    }
    if (clients != null) {
      EndpointClients.release(clients);
      clients = null;
    }
  }

  BindingConfig config() {
    return config;
  }

  // ------------------------------------------------------------------------------------------ operations

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    StringBuilder b = start(table);
    key(b, key);
    b.append(",\"ConsistentRead\":").append(config.consistentReads);
    projection(b, fields);
    try {
      Map<String, Object> res = call("READ", "GetItem", b.append('}').toString());
      Map<String, Object> item = Json.object(res.get("Item"));
      if (item == null || item.isEmpty()) {
        return Status.NOT_FOUND;
      }
      copyFields(item, result);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    Object from = null; // null: the start key
    try {
      while (result.size() < recordcount) {
        StringBuilder b = start(table);
        b.append(",\"Limit\":").append(recordcount - result.size())
            .append(",\"ConsistentRead\":").append(config.consistentReads)
            .append(",\"ExclusiveStartKey\":");
        if (from == null) {
          keyObject(b, startkey);
        } else {
          writeValue(b, from);
        }
        projection(b, fields);
        Map<String, Object> page = call("SCAN", "Scan", b.append('}').toString());
        Object items = page.get("Items");
        if (items instanceof List) {
          for (Object o : (List<?>) items) {
            HashMap<String, ByteIterator> row = new HashMap<>();
            Map<String, Object> item = Json.object(o);
            if (item != null) {
              copyFields(item, row);
            }
            result.add(row);
          }
        }
        Map<String, Object> last = Json.object(page.get("LastEvaluatedKey"));
        if (last == null || last.isEmpty()) {
          break; // end of the table: no wrap-around
        }
        from = last;
      }
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  /**
   * Query: the items of the key's partition-key value whose sort key is at or below the YCSB key, nearest first
   * ({@code fleetbench.query.forward=false}; at or above, ascending, with {@code true}), at most
   * {@code fleetbench.query.limit}, one page. On a table without a sort key it is the one item of that key. An empty
   * result is {@code OK} (nothing at or below the key). Measured as QUERY by {@link QueryWorkload}; throttled attempts
   * as {@code QUERY-THROTTLED}.
   */
  @Override
  public Status query(String table, String key, Set<String> fields, Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    StringBuilder b = start(table);
    boolean composite = config.partitionKeyValues > 0;
    b.append(",\"KeyConditionExpression\":\"#k0 = :k0").append(composite
        ? (config.queryForward ? " AND #k1 >= :k1\"" : " AND #k1 <= :k1\"") : "\"")
        .append(",\"Limit\":").append(config.queryLimit)
        .append(",\"ScanIndexForward\":").append(config.queryForward)
        .append(",\"ConsistentRead\":").append(config.consistentReads)
        .append(",\"ExpressionAttributeValues\":{\":k0\":{\"S\":");
    Json.quote(b, composite ? KeyDesign.partitionValue(key, config.partitionKeyValues) : key).append('}');
    if (composite) {
      b.append(",\":k1\":{\"S\":");
      Json.quote(b, key).append('}');
    }
    b.append("},\"ExpressionAttributeNames\":{\"#k0\":");
    Json.quote(b, config.keyAttribute);
    if (composite) {
      b.append(",\"#k1\":");
      Json.quote(b, config.sortKeyAttribute);
    }
    if (fields != null && !fields.isEmpty()) {
      int i = 0;
      for (String f : fields) {
        b.append(",\"#f").append(i++).append("\":");
        Json.quote(b, f);
      }
      b.append("},\"ProjectionExpression\":\"");
      for (i = 0; i < fields.size(); i++) {
        b.append(i > 0 ? ", #f" : "#f").append(i);
      }
      b.append('"');
    } else {
      b.append('}');
    }
    try {
      Object items = call("QUERY", "Query", b.append('}').toString()).get("Items");
      if (items instanceof List) {
        for (Object o : (List<?>) items) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          Map<String, Object> item = Json.object(o);
          if (item != null) {
            copyFields(item, row);
          }
          result.add(row);
        }
      }
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    if (values.isEmpty()) {
      return Status.OK; // nothing to set
    }
    StringBuilder b = start(table);
    key(b, key);
    b.append(",\"UpdateExpression\":\"SET ");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append("#f").append(i).append(" = :v").append(i);
    }
    b.append("\",\"ExpressionAttributeNames\":{");
    int i = 0;
    for (String name : values.keySet()) {
      if (i > 0) {
        b.append(',');
      }
      b.append("\"#f").append(i++).append("\":");
      Json.quote(b, name);
    }
    b.append("},\"ExpressionAttributeValues\":{");
    i = 0;
    for (ByteIterator v : values.values()) {
      if (i > 0) {
        b.append(',');
      }
      b.append("\":v").append(i++).append("\":{\"S\":");
      Json.quote(b, v.toString()).append('}');
    }
    b.append("}}");
    try {
      call("UPDATE", "UpdateItem", b.toString());
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    StringBuilder b = new StringBuilder(64 + values.size() * 128).append('{');
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      if (isKeyAttribute(e.getKey())) {
        continue; // the key attributes come from the YCSB key
      }
      Json.quote(b, e.getKey()).append(":{\"S\":");
      Json.quote(b, e.getValue().toString()).append("},");
    }
    keyAttributes(b, key);
    String item = b.append('}').toString();
    if (config.batchInserts > 1) {
      return buffer(table, key, item);
    }
    try {
      call("INSERT", "PutItem", start(table).append(",\"Item\":").append(item).append('}').toString());
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  /**
   * dynamodb.batchInserts: the insert joins this thread's pending batch ({@code BATCHED_OK}); the insert that fills
   * it sends the batch (BatchWriteItem) and returns the batch's status. A batch that failed stays pending (YCSB's
   * insertion retry puts the same key again, replacing its entry), so no key is silently skipped.
   */
  private Status buffer(String table, String key, String item) {
    if (pendingTable != null && !pendingTable.equals(table)) {
      Status s = flushPending();
      if (!s.isOk()) {
        return s;
      }
    }
    pendingTable = table;
    pending.put(key, item);
    return pending.size() < config.batchInserts ? Status.BATCHED_OK : flushPending();
  }

  /**
   * Sends the pending batch; unprocessed items (DynamoDB's answer to throttling inside a batch) are measured as
   * one {@code INSERT-THROTTLED} attempt and sent again after the back-off, up to dynamodb.maxRetries times.
   */
  private Status flushPending() {
    if (pending.isEmpty()) {
      return Status.OK;
    }
    long intendedStart = measurements.getIntendedtartTimeNs();
    List<String> items = new ArrayList<>(pending.values());
    try {
      for (int attempt = 0;; attempt++) {
        body.setLength(0);
        body.append("{\"RequestItems\":{");
        Json.quote(body, pendingTable).append(":[");
        for (int i = 0; i < items.size(); i++) {
          body.append(i > 0 ? ",{\"PutRequest\":{\"Item\":" : "{\"PutRequest\":{\"Item\":").append(items.get(i))
              .append("}}");
        }
        body.append("]}}");
        long st = System.nanoTime();
        Map<String, Object> res = call("INSERT", "BatchWriteItem", body.toString());
        Map<String, Object> unprocessed = Json.object(res.get("UnprocessedItems"));
        Object left = unprocessed == null ? null : unprocessed.get(pendingTable);
        if (!(left instanceof List) || ((List<?>) left).isEmpty()) {
          pending.clear();
          return Status.OK;
        }
        BindingSupport.recordThrottle(measurements, "INSERT", intendedStart == 0 ? st : intendedStart, st,
            System.nanoTime());
        if (attempt >= config.maxRetries) {
          return THROTTLED;
        }
        items = new ArrayList<>();
        for (Object o : (List<?>) left) {
          Map<String, Object> put = Json.object(Json.object(o).get("PutRequest"));
          StringBuilder one = new StringBuilder();
          writeValue(one, put.get("Item"));
          items.add(one.toString());
        }
        BindingSupport.backOff(attempt, config.retryBaseDelayMs, config.retryMaxDelayMs);
      }
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status delete(String table, String key) {
    BindingSupport.injectDelay(config.injectDelayUs, config.injectDelayEvery);
    StringBuilder b = start(table);
    key(b, key);
    try {
      call("DELETE", "DeleteItem", b.append('}').toString());
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  // ------------------------------------------------------------------------------------------ retry loop

  /**
   * Sends the request under the retry loop: each attempt goes to the next endpoint; each throttled attempt is
   * measured as {@code <op>-THROTTLED}.
   */
  private Map<String, Object> call(String op, String operation, String json) throws Failed {
    return retrying.call(op, () -> wire.call(operation, json));
  }

  /** Retries throttles; other API errors go to the error log as "OP Code/HTTP status", the rest by class. */
  private Retrying retrying() {
    return new Retrying(measurements, config.maxRetries, config.retryBaseDelayMs, config.retryMaxDelayMs) {
      @Override
      protected Status classify(Exception e) {
        return e instanceof DynamoWire.ApiException && ((DynamoWire.ApiException) e).throttle ? THROTTLED
            : Status.ERROR;
      }

      @Override
      protected void noteError(String op, Status status, Exception e) {
        if (e instanceof DynamoWire.ApiException) {
          DynamoWire.ApiException api = (DynamoWire.ApiException) e;
          ERRORS.note(op, api.code + "/" + api.status, e.getMessage());
        } else {
          ERRORS.note(op, e.getClass().getSimpleName(), String.valueOf(e.getMessage()));
        }
      }
    };
  }

  /** How many times each distinct error was seen in this process (for tests and diagnostics). */
  static Map<String, Long> errorCounts() {
    return ERRORS.counts();
  }

  // ------------------------------------------------------------------------------------------ request bodies

  /** {@code {"TableName":"<table>"} without the closing brace, in this thread's reused buffer. */
  private StringBuilder start(String table) {
    body.setLength(0);
    body.append("{\"TableName\":");
    return Json.quote(body, table);
  }

  private void key(StringBuilder b, String key) {
    b.append(",\"Key\":");
    keyObject(b, key);
  }

  private void keyObject(StringBuilder b, String key) {
    b.append('{');
    keyAttributes(b, key);
    b.append('}');
  }

  /** {@code "<pk>":{"S":...}} and, on a composite-key table, {@code ,"<sk>":{"S":<key>}}. */
  private void keyAttributes(StringBuilder b, String key) {
    Json.quote(b, config.keyAttribute).append(":{\"S\":");
    if (config.partitionKeyValues == 0) {
      Json.quote(b, key).append('}');
      return;
    }
    Json.quote(b, KeyDesign.partitionValue(key, config.partitionKeyValues)).append("},");
    Json.quote(b, config.sortKeyAttribute).append(":{\"S\":");
    Json.quote(b, key).append('}');
  }

  private boolean isKeyAttribute(String name) {
    return name.equals(config.keyAttribute) || name.equals(config.sortKeyAttribute);
  }

  /** ProjectionExpression "#f0, #f1" with ExpressionAttributeNames, safe for reserved words. */
  private static void projection(StringBuilder b, Set<String> fields) {
    if (fields == null || fields.isEmpty()) {
      return;
    }
    b.append(",\"ProjectionExpression\":\"");
    for (int i = 0; i < fields.size(); i++) {
      b.append(i > 0 ? ", #f" : "#f").append(i);
    }
    b.append("\",\"ExpressionAttributeNames\":{");
    int i = 0;
    for (String f : fields) {
      b.append(i > 0 ? ",\"#f" : "\"#f").append(i++).append("\":");
      Json.quote(b, f);
    }
    b.append('}');
  }

  /** A parsed DynamoDB JSON value written back (LastEvaluatedKey into ExclusiveStartKey). */
  private static void writeValue(StringBuilder b, Object v) {
    if (v instanceof Map) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        Json.quote(b, String.valueOf(e.getKey())).append(':');
        writeValue(b, e.getValue());
      }
      b.append('}');
    } else if (v instanceof List) {
      b.append('[');
      boolean first = true;
      for (Object o : (List<?>) v) {
        if (!first) {
          b.append(',');
        }
        first = false;
        writeValue(b, o);
      }
      b.append(']');
    } else if (v instanceof String) {
      Json.quote(b, (String) v);
    } else if (v instanceof Double && ((Double) v) == Math.rint((Double) v)) {
      b.append(((Double) v).longValue());
    } else {
      b.append(v); // Boolean, other numbers, null
    }
  }

  // ------------------------------------------------------------------------------------------ responses

  private void copyFields(Map<String, Object> item, Map<String, ByteIterator> out) {
    for (Map.Entry<String, Object> e : item.entrySet()) {
      if (isKeyAttribute(e.getKey())) {
        continue;
      }
      out.put(e.getKey(), new StringByteIterator(text(e.getValue())));
    }
  }

  /** The text of an attribute value: S and N as they are, B decoded as UTF-8, anything else as JSON. */
  private static String text(Object value) {
    Map<String, Object> v = Json.object(value);
    if (v != null) {
      Object s = v.get("S");
      if (s instanceof String) {
        return (String) s;
      }
      Object n = v.get("N");
      if (n instanceof String) {
        return (String) n;
      }
      Object bin = v.get("B");
      if (bin instanceof String) {
        return new String(Base64.getDecoder().decode((String) bin), StandardCharsets.UTF_8);
      }
    }
    StringBuilder b = new StringBuilder();
    writeValue(b, value);
    return b.toString();
  }
}
