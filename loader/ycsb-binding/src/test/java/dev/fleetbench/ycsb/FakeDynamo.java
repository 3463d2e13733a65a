package dev.fleetbench.ycsb;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A tiny HTTP server on loopback that speaks just enough of DynamoDB's JSON protocol: it records every request
 * (X-Amz-Target and body) and answers with whatever the test's responder says.
 */
final class FakeDynamo implements AutoCloseable {
  /** One request as received; {@code atNanos}: System.nanoTime() when its body had been read. */
  record Request(String target, String body, long atNanos) {}

  record Response(int status, String body) {}

  static final String PREFIX = "com.amazonaws.dynamodb.v20120810#";

  static {
    // The JDK server writes headers and body separately; with Nagle on, the body waits for the client's delayed
    // ACK (~40 ms per request). Real DynamoDB endpoints answer at once. Read once, when the server class loads.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  static Response error(String code, String message) {
    return new Response(400, "{\"__type\":\"" + PREFIX + code + "\",\"message\":\"" + message + "\"}");
  }

  static Response ok(String body) {
    return new Response(200, body);
  }

  final List<Request> requests = new CopyOnWriteArrayList<>();
  final String endpoint;
  private final HttpServer server;

  FakeDynamo(Function<Request, Response> responder) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", exchange -> {
      byte[] in;
      try (InputStream is = exchange.getRequestBody()) {
        in = is.readAllBytes();
      }
      Request req = new Request(exchange.getRequestHeaders().getFirst("X-Amz-Target"),
          new String(in, StandardCharsets.UTF_8), System.nanoTime());
      requests.add(req);
      Response res = responder.apply(req);
      byte[] out = res.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
      exchange.getResponseHeaders().add("x-amzn-RequestId", "fake-" + requests.size());
      exchange.sendResponseHeaders(res.status(), out.length);
      try (OutputStream os = exchange.getResponseBody()) {
        os.write(out);
      }
    });
    server.start();
    endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
