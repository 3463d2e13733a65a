package dev.fleetbench.ycsb.dax;

import dev.fleetbench.ycsb.wire.DynamoTransport;
import dev.fleetbench.ycsb.wire.DynamoWire;
import dev.fleetbench.ycsb.wire.Json;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.dax.ClusterDaxClient;
import software.amazon.dax.Configuration;

/**
 * The binding's requests through DAX ({@code dynamodb.daxEndpoint}): the JSON body the binding writes for
 * DynamoDB is turned into the AWS SDK v2 request the DAX client takes, and its response back into the JSON shape
 * the binding reads, so the binding's retry loop, throttle and error accounting are the ones it uses for
 * DynamoDB. One DAX client per process is shared by every thread (it is thread safe and pools its connections).
 *
 * <p>The DAX client's own retries are off ({@code readRetries = writeRetries = 0}): each attempt the binding
 * makes is one request, so {@code dynamodb.maxRetries} and the {@code <OP>-THROTTLED} counts mean what they mean
 * for DynamoDB. Errors: a service error ({@link AwsServiceException}, which the DAX client translates its error
 * codes into) becomes {@link DynamoWire.ApiException} with DynamoDB's error code, so a throttle (DAX node
 * {@code ThrottlingException}, the table's {@code ProvisionedThroughputExceededException},
 * {@code RequestLimitExceeded}) is counted as one; a client-side failure (no reachable node, timeout,
 * ambiguous write) becomes {@link IOException}, an {@code ERROR}.
 */
public final class DaxTransport implements DynamoTransport {
  private final DynamoDbClient client;

  /** @param client a DAX client (or, in tests, any client of the DynamoDB API); not closed by {@link #close}. */
  public DaxTransport(DynamoDbClient client) {
    this.client = client;
  }

  /**
   * A DAX cluster client. The url is the cluster's discovery endpoint ({@code dax://...:8111}, or
   * {@code daxs://...:9111} for a cluster with encryption in transit).
   */
  public static DynamoDbClient open(URI url, String region, AwsCredentialsProvider credentials, int connectTimeoutMs,
      int requestTimeoutMs) throws IOException {
    return ClusterDaxClient.builder().overrideConfiguration(configuration(url, region, credentials,
        connectTimeoutMs, requestTimeoutMs)).build();
  }

  /** The DAX client's configuration for these settings (what {@link #open} builds the client from). */
  public static Configuration configuration(URI url, String region, AwsCredentialsProvider credentials,
      int connectTimeoutMs, int requestTimeoutMs) {
    return Configuration.builder().url(url.toString()).region(Region.of(region)).credentialsProvider(credentials)
        .connectTimeoutMillis(connectTimeoutMs).requestTimeoutMillis(requestTimeoutMs).readRetries(0)
        .writeRetries(0).build();
  }

  @Override
  public Map<String, Object> call(String operation, String jsonBody) throws DynamoWire.ApiException, IOException {
    Map<String, Object> req = Json.object(Json.parse(jsonBody));
    try {
      switch (operation) {
        case "GetItem":
          return getItem(req);
        case "PutItem":
          client.putItem(b -> b.tableName(text(req, "TableName")).item(item(req.get("Item"))));
          return Map.of();
        case "UpdateItem":
          client.updateItem(b -> b.tableName(text(req, "TableName")).key(item(req.get("Key")))
              .updateExpression(text(req, "UpdateExpression")).expressionAttributeNames(names(req))
              .expressionAttributeValues(item(req.get("ExpressionAttributeValues"))));
          return Map.of();
        case "DeleteItem":
          client.deleteItem(b -> b.tableName(text(req, "TableName")).key(item(req.get("Key"))));
          return Map.of();
        case "Scan":
          return scan(req);
        case "Query":
          return query(req);
        case "BatchWriteItem":
          return batchWrite(req);
        default:
          throw new IllegalArgumentException("the DAX path does not send " + operation);
      }
    } catch (AwsServiceException e) {
      throw apiError(e);
    } catch (SdkException e) {
      throw new IOException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * A service error as the binding counts it: the code is the exception's class name when that is one of
   * DynamoDB's throttle codes (the DAX client builds {@code ProvisionedThroughputExceededException} without an
   * error code of DynamoDB's), else DynamoDB's error code as the DAX client carries it, else the class name.
   */
  static DynamoWire.ApiException apiError(AwsServiceException e) {
    String cls = e.getClass().getSimpleName();
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    if (DynamoWire.THROTTLE_CODES.contains(cls) || code == null || code.isEmpty()) {
      code = cls;
    }
    return new DynamoWire.ApiException(e.statusCode(), code, String.valueOf(e.getMessage()));
  }

  @Override
  public void close() {
    // the client is the process's, closed with it
  }

  // ------------------------------------------------------------------------------------------ requests

  private Map<String, Object> getItem(Map<String, Object> req) {
    GetItemResponse r = client.getItem(b -> {
      b.tableName(text(req, "TableName")).key(item(req.get("Key")))
          .consistentRead(Boolean.TRUE.equals(req.get("ConsistentRead")));
      if (req.containsKey("ProjectionExpression")) {
        b.projectionExpression(text(req, "ProjectionExpression")).expressionAttributeNames(names(req));
      }
    });
    Map<String, Object> out = new HashMap<>();
    if (r.hasItem()) {
      out.put("Item", json(r.item()));
    }
    return out;
  }

  private Map<String, Object> scan(Map<String, Object> req) {
    ScanResponse r = client.scan(b -> {
      b.tableName(text(req, "TableName")).limit(((Number) req.get("Limit")).intValue())
          .consistentRead(Boolean.TRUE.equals(req.get("ConsistentRead")));
      Map<String, AttributeValue> from = item(req.get("ExclusiveStartKey"));
      if (!from.isEmpty()) {
        b.exclusiveStartKey(from);
      }
      if (req.containsKey("ProjectionExpression")) {
        b.projectionExpression(text(req, "ProjectionExpression")).expressionAttributeNames(names(req));
      }
    });
    Map<String, Object> out = new HashMap<>();
    List<Object> items = new ArrayList<>();
    for (Map<String, AttributeValue> i : r.items()) {
      items.add(json(i));
    }
    out.put("Items", items);
    if (r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty()) {
      out.put("LastEvaluatedKey", json(r.lastEvaluatedKey()));
    }
    return out;
  }

  private Map<String, Object> query(Map<String, Object> req) {
    QueryResponse r = client.query(b -> {
      b.tableName(text(req, "TableName")).keyConditionExpression(text(req, "KeyConditionExpression"))
          .limit(((Number) req.get("Limit")).intValue())
          .scanIndexForward(!Boolean.FALSE.equals(req.get("ScanIndexForward")))
          .consistentRead(Boolean.TRUE.equals(req.get("ConsistentRead")))
          .expressionAttributeNames(names(req)).expressionAttributeValues(item(req.get("ExpressionAttributeValues")));
      if (req.containsKey("ProjectionExpression")) {
        b.projectionExpression(text(req, "ProjectionExpression"));
      }
    });
    List<Object> items = new ArrayList<>();
    for (Map<String, AttributeValue> i : r.items()) {
      items.add(json(i));
    }
    Map<String, Object> out = new HashMap<>();
    out.put("Items", items);
    return out;
  }

  private Map<String, Object> batchWrite(Map<String, Object> req) {
    Map<String, List<WriteRequest>> requestItems = new LinkedHashMap<>();
    for (Map.Entry<String, Object> t : Json.object(req.get("RequestItems")).entrySet()) {
      List<WriteRequest> writes = new ArrayList<>();
      for (Object o : (List<?>) t.getValue()) {
        Map<String, Object> put = Json.object(Json.object(o).get("PutRequest"));
        writes.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item(put.get("Item"))).build())
            .build());
      }
      requestItems.put(t.getKey(), writes);
    }
    BatchWriteItemResponse r = client.batchWriteItem(b -> b.requestItems(requestItems));
    Map<String, Object> unprocessed = new HashMap<>();
    if (r.hasUnprocessedItems()) {
      for (Map.Entry<String, List<WriteRequest>> t : r.unprocessedItems().entrySet()) {
        List<Object> left = new ArrayList<>();
        for (WriteRequest w : t.getValue()) {
          if (w.putRequest() != null) {
            left.add(Map.of("PutRequest", Map.of("Item", json(w.putRequest().item()))));
          }
        }
        if (!left.isEmpty()) {
          unprocessed.put(t.getKey(), left);
        }
      }
    }
    return Map.of("UnprocessedItems", unprocessed);
  }

  // ------------------------------------------------------------------------------------------ values

  private static String text(Map<String, Object> req, String name) {
    Object v = req.get(name);
    if (!(v instanceof String)) {
      throw new IllegalArgumentException("request without " + name);
    }
    return (String) v;
  }

  private static Map<String, String> names(Map<String, Object> req) {
    Map<String, String> out = new HashMap<>();
    Map<String, Object> n = Json.object(req.get("ExpressionAttributeNames"));
    if (n != null) {
      n.forEach((k, v) -> out.put(k, (String) v));
    }
    return out;
  }

  /** A DynamoDB-JSON map of attribute values ({@code {"a": {"S": "x"}}}) as the SDK's. */
  static Map<String, AttributeValue> item(Object json) {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    Map<String, Object> m = Json.object(json);
    if (m != null) {
      m.forEach((k, v) -> out.put(k, value(v)));
    }
    return out;
  }

  private static AttributeValue value(Object json) {
    Map<String, Object> v = Json.object(json);
    if (v == null || v.size() != 1) {
      throw new IllegalArgumentException("not a DynamoDB attribute value: " + json);
    }
    Map.Entry<String, Object> e = v.entrySet().iterator().next();
    Object x = e.getValue();
    switch (e.getKey()) {
      case "S":
        return AttributeValue.fromS((String) x);
      case "N":
        return AttributeValue.fromN((String) x);
      case "B":
        return AttributeValue.fromB(SdkBytes.fromByteArray(java.util.Base64.getDecoder().decode((String) x)));
      case "BOOL":
        return AttributeValue.fromBool((Boolean) x);
      case "NULL":
        return AttributeValue.fromNul(Boolean.TRUE);
      case "M":
        return AttributeValue.fromM(item(x));
      case "L":
        List<AttributeValue> l = new ArrayList<>();
        for (Object o : (List<?>) x) {
          l.add(value(o));
        }
        return AttributeValue.fromL(l);
      default:
        throw new IllegalArgumentException("attribute type " + e.getKey() + " is not sent by the binding");
    }
  }

  /** The SDK's attribute values as DynamoDB JSON, the shape {@code Json.parse} gives the binding. */
  static Map<String, Object> json(Map<String, AttributeValue> item) {
    Map<String, Object> out = new LinkedHashMap<>();
    item.forEach((k, v) -> out.put(k, json(v)));
    return out;
  }

  private static Object json(AttributeValue v) {
    switch (v.type()) {
      case S:
        return Map.of("S", v.s());
      case N:
        return Map.of("N", v.n());
      case B:
        return Map.of("B", java.util.Base64.getEncoder().encodeToString(v.b().asByteArray()));
      case BOOL:
        return Map.of("BOOL", v.bool());
      case NUL:
        return Map.of("NULL", Boolean.TRUE);
      case M:
        return Map.of("M", json(v.m()));
      case L:
        List<Object> l = new ArrayList<>();
        for (AttributeValue o : v.l()) {
          l.add(json(o));
        }
        return Map.of("L", l);
      default:
        return Map.of(v.type().name(), String.valueOf(v));
    }
  }
}
