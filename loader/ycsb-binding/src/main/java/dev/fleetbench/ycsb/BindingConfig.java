package dev.fleetbench.ycsb;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import site.ycsb.DBException;

/**
 * The binding's properties, parsed and checked once. Every problem names the property and what was expected.
 * Defaults are documented in loader/ycsb-binding/README.md; keep the two in step.
 */
public final class BindingConfig {
  public static final String TABLE = "table";
  public static final String KEY_ATTRIBUTE = "dynamodb.keyAttribute";
  public static final String REGION = "dynamodb.region";
  public static final String ENDPOINT = "dynamodb.endpoint";
  public static final String CONSISTENT_READS = "dynamodb.consistentReads";
  public static final String CONNECTION_TIMEOUT_MS = "dynamodb.connectionTimeoutMs";
  public static final String API_CALL_TIMEOUT_MS = "dynamodb.apiCallTimeoutMs";
  public static final String MAX_RETRIES = "dynamodb.maxRetries";
  public static final String RETRY_BASE_DELAY_MS = "dynamodb.retryBaseDelayMs";
  public static final String RETRY_MAX_DELAY_MS = "dynamodb.retryMaxDelayMs";
  public static final String INJECT_DELAY_US = "fleetbench.injectDelayUs";
  public static final String INJECT_DELAY_EVERY = "fleetbench.injectDelayEvery";
  public static final String BATCH_INSERTS = "dynamodb.batchInserts";
  /** A DAX cluster's discovery endpoint: requests go through the DAX client instead of HTTP to DynamoDB. */
  public static final String DAX_ENDPOINT = "dynamodb.daxEndpoint";
  /** Absent: one partition-key value per item. A number N: N partition-key values, the YCSB key as the sort key. */
  public static final String PARTITION_KEY_VALUES = "fleetbench.dynamodb.partitionKeyValues";
  public static final String SORT_KEY_ATTRIBUTE = "fleetbench.dynamodb.sortKeyAttribute";
  /** key-order or shuffled: how the planner loads (insertorder); checked here so a typo is named. */
  public static final String LOAD_ORDER = "fleetbench.dynamodb.loadOrder";
  public static final String QUERY_LIMIT = "fleetbench.query.limit";
  public static final String QUERY_FORWARD = "fleetbench.query.forward";

  static final String DEFAULT_TABLE = "usertable";
  static final String DEFAULT_KEY_ATTRIBUTE = "p";
  static final String DEFAULT_REGION = "us-east-1";

  public final String table;
  public final String keyAttribute;
  public final String region;
  /** Empty: the SDK's regional endpoint. One or more: requests are spread round robin. */
  public final List<URI> endpoints;
  public final boolean consistentReads;
  public final int connectionTimeoutMs;
  public final int apiCallTimeoutMs;
  public final int maxRetries;
  public final int retryBaseDelayMs;
  public final int retryMaxDelayMs;
  public final long injectDelayUs;
  /** The delay goes to every n-th operation of the process (1: all). */
  public final int injectDelayEvery;
  /** Inserts per BatchWriteItem (1: one PutItem per insert; at most 25, DynamoDB's limit). */
  public final int batchInserts;
  /** Null: no DAX. Else {@code dax://host:port} or {@code daxs://host:port} (a cluster with TLS). */
  public final URI daxEndpoint;
  /** 0: one partition-key value per item (no sort key); else the number of partition-key values. */
  public final long partitionKeyValues;
  /** The sort key attribute (type S) when partitionKeyValues is a number; null otherwise. */
  public final String sortKeyAttribute;
  /** Query: at most this many items (Limit). */
  public final int queryLimit;
  /** Query: sort key >= the YCSB key, ascending (true), or <= it, descending (false: the nearest at or below). */
  public final boolean queryForward;

  private BindingConfig(Properties p, List<String> problems) {
    table = text(p, TABLE, DEFAULT_TABLE, problems);
    keyAttribute = text(p, KEY_ATTRIBUTE, DEFAULT_KEY_ATTRIBUTE, problems);
    region = regionOf(p);
    endpoints = endpointsOf(p.getProperty(ENDPOINT, ""), problems);
    consistentReads = PropertyValues.bool(p, CONSISTENT_READS, false, problems);
    connectionTimeoutMs = PropertyValues.atLeast(p, CONNECTION_TIMEOUT_MS, 2_000, 1, problems);
    apiCallTimeoutMs = PropertyValues.atLeast(p, API_CALL_TIMEOUT_MS, 10_000, 1, problems);
    maxRetries = PropertyValues.atLeast(p, MAX_RETRIES, 3, 0, problems);
    retryBaseDelayMs = PropertyValues.atLeast(p, RETRY_BASE_DELAY_MS, 50, 0, problems);
    retryMaxDelayMs = PropertyValues.atLeast(p, RETRY_MAX_DELAY_MS, 5_000, 0, problems);
    injectDelayUs = PropertyValues.atLeast(p, INJECT_DELAY_US, 0, 0, problems);
    injectDelayEvery = PropertyValues.atLeast(p, INJECT_DELAY_EVERY, 1, 1, problems);
    int batch = PropertyValues.atLeast(p, BATCH_INSERTS, 1, 1, problems);
    if (batch > 25) {
      problems.add(BATCH_INSERTS + ": " + batch + " is above 25, the most one BatchWriteItem takes");
      batch = 25;
    }
    batchInserts = batch;
    daxEndpoint = daxEndpointOf(p.getProperty(DAX_ENDPOINT, ""), problems);
    if (daxEndpoint != null && !endpoints.isEmpty()) {
      problems.add(DAX_ENDPOINT + ": set together with " + ENDPOINT + "; requests go either to DAX or to "
          + "DynamoDB endpoints, give one of them");
    }
    partitionKeyValues = partitionKeyValuesOf(p.getProperty(PARTITION_KEY_VALUES, ""), problems);
    String sk = p.getProperty(SORT_KEY_ATTRIBUTE, "s").trim();
    if (partitionKeyValues > 0 && sk.isEmpty()) {
      problems.add(SORT_KEY_ATTRIBUTE + ": must not be empty");
    } else if (partitionKeyValues > 0 && sk.equals(keyAttribute)) {
      problems.add(SORT_KEY_ATTRIBUTE + ": '" + sk + "' is also " + KEY_ATTRIBUTE
          + "; the sort key needs its own name");
    }
    sortKeyAttribute = partitionKeyValues > 0 ? sk : null;
    String order = p.getProperty(LOAD_ORDER, "shuffled").trim();
    if (!order.equals("shuffled") && !order.equals("key-order")) {
      problems.add(LOAD_ORDER + ": '" + order + "' is not key-order or shuffled");
    }
    queryLimit = PropertyValues.atLeast(p, QUERY_LIMIT, 1, 1, problems);
    queryForward = PropertyValues.bool(p, QUERY_FORWARD, false, problems);
  }

  /** Absent, empty or {@code per-item}: 0; else a whole number 1..MAX_PARTITION_KEY_VALUES. */
  static long partitionKeyValuesOf(String raw, List<String> problems) {
    String s = raw.trim();
    if (s.isEmpty() || s.equals("per-item")) {
      return 0;
    }
    try {
      long n = Long.parseLong(s);
      if (n >= 1 && n <= KeyDesign.MAX_PARTITION_KEY_VALUES) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    problems.add(PARTITION_KEY_VALUES + ": '" + s + "' is not per-item or a whole number from 1 to "
        + KeyDesign.MAX_PARTITION_KEY_VALUES);
    return 0;
  }

  /** Parses and validates; throws a DBException listing every bad property. */
  public static BindingConfig from(Properties p) throws DBException {
    List<String> problems = new ArrayList<>();
    BindingConfig c = new BindingConfig(p, problems);
    if (!problems.isEmpty()) {
      throw new DBException("fleetbench DynamoDB binding: bad properties:\n  " + String.join("\n  ", problems));
    }
    return c;
  }

  /** True if every endpoint is on this machine (loopback), e.g. DynamoDB Local. */
  public boolean endpointsAreLocal() {
    if (endpoints.isEmpty()) {
      return false;
    }
    for (URI u : endpoints) {
      String h = u.getHost().toLowerCase(Locale.ROOT);
      boolean local = h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]") || h.equals("::1");
      if (!local) {
        return false;
      }
    }
    return true;
  }

  /** A key that identifies clients that can be shared between DB instances of one process. */
  String clientKey() {
    return String.join("|", region, endpoints.toString(), String.valueOf(daxEndpoint),
        Integer.toString(connectionTimeoutMs),
        Integer.toString(apiCallTimeoutMs));
  }

  private static String regionOf(Properties p) {
    String r = p.getProperty(REGION, "").trim();
    if (r.isEmpty()) {
      // Never ask the instance metadata service: the planner always sets dynamodb.region on AWS.
      r = firstNonEmpty(System.getProperty("aws.region"), System.getenv("AWS_REGION"),
          System.getenv("AWS_DEFAULT_REGION"), DEFAULT_REGION);
    }
    return r;
  }

  private static String firstNonEmpty(String... values) {
    for (String v : values) {
      if (v != null && !v.trim().isEmpty()) {
        return v.trim();
      }
    }
    return "";
  }

  static List<URI> endpointsOf(String raw, List<String> problems) {
    List<URI> out = new ArrayList<>();
    if (raw.trim().isEmpty()) {
      return Collections.emptyList();
    }
    String[] parts = raw.split(",");
    for (int i = 0; i < parts.length; i++) {
      String s = parts[i].trim();
      String where = ENDPOINT + "[" + i + "]";
      if (s.isEmpty()) {
        problems.add(where + ": empty entry in '" + raw + "'; expected comma-separated http(s) URLs");
        continue;
      }
      try {
        URI u = new URI(s);
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
          problems.add(where + ": '" + s + "' is not an http(s) URL with a host, e.g. http://10.0.0.5:8000");
          continue;
        }
        out.add(u);
      } catch (URISyntaxException e) {
        problems.add(where + ": '" + s + "' is not a URL (" + e.getMessage() + ")");
      }
    }
    return Collections.unmodifiableList(out);
  }

  static URI daxEndpointOf(String raw, List<String> problems) {
    String s = raw.trim();
    if (s.isEmpty()) {
      return null;
    }
    try {
      URI u = new URI(s);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("dax") || scheme.equals("daxs")) && u.getHost() != null) {
        return u;
      }
    } catch (URISyntaxException e) {
      // named below
    }
    problems.add(DAX_ENDPOINT + ": '" + s + "' is not a DAX cluster endpoint; expected dax://host:8111 or "
        + "daxs://host:9111 (the cluster's ClusterDiscoveryEndpoint)");
    return null;
  }

  private static String text(Properties p, String name, String dflt, List<String> problems) {
    String v = p.getProperty(name, dflt).trim();
    if (v.isEmpty()) {
      problems.add(name + ": must not be empty");
    }
    return v;
  }

}
