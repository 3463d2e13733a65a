package dev.fleetbench.ycsb.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON DynamoDB's protocol needs: string quoting for request bodies built by hand, and a
 * recursive-descent parser of responses into {@code Map<String, Object>} / {@code List<Object>} / String /
 * Double / Boolean / null. Strict enough to reject a truncated or garbled body ({@link IllegalArgumentException}).
 */
public final class Json {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Json() {}

  /** Appends {@code s} as a JSON string literal: the runs between characters to escape appended whole. */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    int n = s.length();
    int run = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(s, run, i);
      run = i + 1;
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.append(s, run, n).append('"');
  }

  /** Parses one JSON document (the whole text). */
  public static Object parse(String text) {
    return parse(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Parses one JSON document, the whole of these UTF-8 bytes (a response body as it came). */
  public static Object parse(byte[] utf8) {
    Parser p = new Parser(utf8);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != utf8.length) {
      throw p.error("trailing characters");
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(Object v) {
    return v instanceof Map ? (Map<String, Object>) v : null;
  }

  /** Works on the UTF-8 bytes: ASCII strings without escapes (nearly all of DynamoDB's) are copied as they are. */
  private static final class Parser {
    final byte[] s;
    final int n;
    int i;

    Parser(byte[] s) {
      this.s = s;
      this.n = s.length;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("bad JSON at offset " + i + ": " + what);
    }

    void ws() {
      while (i < n) {
        byte c = s[i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
          return;
        }
        i++;
      }
    }

    byte peek() {
      if (i >= n) {
        throw error("unexpected end");
      }
      return s[i];
    }

    Object value() {
      byte c = peek();
      switch (c) {
        case '{':
          return obj();
        case '[':
          return arr();
        case '"':
          return str();
        case 't':
          return lit("true", Boolean.TRUE);
        case 'f':
          return lit("false", Boolean.FALSE);
        case 'n':
          return lit("null", null);
        default:
          return num();
      }
    }

    Object lit(String word, Object v) {
      int len = word.length();
      if (i + len > n) {
        throw error("expected " + word);
      }
      for (int k = 0; k < len; k++) {
        if (s[i + k] != word.charAt(k)) {
          throw error("expected " + word);
        }
      }
      i += len;
      return v;
    }

    Map<String, Object> obj() {
      Map<String, Object> m = new HashMap<>();
      i++;
      ws();
      if (peek() == '}') {
        i++;
        return m;
      }
      while (true) {
        ws();
        if (peek() != '"') {
          throw error("expected a member name");
        }
        String k = str();
        ws();
        if (peek() != ':') {
          throw error("expected ':'");
        }
        i++;
        ws();
        m.put(k, value());
        ws();
        byte c = peek();
        i++;
        if (c == '}') {
          return m;
        }
        if (c != ',') {
          throw error("expected ',' or '}'");
        }
      }
    }

    List<Object> arr() {
      List<Object> l = new ArrayList<>();
      i++;
      ws();
      if (peek() == ']') {
        i++;
        return l;
      }
      while (true) {
        ws();
        l.add(value());
        ws();
        byte c = peek();
        i++;
        if (c == ']') {
          return l;
        }
        if (c != ',') {
          throw error("expected ',' or ']'");
        }
      }
    }

    String str() {
      i++; // opening quote
      int start = i;
      // fast path: ASCII, no escapes
      while (i < n) {
        byte c = s[i];
        if (c == '"') {
          return new String(s, start, i++ - start, StandardCharsets.ISO_8859_1);
        }
        if (c == '\\' || c < 0) {
          break;
        }
        i++;
      }
      String ascii = escapedAscii(start);
      if (ascii != null) {
        return ascii;
      }
      StringBuilder b = new StringBuilder(n - start).append(new String(s, start, i - start,
          StandardCharsets.ISO_8859_1));
      while (true) {
        byte c = peek();
        if (c < 0) { // a run of non-ASCII bytes: whole UTF-8 sequences
          int from = i;
          while (i < n && s[i] < 0) {
            i++;
          }
          b.append(new String(s, from, i - from, StandardCharsets.UTF_8));
          continue;
        }
        i++;
        if (c == '"') {
          return b.toString();
        }
        if (c != '\\') {
          b.append((char) c);
          continue;
        }
        byte e = peek();
        i++;
        switch (e) {
          case '"':
          case '\\':
          case '/':
            b.append((char) e);
            break;
          case 'b':
            b.append('\b');
            break;
          case 'f':
            b.append('\f');
            break;
          case 'n':
            b.append('\n');
            break;
          case 'r':
            b.append('\r');
            break;
          case 't':
            b.append('\t');
            break;
          case 'u':
            if (i + 4 > n) {
              throw error("short \\u escape");
            }
            try {
              b.append((char) Integer.parseInt(new String(s, i, 4, StandardCharsets.ISO_8859_1), 16));
            } catch (NumberFormatException x) {
              throw error("bad \\u escape");
            }
            i += 4;
            break;
          default:
            throw error("bad escape \\" + (char) (e & 0xff));
        }
      }
    }

    /** This parser's buffer for unescaped ASCII strings (allocated on the first escape, as long as the body). */
    private byte[] unescaped;

    /**
     * The second path: an ASCII string with the simple escapes ({@code \" \\ \/ \b \f \n \r \t}; most of YCSB's
     * random 100-character values hold a {@code "} or a backslash), unescaped into a byte buffer; {@link #i} is
     * at its first backslash (the bytes before it are ASCII) and is left after its closing quote. Null, with
     * {@link #i} where it was, when the string has anything else (non-ASCII bytes, a unicode escape, a bad escape,
     * no end): the general path takes it from there.
     */
    private String escapedAscii(int start) {
      if (unescaped == null) {
        unescaped = new byte[n];
      }
      byte[] out = unescaped;
      int from = i;
      int len = i - start;
      System.arraycopy(s, start, out, 0, len);
      int j = i;
      while (j < n) {
        byte c = s[j];
        if (c == '"') {
          i = j + 1;
          return new String(out, 0, len, StandardCharsets.ISO_8859_1);
        }
        if (c < 0 || j + 1 >= n) {
          break;
        }
        if (c != '\\') {
          out[len++] = c;
          j++;
          continue;
        }
        byte e = s[j + 1];
        byte u;
        switch (e) {
          case '"':
          case '\\':
          case '/':
            u = e;
            break;
          case 'b':
            u = '\b';
            break;
          case 'f':
            u = '\f';
            break;
          case 'n':
            u = '\n';
            break;
          case 'r':
            u = '\r';
            break;
          case 't':
            u = '\t';
            break;
          default:
            i = from;
            return null;
        }
        out[len++] = u;
        j += 2;
      }
      i = from;
      return null;
    }

    Double num() {
      int start = i;
      while (i < n && "+-0123456789.eE".indexOf(s[i]) >= 0) {
        i++;
      }
      if (start == i) {
        throw error("unexpected character '" + (char) (s[i] & 0xff) + "'");
      }
      try {
        return Double.valueOf(new String(s, start, i - start, StandardCharsets.ISO_8859_1));
      } catch (NumberFormatException x) {
        throw error("bad number");
      }
    }
  }
}
