package dev.fleetbench.ycsb.mongo;

import dev.fleetbench.ycsb.PropertyValues;
import com.mongodb.ConnectionString;
import com.mongodb.ReadConcern;
import com.mongodb.ReadConcernLevel;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import site.ycsb.DBException;

/**
 * The MongoDB binding's properties, parsed and checked once. Every problem names the property (or environment
 * variable) and what was expected. Defaults are documented in loader/ycsb-binding/README.md (section "MongoDB
 * binding"); keep the two in step.
 *
 * <p>Write concern, read preference and read concern come from their own properties only, never from options in
 * {@code mongodb.url}, so a run's settings are in one place; the URL carries hosts, the database and connection
 * options. Credentials come from the environment only, never from the URL.
 */
public final class MongoConfig {
  public static final String URL = "mongodb.url";
  public static final String WRITE_CONCERN = "mongodb.writeConcern";
  public static final String WRITE_TIMEOUT_MS = "mongodb.writeTimeoutMs";
  public static final String READ_PREFERENCE = "mongodb.readPreference";
  public static final String READ_CONCERN = "mongodb.readConcern";
  public static final String TLS = "mongodb.tls";
  public static final String TLS_CA_FILE = "mongodb.tlsCaFile";
  public static final String AUTH_SOURCE = "mongodb.authSource";
  public static final String AUTH_MECHANISM = "mongodb.authMechanism";
  public static final String MAX_POOL_SIZE = "mongodb.maxPoolSize";
  public static final String CONNECT_TIMEOUT_MS = "mongodb.connectTimeoutMs";
  public static final String SOCKET_TIMEOUT_MS = "mongodb.socketTimeoutMs";
  public static final String SERVER_SELECTION_TIMEOUT_MS = "mongodb.serverSelectionTimeoutMs";
  public static final String MAX_RETRIES = "mongodb.maxRetries";
  public static final String RETRY_BASE_DELAY_MS = "mongodb.retryBaseDelayMs";
  public static final String RETRY_MAX_DELAY_MS = "mongodb.retryMaxDelayMs";
  /** Upstream YCSB's property: inserts as {@code replaceOne(upsert)} instead of {@code insertOne}. */
  public static final String UPSERT = "mongodb.upsert";
  /** Upstream YCSB's insert batch size; only 1 is supported here. */
  public static final String BATCH_SIZE = "batchsize";
  public static final String INJECT_DELAY_US = "fleetbench.injectDelayUs";
  /** Used by {@link MongoSchema} only: YCSB core's table property, the collection's name. */
  public static final String TABLE = "table";
  /** Used by {@link MongoSchema} only: {@code auto}, {@code hashed} or {@code none}. */
  public static final String SHARDING = "mongodb.sharding";
  /**
   * Environment variables the SCRAM credentials come from: the loader agent fetches an external target's secret
   * at job start and hands it over this way, so it never appears in a property file, the job document or a log.
   */
  public static final String USERNAME_ENV = "FLEETBENCH_MONGODB_USERNAME";
  public static final String PASSWORD_ENV = "FLEETBENCH_MONGODB_PASSWORD";

  static final String DEFAULT_DATABASE = "ycsb";

  /**
   * Upstream YCSB's write-concern names (site.ycsb.db.OptionsSupport) and what each one means.
   * {@code errors_ignored} is upstream's old alias of {@code unacknowledged}.
   */
  static final Map<String, WriteConcern> WRITE_CONCERNS = new LinkedHashMap<>();
  /** Upstream YCSB's read-preference names. */
  static final Map<String, ReadPreference> READ_PREFERENCES = new LinkedHashMap<>();
  /** {@code server}: send no read concern (the server's default applies). */
  static final Map<String, ReadConcern> READ_CONCERNS = new LinkedHashMap<>();
  static final List<String> AUTH_MECHANISMS = List.of("negotiate", "SCRAM-SHA-256", "SCRAM-SHA-1");
  static final List<String> SHARDINGS = List.of("auto", "hashed", "none");

  static {
    WRITE_CONCERNS.put("unacknowledged", WriteConcern.UNACKNOWLEDGED);
    WRITE_CONCERNS.put("errors_ignored", WriteConcern.UNACKNOWLEDGED);
    WRITE_CONCERNS.put("acknowledged", WriteConcern.W1);
    WRITE_CONCERNS.put("journaled", WriteConcern.W1.withJournal(true));
    WRITE_CONCERNS.put("replica_acknowledged", WriteConcern.W2);
    WRITE_CONCERNS.put("majority", WriteConcern.MAJORITY);
    READ_PREFERENCES.put("primary", ReadPreference.primary());
    READ_PREFERENCES.put("primary_preferred", ReadPreference.primaryPreferred());
    READ_PREFERENCES.put("secondary", ReadPreference.secondary());
    READ_PREFERENCES.put("secondary_preferred", ReadPreference.secondaryPreferred());
    READ_PREFERENCES.put("nearest", ReadPreference.nearest());
    READ_CONCERNS.put("server", ReadConcern.DEFAULT);
    for (ReadConcernLevel l : ReadConcernLevel.values()) {
      READ_CONCERNS.put(l.getValue(), new ReadConcern(l));
    }
  }

  /**
   * Options of the connection string that this binding sets from its own properties (or never sets: the driver's
   * silent retries); a URL carrying one is refused so a run's settings are in one place.
   */
  private static final Map<String, String> URL_OPTIONS_REFUSED = new LinkedHashMap<>();

  static {
    URL_OPTIONS_REFUSED.put("w", WRITE_CONCERN);
    URL_OPTIONS_REFUSED.put("journal", WRITE_CONCERN);
    URL_OPTIONS_REFUSED.put("j", WRITE_CONCERN);
    URL_OPTIONS_REFUSED.put("wtimeoutms", WRITE_TIMEOUT_MS);
    URL_OPTIONS_REFUSED.put("readpreference", READ_PREFERENCE);
    URL_OPTIONS_REFUSED.put("readpreferencetags", READ_PREFERENCE);
    URL_OPTIONS_REFUSED.put("maxstalenessseconds", READ_PREFERENCE);
    URL_OPTIONS_REFUSED.put("readconcernlevel", READ_CONCERN);
    URL_OPTIONS_REFUSED.put("retrywrites", "(nothing: the binding never lets the driver retry)");
    URL_OPTIONS_REFUSED.put("retryreads", "(nothing: the binding never lets the driver retry)");
    URL_OPTIONS_REFUSED.put("authsource", AUTH_SOURCE);
    URL_OPTIONS_REFUSED.put("authmechanism", AUTH_MECHANISM);
    URL_OPTIONS_REFUSED.put("tls", TLS);
    URL_OPTIONS_REFUSED.put("ssl", TLS);
    URL_OPTIONS_REFUSED.put("maxpoolsize", MAX_POOL_SIZE);
    URL_OPTIONS_REFUSED.put("connecttimeoutms", CONNECT_TIMEOUT_MS);
    URL_OPTIONS_REFUSED.put("sockettimeoutms", SOCKET_TIMEOUT_MS);
    URL_OPTIONS_REFUSED.put("serverselectiontimeoutms", SERVER_SELECTION_TIMEOUT_MS);
  }

  /** The parsed {@code mongodb.url} (null when it was missing or invalid; then init fails anyway). */
  public final ConnectionString url;
  /** The URL's path database unless it is empty or {@code admin}, else {@code ycsb} (as upstream YCSB). */
  public final String database;
  public final String writeConcernName;
  public final WriteConcern writeConcern;
  public final String readPreferenceName;
  public final ReadPreference readPreference;
  public final String readConcernName;
  public final ReadConcern readConcern;
  public final boolean tls;
  /** Null: the JVM's default trust store. */
  public final Path tlsCaFile;
  /** Null: no authentication. */
  public final String username;
  public final String password;
  public final String authSource;
  public final String authMechanism;
  public final int maxPoolSize;
  public final int connectTimeoutMs;
  public final int socketTimeoutMs;
  public final int serverSelectionTimeoutMs;
  public final int maxRetries;
  public final int retryBaseDelayMs;
  public final int retryMaxDelayMs;
  public final boolean upsert;
  public final long injectDelayUs;
  public final String table;
  public final String sharding;

  private MongoConfig(Properties p, Map<String, String> env, List<String> problems) {
    url = connectionString(p.getProperty(URL, "").trim(), problems);
    String db = url == null ? null : url.getDatabase();
    database = db == null || db.isEmpty() || db.equals("admin") ? DEFAULT_DATABASE : db;
    writeConcernName = choice(p, WRITE_CONCERN, "acknowledged", WRITE_CONCERNS.keySet(), problems);
    int wtimeout = PropertyValues.integer(p, WRITE_TIMEOUT_MS, 0, 0, Integer.MAX_VALUE, problems);
    WriteConcern wc = WRITE_CONCERNS.get(writeConcernName);
    if (wtimeout > 0) {
      if (!wc.isAcknowledged()) {
        problems.add(WRITE_TIMEOUT_MS + ": " + wtimeout + " with " + WRITE_CONCERN + "=" + writeConcernName
            + "; a write timeout needs an acknowledged write concern");
      } else {
        wc = wc.withWTimeout(wtimeout, TimeUnit.MILLISECONDS);
      }
    }
    writeConcern = wc;
    readPreferenceName = choice(p, READ_PREFERENCE, "primary", READ_PREFERENCES.keySet(), problems);
    readPreference = READ_PREFERENCES.get(readPreferenceName);
    readConcernName = choice(p, READ_CONCERN, "server", READ_CONCERNS.keySet(), problems);
    readConcern = READ_CONCERNS.get(readConcernName);
    boolean srv = url != null && url.isSrvProtocol();
    tls = PropertyValues.bool(p, TLS, srv, problems);
    String ca = p.getProperty(TLS_CA_FILE, "").trim();
    if (ca.isEmpty()) {
      tlsCaFile = null;
    } else {
      tlsCaFile = Path.of(ca);
      if (!Files.isReadable(tlsCaFile)) {
        problems.add(TLS_CA_FILE + ": '" + ca + "' is not a readable file; expected a PEM file of CA certificates");
      }
      if (!tls) {
        problems.add(TLS_CA_FILE + ": set while " + TLS + " is false; set " + TLS + "=true");
      }
    }
    String user = env.getOrDefault(USERNAME_ENV, "").trim();
    String pass = env.getOrDefault(PASSWORD_ENV, "");
    username = user.isEmpty() ? null : user;
    password = pass;
    if (username == null && !pass.isEmpty()) {
      problems.add(PASSWORD_ENV + ": set without " + USERNAME_ENV + "; give both or neither");
    } else if (username != null && pass.isEmpty()) {
      problems.add(PASSWORD_ENV + ": empty while " + USERNAME_ENV + " is set; SCRAM needs a password");
    }
    authSource = p.getProperty(AUTH_SOURCE, "admin").trim();
    if (authSource.isEmpty()) {
      problems.add(AUTH_SOURCE + ": empty; expected the database that holds the user (Atlas: admin)");
    }
    authMechanism = choice(p, AUTH_MECHANISM, "negotiate", AUTH_MECHANISMS, problems);
    maxPoolSize = PropertyValues.integer(p, MAX_POOL_SIZE, 100, 1, 100_000, problems);
    connectTimeoutMs = PropertyValues.integer(p, CONNECT_TIMEOUT_MS, 5_000, 1, Integer.MAX_VALUE, problems);
    socketTimeoutMs = PropertyValues.integer(p, SOCKET_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE, problems);
    serverSelectionTimeoutMs = PropertyValues.integer(p, SERVER_SELECTION_TIMEOUT_MS, 10_000, 1, Integer.MAX_VALUE, problems);
    maxRetries = PropertyValues.integer(p, MAX_RETRIES, 3, 0, 1000, problems);
    retryBaseDelayMs = PropertyValues.integer(p, RETRY_BASE_DELAY_MS, 50, 0, Integer.MAX_VALUE, problems);
    retryMaxDelayMs = PropertyValues.integer(p, RETRY_MAX_DELAY_MS, 5_000, 0, Integer.MAX_VALUE, problems);
    upsert = PropertyValues.bool(p, UPSERT, false, problems);
    int batch = PropertyValues.integer(p, BATCH_SIZE, 1, 1, Integer.MAX_VALUE, problems);
    if (batch != 1) {
      problems.add(BATCH_SIZE + ": " + batch + " is not supported; this binding inserts one document per"
          + " operation (expected 1 or unset)");
    }
    injectDelayUs = PropertyValues.integer(p, INJECT_DELAY_US, 0, 0, Integer.MAX_VALUE, problems);
    table = p.getProperty(TABLE, "usertable").trim();
    if (table.isEmpty() || table.startsWith("system.") || table.contains("$")) {
      problems.add(TABLE + ": '" + table + "' is not a collection name (not empty, no '$', not system.*)");
    }
    sharding = choice(p, SHARDING, "auto", SHARDINGS, problems);
  }

  /** Parses and validates against the process environment; throws a DBException listing every bad property. */
  public static MongoConfig from(Properties p) throws DBException {
    return from(p, System.getenv());
  }

  /** As {@link #from(Properties)}, with the environment the credentials come from. */
  public static MongoConfig from(Properties p, Map<String, String> env) throws DBException {
    List<String> problems = new ArrayList<>();
    MongoConfig c = new MongoConfig(p, env, problems);
    if (!problems.isEmpty()) {
      throw new DBException("fleetbench MongoDB binding: bad properties:\n  " + String.join("\n  ", problems));
    }
    return c;
  }

  /** Identifies clients that the DB instances (YCSB client threads) of one process can share. */
  String clientKey() {
    return String.join("|", url.getConnectionString(), writeConcernName, readPreferenceName, readConcernName,
        String.valueOf(tls), String.valueOf(tlsCaFile), String.valueOf(username),
        Integer.toHexString(password.hashCode()), authSource, authMechanism, Integer.toString(maxPoolSize),
        Integer.toString(connectTimeoutMs), Integer.toString(socketTimeoutMs),
        Integer.toString(serverSelectionTimeoutMs), String.valueOf(writeConcern.getWTimeout(TimeUnit.MILLISECONDS)));
  }

  /** The hosts of the URL, for messages (never the credentials: the URL has none). */
  public String hosts() {
    return url == null ? "?" : String.join(",", url.getHosts());
  }

  private static ConnectionString connectionString(String raw, List<String> problems) {
    if (raw.isEmpty()) {
      problems.add(URL + ": missing; expected mongodb://host1:27017,host2:27017/ycsb or mongodb+srv://host/ycsb");
      return null;
    }
    if (!raw.startsWith("mongodb://") && !raw.startsWith("mongodb+srv://")) {
      problems.add(URL + ": '" + raw + "' does not start with mongodb:// or mongodb+srv://");
      return null;
    }
    String authority = raw.substring(raw.indexOf("://") + 3);
    int slash = authority.indexOf('/');
    int query = authority.indexOf('?');
    int end = slash >= 0 ? slash : query >= 0 ? query : authority.length();
    if (authority.substring(0, end).contains("@")) {
      // never echo the URL: it holds a password
      problems.add(URL + ": contains credentials (user@host); remove them and set the environment variables "
          + USERNAME_ENV + " and " + PASSWORD_ENV + " instead");
      return null;
    }
    if (query >= 0) {
      for (String kv : authority.substring(query + 1).split("[&;]")) {
        String name = kv.contains("=") ? kv.substring(0, kv.indexOf('=')) : kv;
        String instead = URL_OPTIONS_REFUSED.get(name.toLowerCase(Locale.ROOT));
        if (instead != null) {
          problems.add(URL + ": option '" + name + "' is set by the binding; remove it from the URL and set "
              + instead);
        }
      }
    }
    try {
      return new ConnectionString(raw);
    } catch (IllegalArgumentException e) {
      problems.add(URL + ": '" + raw + "' is not a MongoDB connection string: " + e.getMessage());
      return null;
    }
  }

  private static String choice(Properties p, String name, String dflt, Iterable<String> allowed,
      List<String> problems) {
    String v = p.getProperty(name, "").trim();
    if (v.isEmpty()) {
      return dflt;
    }
    for (String a : allowed) {
      if (a.equalsIgnoreCase(v)) {
        return a;
      }
    }
    problems.add(name + ": '" + v + "' is not one of " + allowed);
    return dflt;
  }

}
