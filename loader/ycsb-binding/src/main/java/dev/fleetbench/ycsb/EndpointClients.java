package dev.fleetbench.ycsb;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * One SDK client per endpoint, shared by every YCSB client thread of the process (SDK clients are thread
 * safe and each owns a connection pool of {@code dynamodb.maxConnections}). Requests are spread over the
 * endpoints round robin, one pick per request attempt. Reference counted: the last {@link #release} closes.
 */
final class EndpointClients {
  private static final Map<String, EndpointClients> SHARED = new HashMap<>();

  private final String key;
  private final List<DynamoDbClient> clients;
  private final List<SdkHttpClient> httpClients;
  private final List<URI> endpoints;
  private final AtomicLong next = new AtomicLong();
  private int refs;

  private EndpointClients(String key, BindingConfig c) {
    this.key = key;
    this.clients = new ArrayList<>();
    this.httpClients = new ArrayList<>();
    this.endpoints = c.endpoints;
    AwsCredentialsProvider credentials = credentialsFor(c);
    int n = Math.max(1, c.endpoints.size());
    for (int i = 0; i < n; i++) {
      SdkHttpClient http = ApacheHttpClient.builder()
          .maxConnections(c.maxConnections)
          .connectionTimeout(Duration.ofMillis(c.connectionTimeoutMs))
          .socketTimeout(Duration.ofMillis(c.apiCallTimeoutMs))
          .build();
      DynamoDbClientBuilder b = DynamoDbClient.builder()
          .region(Region.of(c.region))
          .credentialsProvider(credentials)
          .httpClient(http)
          .overrideConfiguration(ClientOverrideConfiguration.builder()
              // The binding retries throttles itself so that every throttled attempt is measured.
              .retryPolicy(RetryPolicy.none())
              .apiCallTimeout(Duration.ofMillis(c.apiCallTimeoutMs))
              .build());
      if (!c.endpoints.isEmpty()) {
        b.endpointOverride(c.endpoints.get(i));
      }
      httpClients.add(http);
      clients.add(b.build());
    }
  }

  static synchronized EndpointClients acquire(BindingConfig c) {
    String key = c.clientKey();
    EndpointClients e = SHARED.get(key);
    if (e == null) {
      e = new EndpointClients(key, c);
      SHARED.put(key, e);
    }
    e.refs++;
    return e;
  }

  static synchronized void release(EndpointClients e) {
    if (--e.refs > 0) {
      return;
    }
    SHARED.remove(e.key);
    for (DynamoDbClient client : e.clients) {
      client.close();
    }
    for (SdkHttpClient http : e.httpClients) {
      http.close();
    }
  }

  /** The client for the next request attempt (round robin over the endpoints). */
  DynamoDbClient next() {
    if (clients.size() == 1) {
      return clients.get(0);
    }
    return clients.get((int) Math.floorMod(next.getAndIncrement(), (long) clients.size()));
  }

  List<URI> endpoints() {
    return endpoints;
  }

  /**
   * The default provider chain (environment, system properties, profile, container, instance role). For
   * endpoints on this machine (DynamoDB Local) only the static sources are asked, never the instance
   * metadata service, and when none has credentials a fixed dummy pair is used (DynamoDB Local accepts any key made of letters and digits).
   */
  static AwsCredentialsProvider credentialsFor(BindingConfig c) {
    if (!c.endpointsAreLocal()) {
      return DefaultCredentialsProvider.create();
    }
    AwsCredentialsProvider configured = AwsCredentialsProviderChain.builder()
        .credentialsProviders(SystemPropertyCredentialsProvider.create(),
            EnvironmentVariableCredentialsProvider.create(), ProfileCredentialsProvider.create())
        .build();
    try {
      configured.resolveCredentials();
      return configured;
    } catch (RuntimeException none) {
      return StaticCredentialsProvider.create(AwsBasicCredentials.create("fleetbenchlocal", "fleetbenchlocal"));
    }
  }
}
