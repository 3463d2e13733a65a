package dev.fleetbench.ycsb.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
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
import org.bson.Document;
import org.bson.types.Binary;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * YCSB's own {@code site.ycsb.Client} as child JVMs on the runtime classpath (the loader bundle's jar set) with
 * {@code -db dev.fleetbench.ycsb.MongoDbClient} against the real wire-protocol server (FerretDB, SCRAM, credentials
 * from the environment as the loader agent passes them): load, a short run with a target rate and HDR file output,
 * and a second load of the same keys whose duplicate-key errors must be counted.
 */
@ExtendWith(LocalFerretDb.class)
class MongoYcsbEndToEndTest {
  private static final String DB = "e2e";

  @TempDir
  Path dir;

  private static String classpath() throws IOException {
    String deps = Files.readString(Path.of(System.getProperty("fleetbench.runtimeClasspathFile",
        "target/runtime-classpath.txt"))).trim();
    return System.getProperty("fleetbench.classesDir", "target/classes") + File.pathSeparator + deps;
  }

  private String ycsb(String name, List<String> args) throws Exception {
    return ycsb(name, args, LocalFerretDb.credentials());
  }

  /** Runs YCSB in a child JVM with these variables added to its environment; returns its stderr. */
  private String ycsb(String name, List<String> args, Map<String, String> env) throws Exception {
    Object[] r = java(name, "site.ycsb.Client", args, env);
    assertEquals(0, r[0], name + ": YCSB exit code\n" + tail((String) r[2]));
    return (String) r[2];
  }

  /** Runs a main class in a child JVM with these variables in its environment; returns {exit, stdout, stderr}. */
  private Object[] java(String name, String mainClass, List<String> args, Map<String, String> env)
      throws Exception {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath(), mainClass));
    cmd.addAll(args);
    File out = dir.resolve(name + ".stdout").toFile();
    File err = dir.resolve(name + ".stderr").toFile();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err);
    pb.environment().remove(MongoConfig.USERNAME_ENV);
    pb.environment().remove(MongoConfig.PASSWORD_ENV);
    pb.environment().putAll(env);
    Process p = pb.start();
    boolean done = p.waitFor(90, TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    String stderr = Files.readString(err.toPath(), StandardCharsets.UTF_8);
    assertTrue(done, name + ": did not finish in 90 s\n" + tail(stderr));
    return new Object[] {p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8), stderr};
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
    long total = 0;
    HistogramLogReader reader = new HistogramLogReader(file.toFile());
    for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
      total += ((AbstractHistogram) h).getTotalCount();
    }
    reader.close();
    return total;
  }

  @Test
  void loadRunAndADuplicateLoadThroughYcsbsClient() throws Exception {
    LocalFerretDb.Server server = LocalFerretDb.server();
    List<String> common = new ArrayList<>(props("mongodb.url", server.url(DB), "mongodb.authSource",
        LocalFerretDb.DATABASE, "workload", "site.ycsb.workloads.CoreWorkload", "db",
        "dev.fleetbench.ycsb.MongoDbClient", "table", "usertable", "recordcount", "500", "fieldcount", "4",
        "fieldlength", "20", "measurementtype", "hdrhistogram", "hdrhistogram.fileoutput", "true",
        "status.interval", "1", "exporter", "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"));

    List<String> conn = props("mongodb.url", server.url(DB), "mongodb.authSource", LocalFerretDb.DATABASE);
    Object[] made = java("schema", "dev.fleetbench.ycsb.mongo.MongoSchema", conn, LocalFerretDb.credentials());
    assertEquals(0, made[0], "MongoSchema exit code\n" + made[2]);
    assertEquals("{\"database\":\"e2e\",\"collection\":\"usertable\",\"created\":true,\"sharded\":false}",
        ((String) made[1]).trim(), "not a mongos: created, not sharded");
    Object[] again0 = java("schema-again", "dev.fleetbench.ycsb.mongo.MongoSchema", conn,
        LocalFerretDb.credentials());
    assertEquals("{\"database\":\"e2e\",\"collection\":\"usertable\",\"created\":false,\"sharded\":false}",
        ((String) again0[1]).trim(), "idempotent");

    List<String> load = new ArrayList<>(List.of("-load", "-s"));
    load.addAll(common);
    load.addAll(props("threadcount", "2", "hdrhistogram.output.path", dir + "/load-", "exportfile",
        dir + "/load-summary.json"));
    ycsb("load", load);
    Map<String, Map<String, Double>> ls = summary(dir.resolve("load-summary.json"));
    assertEquals(500, value(ls, "INSERT", "Return=OK"), "" + ls.get("INSERT"));
    assertEquals(500, hdrCount(dir.resolve("load-INSERT.hdr")));

    MongoConfig c = MongoConfig.from(server.props(LocalFerretDb.DATABASE), LocalFerretDb.credentials());
    try (MongoClient raw = MongoClients.create(SharedMongoClients.settings(c))) {
      MongoCollection<Document> coll = raw.getDatabase(DB).getCollection("usertable");
      assertEquals(500, coll.countDocuments(), "documents on the server");
      Document one = coll.find().first();
      assertTrue(((String) one.get("_id")).startsWith("user"), "_id is YCSB's key: " + one.get("_id"));
      assertEquals(5, one.size(), "_id and field0..field3: " + one.keySet());
      assertEquals(20, ((Binary) one.get("field0")).getData().length, "fieldlength bytes of BSON binary");
    }

    List<String> run = new ArrayList<>(List.of("-t", "-s"));
    run.addAll(common);
    // a fixed operation count (not a time limit): FerretDB on SQLite is slow on a busy 2-core machine, and a
    // count makes the total exact
    run.addAll(props("threadcount", "2", "operationcount", "150", "target", "100", "readproportion", "0.45",
        "updateproportion", "0.45", "scanproportion", "0.1", "maxscanlength", "5", "requestdistribution",
        "zipfian", "measurement.interval", "both", "mongodb.writeConcern", "majority", "mongodb.readPreference",
        "primary", "hdrhistogram.output.path", dir + "/run-", "exportfile", dir + "/summary.json"));
    String stderr = ycsb("run", run);
    assertTrue(stderr.contains("current ops/sec"), "status lines on stderr");
    Map<String, Map<String, Double>> s = summary(dir.resolve("summary.json"));
    long total = 0;
    for (String op : new String[] {"READ", "UPDATE", "SCAN"}) {
      long ok = value(s, op, "Return=OK");
      assertTrue(ok > 0, op + " ran: " + s.get(op));
      assertEquals(ok, value(s, op, "Operations"), op + ": no failures");
      assertEquals(ok, hdrCount(dir.resolve("run-" + op + ".hdr")), op + ": HDR log counts = summary");
      assertEquals(ok, hdrCount(dir.resolve("run-Intended-" + op + ".hdr")), "Intended-" + op);
      total += ok;
    }
    assertEquals(150, total, "every operation of the run succeeded: " + s.keySet());
    assertFalse(s.containsKey("READ-FAILED") || s.containsKey("UPDATE-FAILED") || s.containsKey("SCAN-FAILED"),
        "no failed ops: " + s.keySet());

    // the same 500 keys again: the first insert of each thread is a duplicate key on the server; YCSB stops a
    // loading thread at its first failed insert, so 2 threads give exactly 2 counted errors and nothing else
    List<String> again = new ArrayList<>(List.of("-load", "-s"));
    again.addAll(common);
    again.addAll(props("threadcount", "2", "hdrhistogram.output.path", dir + "/again-", "exportfile",
        dir + "/again-summary.json"));
    String againErr = ycsb("again", again);
    Map<String, Map<String, Double>> as = summary(dir.resolve("again-summary.json"));
    assertEquals(2, value(as, "INSERT", "Return=ERROR"), "" + as.get("INSERT"));
    assertEquals(0, value(as, "INSERT", "Return=OK"), "" + as.get("INSERT"));
    assertTrue(againErr.contains("INSERT failed (MongoWriteException 11000)"), "the server's error is logged:\n"
        + tail(againErr));

    // a run without credentials: the server refuses every operation; each one is counted as ERROR, none as OK
    List<String> refused = new ArrayList<>(List.of("-t", "-s"));
    refused.addAll(common);
    refused.addAll(props("threadcount", "2", "operationcount", "60", "readproportion", "0.5",
        "updateproportion", "0.5", "scanproportion", "0", "hdrhistogram.output.path", dir + "/refused-",
        "exportfile", dir + "/refused-summary.json"));
    String refusedErr = ycsb("refused", refused, Map.of());
    Map<String, Map<String, Double>> rs = summary(dir.resolve("refused-summary.json"));
    long errors = value(rs, "READ", "Return=ERROR") + value(rs, "UPDATE", "Return=ERROR");
    assertEquals(60, errors, rs.get("READ") + " " + rs.get("UPDATE"));
    assertEquals(0, value(rs, "READ", "Return=OK") + value(rs, "UPDATE", "Return=OK"));
    assertEquals(value(rs, "READ", "Return=ERROR"), value(rs, "READ-FAILED", "Operations"), "" + rs.keySet());
    // the first of a kind is logged (by each thread that meets it at the same moment), the rest only counted
    long logged = refusedErr.split("READ failed \\(MongoQueryException 13\\)", -1).length - 1; // Unauthorized
    assertTrue(logged >= 1 && logged <= 2, logged + " log lines:\n" + tail(refusedErr));
  }

  @Test
  void schemaHelperRefusesHashedShardingWithoutAMongosAndBadArguments() throws Exception {
    List<String> conn = props("mongodb.url", LocalFerretDb.server().url(DB), "mongodb.authSource",
        LocalFerretDb.DATABASE, "mongodb.sharding", "hashed");
    Object[] r = java("schema-hashed", "dev.fleetbench.ycsb.mongo.MongoSchema", conn, LocalFerretDb.credentials());
    assertEquals(1, r[0], (String) r[2]);
    assertTrue(((String) r[2]).contains("mongodb.sharding=hashed, but the server is not a mongos"), (String) r[2]);
    Object[] bad = java("schema-bad", "dev.fleetbench.ycsb.mongo.MongoSchema",
        props("mongodb.url", "mongodb://u:pw@h/ycsb", "mongodb.sharding", "range"), Map.of());
    assertEquals(2, bad[0]);
    assertTrue(((String) bad[2]).contains("mongodb.sharding: 'range' is not one of [auto, hashed, none]"),
        (String) bad[2]);
    assertTrue(((String) bad[2]).contains("mongodb.url: contains credentials"), (String) bad[2]);
    Object[] usage = java("schema-usage", "dev.fleetbench.ycsb.mongo.MongoSchema", List.of("--url", "x"), Map.of());
    assertEquals(2, usage[0]);
    assertTrue(((String) usage[2]).contains("argument 1: unknown '--url'"), (String) usage[2]);
  }
}
