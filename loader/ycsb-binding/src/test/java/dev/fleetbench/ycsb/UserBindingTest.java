package dev.fleetbench.ycsb;

import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.props;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.summary;
import static dev.fleetbench.ycsb.YcsbClientEndToEndTest.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import site.ycsb.DBException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's YCSB binding, compiled in the test into jars that are on no classpath (a DB class, its dependency in a
 * second jar, and impostor copies of {@code site.ycsb.Status} and {@code org.HdrHistogram.Histogram} that halt
 * the JVM if they are ever loaded), run through the Launcher with {@code fleetbench.binding.classpath}.
 */
class UserBindingTest {
  @TempDir
  static Path dir;
  /** lib/user-db.jar and lib/user-dep.jar, built once for the class. */
  private static Path lib;

  @BeforeAll
  static void build() throws IOException {
    lib = buildBinding();
  }

  /** An impostor: loading it ends the JVM with exit code 97. */
  private static String impostor(String pkg, String name) {
    return "package " + pkg + ";\npublic class " + name + " {\n  static { System.err.println(\"IMPOSTOR-LOADED "
        + pkg + "." + name + "\"); Runtime.getRuntime().halt(97); }\n}\n";
  }

  private static final String MAP_DB = String.join("\n",
      "package userdb;",
      "import java.util.*;",
      "import java.util.concurrent.ConcurrentHashMap;",
      "import java.util.concurrent.atomic.AtomicLong;",
      "import site.ycsb.*;",
      "/** An in-memory YCSB binding using only YCSB's DB API; refuses updates of keys that userdep.Rule names. */",
      "public class MapDb extends DB {",
      "  static final Map<String, Map<String, String>> DATA = new ConcurrentHashMap<>();",
      "  static final AtomicLong REFUSED = new AtomicLong();",
      "  @Override public void init() {",
      "    System.err.println(\"DB-LOADER=\" + getClass().getClassLoader().getName());",
      "    System.err.println(\"CONTEXT-LOADER=\" + Thread.currentThread().getContextClassLoader().getName());",
      "    System.err.println(\"STATUS-FROM-APP=\" + (Status.class.getClassLoader() == ClassLoader.getSystemClassLoader()));",
      "    System.err.println(\"HDR-FROM=\" + org.HdrHistogram.Histogram.class.getProtectionDomain().getCodeSource().getLocation());",
      "  }",
      "  @Override public void cleanup() { System.err.println(\"REFUSED=\" + REFUSED.get()); }",
      "  @Override public Status read(String t, String k, Set<String> f, Map<String, ByteIterator> r) {",
      "    Map<String, String> v = DATA.get(k);",
      "    if (v != null) { StringByteIterator.putAllAsByteIterators(r, v); }",
      "    return Status.OK;",
      "  }",
      "  @Override public Status scan(String t, String s, int n, Set<String> f, Vector<HashMap<String, ByteIterator>> r) {",
      "    return Status.NOT_IMPLEMENTED;",
      "  }",
      "  @Override public Status update(String t, String k, Map<String, ByteIterator> v) {",
      "    if (userdep.Rule.refuse(k)) { REFUSED.incrementAndGet(); return Status.SERVICE_UNAVAILABLE; }",
      "    DATA.computeIfAbsent(k, x -> new ConcurrentHashMap<>()).putAll(StringByteIterator.getStringMap(v));",
      "    return Status.OK;",
      "  }",
      "  @Override public Status insert(String t, String k, Map<String, ByteIterator> v) { return update(t, k, v); }",
      "  @Override public Status delete(String t, String k) { return DATA.remove(k) == null ? Status.NOT_FOUND : Status.OK; }",
      "}", "");

  private static final String RULE = "package userdep;\npublic final class Rule {\n"
      + "  public static boolean refuse(String key) { return Math.floorMod(key.hashCode(), 4) == 0; }\n}\n";

  private static void compile(Path src, Path out, String classpath) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> files;
    try (Stream<Path> s = Files.walk(src)) {
      files = s.filter(p -> p.toString().endsWith(".java")).map(Path::toString).toList();
    }
    List<String> args = new ArrayList<>(List.of("-d", out.toString(), "--release", "17", "-proc:none"));
    if (classpath != null) {
      args.addAll(List.of("-cp", classpath));
    }
    args.addAll(files);
    assertEquals(0, javac.run(null, null, null, args.toArray(new String[0])), "javac " + files);
  }

  private static void write(Path root, String path, String text) throws IOException {
    Path f = root.resolve(path);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
  }

  private static void jar(Path classes, Path jarFile) throws IOException {
    try (OutputStream o = Files.newOutputStream(jarFile); JarOutputStream j = new JarOutputStream(o);
        Stream<Path> s = Files.walk(classes)) {
      for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
        j.putNextEntry(new JarEntry(classes.relativize(p).toString().replace(File.separatorChar, '/')));
        j.write(Files.readAllBytes(p));
        j.closeEntry();
      }
    }
  }

  /**
   * Builds lib/user-db.jar (MapDb, the impostors, a stand-in redis.clients.jedis.Jedis) and lib/user-dep.jar
   * (userdep.Rule) with two javac runs: the classes that need no classpath, then MapDb against YCSB core.
   */
  private static Path buildBinding() throws IOException {
    Path lib = Files.createDirectories(dir.resolve("lib"));
    Path plainSrc = dir.resolve("plain-src");
    write(plainSrc, "userdep/Rule.java", RULE);
    write(plainSrc, "site/ycsb/Status.java", impostor("site.ycsb", "Status"));
    write(plainSrc, "org/HdrHistogram/Histogram.java", impostor("org.HdrHistogram", "Histogram"));
    write(plainSrc, "redis/clients/jedis/Jedis.java", "package redis.clients.jedis;\npublic class Jedis {}\n");
    Path plain = Files.createDirectories(dir.resolve("plain-classes"));
    compile(plainSrc, plain, null);

    Path dbSrc = dir.resolve("db-src");
    write(dbSrc, "userdb/MapDb.java", MAP_DB);
    Path dbOut = Files.createDirectories(dir.resolve("db-classes"));
    // the real YCSB core first: MapDb compiles against it, not against the impostors
    compile(dbSrc, dbOut, System.getProperty("java.class.path") + File.pathSeparator + plain);

    Path dep = Files.createDirectories(dir.resolve("dep-classes/userdep"));
    Files.move(plain.resolve("userdep/Rule.class"), dep.resolve("Rule.class"));
    Files.delete(plain.resolve("userdep"));
    jar(dep.getParent(), lib.resolve("user-dep.jar"));
    Path both = Files.createDirectories(dir.resolve("db-jar"));
    copyTree(plain, both);
    copyTree(dbOut, both);
    jar(both, lib.resolve("user-db.jar"));
    return lib;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        Path t = to.resolve(from.relativize(p));
        Files.createDirectories(t.getParent());
        Files.copy(p, t);
      }
    }
  }

  @Test
  void theBindingLoaderKeepsYcsbAndHdrHistogramFromTheParentAndPrefersTheJarsForTheRest() throws Exception {
    try (BindingClassLoader l = new BindingClassLoader(BindingClassLoader.urlsOf(lib.toString()),
        getClass().getClassLoader())) {
      assertEquals(3, l.getURLs().length, "the directory and its two jars");
      assertSame(site.ycsb.Status.class, l.loadClass("site.ycsb.Status"), "YCSB core from the parent");
      assertSame(org.HdrHistogram.Histogram.class, l.loadClass("org.HdrHistogram.Histogram"), "HdrHistogram 2.1.12");
      Class<?> jedis = l.loadClass("redis.clients.jedis.Jedis");
      assertSame(l, jedis.getClassLoader(), "the binding's own copy of a library wins over the bundle's");
      assertNotEquals(redis.clients.jedis.Jedis.class, jedis);
      assertSame(String.class, l.loadClass("java.lang.String"));
      assertSame(l, l.loadClass("userdep.Rule").getClassLoader());
      assertTrue(l.getResource("site/ycsb/Status.class").toString().contains("core-0.17.0"),
          "" + l.getResource("site/ycsb/Status.class"));
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BindingClassLoader.urlsOf(lib + "," + dir.resolve("missing.jar")));
    assertTrue(e.getMessage().startsWith("fleetbench.binding.classpath: '" + dir.resolve("missing.jar")), e.getMessage());
  }

  @Test
  void aSecretReachesTheBindingAsPropertiesInMemoryOnly() throws Exception {
    Properties p = new Properties();
    p.setProperty("userdb.host", "10.0.0.5");
    p.setProperty("userdb.password", "placeholder");
    Properties merged = IsolatedDb.withSecret(p, "userdb.password=s3cr\\=t\nuserdb.user=bench\n");
    assertEquals("s3cr=t", merged.getProperty("userdb.password"));
    assertEquals("bench", merged.getProperty("userdb.user"));
    assertEquals("10.0.0.5", merged.getProperty("userdb.host"));
    assertEquals("placeholder", p.getProperty("userdb.password"), "YCSB's own properties are not changed");
    assertSame(p, IsolatedDb.withSecret(p, null));
    DBException bad = assertThrows(DBException.class, () -> IsolatedDb.withSecret(p, "k=\\uZZZZ"));
    assertFalse(bad.getMessage().contains("ZZZZ"), bad.getMessage());
  }

  @Test
  void launcherRewritesDbToTheIsolatingBridge() throws Exception {
    String[] args = {"-t", "-db", "userdb.MapDb", "-p", "fleetbench.binding.classpath=" + lib};
    List<String> out = Arrays.asList(Launcher.rewrite(args));
    assertEquals(List.of("-p", "fleetbench.binding.db=userdb.MapDb", "-p", "db=dev.fleetbench.ycsb.IsolatedDb"),
        out.subList(args.length, out.size()));
    String[] plain = {"-t", "-db", "userdb.MapDb"};
    assertEquals(List.of(plain), Arrays.asList(Launcher.rewrite(plain)), "no binding classpath: unchanged");
  }

  @Test
  void ycsbRunsAUserBindingEndToEndAndCountsItsFailuresFromReturnLines() throws Exception {
    List<String> run = new ArrayList<>(List.of("-t", "-s", "-db", "userdb.MapDb"));
    run.addAll(props("fleetbench.binding.classpath", lib.toString(), "workload", "site.ycsb.workloads.CoreWorkload",
        "recordcount", "1000", "operationcount", "600", "threadcount", "2", "readproportion", "0.5",
        "updateproportion", "0.5", "fieldcount", "2", "exporter",
        "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "exportfile", dir + "/run.json"));
    String stderr = YcsbClientEndToEndTest.run(dir, Launcher.class.getName(), "user", run);

    assertFalse(stderr.contains("IMPOSTOR-LOADED"), stderr);
    assertTrue(stderr.contains("DB-LOADER=fleetbench-binding"), stderr);
    assertTrue(stderr.contains("CONTEXT-LOADER=fleetbench-binding"), stderr);
    assertTrue(stderr.contains("STATUS-FROM-APP=true"), stderr);
    Matcher hdr = Pattern.compile("HDR-FROM=(\\S+)").matcher(stderr);
    assertTrue(hdr.find() && hdr.group(1).endsWith("HdrHistogram-2.1.12.jar"), stderr);

    Map<String, Map<String, Double>> s = summary(dir.resolve("run.json"));
    long refused = 0;
    Matcher m = Pattern.compile("REFUSED=(\\d+)").matcher(stderr);
    while (m.find()) {
      refused = Math.max(refused, Long.parseLong(m.group(1))); // the last thread's cleanup sees the total
    }
    long updates = value(s, "UPDATE", "Return=OK") + value(s, "UPDATE", "Return=SERVICE_UNAVAILABLE");
    assertTrue(refused > 0, "some updates refused: " + s.get("UPDATE"));
    assertEquals(refused, value(s, "UPDATE", "Return=SERVICE_UNAVAILABLE"), "YCSB's Return= count = the DB's own");
    assertEquals(refused, value(s, "UPDATE-FAILED", "Operations"));
    assertEquals(600, updates + value(s, "READ", "Return=OK"));
  }
}
