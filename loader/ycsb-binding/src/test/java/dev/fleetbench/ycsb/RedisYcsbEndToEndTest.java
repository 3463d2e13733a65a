package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.props;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.summary;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fleetbench.ycsb.redis.LocalRedis;
import dev.fleetbench.ycsb.redis.RedisCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * YCSB's real Client (child JVMs on the bundle's classpath) with the Redis binding against a real redis-server
 * that refuses writes ({@code maxmemory 1mb}, {@code maxmemory-policy noeviction}): the refused insert and
 * updates are counted as {@code Return=OOM}, never as fast successes, and the summary agrees with what the
 * server holds.
 */
class RedisYcsbEndToEndTest {
  @TempDir
  Path dir;

  @Test
  void writesRefusedByAFullRedisAreCountedAsOom() throws Exception {
    try (LocalRedis redis = LocalRedis.start("--maxmemory", "1mb", "--maxmemory-policy", "noeviction")) {
      int records = 2000;
      List<String> common = props("workload", "site.ycsb.workloads.CoreWorkload", "db", RedisClient.class.getName(),
          "redis.host", "127.0.0.1", "redis.port", Integer.toString(redis.port), "recordcount",
          Integer.toString(records), "fieldcount", "10", "fieldlength", "100", "threadcount", "1", "exporter",
          "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter");

      List<String> load = new ArrayList<>(List.of("-load", "-s"));
      load.addAll(common);
      load.addAll(props("exportfile", dir + "/load.json"));
      YcsbClientEndToEndTest.run(dir, "site.ycsb.Client", "load", load);
      Map<String, Map<String, Double>> ls = summary(dir.resolve("load.json"));
      long ok = value(ls, "INSERT", "Return=OK");
      long oom = value(ls, "INSERT", "Return=OOM");
      try (Jedis a = redis.admin()) {
        // YCSB's ClientThread ends a load thread at its first failed insert (no insertion retries configured)
        assertEquals(1, oom, "the refused insert is counted as OOM: " + ls.get("INSERT"));
        assertTrue(ok > 0 && ok < records, "some records fit in 1 MB: " + ls.get("INSERT"));
        assertEquals(ok, value(ls, "INSERT", "Operations"), "OK inserts are the INSERT latencies");
        assertEquals(oom, value(ls, "INSERT-FAILED", "Operations"), "the refused one is a failure's latency");
        assertEquals(ok, a.zcard("_indices"), "an insert is OK exactly when its index entry was written");
        long hashes = a.dbSize() - 1;
        assertTrue(hashes == ok || hashes == ok + 1, "at most one hash without its index entry: " + hashes);
      }

      List<String> run = new ArrayList<>(List.of("-t", "-s"));
      run.addAll(common);
      // the loaded records are key numbers 0..ok-1 (one thread inserts them in order)
      run.addAll(props("recordcount", Long.toString(ok), "operationcount", "400", "readproportion", "0.5", "updateproportion", "0.5",
          "requestdistribution", "uniform", "exportfile", dir + "/run.json"));
      YcsbClientEndToEndTest.run(dir, Launcher.class.getName(), "run", run);
      Map<String, Map<String, Double>> s = summary(dir.resolve("run.json"));
      long updates = value(s, "UPDATE", "Return=OOM");
      assertTrue(updates > 100, "a full Redis refuses every update: " + s.get("UPDATE"));
      assertEquals(0, value(s, "UPDATE", "Return=OK"));
      assertEquals(0, value(s, "UPDATE", "Operations"), "no refused update is timed as a successful one");
      assertEquals(updates, value(s, "UPDATE-FAILED", "Operations"), "their latency is a failure's");
      long reads = value(s, "READ", "Operations");
      assertEquals(reads, value(s, "READ", "Return=OK"), "reads of stored records still work: " + s.get("READ"));
      assertEquals(400, reads + updates);
    }
  }

  @Test
  void fourThreadsLoadAndRunAgainstAThreeNodeClusterWithoutFailures() throws Exception {
    try (RedisCluster cluster = RedisCluster.start()) {
      List<String> common = props("workload", "site.ycsb.workloads.CoreWorkload", "db", RedisClient.class.getName(),
          "redis.host", cluster.seeds(), "redis.cluster", "true", "recordcount", "500", "fieldcount", "4",
          "fieldlength", "50", "threadcount", "4", "exporter",
          "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter");
      List<String> load = new ArrayList<>(List.of("-load", "-s"));
      load.addAll(common);
      load.addAll(props("exportfile", dir + "/cl-load.json"));
      YcsbClientEndToEndTest.run(dir, Launcher.class.getName(), "cluster-load", load);
      assertEquals(500, value(summary(dir.resolve("cl-load.json")), "INSERT", "Return=OK"));
      long keys = 0;
      for (LocalRedis node : cluster.nodes) {
        try (Jedis j = node.admin()) {
          keys += j.dbSize();
        }
      }
      assertEquals(501, keys, "500 hashes and _indices over the three nodes");

      List<String> run = new ArrayList<>(List.of("-t", "-s"));
      run.addAll(common);
      run.addAll(props("operationcount", "2000", "readproportion", "0.45", "updateproportion", "0.45",
          "scanproportion", "0.1", "maxscanlength", "5", "measurement.interval", "both", "exportfile",
          dir + "/cl-run.json"));
      YcsbClientEndToEndTest.run(dir, Launcher.class.getName(), "cluster-run", run);
      Map<String, Map<String, Double>> s = summary(dir.resolve("cl-run.json"));
      long total = 0;
      for (String op : new String[] {"READ", "UPDATE", "SCAN"}) {
        long ok = value(s, op, "Return=OK");
        assertTrue(ok > 0, op + ": " + s.get(op));
        assertEquals(ok, value(s, op, "Operations"), op + ": every operation OK: " + s.get(op));
        assertEquals(ok, value(s, "Intended-" + op, "Operations"), "Intended-" + op);
        total += ok;
      }
      assertEquals(2000, total);
      assertTrue(s.keySet().stream().noneMatch(k -> k.endsWith("-FAILED") || k.startsWith("REDIRECT")),
          "no failures, no redirects on a stable cluster: " + s.keySet());
    }
  }
}
