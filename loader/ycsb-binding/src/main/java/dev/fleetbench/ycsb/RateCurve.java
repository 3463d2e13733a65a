package dev.fleetbench.ycsb;

import java.util.ArrayList;
import java.util.List;
import site.ycsb.WorkloadException;

/**
 * A piecewise-linear offered rate over time, {@code <seconds>:<ops/s>,...} ({@link OpenLoopWorkload#RATE_SCHEDULE}):
 * linear between points, a step where two points share a second, the last rate held after the last point (a curve
 * ending at 0 offers nothing more). The k-th operation (k = 0, 1, ...) is due at the time t where the curve's
 * integral from 0 to t reaches k, so a constant rate r puts operation k at k / r, as a single rate does.
 */
final class RateCurve {
  private final double[] t;
  private final double[] r;
  /** operations offered from 0 to t[i] */
  private final double[] cum;

  private RateCurve(double[] t, double[] r) {
    this.t = t;
    this.r = r;
    this.cum = new double[t.length];
    for (int i = 1; i < t.length; i++) {
      cum[i] = cum[i - 1] + (r[i - 1] + r[i]) / 2 * (t[i] - t[i - 1]);
    }
  }

  static RateCurve constant(double rate) {
    return new RateCurve(new double[] {0}, new double[] {rate});
  }

  static RateCurve parse(String text) throws WorkloadException {
    List<double[]> pts = new ArrayList<>();
    for (String pair : text.split(",")) {
      String[] parts = pair.trim().split(":");
      double at;
      double ops;
      try {
        at = Double.parseDouble(parts[0]);
        ops = Double.parseDouble(parts.length == 2 ? parts[1] : "x");
      } catch (NumberFormatException e) {
        throw new WorkloadException(OpenLoopWorkload.RATE_SCHEDULE + ": expected <seconds>:<ops/s>, found '"
            + pair + "'");
      }
      double before = pts.isEmpty() ? 0 : pts.get(pts.size() - 1)[0];
      if (!(at >= before) || !(ops >= 0) || Double.isInfinite(at) || Double.isInfinite(ops)) {
        throw new WorkloadException(OpenLoopWorkload.RATE_SCHEDULE + ": expected seconds from " + before
            + " on and a rate of at least 0, found '" + pair + "'");
      }
      pts.add(new double[] {at, ops});
    }
    if (pts.get(0)[0] != 0) {
      pts.add(0, new double[] {0, 0}); // nothing is offered before the first point
    }
    double[] t = new double[pts.size()];
    double[] r = new double[pts.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = pts.get(i)[0];
      r[i] = pts.get(i)[1];
    }
    return new RateCurve(t, r);
  }

  /** The offered rate at {@code seconds} (the later point's rate at a step). */
  double rateAt(double seconds) {
    int n = t.length;
    if (seconds >= t[n - 1]) {
      return r[n - 1];
    }
    for (int i = n - 2; i >= 0; i--) {
      if (seconds >= t[i]) {
        double span = t[i + 1] - t[i];
        return span == 0 ? r[i + 1] : r[i] + (r[i + 1] - r[i]) * (seconds - t[i]) / span;
      }
    }
    return r[0];
  }

  /** When operation number {@code k} (fractional for Poisson arrivals) is due, nanoseconds from the start. */
  long dueNanos(double k) {
    int n = t.length;
    for (int i = 0; i + 1 < n; i++) {
      if (k < cum[i + 1]) {
        return (long) (1e9 * (t[i] + within(r[i], r[i + 1], t[i + 1] - t[i], k - cum[i])));
      }
    }
    double last = r[n - 1];
    if (last <= 0) {
      return Long.MAX_VALUE / 2; // the curve offers nothing more: never due (the run ends by its duration)
    }
    return (long) (1e9 * (t[n - 1] + (k - cum[n - 1]) / last));
  }

  /**
   * Seconds into a linear segment from rate a to b over {@code span} seconds at which {@code x} operations have been
   * offered: the root of a·τ + (b − a)/(2·span)·τ² = x.
   */
  private static double within(double a, double b, double span, double x) {
    double s = (b - a) / span;
    if (Math.abs(s) < 1e-12) {
      return x / a;
    }
    double disc = Math.max(0, a * a + 2 * s * x);
    // the numerically stable form of (−a + √disc) / s
    return 2 * x / (a + Math.sqrt(disc));
  }

  @Override
  public String toString() {
    if (t.length == 1) {
      return String.format("%.1f", r[0]);
    }
    StringBuilder b = new StringBuilder("schedule");
    for (int i = 0; i < t.length; i++) {
      b.append(i == 0 ? " " : ",").append(String.format("%.0fs:%.1f", t[i], r[i]));
    }
    return b.toString();
  }
}
