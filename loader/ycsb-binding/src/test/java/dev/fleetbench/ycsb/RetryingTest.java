package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.Bindings.measurements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import site.ycsb.Status;
import site.ycsb.measurements.Measurements;

/** The bindings' one retry loop, on its own: attempts, what is measured, what ends the operation. */
class RetryingTest {
  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final boolean throttle;

    Refusal(boolean throttle) {
      super(throttle ? "slow down" : "broken");
      this.throttle = throttle;
    }
  }

  /** Throttles retried (the defaults), every ended operation noted. */
  private static final class Loop extends Retrying {
    final List<String> ended = new ArrayList<>();

    Loop(Measurements m, int maxRetries) {
      super(m, maxRetries, 0, 0);
    }

    @Override
    protected Status classify(Exception e) {
      return ((Refusal) e).throttle ? DynamoDbClient.THROTTLED : Status.ERROR;
    }

    @Override
    protected void ended(String op, Status status, Exception e, boolean exhausted) {
      ended.add(op + " " + status.getName() + (exhausted ? " exhausted" : ""));
    }
  }

  @Test
  void retriesThrottlesMeasuringEachAttemptThenReturnsTheResult() throws Exception {
    Measurements m = measurements("op");
    Loop loop = new Loop(m, 5);
    AtomicInteger attempts = new AtomicInteger();
    String r = loop.call("READ", () -> {
      if (attempts.incrementAndGet() <= 2) {
        throw new Refusal(true);
      }
      return "item";
    });
    assertEquals("item", r);
    assertEquals(3, attempts.get());
    assertEquals(2, CapturingExporter.of(m).operations("READ-THROTTLED"));
    assertEquals(List.of(), loop.ended);
  }

  @Test
  void endsThrottledAfterMaxRetriesWithEveryAttemptMeasured() throws Exception {
    Measurements m = measurements("op");
    Loop loop = new Loop(m, 2);
    AtomicInteger attempts = new AtomicInteger();
    Retrying.Failed f = assertThrows(Retrying.Failed.class, () -> loop.call("UPDATE", () -> {
      attempts.incrementAndGet();
      throw new Refusal(true);
    }));
    assertSame(DynamoDbClient.THROTTLED, f.status);
    assertEquals(3, attempts.get(), "the first attempt and 2 retries");
    assertEquals(3, CapturingExporter.of(m).operations("UPDATE-THROTTLED"));
    assertEquals(List.of("UPDATE THROTTLED exhausted"), loop.ended);
  }

  @Test
  void anErrorEndsTheOperationAtOnceUnmeasured() throws Exception {
    Measurements m = measurements("op");
    Loop loop = new Loop(m, 5);
    AtomicInteger attempts = new AtomicInteger();
    Retrying.Failed f = assertThrows(Retrying.Failed.class, () -> loop.call("INSERT", () -> {
      attempts.incrementAndGet();
      throw new Refusal(false);
    }));
    assertSame(Status.ERROR, f.status);
    assertEquals(1, attempts.get());
    assertEquals(0, CapturingExporter.of(m).operations("INSERT-THROTTLED"));
    assertEquals(List.of("INSERT ERROR"), loop.ended);
  }
}
