package dev.fleetbench.ycsb.cql;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.context.DriverContext;
import com.datastax.oss.driver.api.core.retry.RetryDecision;
import com.datastax.oss.driver.api.core.retry.RetryPolicy;
import com.datastax.oss.driver.api.core.servererrors.CoordinatorException;
import com.datastax.oss.driver.api.core.servererrors.WriteType;
import com.datastax.oss.driver.api.core.session.Request;

/**
 * Hands every error straight back to the binding. The driver's default policy silently retries some read
 * timeouts, unavailable errors and (on the next node) overloaded errors; a benchmark must see each of them,
 * so the binding does its own, measured retries (see {@link CqlDb}).
 */
public final class NeverRetryPolicy implements RetryPolicy {
  /** The driver instantiates the policy reflectively with this signature. */
  public NeverRetryPolicy(DriverContext context, String profileName) {}

  @Override
  @Deprecated
  public RetryDecision onReadTimeout(Request request, ConsistencyLevel cl, int blockFor, int received,
      boolean dataPresent, int retryCount) {
    return RetryDecision.RETHROW;
  }

  @Override
  @Deprecated
  public RetryDecision onWriteTimeout(Request request, ConsistencyLevel cl, WriteType writeType, int blockFor,
      int received, int retryCount) {
    return RetryDecision.RETHROW;
  }

  @Override
  @Deprecated
  public RetryDecision onUnavailable(Request request, ConsistencyLevel cl, int required, int alive,
      int retryCount) {
    return RetryDecision.RETHROW;
  }

  @Override
  @Deprecated
  public RetryDecision onRequestAborted(Request request, Throwable error, int retryCount) {
    return RetryDecision.RETHROW;
  }

  @Override
  @Deprecated
  public RetryDecision onErrorResponse(Request request, CoordinatorException error, int retryCount) {
    return RetryDecision.RETHROW;
  }

  @Override
  public void close() {}
}
