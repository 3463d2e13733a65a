package dev.fleetbench.ycsb;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Reading the bindings' own properties (dynamodb.*, cql.*, redis.*, mongodb.*): one reader per kind of value,
 * shared by every binding's config, each problem added to {@code problems} as "name: what is wrong" so a
 * binding reports all of them at once and starts nothing.
 */
public final class PropertyValues {
  private PropertyValues() {}

  /** true or false (any case); absent or empty: {@code dflt}. */
  public static boolean bool(Properties p, String name, boolean dflt, List<String> problems) {
    String v = p.getProperty(name);
    if (v == null || v.trim().isEmpty()) {
      return dflt;
    }
    String t = v.trim().toLowerCase(Locale.ROOT);
    if (t.equals("true") || t.equals("false")) {
      return t.equals("true");
    }
    problems.add(name + ": '" + v.trim() + "' is not true or false");
    return dflt;
  }

  /** An int in {@code min..max}; absent or empty: {@code dflt}. */
  public static int integer(Properties p, String name, int dflt, int min, int max, List<String> problems) {
    String v = p.getProperty(name);
    if (v == null || v.trim().isEmpty()) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min || n > max) {
        problems.add(name + ": " + n + " is outside " + min + ".." + max);
        return dflt;
      }
      return n;
    } catch (NumberFormatException e) {
      problems.add(name + ": '" + v + "' is not an integer");
      return dflt;
    }
  }

  /** An int of at least {@code min}; absent or empty: {@code dflt}. */
  public static int atLeast(Properties p, String name, int dflt, int min, List<String> problems) {
    String v = p.getProperty(name);
    if (v != null && !v.trim().isEmpty()) {
      try {
        int n = Integer.parseInt(v.trim());
        if (n < min) {
          problems.add(name + ": " + n + " is below the minimum " + min);
          return dflt;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    return integer(p, name, dflt, min, Integer.MAX_VALUE, problems);
  }

  /**
   * {@code host} or {@code host:port} ({@code [ipv6]} or {@code [ipv6]:port}), comma separated, as unresolved
   * addresses; {@code property} names each entry in problems ({@code cql.hosts[1]: ...}).
   */
  public static List<InetSocketAddress> hostPorts(String raw, String property, int defaultPort,
      List<String> problems) {
    List<InetSocketAddress> out = new ArrayList<>();
    String[] parts = raw.split(",");
    for (int i = 0; i < parts.length; i++) {
      String s = parts[i].trim();
      String where = property + "[" + i + "]";
      if (s.isEmpty()) {
        problems.add(where + ": empty entry in '" + raw + "'; expected host or host:port");
        continue;
      }
      String host = s;
      String portText = null;
      if (s.startsWith("[")) {
        int close = s.indexOf(']');
        if (close < 0) {
          problems.add(where + ": '" + s + "' has no closing ']'; expected [ipv6]:port");
          continue;
        }
        host = s.substring(1, close);
        String rest = s.substring(close + 1);
        if (rest.startsWith(":")) {
          portText = rest.substring(1);
        } else if (!rest.isEmpty()) {
          problems.add(where + ": '" + s + "' has text after ']'; expected [ipv6]:port");
          continue;
        }
      } else if (s.indexOf(':') >= 0 && s.indexOf(':') == s.lastIndexOf(':')) {
        host = s.substring(0, s.indexOf(':'));
        portText = s.substring(s.indexOf(':') + 1);
      }
      int port = defaultPort;
      if (portText != null) {
        try {
          port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
          port = -1;
        }
        if (port < 1 || port > 65535) {
          problems.add(where + ": port '" + portText + "' in '" + s + "' is not in 1..65535");
          continue;
        }
      }
      if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
        problems.add(where + ": '" + s + "' has no valid host name or address");
        continue;
      }
      out.add(InetSocketAddress.createUnresolved(host, port));
    }
    return Collections.unmodifiableList(out);
  }
}
