package dev.fleetbench.ycsb.redis;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real {@code redis-server} (Debian's package; .ci/run installs it) on a free loopback port, without
 * persistence ({@code --save '' --appendonly no}), in a temp directory; {@link #close} stops it and removes the
 * directory.
 */
public final class LocalRedis implements AutoCloseable {
  public final int port;
  public final Path dir;
  private final Process process;

  private LocalRedis(int port, Path dir, Process process) {
    this.port = port;
    this.dir = dir;
    this.process = process;
  }

  /** Starts a server with these extra arguments (e.g. "--requirepass", "pw") and waits until it answers. */
  public static LocalRedis start(String... extra) throws Exception {
    return startOn(freePort(), List.of(extra));
  }

  /**
   * A server that speaks only TLS on its port (the plain port is off), with this certificate and key; clients
   * need not present a certificate.
   */
  public static LocalRedis startTls(Path cert, Path key) throws Exception {
    int port = freePort();
    return startOn(port, List.of("--port", "0", "--tls-port", Integer.toString(port), "--tls-cert-file",
        cert.toString(), "--tls-key-file", key.toString(), "--tls-ca-cert-file", cert.toString(),
        "--tls-auth-clients", "no"));
  }

  private static LocalRedis startOn(int port, List<String> extra) throws Exception {
    Path dir = Files.createTempDirectory("fleetbench-redis");
    List<String> cmd = new ArrayList<>(List.of(executable(), "--port", Integer.toString(port), "--bind",
        "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--logfile",
        dir.resolve("redis.log").toString(), "--daemonize", "no"));
    cmd.addAll(extra); // later arguments win (e.g. --port 0 for a TLS-only server)
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile())
        .start();
    LocalRedis r = new LocalRedis(port, dir, p);
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
        return r; // accepting connections (TCP only, so this works for a TLS-only server too)
      } catch (IOException notYet) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          String log = r.log();
          r.close();
          throw new IllegalStateException("redis-server on port " + port + " did not start: " + log);
        }
        Thread.sleep(20);
      }
    }
  }

  /** The redis-server binary: on PATH or /usr/bin; a clear failure when it is not installed. */
  static String executable() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      File f = new File(d, "redis-server");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    throw new IllegalStateException("redis-server is not installed (apt-get install -y redis-server; .ci/run "
        + "does this)");
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  public HostAndPort address() {
    return new HostAndPort("127.0.0.1", port);
  }

  /** An admin connection (the caller closes it). */
  public Jedis admin() {
    return new Jedis("127.0.0.1", port, 5000);
  }

  /** Binding properties for this server (plus extra key/value pairs). */
  public Properties props(String... kv) {
    Properties p = new Properties();
    p.setProperty("redis.host", "127.0.0.1");
    p.setProperty("redis.port", Integer.toString(port));
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  String log() {
    try {
      Path f = dir.resolve("redis.log");
      return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return e.toString();
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
