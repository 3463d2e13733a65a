package dev.fleetbench.ycsb.wire;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
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
  private static final byte[] ALGORITHM_LINE = "AWS4-HMAC-SHA256\n".getBytes(StandardCharsets.US_ASCII);
  private final byte[] scratch = new byte[16];
  private final byte[] hexBuf = new byte[64];
  /** "POST ... host:<host>\nx-amz-date:" of the last host. */
  private byte[] head;
  private String headHost;
  /** "\nx-amz-target:<target>\n\n<signed headers>\n" by target. */
  private final Map<String, byte[]> tails = new HashMap<>();
  private final Map<String, byte[]> tailsWithToken = new HashMap<>();
  private String scope;
  private byte[] scopeLine;
  private String authPrefix;
  private String prefixKey;
  private String prefixScope;
  private boolean prefixToken;
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
    boolean token = sessionToken != null;
    String signedHeaders = token
        ? "content-type;host;x-amz-date;x-amz-security-token;x-amz-target"
        : "content-type;host;x-amz-date;x-amz-target";
    byte[] bodyHash = sha256.digest(body);
    // the canonical request, fed to the digest in pieces; the constant ones are kept as bytes
    if (!host.equals(headHost)) {
      head = utf8("POST\n/\n\ncontent-type:" + CONTENT_TYPE + "\nhost:" + host + "\nx-amz-date:");
      headHost = host;
    }
    sha256.update(head);
    sha256.update(ascii(amzDate, scratch));
    if (token) {
      sha256.update(utf8("\nx-amz-security-token:" + sessionToken));
    }
    sha256.update((token ? tailsWithToken : tails).computeIfAbsent(target,
        t -> utf8("\nx-amz-target:" + t + "\n\n" + signedHeaders + "\n")));
    sha256.update(hex(bodyHash, hexBuf));
    byte[] canonicalHash = sha256.digest();
    // the string to sign
    signing.update(ALGORITHM_LINE);
    signing.update(ascii(amzDate, scratch));
    signing.update(scopeLine);
    byte[] signature = signing.doFinal(hex(canonicalHash, hexBuf));
    if (!accessKey.equals(prefixKey) || scope != prefixScope || token != prefixToken) {
      authPrefix = "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope + ", SignedHeaders=" + signedHeaders
          + ", Signature=";
      prefixKey = accessKey;
      prefixScope = scope;
      prefixToken = token;
    }
    StringBuilder out = new StringBuilder(authPrefix.length() + 64).append(authPrefix);
    return hex(signature, out).toString();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The ASCII string's bytes in {@code buf} (a new array if the lengths differ). */
  private static byte[] ascii(String s, byte[] buf) {
    int n = s.length();
    byte[] b = buf.length == n ? buf : new byte[n];
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        return utf8(s);
      }
      b[i] = (byte) c;
    }
    return b;
  }

  /** Lower-case hex of 32 bytes into {@code out} (64 bytes). */
  private static byte[] hex(byte[] bytes, byte[] out) {
    for (int i = 0; i < bytes.length; i++) {
      out[2 * i] = (byte) HEX[(bytes[i] >> 4) & 0xf];
      out[2 * i + 1] = (byte) HEX[bytes[i] & 0xf];
    }
    return out;
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
      scopeLine = utf8("\n" + scope + "\n");
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
