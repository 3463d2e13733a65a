package dev.fleetbench.ycsb.wire;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 for DynamoDB's JSON protocol: {@code POST /}, no query string, signed headers
 * {@code content-type;host;x-amz-date;x-amz-target} (plus {@code x-amz-security-token} with session credentials).
 * Specification: https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 *
 * <p>Not thread safe (it owns a {@link MessageDigest} and a {@link Mac}); the binding has one per YCSB thread.
 * The signing key depends only on the secret, the date, the region and the service, so it is derived once a
 * day, not per request.
 */
public final class SigV4 {
  public static final String CONTENT_TYPE = "application/x-amz-json-1.0";
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final String region;
  private final String service;
  private final MessageDigest sha256;
  private final Mac hmac;
  private final Mac signingMac;
  private final StringBuilder canonical = new StringBuilder(512);
  private final StringBuilder toSign = new StringBuilder(160);
  private String scope;
  private String keyDate;
  private String keySecret;
  private byte[] signingKey;

  public SigV4(String region, String service) {
    this.region = region;
    this.service = service;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
      hmac = Mac.getInstance("HmacSHA256");
      signingMac = Mac.getInstance("HmacSHA256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256/HmacSHA256 missing from this JVM", e);
    }
  }

  /**
   * The Authorization header value of one request.
   *
   * @param host the Host header as sent (with {@code :port} when the port is not the scheme's default)
   * @param amzDate the X-Amz-Date header, {@code yyyyMMdd'T'HHmmss'Z'}
   * @param target the X-Amz-Target header, e.g. {@code DynamoDB_20120810.GetItem}
   * @param sessionToken the X-Amz-Security-Token header, or null
   */
  public String authorization(String accessKey, String secretKey, String sessionToken, String host,
      String amzDate, String target, byte[] body) {
    String date = amzDate.substring(0, 8);
    Mac signing = key(secretKey, date);
    String signedHeaders = sessionToken == null
        ? "content-type;host;x-amz-date;x-amz-target"
        : "content-type;host;x-amz-date;x-amz-security-token;x-amz-target";
    StringBuilder canonical = this.canonical;
    canonical.setLength(0);
    canonical.append("POST\n/\n\n")
        .append("content-type:").append(CONTENT_TYPE).append('\n')
        .append("host:").append(host).append('\n')
        .append("x-amz-date:").append(amzDate).append('\n');
    if (sessionToken != null) {
      canonical.append("x-amz-security-token:").append(sessionToken).append('\n');
    }
    canonical.append("x-amz-target:").append(target).append('\n')
        .append('\n').append(signedHeaders).append('\n');
    hex(sha256.digest(body), canonical);
    StringBuilder toSign = this.toSign;
    toSign.setLength(0);
    toSign.append("AWS4-HMAC-SHA256\n").append(amzDate).append('\n').append(scope).append('\n');
    hex(sha256.digest(utf8(canonical)), toSign);
    byte[] signature = signing.doFinal(utf8(toSign));
    StringBuilder out = new StringBuilder(200)
        .append("AWS4-HMAC-SHA256 Credential=").append(accessKey).append('/').append(scope)
        .append(", SignedHeaders=").append(signedHeaders).append(", Signature=");
    return hex(signature, out).toString();
  }

  /** The text's UTF-8 bytes, in a reused buffer when it is ASCII (it nearly always is); its length is exact. */
  private byte[] utf8(StringBuilder text) {
    int n = text.length();
    for (int i = 0; i < n; i++) {
      if (text.charAt(i) >= 0x80) {
        return text.toString().getBytes(StandardCharsets.UTF_8);
      }
    }
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) text.charAt(i);
    }
    return b;
  }

  /**
   * A Mac keyed with the signing key of this secret and date (the key depends only on the secret, the date, the
   * region and the service: derived, and the Mac keyed, once a day). {@code doFinal} leaves it keyed.
   */
  private Mac key(String secretKey, String date) {
    if (!date.equals(keyDate) || !secretKey.equals(keySecret)) {
      byte[] k = hmac(("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8), date);
      k = hmac(k, region);
      k = hmac(k, service);
      signingKey = hmac(k, "aws4_request");
      try {
        signingMac.init(new SecretKeySpec(signingKey, "HmacSHA256"));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
      keyDate = date;
      keySecret = secretKey;
      scope = date + "/" + region + "/" + service + "/aws4_request";
    }
    return signingMac;
  }

  private byte[] hmac(byte[] key, String data) {
    try {
      hmac.init(new SecretKeySpec(key, "HmacSHA256"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    return hmac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  static StringBuilder hex(byte[] bytes, StringBuilder out) {
    for (byte b : bytes) {
      out.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
    }
    return out;
  }
}
