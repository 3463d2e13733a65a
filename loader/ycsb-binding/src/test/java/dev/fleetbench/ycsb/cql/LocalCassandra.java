package dev.fleetbench.ycsb.cql;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Apache Cassandra 5.0 node (cassandra-all from Maven Central, resolved by the POM as a plugin
 * dependency so its jars never mix with the binding's) in a child JVM: loopback only, free ports, a
 * generated cassandra.yaml in a temp directory, small heap and memtables, PasswordAuthenticator (the default
 * superuser cassandra/cassandra). Started once for the whole test run by the first class that uses the
 * extension; stopped (and its directory removed) when JUnit closes the root context.
 */
public final class LocalCassandra implements BeforeAllCallback {
  static final String USER = "cassandra";
  static final String PASSWORD = "cassandra";
  /** Password of the node's key store and of the clients' trust store. */
  static final String STORE_PASSWORD = "fleetbench";

  private static volatile Server server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(Server.class.getName(), k -> Server.start(), Server.class);
  }

  /** The running server (the test class must be annotated with {@code @ExtendWith(LocalCassandra.class)}). */
  static Server server() {
    if (server == null) {
      throw new IllegalStateException("LocalCassandra not started: add @ExtendWith(LocalCassandra.class)");
    }
    return server;
  }

  /** The child JVM and its directory. */
  static final class Server implements ExtensionContext.Store.CloseableResource {
    final int nativePort;
    final Path dir;
    private final Process process;

    private Server(int nativePort, Path dir, Process process) {
      this.nativePort = nativePort;
      this.dir = dir;
      this.process = process;
    }

    String hosts() {
      return "127.0.0.1:" + nativePort;
    }

    static Server start() {
      try {
        return launch();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start Cassandra: " + e, e);
      }
    }

    private static Server launch() throws IOException {
      String cpFile = System.getProperty("fleetbench.cassandraClasspathFile", "target/cassandra-classpath.txt");
      String classpath = Files.readString(Path.of(cpFile)).trim();
      Path dir = Files.createTempDirectory("fleetbench-cassandra-");
      int nativePort = freePort();
      int storagePort = freePort();
      Path data = dir.resolve("data");
      tlsStores(dir);
      String yaml = String.join("\n",
          "cluster_name: fleetbench-test",
          "num_tokens: 1",
          "initial_token: 0",
          "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
          "commitlog_sync: periodic",
          "commitlog_sync_period: 10000ms",
          "commitlog_segment_size: 8MiB",
          "seed_provider:",
          "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
          "    parameters:",
          "      - seeds: \"127.0.0.1:" + storagePort + "\"",
          "listen_address: 127.0.0.1",
          "storage_port: " + storagePort,
          "rpc_address: 127.0.0.1",
          "start_native_transport: true",
          "native_transport_port: " + nativePort,
          "endpoint_snitch: SimpleSnitch",
          "data_file_directories:",
          "  - " + data.resolve("data"),
          "commitlog_directory: " + data.resolve("commitlog"),
          "saved_caches_directory: " + data.resolve("saved_caches"),
          "hints_directory: " + data.resolve("hints"),
          "cdc_raw_directory: " + data.resolve("cdc_raw"),
          "memtable_heap_space: 32MiB",
          "memtable_offheap_space: 32MiB",
          "key_cache_size: 0MiB",
          "concurrent_reads: 4",
          "concurrent_writes: 4",
          "concurrent_counter_writes: 2",
          "concurrent_compactors: 1",
          "authenticator: PasswordAuthenticator",
          "authorizer: AllowAllAuthorizer",
          // TLS on the same port, optional: plain clients keep working, cql.ssl=true clients get TLS
          "client_encryption_options:",
          "  enabled: true",
          "  optional: true",
          "  keystore: " + dir.resolve("node.p12"),
          "  keystore_password: " + STORE_PASSWORD,
          "  store_type: PKCS12",
          "");
      Files.writeString(dir.resolve("cassandra.yaml"), yaml);
      Path log = dir.resolve("system.log");
      Files.writeString(dir.resolve("logback.xml"), String.join("\n",
          "<configuration>",
          "  <appender name=\"F\" class=\"ch.qos.logback.core.FileAppender\"><file>" + log + "</file>",
          "    <encoder><pattern>%d %-5level [%thread] %logger{20} - %msg%n</pattern></encoder></appender>",
          "  <root level=\"INFO\"><appender-ref ref=\"F\"/></root>",
          "</configuration>", ""));

      List<String> cmd = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xms384m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError",
          "-XX:ActiveProcessorCount=2"));
      // the module flags of Cassandra 5.0's conf/jvm17-server.options
      cmd.addAll(List.of("-Djdk.attach.allowAttachSelf=true",
          "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
          "--add-exports", "java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
          "--add-exports", "java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED",
          "--add-exports", "java.sql/java.sql=ALL-UNNAMED",
          "--add-exports", "java.base/java.lang.ref=ALL-UNNAMED",
          "--add-exports", "jdk.unsupported/sun.misc=ALL-UNNAMED",
          "--add-exports", "jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports", "jdk.attach/sun.tools.attach=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang.module=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.loader=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.reflect=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.math=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.module=ALL-UNNAMED",
          "--add-opens", "java.base/jdk.internal.util.jar=ALL-UNNAMED",
          "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
          "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens", "java.base/java.io=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens", "jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
          "--add-opens", "java.base/java.lang=ALL-UNNAMED",
          "--add-opens", "java.base/java.util=ALL-UNNAMED",
          "-Dio.netty.tryReflectionSetAccessible=true"));
      cmd.addAll(List.of(
          "-Dcassandra-foreground=yes",
          "-Dcassandra.config=" + dir.resolve("cassandra.yaml").toUri(),
          "-Dcassandra.storagedir=" + data,
          "-Dcassandra.logdir=" + dir,
          "-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
          "-Dcassandra.skip_wait_for_gossip_to_settle=0",
          "-Dcassandra.ring_delay_ms=100",
          "-Dcassandra.superuser_setup_delay_ms=0",
          "-cp", classpath + File.pathSeparator + testClasses(),
          CassandraUnderWatch.class.getName()));
      Process p = new ProcessBuilder(cmd)
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("stdout.txt").toFile())
          .start();
      long t0 = System.nanoTime();
      Server s = new Server(nativePort, dir, p);
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
      s.awaitReady(log);
      System.err.printf("LocalCassandra: ready on 127.0.0.1:%d after %d ms%n", nativePort,
          (System.nanoTime() - t0) / 1_000_000);
      return s;
    }

    /** The trust store (PKCS12) holding the node's self-signed certificate, for cql.truststore. */
    Path trustStore() {
      return dir.resolve("trust.p12");
    }

    /**
     * A self-signed key pair for 127.0.0.1 (IP SAN, so host name validation passes) and a trust store with its
     * certificate, made by the JDK's keytool.
     */
    private static void tlsStores(Path dir) throws IOException {
      String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
      run(keytool, "-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
          "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
          dir.resolve("node.p12").toString(), "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
      run(keytool, "-exportcert", "-alias", "node", "-keystore", dir.resolve("node.p12").toString(),
          "-storepass", STORE_PASSWORD, "-file", dir.resolve("node.crt").toString());
      run(keytool, "-importcert", "-noprompt", "-alias", "node", "-file", dir.resolve("node.crt").toString(),
          "-storetype", "PKCS12", "-keystore", dir.resolve("trust.p12").toString(), "-storepass", STORE_PASSWORD);
    }

    private static void run(String... cmd) throws IOException {
      try {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
          throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }

    /** The directory (or jar) holding this test class, for {@link CassandraUnderWatch}. */
    private static String testClasses() {
      try {
        return Path.of(LocalCassandra.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
      } catch (java.net.URISyntaxException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Waits for the native transport and the default superuser (PasswordAuthenticator). */
    private void awaitReady(Path log) throws IOException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("Cassandra exited with " + process.exitValue() + "\n" + tail(log)
              + "\n" + tail(dir.resolve("stdout.txt")));
        }
        String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        if (text.contains("Starting listening for CQL clients") && text.contains("Created default superuser")
            && portOpen(nativePort)) {
          return;
        }
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
      stop();
      throw new IllegalStateException("Cassandra was not ready within 120 s\n" + tail(log));
    }

    private static boolean portOpen(int port) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    String logTail() {
      try {
        return tail(dir.resolve("system.log"));
      } catch (IOException e) {
        return "(no log: " + e + ")";
      }
    }

    private static String tail(Path f) throws IOException {
      if (!Files.exists(f)) {
        return "(no " + f.getFileName() + ")";
      }
      String s = Files.readString(f, StandardCharsets.UTF_8);
      return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }

    synchronized void stop() {
      if (process.isAlive()) {
        process.destroy(); // SIGTERM: Cassandra's own shutdown hook drains and stops
        try {
          if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          }
        } catch (InterruptedException e) {
          process.destroyForcibly();
          Thread.currentThread().interrupt();
        }
      }
      if (Files.exists(dir)) {
        try (Stream<Path> paths = Files.walk(dir)) {
          paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | RuntimeException ignored) {
          // a temp directory left behind is not worth failing the run for
        }
      }
    }

    @Override
    public void close() {
      stop();
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
