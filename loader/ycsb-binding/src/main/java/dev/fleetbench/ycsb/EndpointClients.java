package dev.fleetbench.ycsb;

import dev.fleetbench.ycsb.dax.DaxTransport;
import dev.fleetbench.ycsb.wire.DynamoTransport;
import dev.fleetbench.ycsb.wire.DynamoWire;
import java.io.IOException;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;

/**
 * What the YCSB client threads of one process share for one endpoint set: the endpoints, the round-robin
 * counter (one pick per request attempt, over the whole process) and the credentials (resolved through the AWS
 * SDK's providers, cached for {@link #CREDENTIALS_TTL_NANOS}). Each thread has its own {@link DynamoWire} (its
 * own persistent connection per endpoint). Reference counted: the last {@link #release} forgets it.
 */
final class EndpointClients {
  private static final Map<String, EndpointClients> SHARED = new HashMap<>();
  /** How long resolved credentials are reused before the provider is asked again (it refreshes them itself). */
  static final long CREDENTIALS_TTL_NANOS = 10_000_000_000L;

  private final String key;
  private final BindingConfig config;
  private final List<URI> endpoints;
  private final AwsCredentialsProvider provider;
  private final AtomicLong next = new AtomicLong();
  private volatile DynamoWire.Credentials cached;
  private volatile long cachedAt;
  private int refs;
  /** With dynamodb.daxEndpoint: the process's DAX client (null otherwise). */
  private final software.amazon.awssdk.services.dynamodb.DynamoDbClient dax;

  /** Opens the DAX client for a config; tests replace it to send the DAX path's requests elsewhere. */
  interface DaxOpener {
    software.amazon.awssdk.services.dynamodb.DynamoDbClient open(BindingConfig c, AwsCredentialsProvider p)
        throws IOException;
  }

  static volatile DaxOpener daxOpener = (c, p) -> DaxTransport.open(c.daxEndpoint, c.region, p,
      c.connectionTimeoutMs, c.apiCallTimeoutMs);

  private EndpointClients(String key, BindingConfig c) {
    this.key = key;
    this.config = c;
    this.endpoints = c.endpoints.isEmpty() ? List.of(DynamoWire.regionalEndpoint(c.region)) : c.endpoints;
    this.provider = credentialsFor(c);
    credentials(); // fail at init() when there are none
    if (c.daxEndpoint == null) {
      this.dax = null;
    } else {
      try {
        this.dax = daxOpener.open(c, provider);
      } catch (IOException | RuntimeException e) {
        throw new IllegalStateException("cannot open the DAX client for " + c.daxEndpoint + ": " + e, e);
      }
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
    if (--e.refs <= 0) {
      SHARED.remove(e.key);
      if (e.dax != null) {
        e.dax.close();
      }
    }
  }

  /** A client for one YCSB thread: through DAX with dynamodb.daxEndpoint, else HTTP to the endpoints. */
  DynamoTransport newWire() {
    if (dax != null) {
      return new DaxTransport(dax);
    }
    return new DynamoWire(endpoints, next, config.region, this::credentials, config.connectionTimeoutMs,
        config.apiCallTimeoutMs);
  }

  DynamoWire.Credentials credentials() {
    long now = System.nanoTime();
    DynamoWire.Credentials c = cached;
    if (c == null || now - cachedAt > CREDENTIALS_TTL_NANOS) {
      AwsCredentials r = provider.resolveCredentials();
      String token = r instanceof AwsSessionCredentials ? ((AwsSessionCredentials) r).sessionToken() : null;
      c = new DynamoWire.Credentials(r.accessKeyId(), r.secretAccessKey(), token);
      cached = c;
      cachedAt = now;
    }
    return c;
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
