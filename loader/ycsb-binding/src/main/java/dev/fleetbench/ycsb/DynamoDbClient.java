package dev.fleetbench.ycsb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * YCSB binding for the DynamoDB API (Amazon DynamoDB and ScyllaDB Alternator) on AWS SDK for Java v2.
 *
 * <p>Items are {@code {<keyAttribute>: S <ycsb key>, field0: S ..., ...}}. Operations: read = GetItem
 * (projection of the requested fields), insert = PutItem, update = UpdateItem with a SET expression,
 * delete = DeleteItem, scan = Scan from ExclusiveStartKey (unordered; see README.md).
 *
 * <p>Throttling is counted, not hidden: the SDK's retries are off and this class retries throttled requests
 * itself. Every throttled attempt is recorded as the YCSB measurement {@code <OP>-THROTTLED} (service time of
 * the attempt; in intended mode the time since the operation's intended start). An operation still throttled
 * after {@code dynamodb.maxRetries} retries returns {@link #THROTTLED}; other failures return
 * {@link Status#ERROR}, each distinct error logged once.
 */
public class DynamoDbClient extends DB {
  /** Returned when an operation was still throttled after every retry (summary line {@code Return=THROTTLED}). */
  public static final Status THROTTLED =
      new Status("THROTTLED", "The request was throttled on every attempt; retries exhausted.");

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbClient.class);
  private static final BindingSupport.ErrorLog ERRORS = new BindingSupport.ErrorLog(LOG);
  private static final Set<String> THROTTLE_CODES = Set.of("ProvisionedThroughputExceededException",
      "ThrottlingException", "RequestLimitExceeded", "Throttling", "TooManyRequestsException");

  private BindingConfig config;
  private EndpointClients clients;
  private Measurements measurements;

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
    try {
      clients = EndpointClients.acquire(config);
    } catch (RuntimeException e) {
      throw new DBException("fleetbench DynamoDB binding: cannot create the SDK client: " + e, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
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
    BindingSupport.injectDelay(config.injectDelayUs);
    GetItemRequest.Builder rb = GetItemRequest.builder()
        .tableName(table)
        .key(keyOf(key))
        .consistentRead(config.consistentReads);
    if (fields != null && !fields.isEmpty()) {
      Projection pr = new Projection(fields);
      rb.projectionExpression(pr.expression).expressionAttributeNames(pr.names);
    }
    GetItemRequest req = rb.build();
    try {
      GetItemResponse res = call("READ", c -> c.getItem(req));
      if (!res.hasItem() || res.item().isEmpty()) {
        return Status.NOT_FOUND;
      }
      copyFields(res.item(), result);
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    Projection pr = fields == null || fields.isEmpty() ? null : new Projection(fields);
    Map<String, AttributeValue> from = keyOf(startkey);
    try {
      while (result.size() < recordcount) {
        ScanRequest.Builder rb = ScanRequest.builder()
            .tableName(table)
            .limit(recordcount - result.size())
            .consistentRead(config.consistentReads)
            .exclusiveStartKey(from);
        if (pr != null) {
          rb.projectionExpression(pr.expression).expressionAttributeNames(pr.names);
        }
        ScanRequest req = rb.build();
        ScanResponse page = call("SCAN", c -> c.scan(req));
        for (Map<String, AttributeValue> item : page.items()) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          copyFields(item, row);
          result.add(row);
        }
        if (!page.hasLastEvaluatedKey() || page.lastEvaluatedKey().isEmpty()) {
          break; // end of the table: no wrap-around
        }
        from = page.lastEvaluatedKey();
      }
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    Map<String, String> names = new HashMap<>();
    Map<String, AttributeValue> vals = new HashMap<>();
    StringBuilder expr = new StringBuilder("SET ");
    int i = 0;
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      if (i > 0) {
        expr.append(", ");
      }
      expr.append("#f").append(i).append(" = :v").append(i);
      names.put("#f" + i, e.getKey());
      vals.put(":v" + i, AttributeValue.fromS(e.getValue().toString()));
      i++;
    }
    if (i == 0) {
      return Status.OK; // nothing to set
    }
    String expression = expr.toString();
    try {
      call("UPDATE", c -> c.updateItem(r -> r.tableName(table).key(keyOf(key)).updateExpression(expression)
          .expressionAttributeNames(names).expressionAttributeValues(vals)));
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    Map<String, AttributeValue> item = new HashMap<>();
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      item.put(e.getKey(), AttributeValue.fromS(e.getValue().toString()));
    }
    item.put(config.keyAttribute, AttributeValue.fromS(key));
    try {
      call("INSERT", c -> c.putItem(r -> r.tableName(table).item(item)));
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status delete(String table, String key) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      call("DELETE", c -> c.deleteItem(r -> r.tableName(table).key(keyOf(key))));
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  // ------------------------------------------------------------------------------------------ retry loop

  /** An operation that ended without a usable response; carries the YCSB status to return. */
  private static final class Failed extends Exception {
    private static final long serialVersionUID = 1L;
    final transient Status status;

    Failed(Status status) {
      super(status.getName(), null, false, false);
      this.status = status;
    }
  }

  /**
   * Sends the request, retrying throttled attempts with capped exponential back-off and jitter. Each attempt
   * goes to the next endpoint. Each throttled attempt is measured as {@code <op>-THROTTLED}.
   */
  private <T> T call(String op, Function<software.amazon.awssdk.services.dynamodb.DynamoDbClient, T> request)
      throws Failed {
    long intendedStart = measurements.getIntendedtartTimeNs();
    for (int attempt = 0;; attempt++) {
      long st = System.nanoTime();
      try {
        return request.apply(clients.next());
      } catch (AwsServiceException e) {
        if (isThrottle(e)) {
          long en = System.nanoTime();
          BindingSupport.recordThrottle(measurements, op, intendedStart == 0 ? st : intendedStart, st, en);
          if (attempt >= config.maxRetries) {
            throw new Failed(THROTTLED);
          }
          BindingSupport.backOff(attempt, config.retryBaseDelayMs, config.retryMaxDelayMs);
          continue;
        }
        noteError(op, e);
        throw new Failed(Status.ERROR);
      } catch (SdkException e) {
        noteError(op, e);
        throw new Failed(Status.ERROR);
      }
    }
  }

  static boolean isThrottle(AwsServiceException e) {
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    return (code != null && THROTTLE_CODES.contains(code)) || e.isThrottlingException();
  }

  private void noteError(String op, SdkException e) {
    String kind;
    if (e instanceof AwsServiceException && ((AwsServiceException) e).awsErrorDetails() != null) {
      AwsServiceException s = (AwsServiceException) e;
      kind = e.getClass().getSimpleName() + "/" + s.awsErrorDetails().errorCode() + "/" + s.statusCode();
    } else {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      kind = e.getClass().getSimpleName() + "/" + root.getClass().getSimpleName();
    }
    ERRORS.note(op, kind, e.getMessage());
  }

  /** How many times each distinct error was seen in this process (for tests and diagnostics). */
  static Map<String, Long> errorCounts() {
    return ERRORS.counts();
  }

  // ------------------------------------------------------------------------------------------ helpers

  private Map<String, AttributeValue> keyOf(String key) {
    return Map.of(config.keyAttribute, AttributeValue.fromS(key));
  }

  private void copyFields(Map<String, AttributeValue> item, Map<String, ByteIterator> out) {
    for (Map.Entry<String, AttributeValue> e : item.entrySet()) {
      if (e.getKey().equals(config.keyAttribute)) {
        continue;
      }
      AttributeValue v = e.getValue();
      String s = v.s() != null ? v.s() : v.n() != null ? v.n() : v.b() != null ? v.b().asUtf8String() : v.toString();
      out.put(e.getKey(), new StringByteIterator(s));
    }
  }

  /** ProjectionExpression "#f0, #f1" with ExpressionAttributeNames, safe for reserved words. */
  private static final class Projection {
    final String expression;
    final Map<String, String> names = new HashMap<>();

    Projection(Set<String> fields) {
      List<String> parts = new ArrayList<>();
      int i = 0;
      for (String f : fields) {
        names.put("#f" + i, f);
        parts.add("#f" + i);
        i++;
      }
      expression = String.join(", ", parts);
    }
  }
}
