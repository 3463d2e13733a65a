package dev.fleetbench.ycsb.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/** Three real redis-server nodes with cluster mode on, joined by {@code redis-cli --cluster create} (no replicas). */
public final class RedisCluster implements AutoCloseable {
  public final List<LocalRedis> nodes = new ArrayList<>();

  public static RedisCluster start() throws Exception {
    RedisCluster c = new RedisCluster();
    try {
      for (int i = 0; i < 3; i++) {
        c.nodes.add(LocalRedis.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000"));
      }
      List<String> cmd = new ArrayList<>(List.of(LocalRedis.executable().replace("redis-server", "redis-cli"),
          "--cluster", "create"));
      for (LocalRedis n : c.nodes) {
        cmd.add("127.0.0.1:" + n.port);
      }
      cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("redis-cli --cluster create failed: " + out);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      for (LocalRedis n : c.nodes) {
        try (Jedis j = n.admin()) {
          while (!j.clusterInfo().contains("cluster_state:ok")) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("cluster not ok on " + n.port + ": " + j.clusterInfo());
            }
            Thread.sleep(50);
          }
        }
      }
      return c;
    } catch (Exception e) {
      c.close();
      throw e;
    }
  }

  /** Seed nodes for redis.host: all three. */
  public String seeds() {
    List<String> s = new ArrayList<>();
    for (LocalRedis n : nodes) {
      s.add("127.0.0.1:" + n.port);
    }
    return String.join(",", s);
  }

  /** The node that serves a slot now (asks the first node: CLUSTER SLOTS). */
  public LocalRedis ownerOf(int slot) {
    try (Jedis j = nodes.get(0).admin()) {
      for (Object range : j.clusterSlots()) {
        List<?> r = (List<?>) range;
        long from = (Long) r.get(0);
        long to = (Long) r.get(1);
        if (slot >= from && slot <= to) {
          long port = (Long) ((List<?>) r.get(2)).get(1);
          for (LocalRedis n : nodes) {
            if (n.port == port) {
              return n;
            }
          }
        }
      }
    }
    throw new IllegalStateException("no node serves slot " + slot);
  }

  @Override
  public void close() throws Exception {
    for (LocalRedis n : nodes) {
      n.close();
    }
  }
}
