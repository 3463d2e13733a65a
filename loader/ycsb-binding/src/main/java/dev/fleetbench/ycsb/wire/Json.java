package dev.fleetbench.ycsb.wire;

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

  /** Appends {@code s} as a JSON string literal. */
  public static StringBuilder quote(StringBuilder out, String s) {
    out.append('"');
    int n = s.length();
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
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
          if (c < 0x20) {
            out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"');
  }

  /** Parses one JSON document (the whole text). */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    p.ws();
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(Object v) {
    return v instanceof Map ? (Map<String, Object>) v : null;
  }

  private static final class Parser {
    final String s;
    int i;

    Parser(String s) {
      this.s = s;
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("bad JSON at offset " + i + ": " + what);
    }

    void ws() {
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
          return;
        }
        i++;
      }
    }

    char peek() {
      if (i >= s.length()) {
        throw error("unexpected end");
      }
      return s.charAt(i);
    }

    Object value() {
      char c = peek();
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
      if (!s.startsWith(word, i)) {
        throw error("expected " + word);
      }
      i += word.length();
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
        char c = peek();
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
        char c = peek();
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
      // fast path: no escapes
      while (i < s.length()) {
        char c = s.charAt(i);
        if (c == '"') {
          return s.substring(start, i++);
        }
        if (c == '\\') {
          break;
        }
        i++;
      }
      StringBuilder b = new StringBuilder(s.length() - start).append(s, start, i);
      while (true) {
        char c = peek();
        i++;
        if (c == '"') {
          return b.toString();
        }
        if (c != '\\') {
          b.append(c);
          continue;
        }
        char e = peek();
        i++;
        switch (e) {
          case '"':
          case '\\':
          case '/':
            b.append(e);
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
            if (i + 4 > s.length()) {
              throw error("short \\u escape");
            }
            try {
              b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            } catch (NumberFormatException x) {
              throw error("bad \\u escape");
            }
            i += 4;
            break;
          default:
            throw error("bad escape \\" + e);
        }
      }
    }

    Double num() {
      int start = i;
      while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
        i++;
      }
      if (start == i) {
        throw error("unexpected character '" + s.charAt(i) + "'");
      }
      try {
        return Double.valueOf(s.substring(start, i));
      } catch (NumberFormatException x) {
        throw error("bad number");
      }
    }
  }
}
