package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.props;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.WorkloadException;

/**
 * The open-loop schedule under a rate schedule ({@code fleetbench.rateSchedule}): operation k is due when the
 * offered count (the integral of the rate) reaches k. The expected times are worked by hand from that integral:
 * a constant rate r puts k at k/r; a ramp from 0 to 100 ops/s over 10 s offers 5·t² operations by t; a step from
 * 100 to 200 ops/s at 10 s puts operation 1,000 at 10 s and each later one 5 ms apart.
 */
class RateScheduleTest {
  private static final double NS = 1e9;

  private static double due(RateCurve c, double k) {
    return c.dueNanos(k) / NS;
  }

  @Test
  void constantRateMatchesTheSingleRateSchedule() {
    RateCurve c = RateCurve.constant(200);
    assertEquals(0.0, due(c, 0), 1e-9);
    assertEquals(5.0, due(c, 1000), 1e-9);
    OpenLoopWorkload.Schedule s = new OpenLoopWorkload.Schedule(200, false);
    long first = s.next();
    long second = s.next();
    assertEquals(5_000_000L, second - first, "200 ops/s: 5 ms apart");
  }

  @Test
  void stepsPutEachOperationAtTheIntegralOfTheRate() throws Exception {
    RateCurve c = RateCurve.parse("0:100,10:100,10:200,20:200");
    assertEquals(9.99, due(c, 999), 1e-9);
    assertEquals(10.0, due(c, 1000), 1e-9);
    assertEquals(10.005, due(c, 1001), 1e-9);
    assertEquals(11.0, due(c, 1200), 1e-9);
    // after the last point the last rate holds
    assertEquals(21.0, due(c, 3200), 1e-9);
    assertEquals(100.0, c.rateAt(9.999), 1e-9);
    assertEquals(200.0, c.rateAt(10), 1e-9);
  }

  @Test
  void aLinearRampOffersTheAreaUnderIt() throws Exception {
    // 0 → 100 ops/s over 10 s: 5·t² operations by t seconds
    RateCurve c = RateCurve.parse("0:0,10:100");
    assertEquals(2.0, due(c, 20), 1e-9);
    assertEquals(5.0, due(c, 125), 1e-9);
    assertEquals(10.0, due(c, 500), 1e-9);
    assertEquals(50.0, c.rateAt(5), 1e-9);
    // a falling ramp 100 → 0 over 10 s: 100·t − 5·t² by t, so 375 operations by 5 s
    RateCurve down = RateCurve.parse("0:100,10:100,20:0");
    assertEquals(15.0, due(down, 1375), 1e-9);
  }

  @Test
  void aSpikeAsThePlannerWritesIt() throws Exception {
    // lib/core/spec/rate-schedule.ts: base 50 ops/s, ×4 from 5 s for 3 s, base again until 15 s
    RateCurve c = RateCurve.parse("0:50,5:50,5:200,8:200,8:50,15:50");
    assertEquals(5.0, due(c, 250), 1e-9);
    assertEquals(5.5, due(c, 350), 1e-9);
    assertEquals(8.0, due(c, 850), 1e-9);
    assertEquals(9.0, due(c, 900), 1e-9);
  }

  @Test
  void poissonArrivalsFollowTheCurveOnAverage() throws Exception {
    // 100 ops/s for 10 s, then 1,000 ops/s: 1,000 arrivals expected in the first 10 s and 1,000 in the next second
    // (Poisson: standard deviation √1,000 ≈ 32; ±5 σ)
    OpenLoopWorkload.Schedule s = new OpenLoopWorkload.Schedule(RateCurve.parse("0:100,10:100,10:1000"), true);
    long start = s.next();
    int first = 1;
    int second = 0;
    for (int i = 0; i < 5000; i++) {
      double at = (s.next() - start) / NS;
      if (at < 10) {
        first++;
      } else if (at < 11) {
        second++;
      }
    }
    assertTrue(Math.abs(first - 1000) < 160, "arrivals in the first 10 s: " + first);
    assertTrue(Math.abs(second - 1000) < 160, "arrivals in the 11th second: " + second);
  }

  @Test
  void aCurveEndingAtZeroOffersNothingMore() throws Exception {
    RateCurve c = RateCurve.parse("0:10,1:10,1:0");
    assertEquals(0.9, due(c, 9), 1e-9);
    assertTrue(c.dueNanos(10) > 1_000_000L * NS, "never due");
  }

  @Test
  void badCurvesAreRefusedNamingTheProperty() {
    for (String bad : new String[] {"5:10,2:10", "0:-1", "0:10,x", "0"}) {
      WorkloadException e = assertThrows(WorkloadException.class, () -> RateCurve.parse(bad), bad);
      assertTrue(e.getMessage().startsWith(OpenLoopWorkload.RATE_SCHEDULE), e.getMessage());
    }
  }

  /**
   * Real YCSB through the Launcher against a fast loopback fake: 100 ops/s for 2 s, then 300 ops/s. The requests'
   * arrival times at the fake follow the curve (counted in the second before and the second after the step).
   */
  @Test
  void ycsbFollowsTheScheduleAtTheEndpoint(@TempDir Path dir) throws Exception {
    String item = "{\"Item\":{\"p\":{\"S\":\"k\"},\"field0\":{\"S\":\"v\"}}}";
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.ok(item))) {
      List<String> args = new ArrayList<>(List.of("-t", "-s"));
      args.addAll(props("workload", "site.ycsb.workloads.CoreWorkload", "db", "dev.fleetbench.ycsb.DynamoDbClient",
          "dynamodb.endpoint", fake.endpoint, "recordcount", "100", "operationcount", "100000000",
          "threadcount", "2", "target", "300", "maxexecutiontime", "4",
          OpenLoopWorkload.RATE_SCHEDULE, "0:100,2:100,2:300,4:300",
          "readproportion", "1", "updateproportion", "0", "measurement.interval", "both",
          "status.interval", "1"));
      String stderr = run(dir, "dev.fleetbench.ycsb.Launcher", "sched", args);
      List<Long> at = new ArrayList<>();
      fake.requests.forEach(r -> at.add(r.atNanos()));
      at.sort(Long::compare);
      long t0 = at.get(0);
      int before = 0;
      int after = 0;
      for (long t : at) {
        double s = (t - t0) / NS;
        if (s >= 0.9 && s < 1.9) {
          before++;
        } else if (s >= 2.5 && s < 3.5) {
          after++;
        }
      }
      assertTrue(before >= 80 && before <= 120, "requests in [0.9, 1.9) s: " + before + " (100 offered)");
      assertTrue(after >= 240 && after <= 360, "requests in [2.5, 3.5) s: " + after + " (300 offered)");
      assertTrue(stderr.contains("fleetbench open-loop schedule: schedule 0s:0.0") || stderr.contains(
          "fleetbench open-loop schedule: schedule 0s:100.0"), stderr);
    }
  }
}
