package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.props;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.run;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.summary;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slowed endpoint: every 150th operation of the process is held 400 ms inside the binding
 * ({@code fleetbench.injectDelayEvery}, {@code fleetbench.injectDelayUs}); 2 threads, target 200 ops/s, against a
 * fast loopback fake. The requests' arrival times at the fake show the offered load in 100-ms windows (20 ops
 * each on schedule). With fleetbench's open-loop schedule the free thread takes every due operation, so nearly
 * every window holds the rate and the held operations show up as intended latency. With YCSB's per-thread pacing
 * the held thread's slots are missed (windows at half rate) and then fired back to back (windows far above).
 */
class PacingTest {
  private static final String ITEM = "{\"Item\":{\"p\":{\"S\":\"k\"},\"field0\":{\"S\":\"v\"}}}";
  private static final int SECONDS = 6;
  private static final int RATE = 200;

  @TempDir
  Path dir;

  private record Outcome(double inBand, long ops, Map<String, Map<String, Double>> summary, String stderr,
      String windows) {}

  private Outcome runWith(String schedule) throws Exception {
    try (FakeDynamo fake = new FakeDynamo(r -> FakeDynamo.ok(ITEM))) {
      List<String> args = new ArrayList<>(List.of("-t", "-s"));
      args.addAll(props("workload", "site.ycsb.workloads.CoreWorkload", "db", "dev.fleetbench.ycsb.DynamoDbClient",
          "dynamodb.endpoint", fake.endpoint, "recordcount", "100", "operationcount", "100000000",
          "threadcount", "2", "target", Integer.toString(RATE), "maxexecutiontime", Integer.toString(SECONDS),
          "readproportion", "1", "updateproportion", "0", "fleetbench.schedule", schedule,
          "fleetbench.injectDelayUs", "400000", "fleetbench.injectDelayEvery", "150",
          "measurement.interval", "both", "status.interval", "1", "hdrhistogram.percentiles", "50,95",
          "exporter",
          "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "exportfile",
          dir + "/" + schedule + ".json"));
      String stderr = run(dir, "dev.fleetbench.ycsb.Launcher", schedule, args);
      List<Long> at = new ArrayList<>();
      fake.requests.forEach(r -> at.add(r.atNanos()));
      at.sort(Long::compare);
      // 100-ms windows from 1 s after the first request (JVM warm-up) to 0.5 s before the last
      long from = at.get(0) + 1_000_000_000L;
      long to = at.get(at.size() - 1) - 500_000_000L;
      int windows = (int) ((to - from) / 100_000_000L);
      int[] counts = new int[windows];
      for (long t : at) {
        int w = (int) Math.floorDiv(t - from, 100_000_000L);
        if (w >= 0 && w < windows) {
          counts[w]++;
        }
      }
      int expected = RATE / 10;
      int inBand = 0;
      for (int c : counts) {
        if (c >= expected * 0.6 && c <= expected * 1.4) {
          inBand++;
        }
      }
      return new Outcome((double) inBand / windows, at.size(), summary(dir.resolve(schedule + ".json")), stderr,
          java.util.Arrays.toString(counts));
    }
  }

  @Test
  void openLoopHoldsTheOfferedRateWherePerThreadPacingFallsBehindAndBursts() throws Exception {
    Outcome open = runWith("open");
    Outcome perThread = runWith("per-thread");

    assertTrue(open.inBand >= 0.75, "open loop: share of 100-ms windows within ±40% of 20 ops = " + open.inBand + " " + open.windows);
    assertTrue(perThread.inBand <= 0.6,
        "per-thread pacing: share of 100-ms windows within ±40% of 20 ops = " + perThread.inBand + " "
            + perThread.windows);
    // both issued about the offered total (YCSB catches up), so the difference is when, not how many
    for (Outcome o : new Outcome[] {open, perThread}) {
      assertTrue(o.ops > RATE * SECONDS * 0.8 && o.ops < RATE * SECONDS * 1.1, "requests: " + o.ops);
    }
    // the held operations' wait shows as intended latency; the schedule delay of the others stays small
    Map<String, Map<String, Double>> s = open.summary;
    assertTrue(value(s, "Intended-READ", "MaxLatency(us)") >= 400_000, "Intended-READ " + s.get("Intended-READ"));
    assertTrue(value(s, "READ", "MaxLatency(us)") >= 400_000, "service time includes the injected hold");
    long delayed = value(s, OpenLoopWorkload.DELAY, "Operations");
    assertEquals(value(s, "READ", "Operations"), delayed, "one schedule-delay sample per operation");
    // (the JVM's cold first operations make a start-up backlog of a few % that the free thread works off)
    assertTrue(value(s, OpenLoopWorkload.DELAY, "50thPercentileLatency(us)") < 5_000,
        "most operations start within 5 ms of their slot: " + s.get(OpenLoopWorkload.DELAY));
    assertTrue(open.stderr.contains("fleetbench open-loop schedule: 200.0 ops/s constant arrivals"), open.stderr);
    assertTrue(!perThread.summary.containsKey(OpenLoopWorkload.DELAY), "per-thread mode is plain YCSB");
  }
}
