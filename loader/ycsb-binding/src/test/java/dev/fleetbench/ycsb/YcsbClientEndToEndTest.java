package dev.fleetbench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.HistogramLogReader;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * site.ycsb.Client as a child JVM on the runtime classpath (the bundle's jar set) with HDR file output:
 * proves the HdrHistogram 2.1.12 swap works on Java 17 and that the planner's properties work with the binding.
 */
class YcsbClientEndToEndTest {
  @TempDir
  Path dir;

  private static String classpath() throws IOException {
    String deps = Files.readString(Path.of(System.getProperty("fleetbench.runtimeClasspathFile"))).trim();
    return System.getProperty("fleetbench.classesDir") + File.pathSeparator + deps;
  }

  /** Runs YCSB; returns its stderr. Fails the test on a non-zero exit or a timeout. */
  private String ycsb(String name, List<String> args) throws Exception {
    return run(dir, "site.ycsb.Client", name, args);
  }

  /** Runs {@code mainClass} (site.ycsb.Client or fleetbench's Launcher) on the bundle's classpath in {@code dir}. */
  static String run(Path dir, String mainClass, String name, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath(), mainClass));
    cmd.addAll(args);
    File out = dir.resolve(name + ".stdout").toFile();
    File err = dir.resolve(name + ".stderr").toFile();
    Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
    boolean done = p.waitFor(90, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    String stderr = Files.readString(err.toPath(), StandardCharsets.UTF_8);
    assertTrue(done, name + ": YCSB did not finish in 90 s\n" + tail(stderr));
    assertEquals(0, p.exitValue(), name + ": YCSB exit code\n" + tail(stderr));
    return stderr;
  }

  private static String tail(String s) {
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }

  static List<String> props(String... kv) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.add("-p");
      out.add(kv[i] + "=" + kv[i + 1]);
    }
    return out;
  }

  /** JSON array exporter output as metric -> measurement -> value. */
  static Map<String, Map<String, Double>> summary(Path file) throws IOException {
    JsonNode arr = new ObjectMapper().readTree(file.toFile());
    assertTrue(arr.isArray(), file + " is a JSON array");
    Map<String, Map<String, Double>> out = new HashMap<>();
    for (JsonNode row : arr) {
      out.computeIfAbsent(row.get("metric").getTextValue(), k -> new HashMap<>())
          .put(row.get("measurement").getTextValue(), row.get("value").getValueAsDouble());
    }
    return out;
  }

  static long value(Map<String, Map<String, Double>> s, String metric, String measurement) {
    Double v = s.getOrDefault(metric, Map.of()).get(measurement);
    return v == null ? 0 : v.longValue();
  }

  /** Checks the log's format and returns the sum of its decoded interval counts. */
  static long hdrCount(Path file) throws IOException {
    assertTrue(Files.exists(file), file + " must exist");
    List<String> lines = Files.readAllLines(file);
    assertTrue(lines.contains("#[Histogram log format version 1.3]"), file + ": " + lines.subList(0, 3));
    long rows = lines.stream().filter(l -> !l.startsWith("#") && !l.startsWith("\"")).count();
    long v2 = lines.stream().filter(l -> l.matches("^[0-9.]+,[0-9.]+,[0-9.]+,HISTFAAA.*")).count();
    assertTrue(rows > 0 && rows == v2, file + ": every interval row is V2-encoded (HISTFAAA)");
    long total = 0;
    HistogramLogReader reader = new HistogramLogReader(file.toFile());
    for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
      total += ((org.HdrHistogram.AbstractHistogram) h).getTotalCount();
    }
    reader.close();
    return total;
  }

  @Test
  void loadAndRunAgainstDynamoDbLocalWriteHdrLogs() throws Exception {
    try (LocalDynamo local = LocalDynamo.start()) {
      local.createTable("usertable", "p");
      List<String> common = props("workload", "site.ycsb.workloads.CoreWorkload", "db",
          "dev.fleetbench.ycsb.DynamoDbClient", "table", "usertable", "dynamodb.endpoint", local.endpoint,
          "dynamodb.region", "us-east-1", "recordcount", "400", "fieldcount", "4", "fieldlength", "20",
          "measurementtype", "hdrhistogram", "hdrhistogram.fileoutput", "true", "status.interval", "1",
          "exporter", "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter");

      List<String> load = new ArrayList<>(List.of("-load", "-s"));
      load.addAll(common);
      load.addAll(props("threadcount", "2", "hdrhistogram.output.path", dir + "/load-", "exportfile",
          dir + "/load-summary.json"));
      ycsb("load", load);
      assertEquals(400, local.count("usertable"));
      Map<String, Map<String, Double>> ls = summary(dir.resolve("load-summary.json"));
      assertEquals(400, value(ls, "INSERT", "Return=OK"));
      assertEquals(400, hdrCount(dir.resolve("load-INSERT.hdr")));

      List<String> run = new ArrayList<>(List.of("-t", "-s"));
      run.addAll(common);
      run.addAll(props("threadcount", "2", "operationcount", "100000000", "maxexecutiontime", "4", "target",
          "300", "readproportion", "0.5", "updateproportion", "0.5", "requestdistribution", "zipfian",
          "measurement.interval", "both", "hdrhistogram.output.path", dir + "/run-", "exportfile",
          dir + "/summary.json"));
      String stderr = ycsb("run", run);
      assertTrue(stderr.contains("current ops/sec"), "status lines on stderr");

      Map<String, Map<String, Double>> s = summary(dir.resolve("summary.json"));
      for (String op : new String[] {"READ", "UPDATE"}) {
        long ok = value(s, op, "Return=OK");
        assertTrue(ok > 100, op + " ran: " + s.get(op));
        assertEquals(ok, value(s, op, "Operations"), op + ": no failures");
        assertEquals(ok, hdrCount(dir.resolve("run-" + op + ".hdr")), op + ": HDR log counts = summary");
        assertEquals(ok, hdrCount(dir.resolve("run-Intended-" + op + ".hdr")), "Intended-" + op);
      }
      assertTrue(!s.containsKey("READ-FAILED") && !s.containsKey("UPDATE-FAILED"), "no failed ops: " + s.keySet());
    }
  }

  @Test
  void throttledRunShowsUpInSummaryAndHdrLogs() throws Exception {
    try (FakeDynamo fake = new FakeDynamo(
        r -> FakeDynamo.error("ProvisionedThroughputExceededException", "The level of configured provisioned "
            + "throughput for the table was exceeded."))) {
      List<String> run = new ArrayList<>(List.of("-t", "-s"));
      run.addAll(props("workload", "site.ycsb.workloads.CoreWorkload", "db", "dev.fleetbench.ycsb.DynamoDbClient",
          "dynamodb.endpoint", fake.endpoint, "dynamodb.maxRetries", "2", "dynamodb.retryBaseDelayMs", "0",
          "recordcount", "100", "operationcount", "20", "threadcount", "1", "readproportion", "1",
          "updateproportion", "0", "measurement.interval", "both", "hdrhistogram.fileoutput", "true",
          "hdrhistogram.output.path", dir + "/thr-", "status.interval", "1", "exporter",
          "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "exportfile",
          dir + "/thr-summary.json"));
      ycsb("throttled", run);
      Map<String, Map<String, Double>> s = summary(dir.resolve("thr-summary.json"));
      assertEquals(20, value(s, "READ", "Return=THROTTLED"), "" + s.get("READ"));
      assertEquals(0, value(s, "READ", "Return=ERROR"));
      assertEquals(60, value(s, "READ-THROTTLED", "Operations"), "3 attempts per op");
      assertEquals(60, value(s, "Intended-READ-THROTTLED", "Operations"));
      assertEquals(60, hdrCount(dir.resolve("thr-READ-THROTTLED.hdr")));
      assertEquals(60, fake.requests.size());
    }
  }
}
