package dev.fleetbench.ycsb;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import site.ycsb.measurements.Measurements;

/**
 * What every fleetbench binding does the same way: throttle accounting, retry back-off, injected
 * delay and "log each distinct error once, count the rest".
 */
public final class BindingSupport {
  private BindingSupport() {}

  /**
   * Measures one throttled attempt as {@code <op>-THROTTLED}. measure() is a no-op in
   * measurement.interval=intended and measureIntended() a no-op in op mode, so calling both records it
   * in every mode (in both mode as {@code READ-THROTTLED} and {@code Intended-READ-THROTTLED}).
   */
  public static void recordThrottle(Measurements m, String op, long intendedStartNs, long st, long en) {
    recordAttempt(m, op + "-THROTTLED", intendedStartNs, st, en);
  }

  /**
   * Measures one attempt under its own name in every measurement.interval mode (as {@link #recordThrottle}):
   * the attempt's service time, and the time since the intended start as {@code Intended-<name>}.
   */
  public static void recordAttempt(Measurements m, String name, long intendedStartNs, long st, long en) {
    m.measure(name, (int) ((en - st) / 1000));
    m.measureIntended(name, (int) ((en - intendedStartNs) / 1000));
  }

  /** Exponential back-off with "equal jitter" (half fixed, half random, so threads do not align). */
  public static void backOff(int attempt, int baseDelayMs, int maxDelayMs) {
    long cap = Math.min((long) maxDelayMs, (long) baseDelayMs << Math.min(attempt, 20));
    if (cap <= 0) {
      return;
    }
    long ms = cap / 2 + ThreadLocalRandom.current().nextLong(cap / 2 + 1);
    pauseNanos(ms * 1_000_000L);
  }

  private static final java.util.concurrent.atomic.AtomicLong INJECT_COUNTER =
      new java.util.concurrent.atomic.AtomicLong();

  /** The {@code fleetbench.injectDelayUs} pause (0: none), on every operation. */
  public static void injectDelay(long micros) {
    injectDelay(micros, 1);
  }

  /**
   * The {@code fleetbench.injectDelayUs} pause on every {@code every}-th operation of the process
   * ({@code fleetbench.injectDelayEvery}; 1 = every operation): a slowed endpoint for pacing tests.
   */
  public static void injectDelay(long micros, int every) {
    if (micros > 0 && (every <= 1 || INJECT_COUNTER.incrementAndGet() % every == 0)) {
      pauseNanos(micros * 1000L);
    }
  }

  public static void pauseNanos(long nanos) {
    long deadline = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  /** Counts errors by "OP kind" and logs only the first of each kind. */
  public static final class ErrorLog {
    private final Logger log;
    private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

    public ErrorLog(Logger log) {
      this.log = log;
    }

    public void note(String op, String kind, String message) {
      LongAdder n = counts.computeIfAbsent(op + " " + kind, k -> new LongAdder());
      boolean first = n.sum() == 0;
      n.increment();
      if (first) {
        log.warn("{} failed ({}): {} [further errors of this kind are counted, not logged]", op, kind, message);
      }
    }

    public Map<String, Long> counts() {
      Map<String, Long> out = new HashMap<>();
      counts.forEach((k, v) -> out.put(k, v.sum()));
      return out;
    }
  }

  /**
   * The properties of a helper's command line ({@code cql.CqlSchema}, {@code mongo.MongoSchema}), given as YCSB
   * takes them: {@code -p name=value} and {@code -P file}, later ones winning. Problems name the argument's
   * position.
   */
  public static Properties cliProperties(String[] args) {
    Properties p = new Properties();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if ((a.equals("-p") || a.equals("-P")) && i + 1 >= args.length) {
        throw new IllegalArgumentException("argument " + (i + 1) + ": " + a + " needs a value");
      }
      if (a.equals("-p")) {
        String kv = args[++i];
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException("argument " + (i + 1) + ": '" + kv + "' is not name=value");
        }
        p.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
      } else if (a.equals("-P")) {
        String file = args[++i];
        try (InputStream in = Files.newInputStream(Paths.get(file))) {
          p.load(in);
        } catch (IOException e) {
          throw new IllegalArgumentException("argument " + (i + 1) + ": cannot read '" + file + "': " + e);
        }
      } else {
        throw new IllegalArgumentException("argument " + (i + 1) + ": unknown '" + a
            + "'; expected -p name=value or -P file");
      }
    }
    return p;
  }
}
