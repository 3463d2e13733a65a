package dev.fleetbench.ycsb;

import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import site.ycsb.DB;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;

/**
 * One open-loop arrival schedule for the whole YCSB process, around YCSB's own workload class (CoreWorkload by
 * default: key choosers, field generation and operation mix are unchanged).
 *
 * <p>Operation k of the process is due at {@code start + k / rate} (constant arrivals) or at the k-th event of a
 * Poisson process of that rate. A client thread that is free takes the next due operation, waits until it is due
 * and runs it; a thread held by a slow request holds no slots of its own, so the other threads keep the offered
 * rate. When every thread is busy the due operations queue: they start late, back to back, and are timed from
 * their scheduled time, never dropped and never silently re-paced.
 *
 * <p>Per operation: the intended latency is measured from the scheduled time (YCSB's {@code Intended-<OP>}), the
 * service time as usual ({@code <OP>}), and the queueing delay (actual start minus scheduled time, microseconds)
 * as the measurement {@value #DELAY}, so every status line and every HDR log interval shows how far behind the
 * schedule the process was. At the end one stderr line gives the offered rate, the operations started and how
 * many were behind by more than {@code fleetbench.behindUs}.
 *
 * <p>YCSB's own per-thread pacing ({@code target}) must be off, or both would pace: {@link Launcher} moves
 * {@code target} to {@value #RATE} and installs this class (see README "Pacing").
 */
public class OpenLoopWorkload extends Workload {
  public static final String RATE = "fleetbench.targetOpsPerSec";
  /**
   * A rate that changes over time ({@code <seconds>:<ops/s>,<seconds>:<ops/s>,...}, the process's share; linear
   * between points, a step where two points share a second, the last rate held after the last point): operation k
   * is due when the curve's integral from the schedule's start reaches k. Replaces {@link #RATE}'s constant rate.
   */
  public static final String RATE_SCHEDULE = "fleetbench.rateSchedule";
  public static final String ARRIVALS = "fleetbench.arrivals";
  public static final String INNER = "fleetbench.workload";
  public static final String BEHIND_US = "fleetbench.behindUs";
  public static final String DELAY = "SCHEDULE-DELAY";

  private Workload inner;
  private Schedule schedule;
  private long behindNs;
  private boolean intendedOnly;
  private final LongAdder started = new LongAdder();
  private final LongAdder behind = new LongAdder();
  private final AtomicLong maxDelayNs = new AtomicLong();

  @Override
  public void init(Properties p) throws WorkloadException {
    String cls = p.getProperty(INNER, "site.ycsb.workloads.CoreWorkload");
    try {
      inner = (Workload) Class.forName(cls).getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new WorkloadException(INNER + ": cannot load workload class '" + cls + "': " + e, e);
    }
    inner.init(p);
    double rate;
    try {
      rate = Double.parseDouble(p.getProperty(RATE, "0"));
    } catch (NumberFormatException e) {
      throw new WorkloadException(RATE + ": '" + p.getProperty(RATE) + "' is not a number");
    }
    String arrivals = p.getProperty(ARRIVALS, "constant").trim();
    if (!arrivals.equals("constant") && !arrivals.equals("poisson")) {
      throw new WorkloadException(ARRIVALS + ": '" + arrivals + "' is not constant or poisson");
    }
    intendedOnly = "intended".equals(p.getProperty(Measurements.MEASUREMENT_INTERVAL, "op").trim());
    behindNs = Long.parseLong(p.getProperty(BEHIND_US, "1000").trim()) * 1000L;
    String curve = p.getProperty(RATE_SCHEDULE, "").trim();
    if (!curve.isEmpty()) {
      schedule = new Schedule(RateCurve.parse(curve), arrivals.equals("poisson"));
    } else {
      schedule = rate > 0 ? new Schedule(rate, arrivals.equals("poisson")) : null;
    }
  }

  @Override
  public Object initThread(Properties p, int mythreadid, int threadcount) throws WorkloadException {
    return inner.initThread(p, mythreadid, threadcount);
  }

  @Override
  public boolean doInsert(DB db, Object threadstate) {
    return awaitSlot() && inner.doInsert(db, threadstate);
  }

  @Override
  public boolean doTransaction(DB db, Object threadstate) {
    return awaitSlot() && inner.doTransaction(db, threadstate);
  }

  /** Takes the next due operation, waits for its time, and sets it as the operation's intended start. */
  private boolean awaitSlot() {
    if (schedule == null) {
      return true; // no rate: unthrottled, like YCSB without a target
    }
    long due = schedule.next();
    long now = System.nanoTime();
    while (now < due) {
      if (isStopRequested()) {
        return false;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(due - now);
      now = System.nanoTime();
    }
    long late = now - due;
    Measurements m = Measurements.getMeasurements();
    m.setIntendedStartTimeNs(due);
    int lateUs = (int) Math.min(Integer.MAX_VALUE, late / 1000);
    if (intendedOnly) {
      m.measureIntended(DELAY, lateUs); // measure() is a no-op in measurement.interval=intended
    } else {
      m.measure(DELAY, lateUs);
    }
    started.increment();
    if (late > behindNs) {
      behind.increment();
    }
    maxDelayNs.accumulateAndGet(late, Math::max);
    return true;
  }

  @Override
  public void requestStop() {
    super.requestStop();
    inner.requestStop();
  }

  @Override
  public void cleanup() throws WorkloadException {
    inner.cleanup();
    if (schedule != null) {
      long n = started.sum();
      long b = behind.sum();
      System.err.printf("fleetbench open-loop schedule: %s ops/s %s arrivals; %d operations started, %d (%.2f%%) "
          + "more than %d us behind schedule, max %.1f ms%n", schedule.describe(), schedule.poisson ? "poisson"
          : "constant", n, b, n == 0 ? 0.0 : 100.0 * b / n, behindNs / 1000, maxDelayNs.get() / 1e6);
    }
  }

  /**
   * The process's arrival times: thread safe; each call hands out the next one. The schedule starts when the
   * first operation is asked for (the first client thread is ready), as YCSB's per-thread pacing starts when its
   * thread does, so JVM and connection start-up are not counted as lateness.
   */
  static final class Schedule {
    final RateCurve curve;
    final boolean poisson;
    private volatile long start;
    private final AtomicLong next = new AtomicLong();
    private final SplittableRandom random = new SplittableRandom();
    private double poissonAt;

    Schedule(double rate, boolean poisson) {
      this(RateCurve.constant(rate), poisson);
    }

    Schedule(RateCurve curve, boolean poisson) {
      this.curve = curve;
      this.poisson = poisson;
    }

    String describe() {
      return curve.toString();
    }

    long next() {
      if (start == 0) {
        synchronized (this) {
          if (start == 0) {
            start = System.nanoTime();
          }
        }
      }
      if (!poisson) {
        return start + curve.dueNanos(next.getAndIncrement());
      }
      synchronized (this) {
        // a Poisson process of the curve's rate: exponential gaps of mean one operation on the curve's count axis
        poissonAt += -Math.log(1.0 - random.nextDouble());
        return start + curve.dueNanos(poissonAt);
      }
    }
  }
}
