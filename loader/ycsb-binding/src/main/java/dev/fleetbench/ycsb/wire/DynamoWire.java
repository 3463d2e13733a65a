package dev.fleetbench.ycsb.wire;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * A lean DynamoDB JSON-protocol client for one thread: the request body comes in already serialised, is signed
 * (SigV4) and sent over this thread's persistent connection to the next endpoint (round robin over the process,
 * one pick per attempt). The response is checked (HTTP status, DynamoDB's {@code x-amz-crc32}) and parsed.
 *
 * <p>Why not the AWS SDK: see loader/ycsb-binding/README.md ("Where the CPU goes").
 */
public final class DynamoWire implements DynamoTransport {
  public static final String TARGET_PREFIX = "DynamoDB_20120810.";

  /** Error codes DynamoDB (and Alternator) use for throttling; HTTP 429 is a throttle too. */
  public static final Set<String> THROTTLE_CODES = Set.of("ProvisionedThroughputExceededException",
      "ThrottlingException", "RequestLimitExceeded", "Throttling", "TooManyRequestsException");

  /** Credentials as the signer needs them; sessionToken may be null. */
  public record Credentials(String accessKey, String secretKey, String sessionToken) {}

  /** A request that DynamoDB answered with an error (HTTP 4xx/5xx), or a response that could not be used. */
  public static final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;
    public final int status;
    public final String code;
    public final boolean throttle;

    public ApiException(int status, String code, String message) {
      super(message, null, false, false);
      this.status = status;
      this.code = code;
      this.throttle = status == 429 || (code != null && THROTTLE_CODES.contains(code));
    }
  }

  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final HttpConnection[] connections;
  private final AtomicLong roundRobin;
  private final Supplier<Credentials> credentials;
  private final SigV4 signer;
  private final CRC32 crc = new CRC32();
  private final String[] headers = new String[10];
  private final Map<String, String> targets = new HashMap<>();
  private long dateSecond = -1;
  private String amzDate;

  /**
   * @param endpoints one or more endpoint URLs
   * @param roundRobin shared by every thread of the process, so attempts are spread over the endpoints
   */
  public DynamoWire(List<URI> endpoints, AtomicLong roundRobin, String region, Supplier<Credentials> credentials,
      int connectTimeoutMs, int readTimeoutMs) {
    connections = new HttpConnection[endpoints.size()];
    for (int i = 0; i < connections.length; i++) {
      connections[i] = new HttpConnection(endpoints.get(i), connectTimeoutMs, readTimeoutMs);
    }
    this.roundRobin = roundRobin;
    this.credentials = credentials;
    this.signer = new SigV4(region, "dynamodb");
  }

  /** The regional endpoint of DynamoDB (https://docs.aws.amazon.com/general/latest/gr/ddb.html). */
  public static URI regionalEndpoint(String region) {
    String suffix = region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
    return URI.create("https://dynamodb." + region + "." + suffix);
  }

  /**
   * One attempt of {@code operation} (e.g. {@code GetItem}) with this JSON body; the parsed response object.
   *
   * @throws ApiException DynamoDB answered with an error, or the response was not valid
   * @throws IOException the request could not be sent or the response not read (connect, timeout, reset)
   */
  @Override
  public Map<String, Object> call(String operation, String jsonBody) throws ApiException, IOException {
    HttpConnection c = connections.length == 1 ? connections[0]
        : connections[(int) Math.floorMod(roundRobin.getAndIncrement(), (long) connections.length)];
    byte[] body = jsonBody.getBytes(StandardCharsets.UTF_8);
    Credentials cred = credentials.get();
    String target = targets.computeIfAbsent(operation, o -> TARGET_PREFIX + o);
    String date = amzDate();
    int n = 0;
    headers[n++] = "Content-Type";
    headers[n++] = SigV4.CONTENT_TYPE;
    headers[n++] = "X-Amz-Date";
    headers[n++] = date;
    headers[n++] = "X-Amz-Target";
    headers[n++] = target;
    if (cred.sessionToken() != null) {
      headers[n++] = "X-Amz-Security-Token";
      headers[n++] = cred.sessionToken();
    }
    headers[n++] = "Authorization";
    headers[n++] = signer.authorization(cred.accessKey(), cred.secretKey(), cred.sessionToken(), c.hostHeader,
        date, target, body);
    HttpConnection.Response res = c.post(headers, n, body);
    if (res.crc32 != null) {
      crc.reset();
      crc.update(res.body);
      if (crc.getValue() != decimal(res.crc32)) {
        c.close();
        throw new ApiException(res.status, "Crc32Mismatch",
            "response body CRC32 " + crc.getValue() + " does not match x-amz-crc32 " + res.crc32);
      }
    }
    Map<String, Object> parsed;
    try {
      parsed = res.body.length == 0 ? Map.of() : Json.object(Json.parse(res.body));
    } catch (IllegalArgumentException e) {
      throw new ApiException(res.status, "UnparsableResponse", "HTTP " + res.status + ", " + e.getMessage());
    }
    if (res.status / 100 != 2) {
      throw error(res.status, parsed);
    }
    if (parsed == null) {
      throw new ApiException(res.status, "UnparsableResponse", "HTTP " + res.status + " body is not an object");
    }
    return parsed;
  }

  private static ApiException error(int status, Map<String, Object> body) {
    String type = body == null ? null : (String) body.get("__type");
    String code = type == null ? "HTTP" + status : type.substring(type.lastIndexOf('#') + 1);
    Object msg = body == null ? null : body.getOrDefault("message", body.get("Message"));
    return new ApiException(status, code, msg == null ? code : String.valueOf(msg));
  }

  /** The unsigned decimal number in {@code s} (blanks around it allowed), or -1 if it is not one. */
  static long decimal(String s) {
    int from = 0;
    int to = s.length();
    while (from < to && s.charAt(from) <= ' ') {
      from++;
    }
    while (to > from && s.charAt(to - 1) <= ' ') {
      to--;
    }
    if (from == to || to - from > 18) {
      return -1;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private String amzDate() {
    long now = System.currentTimeMillis() / 1000;
    if (now != dateSecond) {
      dateSecond = now;
      amzDate = AMZ_DATE.format(Instant.ofEpochSecond(now));
    }
    return amzDate;
  }

  @Override
  public void close() {
    for (HttpConnection c : connections) {
      c.close();
    }
  }
}
