package dev.fleetbench.ycsb.wire;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One persistent HTTP/1.1 connection (plain or TLS) to one endpoint, used by one thread: request, response,
 * request, ... on the same socket. Opened on first use; reopened after an I/O error or a {@code Connection:
 * close}. The read timeout bounds every wait for response bytes.
 */
public final class HttpConnection implements AutoCloseable {
  /** A response: status code, body, and the headers the client needs. */
  public static final class Response {
    public final int status;
    public final byte[] body;
    public final String crc32;

    Response(int status, byte[] body, String crc32) {
      this.status = status;
      this.body = body;
      this.crc32 = crc32;
    }
  }

  private final String host;
  private final int port;
  private final boolean tls;
  /** The Host header: host, plus :port when it is not the scheme's default. */
  public final String hostHeader;
  private final int connectTimeoutMs;
  private final int readTimeoutMs;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  private final ByteArrayOutputStream head = new ByteArrayOutputStream(512);
  private final StringBuilder line = new StringBuilder(128);

  public HttpConnection(URI endpoint, int connectTimeoutMs, int readTimeoutMs) {
    this.tls = "https".equalsIgnoreCase(endpoint.getScheme());
    this.host = endpoint.getHost();
    int defaultPort = tls ? 443 : 80;
    this.port = endpoint.getPort() < 0 ? defaultPort : endpoint.getPort();
    this.hostHeader = port == defaultPort ? host : host + ":" + port;
    this.connectTimeoutMs = connectTimeoutMs;
    this.readTimeoutMs = readTimeoutMs;
  }

  /**
   * Sends {@code POST /} with these headers (name, value pairs, without Host and Content-Length) and the body;
   * returns the response. A request on a reused connection that the server had already closed is sent once
   * more on a new connection (nothing of it was processed); any other I/O error closes the connection and is
   * thrown.
   */
  public Response post(String[] headers, byte[] body) throws IOException {
    boolean reused = socket != null;
    try {
      return exchange(headers, body);
    } catch (EOFException | java.net.SocketException e) {
      close();
      if (!reused) {
        throw e;
      }
      return exchange(headers, body);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private Response exchange(String[] headers, byte[] body) throws IOException {
    if (socket == null) {
      open();
    }
    head.reset();
    ascii("POST / HTTP/1.1\r\nHost: ");
    ascii(hostHeader);
    for (int i = 0; i < headers.length; i += 2) {
      ascii("\r\n");
      ascii(headers[i]);
      ascii(": ");
      ascii(headers[i + 1]);
    }
    ascii("\r\nContent-Length: ");
    ascii(Integer.toString(body.length));
    ascii("\r\n\r\n");
    head.write(body, 0, body.length);
    head.writeTo(out);
    out.flush();
    return readResponse();
  }

  private void ascii(String s) {
    for (int i = 0; i < s.length(); i++) {
      head.write(s.charAt(i));
    }
  }

  private void open() throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
      s.setSoTimeout(readTimeoutMs);
      if (tls) {
        SSLSocket ssl = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault())
            .createSocket(s, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(params);
        ssl.startHandshake();
        s = ssl;
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    socket = s;
    in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
    out = s.getOutputStream();
  }

  private Response readResponse() throws IOException {
    String status = readLine();
    while (status.isEmpty()) {
      status = readLine();
    }
    // "HTTP/1.1 200 OK"
    int sp = status.indexOf(' ');
    if (!status.startsWith("HTTP/1.") || sp < 0 || status.length() < sp + 4) {
      throw new IOException("not an HTTP/1.x status line: '" + status + "'");
    }
    int code = Integer.parseInt(status.substring(sp + 1, sp + 4));
    long length = -1;
    boolean chunked = false;
    boolean closeAfter = status.startsWith("HTTP/1.0");
    String crc32 = null;
    for (String h = readLine(); !h.isEmpty(); h = readLine()) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length":
          length = Long.parseLong(value);
          break;
        case "transfer-encoding":
          chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
          break;
        case "connection":
          closeAfter = value.equalsIgnoreCase("close");
          break;
        case "x-amz-crc32":
          crc32 = value;
          break;
        default:
          break;
      }
    }
    byte[] body;
    if (chunked) {
      body = readChunked();
    } else if (length >= 0) {
      body = readN((int) length);
    } else {
      body = in.readAllBytes(); // no length: the body ends with the connection
      closeAfter = true;
    }
    if (closeAfter) {
      close();
    }
    return new Response(code, body, crc32);
  }

  private byte[] readChunked() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine();
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        while (!readLine().isEmpty()) {
          // trailers
        }
        return b.toByteArray();
      }
      b.write(readN(size));
      readLine();
    }
  }

  private byte[] readN(int n) throws IOException {
    byte[] b = new byte[n];
    int off = 0;
    while (off < n) {
      int r = in.read(b, off, n - off);
      if (r < 0) {
        throw new EOFException("connection closed after " + off + " of " + n + " body bytes");
      }
      off += r;
    }
    return b;
  }

  private String readLine() throws IOException {
    line.setLength(0);
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection closed by the server");
      }
      if (c == '\n') {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
          line.setLength(len - 1);
        }
        return line.toString();
      }
      line.append((char) c);
      if (line.length() > 64 * 1024) {
        throw new IOException("HTTP header line longer than 64 KiB");
      }
    }
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      socket = null;
      in = null;
      out = null;
    }
  }
}
