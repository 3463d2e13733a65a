package dev.fleetbench.ycsb.dax;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetbench.ycsb.wire.DynamoWire;
import java.io.IOException;
import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.dax.Configuration;
import software.amazon.dax.exceptions.AmbiguousWriteFailureException;
import software.amazon.dax.exceptions.DaxServiceException;
import software.amazon.dax.exceptions.ExceptionTranslator;
import software.amazon.dax.exceptions.NoClusterEndpointsAvailableException;

/**
 * DAX errors as the binding counts them. The DAX client's error code sequences (what its ExceptionTranslator
 * switches on): {@code [4, 37, 38, 39, 40]} throughput exceeded, {@code [.., 41]} resource not found,
 * {@code [.., 46]} and {@code [.., 50]} a DynamoDbException keeping the error code; anything it does not translate
 * stays a {@link DaxServiceException} (an AwsServiceException) with the node's error code, e.g. a DAX node's own
 * {@code ThrottlingException}, which the DAX client's retry logic also recognises by that code. The service errors are built by the DAX client's own decoder path
 * ({@link DaxServiceException} with DAX's error code sequence and DynamoDB error code, translated by the DAX
 * client's {@link ExceptionTranslator} exactly as it does for a response from a node), so a change in how the DAX
 * client reports a throttle shows up here.
 */
class DaxErrorMappingTest {
  private static AwsServiceException fromDax(String errorCode, int... codeSeq) {
    return ExceptionTranslator.translateException(
        new DaxServiceException("from node", "req-1", errorCode, 400, codeSeq, true));
  }

  @Test
  void tableThrottleIsAThrottle() {
    AwsServiceException e = fromDax("ProvisionedThroughputExceededException", 4, 37, 38, 39, 40);
    assertInstanceOf(ProvisionedThroughputExceededException.class, e, "DAX client's translation changed");
    DynamoWire.ApiException a = DaxTransport.apiError(e);
    assertTrue(a.throttle);
    assertEquals("ProvisionedThroughputExceededException", a.code);
    assertEquals(400, a.status);
  }

  @Test
  void daxNodeThrottlingAndRequestLimitAreThrottles() {
    // codes DAX has no DynamoDB exception class for come back as DynamoDbException carrying the error code
    for (String code : new String[] {"ThrottlingException", "RequestLimitExceeded"}) {
      AwsServiceException e = fromDax(code, 4, 37, 38, 39, 50);
      assertEquals(code, e.awsErrorDetails().errorCode());
      DynamoWire.ApiException a = DaxTransport.apiError(e);
      assertTrue(a.throttle, code);
      assertEquals(code, a.code);
    }
    // not translated: the DaxServiceException itself, by its error code
    AwsServiceException node = fromDax("ThrottlingException", 1, 2);
    assertInstanceOf(DaxServiceException.class, node);
    assertTrue(DaxTransport.apiError(node).throttle);
  }

  @Test
  void otherServiceErrorsAreErrorsWithTheirCode() {
    AwsServiceException e = fromDax("ResourceNotFoundException", 4, 37, 38, 39, 41);
    assertInstanceOf(ResourceNotFoundException.class, e);
    DynamoWire.ApiException a = DaxTransport.apiError(e);
    assertFalse(a.throttle);
    assertEquals("ResourceNotFoundException", a.code);

    DynamoWire.ApiException v = DaxTransport.apiError(fromDax("ConditionalCheckFailedException", 4, 37, 38, 39, 43));
    assertFalse(v.throttle);
    assertEquals("ConditionalCheckFailedException", v.code);
  }

  /** An SDK client whose GetItem fails with the given exception, as the DAX client would. */
  private static DynamoDbClient failingWith(RuntimeException e) {
    return new DynamoDbClient() {
      @Override
      public GetItemResponse getItem(GetItemRequest r) {
        throw e;
      }

      @Override
      public String serviceName() {
        return "dax";
      }

      @Override
      public void close() {}
    };
  }

  private static final String GET = "{\"TableName\":\"t\",\"Key\":{\"p\":{\"S\":\"k\"}},\"ConsistentRead\":false}";

  @Test
  void clientSideFailuresAreIoErrorsNotThrottles() {
    IOException none = assertThrows(IOException.class,
        () -> new DaxTransport(failingWith(new NoClusterEndpointsAvailableException())).call("GetItem", GET));
    assertTrue(none.getMessage().startsWith("NoClusterEndpointsAvailableException"), none.getMessage());
    IOException ambiguous = assertThrows(IOException.class, () -> new DaxTransport(
        failingWith(new AmbiguousWriteFailureException(new RuntimeException("reset")))).call("GetItem", GET));
    assertTrue(ambiguous.getMessage().startsWith("AmbiguousWriteFailureException"), ambiguous.getMessage());
    DynamoWire.ApiException t = assertThrows(DynamoWire.ApiException.class, () -> new DaxTransport(
        failingWith(fromDax("ProvisionedThroughputExceededException", 4, 37, 38, 39, 40))).call("GetItem", GET));
    assertTrue(t.throttle);
  }

  @Test
  void configurationTurnsTheDaxClientsOwnRetriesOff() {
    Configuration c = DaxTransport.configuration(URI.create("daxs://my-cluster.abc123.dax-clusters.us-east-1"
        + ".amazonaws.com:9111"), "us-east-1", StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")),
        2_000, 10_000);
    assertEquals(0, c.readRetries());
    assertEquals(0, c.writeRetries());
    assertEquals(2_000, c.connectTimeoutMillis());
    assertEquals(10_000, c.requestTimeoutMillis());
    assertEquals("us-east-1", c.region().id());
    assertTrue(c.ssl(), "daxs:// is a cluster with encryption in transit");
    assertEquals(9111, c.port());
  }

  /**
   * The DAX client really runs on this SDK line (2.25.50, older than the 2.38.5 it was built with): it opens
   * lazily, and a request to a loopback port where no cluster listens fails with its own client error (an
   * IOException to the binding, so an ERROR), not a linkage error.
   */
  @Test
  void aRequestWithoutAClusterFailsCleanly() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    URI url = URI.create("dax://127.0.0.1:" + port);
    try (DynamoDbClient dax = DaxTransport.open(url, "us-east-1",
        StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")), 200, 500)) {
      IOException e = assertThrows(IOException.class, () -> new DaxTransport(dax).call("GetItem", GET));
      assertFalse(e.getCause() instanceof LinkageError, String.valueOf(e.getCause()));
    }
  }
}
