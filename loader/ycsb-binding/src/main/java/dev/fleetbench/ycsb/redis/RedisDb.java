package dev.fleetbench.ycsb.redis;

import dev.fleetbench.ycsb.BindingSupport;
import dev.fleetbench.ycsb.Retrying;
import dev.fleetbench.ycsb.Retrying.Failed;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.JedisCommands;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The Redis binding on Jedis; YCSB loads it as {@code dev.fleetbench.ycsb.RedisClient}.
 *
 * <p>Records are stored as upstream YCSB's redis binding stores them
 * (https://github.com/brianfrankcooper/YCSB/blob/master/redis/src/main/java/site/ycsb/db/RedisClient.java): a
 * hash per record at the YCSB key (one hash field per YCSB field) and, for scans, every key in the sorted set
 * {@code _indices} with the score {@code key.hashCode()}. A scan is {@code ZRANGEBYSCORE _indices hash(start) +inf
 * LIMIT 0 n} followed by one read per key. The YCSB table name is ignored (upstream does the same).
 *
 * <p>Errors are counted, not hidden: every Redis error reply comes back as its own YCSB status named by the
 * reply's code ({@code OOM}, {@code BUSY}, {@code MOVED}, {@code ASK}, {@code LOADING}, ...; see
 * {@link #classify}); socket timeouts are {@code TIMEOUT}; anything else {@link Status#ERROR}. With
 * {@code redis.maxRetries > 0} the transient ones ({@code BUSY}, {@code LOADING}, {@code TRYAGAIN},
 * {@code CLUSTERDOWN}, {@code MASTERDOWN}) are retried after a back-off, each refused attempt measured as
 * {@code RETRY-<CODE>}. Each distinct error is logged once.
 */
public class RedisDb extends DB {
  /** The sorted set of every record key, for scans (upstream's name). */
  public static final String INDEX_KEY = "_indices";

  public static final Status TIMEOUT = new Status("TIMEOUT", "No reply from Redis within redis.timeout.");
  private static final Map<String, Status> BY_CODE = new HashMap<>();
  private static final Set<String> RETRYABLE = Set.of("BUSY", "LOADING", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN");

  static {
    String[][] codes = {
        {"OOM", "Redis refused a write: used memory is over maxmemory (maxmemory-policy noeviction)."},
        {"BUSY", "Redis is busy running a script or function."},
        {"LOADING", "Redis is loading its dataset into memory."},
        {"MOVED", "The key's slot is served by another cluster node (redirects exhausted)."},
        {"ASK", "The key's slot is migrating to another cluster node (redirects exhausted)."},
        {"TRYAGAIN", "The keys' slot is being migrated."},
        {"CLUSTERDOWN", "The cluster is down or the slot is not served."},
        {"READONLY", "Write sent to a read-only replica."},
        {"MASTERDOWN", "The replica lost its link to the master."},
        {"MISCONF", "Redis refuses writes because it cannot persist to disk."},
        {"NOAUTH", "Authentication required."},
        {"WRONGPASS", "Wrong user name or password."},
        {"NOPERM", "The ACL user may not run this command or touch this key."},
    };
    for (String[] c : codes) {
      BY_CODE.put(c[0], new Status(c[0], c[1]));
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(RedisDb.class);
  private static final BindingSupport.ErrorLog ERRORS = new BindingSupport.ErrorLog(LOG);

  private RedisConfig config;
  private Measurements measurements;
  private Retrying retrying;
  /** Cluster mode: the process's shared cluster client. */
  private RedisConnections shared;
  /** Standalone mode: this thread's connection; null until (re)connected. */
  private Jedis connection;

  /** For tests: measure into this registry instead of the process-wide singleton. */
  void useMeasurements(Measurements m) {
    this.measurements = m;
  }

  @Override
  public void init() throws DBException {
    config = RedisConfig.from(getProperties());
    if (measurements == null) {
      measurements = Measurements.getMeasurements();
    }
    retrying = retrying();
    try {
      if (config.cluster) {
        shared = RedisConnections.acquireCluster(config, measurements);
      } else {
        connection = RedisConnections.standalone(config);
        connection.ping();
      }
    } catch (RuntimeException e) {
      if (connection != null) {
        connection.close();
        connection = null;
      }
      throw new DBException("fleetbench Redis binding: cannot connect to " + config.hosts
          + (config.cluster ? " (cluster)" : "") + ": " + e, e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    if (shared != null) {
      RedisConnections.release(shared);
      shared = null;
    }
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  RedisConfig config() {
    return config;
  }

  /** As upstream: the score of a key in {@code _indices}. */
  static double hash(String key) {
    return key.hashCode();
  }

  // ------------------------------------------------------------------------------------------ operations

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      return fetch("READ", key, fields, result) ? Status.OK : Status.NOT_FOUND;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      List<String> keys = call("SCAN",
          j -> j.zrangeByScore(INDEX_KEY, hash(startkey), Double.POSITIVE_INFINITY, 0, recordcount));
      for (String key : keys) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        if (fetch("SCAN", key, fields, row)) {
          result.add(row);
        }
      }
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    if (values.isEmpty()) {
      return Status.OK;
    }
    Map<String, String> strings = StringByteIterator.getStringMap(values);
    try {
      call("UPDATE", j -> j.hset(key, strings));
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    BindingSupport.injectDelay(config.injectDelayUs);
    Map<String, String> strings = StringByteIterator.getStringMap(values);
    try {
      // two commands, as upstream: the hash and the key's entry in the scan index (in a cluster they live in
      // different slots, so they cannot share a transaction); the insert is OK only if both succeeded
      call("INSERT", j -> {
        j.hset(key, strings);
        return j.zadd(INDEX_KEY, hash(key), key);
      });
      return Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  @Override
  public Status delete(String table, String key) {
    BindingSupport.injectDelay(config.injectDelayUs);
    try {
      long removed = call("DELETE", j -> j.del(key) + j.zrem(INDEX_KEY, key));
      return removed == 0 ? Status.NOT_FOUND : Status.OK;
    } catch (Failed f) {
      return f.status;
    }
  }

  /** HGETALL (all fields) or HMGET (the given fields; absent ones are left out); false when nothing is there. */
  private boolean fetch(String op, String key, Set<String> fields, Map<String, ByteIterator> out) throws Failed {
    if (fields == null) {
      Map<String, String> all = call(op, j -> j.hgetAll(key));
      StringByteIterator.putAllAsByteIterators(out, all);
      return !all.isEmpty();
    }
    String[] names = fields.toArray(new String[0]);
    List<String> values = call(op, j -> j.hmget(key, names));
    Map<String, String> found = new LinkedHashMap<>();
    for (int i = 0; i < names.length && i < values.size(); i++) {
      if (values.get(i) != null) {
        found.put(names[i], values.get(i));
      }
    }
    StringByteIterator.putAllAsByteIterators(out, found);
    return !found.isEmpty();
  }

  // ------------------------------------------------------------------------------------------ retry loop

  private JedisCommands commands() {
    if (shared != null) {
      return shared.cluster;
    }
    if (connection == null) {
      connection = RedisConnections.standalone(config); // after a connection error
    }
    return connection;
  }

  /** Runs the request under the binding's retry loop. */
  private <T> T call(String op, Function<JedisCommands, T> request) throws Failed {
    return retrying.call(op, () -> request.apply(commands()));
  }

  /**
   * With {@code redis.maxRetries > 0} retries the transient refusals after a back-off, each refused attempt
   * measured as {@code RETRY-<CODE>} (the last one, when retries ran out, is not); every error that ends an
   * operation goes to the error log as "OP CODE ExceptionClass". A connection error drops the connection (it
   * may hold a late reply: never reuse it). Anything but a Jedis error is not the server's answer: thrown.
   */
  private Retrying retrying() {
    return new Retrying(measurements, config.maxRetries, config.retryBaseDelayMs, config.retryMaxDelayMs) {
      @Override
      protected Status classify(Exception e) {
        if (!(e instanceof JedisException)) {
          throw e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
        }
        if (e instanceof JedisConnectionException && connection != null) {
          connection.close();
          connection = null;
        }
        return RedisDb.classify(e);
      }

      @Override
      protected boolean retryable(Status status) {
        return RETRYABLE.contains(status.getName());
      }

      @Override
      protected String attemptName(String op, Status status) {
        return "RETRY-" + status.getName();
      }

      @Override
      protected boolean measuresLastAttempt() {
        return false;
      }

      @Override
      protected void ended(String op, Status status, Exception e, boolean exhausted) {
        ERRORS.note(op, status.getName() + " " + e.getClass().getSimpleName(), e.getMessage());
      }
    };
  }

  /**
   * The YCSB status of a Jedis error: the Redis error reply's code when it is one of the known ones (OOM, BUSY,
   * LOADING, MOVED, ASK, TRYAGAIN, CLUSTERDOWN, READONLY, MASTERDOWN, MISCONF, NOAUTH, WRONGPASS, NOPERM),
   * TIMEOUT for a socket timeout or an exhausted cluster retry deadline, else ERROR. A cluster command whose
   * attempts ran out is classified by its last error (so a MOVED storm is MOVED).
   */
  static Status classify(Throwable e) {
    if (e instanceof JedisClusterOperationException) {
      Throwable[] last = e.getSuppressed();
      if (last.length > 0 && last[0] != null) {
        return classify(last[0]);
      }
      String m = String.valueOf(e.getMessage());
      return m.contains("deadline") ? TIMEOUT : Status.ERROR;
    }
    if (e instanceof JedisConnectionException) {
      for (Throwable c = e; c != null; c = c.getCause()) {
        if (c instanceof SocketTimeoutException) {
          return TIMEOUT;
        }
      }
      return Status.ERROR;
    }
    if (e instanceof JedisDataException && e.getMessage() != null) {
      String m = e.getMessage().trim();
      int sp = m.indexOf(' ');
      String code = (sp < 0 ? m : m.substring(0, sp)).toUpperCase(Locale.ROOT);
      return BY_CODE.getOrDefault(code, Status.ERROR);
    }
    return Status.ERROR;
  }

  /** The status names this binding can return besides OK, NOT_FOUND and ERROR. */
  public static List<String> statusNames() {
    List<String> out = new ArrayList<>(BY_CODE.keySet());
    out.add(TIMEOUT.getName());
    out.sort(null);
    return out;
  }

  /** How many times each distinct error ("OP STATUS ExceptionClass") was seen in this process. */
  static Map<String, Long> errorCounts() {
    return ERRORS.counts();
  }
}
