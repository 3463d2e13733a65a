package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static dev.fleetbench.ycsb.Bindings.open;
import static dev.fleetbench.ycsb.Bindings.props;
import static dev.fleetbench.ycsb.Bindings.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.dax.exceptions.DaxServiceException;
import software.amazon.dax.exceptions.ExceptionTranslator;

/**
 * The DAX path ({@code dynamodb.daxEndpoint}) of the binding. DAX itself cannot run here, so the process's DAX
 * client is replaced by a client of the same SDK interface: the SDK's own DynamoDB client against a real DynamoDB
 * Local (every request the DAX path builds is then checked by a real server), or one whose GetItem fails the way
 * the DAX client fails (for the throttle accounting).
 */
class DaxPathTest {
  private static LocalDynamo local;
  private static final String DAX = "dax://my-cluster.abc123.dax-clusters.us-east-1.amazonaws.com:8111";
  private String savedKey;
  private String savedSecret;

  @BeforeAll
  static void start() throws Exception {
    local = LocalDynamo.start();
  }

  @AfterAll
  static void stop() throws Exception {
    local.close();
  }

  private void useClient(DynamoDbClient client) {
    // DAX endpoints are not local: the default provider chain is asked; give it system-property credentials
    savedKey = System.setProperty("aws.accessKeyId", "daxtest");
    savedSecret = System.setProperty("aws.secretAccessKey", "daxtest");
    EndpointClients.daxOpener = (c, p) -> {
      assertEquals(URI.create(DAX), c.daxEndpoint);
      assertEquals("daxtest", p.resolveCredentials().accessKeyId());
      return client;
    };
  }

  @AfterEach
  void restore() {
    EndpointClients.daxOpener = (c, p) -> dev.fleetbench.ycsb.dax.DaxTransport.open(c.daxEndpoint, c.region, p,
        c.connectionTimeoutMs, c.apiCallTimeoutMs);
    restore("aws.accessKeyId", savedKey);
    restore("aws.secretAccessKey", savedSecret);
  }

  private static void restore(String name, String value) {
    if (value == null) {
      System.clearProperty(name);
    } else {
      System.setProperty(name, value);
    }
  }

  private static DynamoDbClient sdkClientOnLocal() {
    return DynamoDbClient.builder().endpointOverride(URI.create(local.endpoint)).region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build();
  }

  @Test
  void everyOperationGoesThroughTheDaxClientInterface() throws Exception {
    local.createTable("daxcrud", "p");
    useClient(sdkClientOnLocal());
    dev.fleetbench.ycsb.DynamoDbClient db = open(props("dynamodb.daxEndpoint", DAX), measurements("op"));
    try {
      assertEquals(Status.OK, db.insert("daxcrud", "user1", values("field0", "a0", "field1", "a1")));
      Map<String, AttributeValue> raw = local.admin()
          .getItem(r -> r.tableName("daxcrud").key(Map.of("p", AttributeValue.fromS("user1")))).item();
      assertEquals("a1", raw.get("field1").s());

      Map<String, ByteIterator> some = new HashMap<>();
      assertEquals(Status.OK, db.read("daxcrud", "user1", Set.of("field1"), some));
      assertEquals(Set.of("field1"), some.keySet());
      assertEquals("a1", some.get("field1").toString());

      assertEquals(Status.OK, db.update("daxcrud", "user1", values("field1", "b1")));
      Map<String, ByteIterator> all = new HashMap<>();
      assertEquals(Status.OK, db.read("daxcrud", "user1", null, all));
      assertEquals("b1", all.get("field1").toString());
      assertEquals("a0", all.get("field0").toString());

      assertEquals(Status.NOT_FOUND, db.read("daxcrud", "nobody", null, new HashMap<>()));
      for (int i = 2; i <= 12; i++) {
        db.insert("daxcrud", "user" + i, values("field0", "x" + i));
      }
      // the items after a start key in the table's own (hash) order, as a plain Scan sees it
      List<String> order = new java.util.ArrayList<>();
      local.admin().scanPaginator(r -> r.tableName("daxcrud").limit(5)).items()
          .forEach(it -> order.add(it.get("p").s()));
      assertEquals(12, order.size());
      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      assertEquals(Status.OK, db.scan("daxcrud", order.get(2), 4, Set.of("field0"), rows));
      List<String> got = new java.util.ArrayList<>();
      for (HashMap<String, ByteIterator> row : rows) {
        got.add(row.get("field0").toString());
      }
      List<String> expected = new java.util.ArrayList<>();
      for (String k : order.subList(3, 7)) {
        expected.add(k.equals("user1") ? "a0" : "x" + k.substring(4));
      }
      assertEquals(expected, got, "the items right after the (excluded) start key, through the DAX path");

      assertEquals(Status.OK, db.delete("daxcrud", "user1"));
      assertEquals(11, local.count("daxcrud"));
    } finally {
      db.cleanup();
    }
  }

  @Test
  void queryThroughTheDaxPath() throws Exception {
    local.admin().createTable(r -> r.tableName("daxquery")
        .attributeDefinitions(
            software.amazon.awssdk.services.dynamodb.model.AttributeDefinition.builder().attributeName("p")
                .attributeType(software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType.S).build(),
            software.amazon.awssdk.services.dynamodb.model.AttributeDefinition.builder().attributeName("s")
                .attributeType(software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType.S).build())
        .keySchema(software.amazon.awssdk.services.dynamodb.model.KeySchemaElement.builder().attributeName("p")
                .keyType(software.amazon.awssdk.services.dynamodb.model.KeyType.HASH).build(),
            software.amazon.awssdk.services.dynamodb.model.KeySchemaElement.builder().attributeName("s")
                .keyType(software.amazon.awssdk.services.dynamodb.model.KeyType.RANGE).build())
        .billingMode(software.amazon.awssdk.services.dynamodb.model.BillingMode.PAY_PER_REQUEST));
    useClient(sdkClientOnLocal());
    dev.fleetbench.ycsb.DynamoDbClient db = open(props("dynamodb.daxEndpoint", DAX,
        BindingConfig.PARTITION_KEY_VALUES, "1", BindingConfig.QUERY_LIMIT, "2"), measurements("op"));
    try {
      for (String k : new String[] {"user10", "user20", "user30"}) {
        assertEquals(Status.OK, db.insert("daxquery", k, values("field0", k, "field1", "x")));
      }
      Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
      assertEquals(Status.OK, db.query("daxquery", "user25", Set.of("field0"), rows));
      assertEquals(2, rows.size());
      assertEquals(Set.of("field0"), rows.get(0).keySet(), "the projection applies");
      assertEquals("user20", rows.get(0).get("field0").toString(), "nearest at or below, first");
      assertEquals("user10", rows.get(1).get("field0").toString());
    } finally {
      db.cleanup();
    }
  }

  @Test
  void batchInsertsThroughTheDaxPath() throws Exception {
    local.createTable("daxbatch", "p");
    useClient(sdkClientOnLocal());
    dev.fleetbench.ycsb.DynamoDbClient db =
        open(props("dynamodb.daxEndpoint", DAX, "dynamodb.batchInserts", "5"), measurements("op"));
    try {
      for (int i = 0; i < 12; i++) {
        Status s = db.insert("daxbatch", "k" + i, values("field0", "v" + i));
        assertEquals((i + 1) % 5 == 0 ? Status.OK : Status.BATCHED_OK, s, "insert " + i);
      }
    } finally {
      db.cleanup(); // sends the last 2
    }
    assertEquals(12, local.count("daxbatch"));
  }

  @Test
  void daxThrottlesAreRetriedAndCountedLikeDynamoDbs() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    useClient(new DynamoDbClient() {
      @Override
      public GetItemResponse getItem(GetItemRequest r) {
        attempts.incrementAndGet();
        throw ExceptionTranslator.translateException(new DaxServiceException("Throughput exceeds the current "
            + "capacity of your table or index", "req", "ProvisionedThroughputExceededException", 400,
            new int[] {4, 37, 38, 39, 40}, true));
      }

      @Override
      public String serviceName() {
        return "dax";
      }

      @Override
      public void close() {}
    });
    Measurements m = measurements("op");
    dev.fleetbench.ycsb.DynamoDbClient db = open(props("dynamodb.daxEndpoint", DAX, "dynamodb.maxRetries", "2",
        "dynamodb.retryBaseDelayMs", "1", "dynamodb.retryMaxDelayMs", "2"), m);
    try {
      assertEquals(dev.fleetbench.ycsb.DynamoDbClient.THROTTLED, db.read("t", "k", null, new HashMap<>()));
    } finally {
      db.cleanup();
    }
    assertEquals(3, attempts.get(), "1 attempt + dynamodb.maxRetries, no hidden retries");
    assertEquals(3, CapturingExporter.of(m).operations("READ-THROTTLED"));
  }

  @Test
  void daxEndpointIsCheckedAndExclusiveWithEndpoints() {
    DBException bad = assertThrows(DBException.class,
        () -> BindingConfig.from(props("dynamodb.daxEndpoint", "https://my-cluster:8111")));
    assertTrue(bad.getMessage().contains("dynamodb.daxEndpoint: 'https://my-cluster:8111' is not a DAX cluster "
        + "endpoint"), bad.getMessage());
    DBException both = assertThrows(DBException.class, () -> BindingConfig.from(
        props("dynamodb.daxEndpoint", DAX, "dynamodb.endpoint", "http://127.0.0.1:8000")));
    assertTrue(both.getMessage().contains("dynamodb.daxEndpoint: set together with dynamodb.endpoint"),
        both.getMessage());
    assertEquals(List.of(), List.copyOf(assertDoesNotThrow(DAX).endpoints));
  }

  private static BindingConfig assertDoesNotThrow(String dax) {
    try {
      BindingConfig c = BindingConfig.from(props("dynamodb.daxEndpoint", dax));
      assertEquals(URI.create(dax), c.daxEndpoint);
      return c;
    } catch (DBException e) {
      throw new AssertionError(e);
    }
  }
}
