package dev.fleetbench.ycsb.wire;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
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
  private final long connectTimeoutNs;
  private final long readTimeoutNs;
  /** How often the watchdog looks at this connection: an eighth of its shorter timeout. */
  private final long tickNs;
  /** The plain TCP socket (under the TLS one, if any); what the watchdog closes. */
  private volatile Socket raw;
  /** When the current connect or read gives up (System.nanoTime), 0 when none is under way. */
  private volatile long deadline;
  private volatile boolean timedOut;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  private static final int MAX_LINE = 64 * 1024;
  /** The request being written: head and body, sent with one write. */
  private byte[] wbuf = new byte[2048];
  private int wpos;
  /** Response bytes read from the socket: {@code [rpos, rlim)} not consumed yet. */
  private byte[] rbuf = new byte[16 * 1024];
  private int rpos;
  private int rlim;
  private int lineNext;

  public HttpConnection(URI endpoint, int connectTimeoutMs, int readTimeoutMs) {
    this.tls = "https".equalsIgnoreCase(endpoint.getScheme());
    this.host = endpoint.getHost();
    int defaultPort = tls ? 443 : 80;
    this.port = endpoint.getPort() < 0 ? defaultPort : endpoint.getPort();
    this.hostHeader = port == defaultPort ? host : host + ":" + port;
    this.connectTimeoutNs = connectTimeoutMs * 1_000_000L;
    this.readTimeoutNs = readTimeoutMs * 1_000_000L;
    this.tickNs = Math.max(1_000_000L, Math.min(connectTimeoutNs, readTimeoutNs) / 8);
  }

  /**
   * Sends {@code POST /} with these headers (name, value pairs, without Host and Content-Length) and the body;
   * returns the response. A request on a reused connection that the server had already closed is sent once
   * more on a new connection (nothing of it was processed); any other I/O error closes the connection and is
   * thrown.
   */
  public Response post(String[] headers, byte[] body) throws IOException {
    return post(headers, headers.length, body);
  }

  /** {@link #post(String[], byte[])} with the first {@code count} entries of {@code headers} (a reused array). */
  public Response post(String[] headers, int count, byte[] body) throws IOException {
    boolean reused = socket != null;
    try {
      return exchange(headers, count, body);
    } catch (EOFException | java.net.SocketException e) {
      close();
      if (!reused) {
        throw e;
      }
      return exchange(headers, count, body);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private Response exchange(String[] headers, int count, byte[] body) throws IOException {
    if (socket == null) {
      open();
    }
    wpos = 0;
    ascii("POST / HTTP/1.1\r\nHost: ");
    ascii(hostHeader);
    for (int i = 0; i < count; i += 2) {
      ascii("\r\n");
      ascii(headers[i]);
      ascii(": ");
      ascii(headers[i + 1]);
    }
    ascii("\r\nContent-Length: ");
    decimal(body.length);
    ascii("\r\n\r\n");
    ensure(body.length);
    System.arraycopy(body, 0, wbuf, wpos, body.length);
    wpos += body.length;
    out.write(wbuf, 0, wpos); // head and body in one write
    return readResponse();
  }

  /** Room for {@code n} more bytes in the request buffer. */
  private void ensure(int n) {
    if (wpos + n > wbuf.length) {
      wbuf = Arrays.copyOf(wbuf, Math.max(wbuf.length * 2, wpos + n));
    }
  }

  /** Appends the string's chars as bytes (header names and values are ASCII). */
  private void ascii(String s) {
    int n = s.length();
    ensure(n);
    byte[] b = wbuf;
    int p = wpos;
    for (int i = 0; i < n; i++) {
      b[p++] = (byte) s.charAt(i);
    }
    wpos = p;
  }

  private void decimal(int v) {
    if (v == 0) {
      ensure(1);
      wbuf[wpos++] = '0';
      return;
    }
    int digits = 0;
    for (int x = v; x > 0; x /= 10) {
      digits++;
    }
    ensure(digits);
    for (int i = wpos + digits - 1; i >= wpos; i--) {
      wbuf[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    wpos += digits;
  }

  private void open() throws IOException {
    Socket s = new Socket();
    raw = s;
    timedOut = false;
    Watchdog.watch(this);
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      // No SO_TIMEOUT and no connect timeout on the socket itself: either would put it in non-blocking mode, in
      // which every read is a failed read, a poll and a read again. The watchdog enforces both timeouts instead.
      arm(connectTimeoutNs);
      try {
        s.connect(new InetSocketAddress(host, port));
      } catch (IOException e) {
        throw timedOut ? new SocketTimeoutException("connect timed out") : e;
      } finally {
        deadline = 0;
      }
      if (tls) {
        SSLSocket ssl = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault())
            .createSocket(s, host, port, true);
        SSLParameters params = ssl.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(params);
        arm(readTimeoutNs);
        try {
          ssl.startHandshake();
        } catch (IOException e) {
          throw timedOut ? new SocketTimeoutException("TLS handshake timed out") : e;
        } finally {
          deadline = 0;
        }
        s = ssl;
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      Watchdog.unwatch(this);
      raw = null;
      throw e;
    }
    socket = s;
    in = s.getInputStream();
    rpos = 0;
    rlim = 0;
    out = s.getOutputStream();
  }

  /** The watchdog closes the socket if the wait that starts now lasts longer than {@code timeoutNs}. */
  private void arm(long timeoutNs) {
    deadline = System.nanoTime() + timeoutNs | 1; // never 0, which means "not waiting"
  }

  /** One read from the socket under the read timeout. */
  private int read(byte[] b, int off, int len) throws IOException {
    arm(readTimeoutNs);
    try {
      return in.read(b, off, len);
    } catch (IOException e) {
      throw timedOut ? new SocketTimeoutException("Read timed out") : e;
    } finally {
      deadline = 0;
    }
  }

  /** Called by the watchdog when the deadline has passed: closes the socket, which ends the blocked call. */
  void expire() {
    Socket s = raw;
    if (s != null) {
      timedOut = true;
      try {
        s.close();
      } catch (IOException ignored) {
        // closed anyway
      }
    }
  }

  /**
   * Enforces the connections' connect and read timeouts: one daemon thread per process that wakes at least every
   * eighth of the shortest timeout among the open connections and closes the socket of any connection whose
   * current wait has passed its deadline (as Okio's AsyncTimeout does). The blocked thread then gets a
   * SocketTimeoutException. A timeout so fires between its time and an eighth of it later.
   */
  static final class Watchdog implements Runnable {
    private static final Set<HttpConnection> WATCHED = ConcurrentHashMap.newKeySet();
    private static final long IDLE_NS = 1_000_000_000L;
    private static Thread thread;

    static synchronized void watch(HttpConnection c) {
      WATCHED.add(c);
      if (thread == null) {
        thread = new Thread(new Watchdog(), "fleetbench-http-timeouts");
        thread.setDaemon(true);
        thread.start();
      } else {
        LockSupport.unpark(thread); // its tick may be longer than this connection's
      }
    }

    static void unwatch(HttpConnection c) {
      WATCHED.remove(c);
    }

    @Override
    public void run() {
      while (true) {
        long now = System.nanoTime();
        long sleep = IDLE_NS;
        for (HttpConnection c : WATCHED) {
          sleep = Math.min(sleep, c.tickNs);
          long d = c.deadline;
          if (d != 0) {
            if (now - d >= 0) {
              c.expire();
            } else {
              sleep = Math.min(sleep, d - now);
            }
          }
        }
        LockSupport.parkNanos(Math.max(sleep, 1_000_000L));
      }
    }
  }

  /** Reads more bytes into the response buffer (compacting it first); false at the end of the stream. */
  private boolean fill() throws IOException {
    if (rpos > 0) {
      System.arraycopy(rbuf, rpos, rbuf, 0, rlim - rpos);
      rlim -= rpos;
      rpos = 0;
    }
    if (rlim == rbuf.length) {
      rbuf = Arrays.copyOf(rbuf, rbuf.length * 2);
    }
    int n = read(rbuf, rlim, rbuf.length - rlim);
    if (n <= 0) {
      return false;
    }
    rlim += n;
    return true;
  }

  /**
   * The next line of the response head, CR LF (or LF) removed: it is {@code rbuf[rpos, returned end)}, and
   * {@link #lineNext} is where the following line starts.
   */
  private int nextLine() throws IOException {
    int scanned = rpos;
    while (true) {
      for (int i = scanned; i < rlim; i++) {
        if (rbuf[i] == '\n') {
          lineNext = i + 1;
          return i > rpos && rbuf[i - 1] == '\r' ? i - 1 : i;
        }
      }
      if (rlim - rpos > MAX_LINE) {
        throw new IOException("HTTP header line longer than 64 KiB");
      }
      scanned = rlim - rpos; // relative: fill() moves the unread bytes to the start
      if (!fill()) {
        throw new EOFException("connection closed by the server");
      }
      scanned += rpos;
    }
  }

  /** Whether {@code rbuf[from, to)} equals the lower-case ASCII name, ignoring case. */
  private boolean nameIs(int from, int to, String lower) {
    if (to - from != lower.length()) {
      return false;
    }
    for (int i = 0; i < lower.length(); i++) {
      int c = rbuf[from + i];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private String latin1(int from, int to) {
    return new String(rbuf, from, to - from, StandardCharsets.ISO_8859_1);
  }

  private Response readResponse() throws IOException {
    int end = nextLine();
    while (end == rpos) {
      rpos = lineNext;
      end = nextLine();
    }
    // "HTTP/1.1 200 OK"
    int code = -1;
    boolean closeAfter = false;
    if (end - rpos >= 12 && rbuf[rpos] == 'H' && rbuf[rpos + 1] == 'T' && rbuf[rpos + 2] == 'T'
        && rbuf[rpos + 3] == 'P' && rbuf[rpos + 4] == '/' && rbuf[rpos + 5] == '1' && rbuf[rpos + 6] == '.') {
      int sp = rpos + 8;
      while (sp < end && rbuf[sp] != ' ') {
        sp++;
      }
      if (sp + 4 <= end && isDigit(rbuf[sp + 1]) && isDigit(rbuf[sp + 2]) && isDigit(rbuf[sp + 3])) {
        code = (rbuf[sp + 1] - '0') * 100 + (rbuf[sp + 2] - '0') * 10 + (rbuf[sp + 3] - '0');
      }
      closeAfter = rbuf[rpos + 7] == '0';
    }
    if (code < 0) {
      throw new IOException("not an HTTP/1.x status line: '" + latin1(rpos, end) + "'");
    }
    rpos = lineNext;
    long length = -1;
    boolean chunked = false;
    String crc32 = null;
    for (end = nextLine(); end != rpos; end = nextLine()) {
      int colon = rpos;
      while (colon < end && rbuf[colon] != ':') {
        colon++;
      }
      if (colon > rpos && colon < end) {
        int ns = rpos;
        int ne = colon;
        while (ns < ne && rbuf[ns] <= ' ') {
          ns++;
        }
        while (ne > ns && rbuf[ne - 1] <= ' ') {
          ne--;
        }
        int vs = colon + 1;
        int ve = end;
        while (vs < ve && rbuf[vs] <= ' ') {
          vs++;
        }
        while (ve > vs && rbuf[ve - 1] <= ' ') {
          ve--;
        }
        if (nameIs(ns, ne, "content-length")) {
          length = Long.parseLong(latin1(vs, ve));
        } else if (nameIs(ns, ne, "transfer-encoding")) {
          chunked = latin1(vs, ve).toLowerCase(Locale.ROOT).contains("chunked");
        } else if (nameIs(ns, ne, "connection")) {
          closeAfter = latin1(vs, ve).equalsIgnoreCase("close");
        } else if (nameIs(ns, ne, "x-amz-crc32")) {
          crc32 = latin1(vs, ve);
        }
      }
      rpos = lineNext;
    }
    rpos = lineNext;
    byte[] body;
    if (chunked) {
      body = readChunked();
    } else if (length >= 0) {
      body = readN((int) length);
    } else {
      // no length: the body ends with the connection
      while (fill()) {
        // read to the end
      }
      body = Arrays.copyOfRange(rbuf, rpos, rlim);
      rpos = rlim;
      closeAfter = true;
    }
    if (closeAfter) {
      close();
    } else if (rpos == rlim) {
      rpos = 0;
      rlim = 0;
    }
    return new Response(code, body, crc32);
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  private byte[] readChunked() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      int end = nextLine();
      String sizeLine = latin1(rpos, end);
      rpos = lineNext;
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        while (true) { // trailers
          end = nextLine();
          boolean empty = end == rpos;
          rpos = lineNext;
          if (empty) {
            return b.toByteArray();
          }
        }
      }
      b.write(readN(size));
      nextLine();
      rpos = lineNext;
    }
  }

  private byte[] readN(int n) throws IOException {
    byte[] b = new byte[n];
    int have = Math.min(n, rlim - rpos);
    System.arraycopy(rbuf, rpos, b, 0, have);
    rpos += have;
    int off = have;
    while (off < n) {
      int r = read(b, off, n - off);
      if (r < 0) {
        throw new EOFException("connection closed after " + off + " of " + n + " body bytes");
      }
      off += r;
    }
    return b;
  }

  static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    if (raw != null) {
      Watchdog.unwatch(this);
      try {
        raw.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      raw = null;
    }
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
