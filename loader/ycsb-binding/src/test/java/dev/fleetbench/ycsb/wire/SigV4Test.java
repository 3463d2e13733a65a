package dev.fleetbench.ycsb.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.signer.Aws4Signer;
import software.amazon.awssdk.auth.signer.params.Aws4SignerParams;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.regions.Region;

/** Our SigV4 Authorization header equals the AWS SDK for Java v2's own signer's for the same request. */
class SigV4Test {
  private static final String KEY = "AKIDEXAMPLE";
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

  /** The SDK's Authorization header for POST / with our headers, signed at {@code at}. */
  @SuppressWarnings("deprecation")
  private static String sdkAuthorization(AwsCredentials creds, String endpoint, String region, String target,
      String body, Instant at) {
    SdkHttpFullRequest req = SdkHttpFullRequest.builder()
        .method(SdkHttpMethod.POST)
        .uri(URI.create(endpoint))
        .encodedPath("/")
        .putHeader("Content-Type", SigV4.CONTENT_TYPE)
        .putHeader("X-Amz-Target", target)
        .contentStreamProvider(() -> new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)))
        .build();
    SdkHttpFullRequest signed = Aws4Signer.create().sign(req, Aws4SignerParams.builder()
        .awsCredentials(creds)
        .signingName("dynamodb")
        .signingRegion(Region.of(region))
        .signingClockOverride(Clock.fixed(at, ZoneOffset.UTC))
        .build());
    assertEquals(SigV4Test.amzDate(at), signed.firstMatchingHeader("X-Amz-Date").orElseThrow());
    return signed.firstMatchingHeader("Authorization").orElseThrow();
  }

  private static String amzDate(Instant at) {
    return at.toString().replace("-", "").replace(":", "").replaceAll("\\.\\d+", "");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "https://dynamodb.us-east-1.amazonaws.com | dynamodb.us-east-1.amazonaws.com | us-east-1 | GetItem | "
          + "{\"TableName\":\"usertable\",\"Key\":{\"p\":{\"S\":\"user1\"}},\"ConsistentRead\":false}",
      "http://127.0.0.1:8000 | 127.0.0.1:8000 | eu-west-3 | PutItem | {\"TableName\":\"t\",\"Item\":{}}",
      "http://10.0.0.5:8080 | 10.0.0.5:8080 | ap-southeast-2 | Scan | "
          + "{\"TableName\":\"usertable\",\"Limit\":5,\"Note\":\"üñí \\\"quoted\\\"\"}"})
  void sameAsTheSdkSigner(String endpoint, String host, String region, String op, String body) {
    Instant at = Instant.parse("2026-11-23T11:45:07Z");
    String target = "DynamoDB_20120810." + op;
    String ours = new SigV4(region, "dynamodb").authorization(KEY, SECRET, null, host, amzDate(at), target,
        body.getBytes(StandardCharsets.UTF_8));
    assertEquals(sdkAuthorization(AwsBasicCredentials.create(KEY, SECRET), endpoint, region, target, body, at),
        ours);
  }

  @Test
  void sessionTokenIsSigned() {
    Instant at = Instant.parse("2026-01-02T03:04:05Z");
    String token = "IQoJb3JpZ2luX2VjEXAMPLETOKEN//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==";
    String body = "{\"TableName\":\"usertable\"}";
    String target = "DynamoDB_20120810.DeleteItem";
    String ours = new SigV4("us-east-1", "dynamodb").authorization(KEY, SECRET, token,
        "dynamodb.us-east-1.amazonaws.com", amzDate(at), target, body.getBytes(StandardCharsets.UTF_8));
    assertEquals(sdkAuthorization(AwsSessionCredentials.create(KEY, SECRET, token),
        "https://dynamodb.us-east-1.amazonaws.com", "us-east-1", target, body, at), ours);
  }

  @Test
  void signingKeyFollowsTheDateAndTheSecret() {
    SigV4 s = new SigV4("us-east-1", "dynamodb");
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    String t = "DynamoDB_20120810.GetItem";
    String day1 = s.authorization(KEY, SECRET, null, "h", "20261123T235959Z", t, body);
    String day2 = s.authorization(KEY, SECRET, null, "h", "20261124T000000Z", t, body);
    String other = s.authorization(KEY, SECRET + "x", null, "h", "20261124T000000Z", t, body);
    // the key cached for day 1 must not sign day 2 or another secret: each equals a fresh signer's header
    assertEquals(new SigV4("us-east-1", "dynamodb").authorization(KEY, SECRET, null, "h", "20261124T000000Z", t,
        body), day2);
    assertEquals(new SigV4("us-east-1", "dynamodb").authorization(KEY, SECRET + "x", null, "h",
        "20261124T000000Z", t, body), other);
    assertNotEquals(day1, day2);
    assertNotEquals(day2, other);
  }
}
