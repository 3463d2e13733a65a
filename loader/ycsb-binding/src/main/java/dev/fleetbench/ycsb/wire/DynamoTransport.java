package dev.fleetbench.ycsb.wire;

import java.io.IOException;
import java.util.Map;

/**
 * One YCSB thread's way to send a DynamoDB request: the request as DynamoDB's JSON body, the response parsed
 * ({@link Json}). {@link DynamoWire} sends it over HTTP to DynamoDB or Alternator; {@code dax.DaxTransport}
 * sends the same request through the DAX client. The binding's retry loop, throttle accounting and error
 * counting sit above this and are the same for both.
 */
public interface DynamoTransport extends AutoCloseable {
  /**
   * @throws DynamoWire.ApiException the service answered with an error ({@link DynamoWire.ApiException#throttle}
   *     tells a throttle from any other error)
   * @throws IOException the request could not be sent or no answer came (connect, timeout, no node)
   */
  Map<String, Object> call(String operation, String jsonBody) throws DynamoWire.ApiException, IOException;

  @Override
  void close();
}
