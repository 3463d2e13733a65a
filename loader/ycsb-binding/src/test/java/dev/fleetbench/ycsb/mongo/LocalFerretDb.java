package dev.fleetbench.ycsb.mongo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real MongoDB wire-protocol server for the binding's tests: FerretDB 1.24 (SQLite backend), built from its Go
 * module by loader/ferretdb/build.sh (system property {@code fleetbench.ferretdb} = the binary). One process
 * listens on loopback twice, plain TCP and TLS (a self-signed certificate for 127.0.0.1 made with openssl), both on
 * ports the kernel picks (read back from FerretDB's log); SCRAM authentication is on (FerretDB's
 * {@code --test-enable-new-auth}) with the user {@link #USER} created at start-up. Started once for the test run by
 * the first class that uses the extension; stopped and its directory removed when JUnit closes the root context. A
 * shell wrapper kills it when its standard input, a pipe from the test JVM, closes, so a test JVM killed outright
 * leaves no server behind.
 */
public final class LocalFerretDb implements BeforeAllCallback {
  static final String USER = "ycsbuser";
  static final String PASSWORD = "pw-for-tests-only";
  static final String DATABASE = "ycsb";

  private static volatile Server server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(Server.class.getName(), k -> Server.start(), Server.class);
  }

  static Server server() {
    if (server == null) {
      throw new IllegalStateException("LocalFerretDb not started: add @ExtendWith(LocalFerretDb.class)");
    }
    return server;
  }

  /** The environment with the test user's credentials, as the loader agent hands them over. */
  static Map<String, String> credentials() {
    return Map.of(MongoConfig.USERNAME_ENV, USER, MongoConfig.PASSWORD_ENV, PASSWORD);
  }

  /** The FerretDB process and its directory. */
  static final class Server implements ExtensionContext.Store.CloseableResource {
    final int port;
    final int tlsPort;
    final Path dir;
    /** The server's self-signed certificate (PEM), the CA a client must trust. */
    final Path caFile;
    private final Process process;

    private Server(int port, int tlsPort, Path dir, Process process) {
      this.port = port;
      this.tlsPort = tlsPort;
      this.dir = dir;
      this.caFile = dir.resolve("cert.pem");
      this.process = process;
    }

    /** {@code mongodb://127.0.0.1:<port>/<database>} (plain TCP; no credentials, as the binding requires). */
    String url(String database) {
      return "mongodb://127.0.0.1:" + port + "/" + database;
    }

    String tlsUrl(String database) {
      return "mongodb://127.0.0.1:" + tlsPort + "/" + database;
    }

    /** Binding properties for the plain listener, {@code database} and the test user's auth source. */
    Properties props(String database, String... kv) {
      Properties p = new Properties();
      p.setProperty(MongoConfig.URL, url(database));
      p.setProperty(MongoConfig.SERVER_SELECTION_TIMEOUT_MS, "5000");
      p.setProperty(MongoConfig.AUTH_SOURCE, DATABASE); // FerretDB's --setup-username creates the user there
      for (int i = 0; i < kv.length; i += 2) {
        p.setProperty(kv[i], kv[i + 1]);
      }
      return p;
    }

    static Server start() {
      try {
        return launch();
      } catch (IOException e) {
        throw new IllegalStateException("cannot start FerretDB: " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    private static Server launch() throws IOException, InterruptedException {
      Path bin = Path.of(System.getProperty("fleetbench.ferretdb", ""));
      if (!Files.isExecutable(bin)) {
        throw new IllegalStateException("no FerretDB binary at '" + bin + "' (system property fleetbench.ferretdb);"
            + " build it with `bash loader/ferretdb/build.sh` (npm run test:java does)");
      }
      Path dir = Files.createTempDirectory("fleetbench-ferretdb-");
      Files.createDirectories(dir.resolve("data"));
      Files.createDirectories(dir.resolve("state"));
      Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
          "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
          dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString())
          .redirectErrorStream(true).redirectOutput(dir.resolve("openssl.log").toFile()).start();
      if (!openssl.waitFor(60, TimeUnit.SECONDS) || openssl.exitValue() != 0) {
        throw new IllegalStateException("openssl could not make the test certificate: "
            + Files.readString(dir.resolve("openssl.log")));
      }
      Path log = dir.resolve("ferretdb.log");
      List<String> cmd = new ArrayList<>(List.of("sh", "-c",
          "\"$0\" \"$@\" </dev/null & p=$!; cat >/dev/null; kill $p; wait $p", bin.toString(),
          // synchronous(off): no fsync per write, for test speed
          "--handler=sqlite", "--sqlite-url=file:" + dir.resolve("data") + "/?_pragma=synchronous(off)",
          "--state-dir=" + dir.resolve("state"), "--listen-addr=127.0.0.1:0", "--listen-tls=127.0.0.1:0",
          "--listen-tls-cert-file=" + dir.resolve("cert.pem"), "--listen-tls-key-file=" + dir.resolve("key.pem"),
          "--debug-addr=-", "--telemetry=disable", "--log-level=info", "--test-enable-new-auth",
          "--setup-database=" + DATABASE, "--setup-username=" + USER, "--setup-password=" + PASSWORD));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      Pattern tcp = Pattern.compile("Listening on TCP 127\\.0\\.0\\.1:(\\d+)");
      Pattern tls = Pattern.compile("Listening on TLS 127\\.0\\.0\\.1:(\\d+)");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Matcher a = tcp.matcher(text);
        Matcher b = tls.matcher(text);
        if (a.find() && b.find()) {
          return new Server(Integer.parseInt(a.group(1)), Integer.parseInt(b.group(1)), dir, p);
        }
        if (!p.isAlive()) {
          throw new IllegalStateException("FerretDB exited with " + p.exitValue() + ":\n" + text);
        }
        Thread.sleep(50);
      }
      p.destroyForcibly();
      throw new IllegalStateException("FerretDB did not listen within 60 s:\n" + Files.readString(log));
    }

    @Override
    public void close() throws IOException, InterruptedException {
      process.getOutputStream().close(); // the wrapper kills FerretDB and exits
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}
