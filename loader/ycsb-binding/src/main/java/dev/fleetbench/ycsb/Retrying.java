package dev.fleetbench.ycsb;

import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/**
 * The bindings' one retry loop: runs a request, and when an attempt fails asks the binding what the failure is
 * ({@link #classify}); a retryable failure is measured as one attempt under its own name ({@link #attemptName},
 * by default {@code <op>-THROTTLED}) and sent again after a capped exponential back-off with jitter, up to
 * {@code maxRetries} times; any other failure, or the last retryable one, ends the operation with its status
 * ({@link Failed}). Each binding (DynamoDB, CQL, MongoDB, Redis) extends it with its own reading of errors.
 */
public abstract class Retrying {
  /** An operation that ended without a usable response; carries the YCSB status to return. */
  public static final class Failed extends Exception {
    private static final long serialVersionUID = 1L;
    public final transient Status status;

    public Failed(Status status) {
      super(status.getName(), null, false, false);
      this.status = status;
    }
  }

  /** One attempt of a request. */
  @FunctionalInterface
  public interface Attempt<T> {
    T run() throws Exception;
  }

  private final Measurements measurements;
  private final int maxRetries;
  private final int retryBaseDelayMs;
  private final int retryMaxDelayMs;

  protected Retrying(Measurements measurements, int maxRetries, int retryBaseDelayMs, int retryMaxDelayMs) {
    this.measurements = measurements;
    this.maxRetries = maxRetries;
    this.retryBaseDelayMs = retryBaseDelayMs;
    this.retryMaxDelayMs = retryMaxDelayMs;
  }

  /**
   * The YCSB status of a failed attempt (the binding may also act on it here, e.g. drop a broken connection).
   * A runtime exception the binding does not handle may be thrown again as it is.
   */
  protected abstract Status classify(Exception e);

  /** Whether a failure with this status is retried: by default a throttle. */
  protected boolean retryable(Status status) {
    return status == DynamoDbClient.THROTTLED;
  }

  /** The measurement a retryable attempt is recorded under. */
  protected String attemptName(String op, Status status) {
    return op + "-THROTTLED";
  }

  /** Whether the last retryable attempt (retries exhausted) is measured too: by default yes. */
  protected boolean measuresLastAttempt() {
    return true;
  }

  /**
   * The operation ends with {@code status}: {@code exhausted} when it was retryable and the retries ran out.
   * By default an error that was not a throttle goes to the binding's error log ({@link #noteError}).
   */
  protected void ended(String op, Status status, Exception e, boolean exhausted) {
    if (!exhausted) {
      noteError(op, status, e);
    }
  }

  /** Notes an error in the binding's error log; by default nothing. */
  protected void noteError(String op, Status status, Exception e) {}

  /** Runs the request under the loop; returns its result or throws {@link Failed} with the status to return. */
  public final <T> T call(String op, Attempt<T> attempt) throws Failed {
    long intendedStart = measurements.getIntendedtartTimeNs();
    for (int n = 0;; n++) {
      long st = System.nanoTime();
      try {
        return attempt.run();
      } catch (Exception e) {
        long en = System.nanoTime();
        Status status = classify(e);
        boolean retry = retryable(status);
        boolean last = n >= maxRetries;
        if (retry && (!last || measuresLastAttempt())) {
          BindingSupport.recordAttempt(measurements, attemptName(op, status), intendedStart == 0 ? st : intendedStart,
              st, en);
        }
        if (!retry || last) {
          ended(op, status, e, retry);
          throw new Failed(status);
        }
        BindingSupport.backOff(n, retryBaseDelayMs, retryMaxDelayMs);
      }
    }
  }
}
