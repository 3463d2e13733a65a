package dev.fleetbench.ycsb;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/** A real DynamoDB Local server in this JVM (in memory, shared database, no telemetry). */
final class LocalDynamo implements AutoCloseable {
  final int port;
  final String endpoint;
  private final DynamoDBProxyServer server;
  private final software.amazon.awssdk.services.dynamodb.DynamoDbClient admin;

  private LocalDynamo(int port) throws Exception {
    this.port = port;
    this.endpoint = "http://127.0.0.1:" + port;
    this.server = ServerRunner.createServerFromCommandLineArgs(
        new String[] {"-inMemory", "-sharedDb", "-disableTelemetry", "-port", Integer.toString(port)});
    server.start();
    this.admin = software.amazon.awssdk.services.dynamodb.DynamoDbClient.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
        .build();
  }

  static LocalDynamo start() throws Exception {
    if (System.getProperty("sqlite4java.library.path") == null) {
      System.setProperty("sqlite4java.library.path", System.getProperty("fleetbench.nativeDir", "target/native"));
    }
    return new LocalDynamo(freePort());
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  software.amazon.awssdk.services.dynamodb.DynamoDbClient admin() {
    return admin;
  }

  void createTable(String table, String keyAttribute) {
    admin.createTable(r -> r.tableName(table)
        .attributeDefinitions(AttributeDefinition.builder().attributeName(keyAttribute)
            .attributeType(ScalarAttributeType.S).build())
        .keySchema(KeySchemaElement.builder().attributeName(keyAttribute).keyType(KeyType.HASH).build())
        .billingMode(BillingMode.PAY_PER_REQUEST));
  }

  int count(String table) {
    return admin.scan(r -> r.tableName(table).select("COUNT")).count();
  }

  @Override
  public void close() throws Exception {
    admin.close();
    server.stop();
  }
}
