package dev.fleetbench.ycsb.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/** The persistent HTTP/1.1 connection against a scripted loopback server (raw sockets, so framing is ours). */
class HttpConnectionTest {
  /** Serves connections one after another; the script gets (connection number, request number) → raw response. */
  private static final class Scripted implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final List<String> requestHeads = new CopyOnWriteArrayList<>();
    final Thread thread;

    Scripted(BiFunction<Integer, Integer, String> script) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      thread = new Thread(() -> {
        while (!server.isClosed()) {
          try (Socket s = server.accept()) {
            int conn = connections.incrementAndGet();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = s.getOutputStream();
            for (int req = 1;; req++) {
              StringBuilder head = new StringBuilder();
              int length = 0;
              for (String l = in.readLine(); l != null && !l.isEmpty(); l = in.readLine()) {
                head.append(l).append('\n');
                if (l.toLowerCase().startsWith("content-length:")) {
                  length = Integer.parseInt(l.substring(15).trim());
                }
              }
              if (head.length() == 0) {
                break;
              }
              in.skip(length);
              requestHeads.add(head.toString());
              String res = script.apply(conn, req);
              if (res == null) {
                break; // close without answering
              }
              if (res.equals("HANG")) {
                Thread.sleep(2000);
                break;
              }
              out.write(res.getBytes(StandardCharsets.UTF_8));
              out.flush();
              if (res.contains("Connection: close") || res.contains("X-Test-Close")) {
                break;
              }
            }
          } catch (IOException | InterruptedException e) {
            // next connection, or closed
          }
        }
      });
      thread.setDaemon(true);
      thread.start();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private static String ok(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  private static String[] headers() {
    return new String[] {"X-Amz-Target", "DynamoDB_20120810.GetItem"};
  }

  @Test
  void keepsOneConnectionForManyRequests() throws Exception {
    try (Scripted s = new Scripted((c, r) -> ok("{\"n\":" + r + "}"));
        HttpConnection h = new HttpConnection(s.uri(), 1000, 1000)) {
      for (int i = 1; i <= 5; i++) {
        HttpConnection.Response res = h.post(headers(), "{}".getBytes(StandardCharsets.UTF_8));
        assertEquals(200, res.status);
        assertEquals("{\"n\":" + i + "}", new String(res.body, StandardCharsets.UTF_8));
      }
      assertEquals(1, s.connections.get());
      assertTrue(s.requestHeads.get(0).startsWith("POST / HTTP/1.1\nHost: 127.0.0.1:" + s.server.getLocalPort()),
          s.requestHeads.get(0));
      assertTrue(s.requestHeads.get(0).contains("Content-Length: 2"), s.requestHeads.get(0));
    }
  }

  @Test
  void readsChunkedBodies() throws Exception {
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5\r\n{\"a\":\r\n3;ext=1\r\n\"b\"\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n";
    try (Scripted s = new Scripted((c, r) -> r == 1 ? chunked : ok("{}"));
        HttpConnection h = new HttpConnection(s.uri(), 1000, 1000)) {
      assertEquals("{\"a\":\"b\"}", new String(h.post(headers(), new byte[0]).body, StandardCharsets.UTF_8));
      assertEquals("{}", new String(h.post(headers(), new byte[0]).body, StandardCharsets.UTF_8));
      assertEquals(1, s.connections.get(), "the connection stays usable after a chunked body");
    }
  }

  @Test
  void aConnectionTheServerClosedIsReopenedOnce() throws Exception {
    // the server closes every connection after one answer without saying so (idle keep-alive timeout)
    try (Scripted s = new Scripted((c, r) -> r == 1 ? ok("{\"c\":" + c + "}") + "X-Test-Close" : null);
        HttpConnection h = new HttpConnection(s.uri(), 1000, 1000)) {
      for (int i = 1; i <= 3; i++) {
        String body = new String(h.post(headers(), new byte[0]).body, StandardCharsets.UTF_8);
        assertEquals("{\"c\":" + i + "}", body.replace("X-Test-Close", ""));
      }
      assertEquals(3, s.connections.get());
    }
  }

  @Test
  void aSlowServerTimesOutAndIsNotRetried() throws Exception {
    try (Scripted s = new Scripted((c, r) -> "HANG");
        HttpConnection h = new HttpConnection(s.uri(), 1000, 200)) {
      long t0 = System.nanoTime();
      assertThrows(SocketTimeoutException.class, () -> h.post(headers(), new byte[0]));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 190 && ms < 1500, "timed out after " + ms + " ms");
      assertEquals(1, s.requestHeads.size());
    }
  }

  @Test
  void dynamoWireChecksTheCrc32AndParsesErrors() throws Exception {
    String body = "{\"Item\":{\"p\":{\"S\":\"k\"}}}";
    CRC32 crc = new CRC32();
    crc.update(body.getBytes(StandardCharsets.UTF_8));
    String good = "HTTP/1.1 200 OK\r\nx-amz-crc32: " + crc.getValue() + "\r\nContent-Length: " + body.length()
        + "\r\n\r\n" + body;
    String bad = good.replace("x-amz-crc32: " + crc.getValue(), "x-amz-crc32: " + (crc.getValue() + 1));
    String err = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\","
        + "\"message\":\"slow down\"}";
    String throttled = "HTTP/1.1 400 Bad Request\r\nContent-Length: " + err.length() + "\r\n\r\n" + err;
    String tooMany = "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n";
    String[] script = {good, bad, throttled, tooMany};
    try (Scripted s = new Scripted((c, r) -> script[(s0(c, r)) % script.length]);
        DynamoWire w = new DynamoWire(List.of(s.uri()), new AtomicLong(), "us-east-1",
            () -> new DynamoWire.Credentials("AKID", "secret", null), 1000, 1000)) {
      Map<String, Object> item = Json.object(w.call("GetItem", "{}").get("Item"));
      assertEquals(Map.of("S", "k"), item.get("p"));
      DynamoWire.ApiException e = assertThrows(DynamoWire.ApiException.class, () -> w.call("GetItem", "{}"));
      assertEquals("Crc32Mismatch", e.code);
      e = assertThrows(DynamoWire.ApiException.class, () -> w.call("GetItem", "{}"));
      assertEquals("ProvisionedThroughputExceededException", e.code);
      assertEquals(400, e.status);
      assertTrue(e.throttle);
      assertEquals("slow down", e.getMessage());
      e = assertThrows(DynamoWire.ApiException.class, () -> w.call("GetItem", "{}"));
      assertEquals(429, e.status);
      assertTrue(e.throttle, "HTTP 429 is a throttle");
    }
  }

  private static final AtomicInteger SEQ = new AtomicInteger();

  /** Request sequence number over all connections (the CRC mismatch closes the connection). */
  private static int s0(int conn, int req) {
    return SEQ.getAndIncrement();
  }
}
