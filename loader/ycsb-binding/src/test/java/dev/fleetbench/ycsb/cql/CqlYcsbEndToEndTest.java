package dev.fleetbench.ycsb.cql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
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
import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.HistogramLogReader;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schema helper and site.ycsb.Client as child JVMs on the runtime classpath (the loader bundle's jar set)
 * against the real Cassandra node: load, then a short run with a target rate and HDR file output.
 */
@ExtendWith(LocalCassandra.class)
class CqlYcsbEndToEndTest {
  @TempDir
  Path dir;

  private static String classpath() throws IOException {
    String deps = Files.readString(Path.of(System.getProperty("fleetbench.runtimeClasspathFile",
        "target/runtime-classpath.txt"))).trim();
    return System.getProperty("fleetbench.classesDir", "target/classes") + File.pathSeparator + deps;
  }

  /** Runs a main class in a child JVM; returns {exit code, stdout, stderr}. */
  private Object[] java(String name, String mainClass, List<String> args) throws Exception {
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
    assertTrue(done, name + ": did not finish in 90 s\n" + tail(stderr));
    return new Object[] {p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8), stderr};
  }

  private String ycsb(String name, List<String> args) throws Exception {
    Object[] r = java(name, "site.ycsb.Client", args);
    assertEquals(0, r[0], name + ": YCSB exit code\n" + tail((String) r[2]));
    return (String) r[2];
  }

  private static String tail(String s) {
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }

  private static List<String> props(String... kv) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < kv.length; i += 2) {
      out.add("-p");
      out.add(kv[i] + "=" + kv[i + 1]);
    }
    return out;
  }

  private static Map<String, Map<String, Double>> summary(Path file) throws IOException {
    JsonNode arr = new ObjectMapper().readTree(file.toFile());
    assertTrue(arr.isArray(), file + " is a JSON array");
    Map<String, Map<String, Double>> out = new HashMap<>();
    for (JsonNode row : arr) {
      out.computeIfAbsent(row.get("metric").getTextValue(), k -> new HashMap<>())
          .put(row.get("measurement").getTextValue(), row.get("value").getValueAsDouble());
    }
    return out;
  }

  private static long value(Map<String, Map<String, Double>> s, String metric, String measurement) {
    Double v = s.getOrDefault(metric, Map.of()).get(measurement);
    return v == null ? 0 : v.longValue();
  }

  /** Checks the log's format (1.3, V2 rows) and returns the sum of its decoded interval counts. */
  private static long hdrCount(Path file) throws IOException {
    assertTrue(Files.exists(file), file + " must exist");
    List<String> lines = Files.readAllLines(file);
    assertTrue(lines.contains("#[Histogram log format version 1.3]"), file + ": " + lines.subList(0, 3));
    long rows = lines.stream().filter(l -> !l.startsWith("#") && !l.startsWith("\"")).count();
    long v2 = lines.stream().filter(l -> l.matches("^[0-9.]+,[0-9.]+,[0-9.]+,HISTFAAA.*")).count();
    assertTrue(rows > 0 && rows == v2, file + ": every interval row is V2-encoded (HISTFAAA)");
    long total = 0;
    HistogramLogReader reader = new HistogramLogReader(file.toFile());
    for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
      total += ((AbstractHistogram) h).getTotalCount();
    }
    reader.close();
    return total;
  }

  @Test
  void schemaHelperThenLoadAndRunWriteHdrLogs() throws Exception {
    LocalCassandra.Server server = LocalCassandra.server();
    List<String> conn = props("cql.hosts", server.hosts(), "cql.keyspace", "e2e", "cql.username",
        LocalCassandra.USER, "cql.password", LocalCassandra.PASSWORD);

    List<String> schemaArgs = new ArrayList<>(conn);
    schemaArgs.addAll(props("cql.replicationFactor", "1", "fieldcount", "4"));
    Object[] schema = java("schema", "dev.fleetbench.ycsb.cql.CqlSchema", schemaArgs);
    assertEquals(0, schema[0], "CqlSchema exit code\n" + schema[2]);
    assertEquals("{\"keyspace\":\"e2e\",\"table\":\"usertable\",\"replicationFactor\":1,\"fields\":4}",
        ((String) schema[1]).trim());

    List<String> common = new ArrayList<>(conn);
    common.addAll(props("workload", "site.ycsb.workloads.CoreWorkload", "db", "dev.fleetbench.ycsb.CqlClient",
        "table", "usertable", "recordcount", "500", "fieldcount", "4", "fieldlength", "20",
        "measurementtype", "hdrhistogram", "hdrhistogram.fileoutput", "true", "status.interval", "1",
        "exporter", "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"));

    List<String> load = new ArrayList<>(List.of("-load", "-s"));
    load.addAll(common);
    load.addAll(props("threadcount", "2", "hdrhistogram.output.path", dir + "/load-", "exportfile",
        dir + "/load-summary.json"));
    ycsb("load", load);
    Map<String, Map<String, Double>> ls = summary(dir.resolve("load-summary.json"));
    assertEquals(500, value(ls, "INSERT", "Return=OK"), "" + ls.get("INSERT"));
    assertEquals(500, hdrCount(dir.resolve("load-INSERT.hdr")));
    try (CqlSession raw = CqlSessions.open(CqlConfig.from(Cql.serverProps("e2e")), false)) {
      long rows = raw.execute(SimpleStatement.newInstance("SELECT count(*) FROM e2e.usertable")).one().getLong(0);
      assertEquals(500, rows, "rows on the server");
    }

    List<String> run = new ArrayList<>(List.of("-t", "-s"));
    run.addAll(common);
    run.addAll(props("threadcount", "2", "operationcount", "100000000", "maxexecutiontime", "4", "target",
        "300", "readproportion", "0.45", "updateproportion", "0.45", "scanproportion", "0.1",
        "maxscanlength", "5", "requestdistribution", "zipfian", "measurement.interval", "both",
        "cql.readConsistency", "QUORUM", "cql.writeConsistency", "QUORUM", "hdrhistogram.output.path",
        dir + "/run-", "exportfile", dir + "/summary.json"));
    String stderr = ycsb("run", run);
    assertTrue(stderr.contains("current ops/sec"), "status lines on stderr");

    Map<String, Map<String, Double>> s = summary(dir.resolve("summary.json"));
    for (String op : new String[] {"READ", "UPDATE", "SCAN"}) {
      long ok = value(s, op, "Return=OK");
      assertTrue(ok > (op.equals("SCAN") ? 10 : 100), op + " ran: " + s.get(op));
      assertEquals(ok, value(s, op, "Operations"), op + ": no failures");
      assertEquals(ok, hdrCount(dir.resolve("run-" + op + ".hdr")), op + ": HDR log counts = summary");
      assertEquals(ok, hdrCount(dir.resolve("run-Intended-" + op + ".hdr")), "Intended-" + op);
    }
    assertTrue(!s.containsKey("READ-FAILED") && !s.containsKey("UPDATE-FAILED"), "no failed ops: " + s.keySet());
  }

  @Test
  void schemaHelperRejectsBadPropertiesWithExitCode2() throws Exception {
    Object[] r = java("schema-bad", "dev.fleetbench.ycsb.cql.CqlSchema",
        props("cql.hosts", "127.0.0.1", "cql.replicationFactor", "zero"));
    assertEquals(2, r[0]);
    assertTrue(((String) r[2]).contains("cql.replicationFactor: 'zero' is not an integer"), (String) r[2]);
    Object[] u = java("schema-usage", "dev.fleetbench.ycsb.cql.CqlSchema", List.of("--hosts", "x"));
    assertEquals(2, u[0]);
    assertTrue(((String) u[2]).contains("argument 1: unknown '--hosts'"), (String) u[2]);
  }
}
