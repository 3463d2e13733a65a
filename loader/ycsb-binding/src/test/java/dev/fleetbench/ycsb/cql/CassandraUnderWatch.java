package dev.fleetbench.ycsb.cql;

import java.io.IOException;
import java.io.InputStream;

/**
 * Main class of LocalCassandra's child JVM: starts Cassandra's own main, and exits (running Cassandra's
 * shutdown hooks) as soon as its standard input reaches end of file, i.e. when the test JVM that holds the
 * other end of the pipe is gone, even if it was killed without running its own shutdown hooks. Only this
 * class of the test classes is loaded in that JVM; Cassandra is reached by reflection.
 */
public final class CassandraUnderWatch {
  private CassandraUnderWatch() {}

  public static void main(String[] args) throws Exception {
    Thread watch = new Thread(() -> {
      try (InputStream in = System.in) {
        byte[] buf = new byte[256];
        while (in.read(buf) >= 0) {
          // the parent never writes; wait for end of file
        }
      } catch (IOException e) {
        // a broken pipe means the same: the parent is gone
      }
      System.exit(0);
    }, "parent-watch");
    watch.setDaemon(true);
    watch.start();
    Class.forName("org.apache.cassandra.service.CassandraDaemon").getMethod("main", String[].class)
        .invoke(null, (Object) args);
  }
}
