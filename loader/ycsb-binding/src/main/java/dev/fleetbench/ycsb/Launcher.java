package dev.fleetbench.ycsb;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * {@code site.ycsb.Client} with fleetbench's pacing: same command line, same output. With a target
 * ({@code target} / {@code -target}) and {@code fleetbench.schedule=open} (the default) it runs YCSB unthrottled
 * with {@link OpenLoopWorkload} around the configured workload, so the process follows one open-loop schedule
 * of {@code target} ops/s; with {@code fleetbench.schedule=per-thread} it is exactly YCSB (each thread paced to
 * target/threadcount, as in published YCSB runs). With {@code fleetbench.binding.classpath} it runs a user's
 * binding from those jars in its own class loader (see {@link IsolatedDb}).
 */
public final class Launcher {
  public static final String SCHEDULE = "fleetbench.schedule";
  /**
   * A user's YCSB binding: jar files and/or directories of jars (comma separated), loaded in their own class
   * loader ({@link BindingClassLoader}); {@code db} / {@code -db} names its {@code site.ycsb.DB} class.
   */
  public static final String BINDING_CLASSPATH = "fleetbench.binding.classpath";

  private Launcher() {}

  public static void main(String[] args) throws Exception {
    site.ycsb.Client.main(rewrite(args));
  }

  /** The arguments site.ycsb.Client gets: unchanged, or with fleetbench's properties appended (they win). */
  static String[] rewrite(String[] args) throws IOException {
    Properties p = merged(args);
    List<String> extra = new ArrayList<>();
    isolateBinding(p, extra);
    queries(p, extra);
    openLoop(p, extra);
    if (extra.isEmpty()) {
      return args;
    }
    List<String> out = new ArrayList<>(Arrays.asList(args));
    for (String kv : extra) {
      out.add("-p");
      out.add(kv);
    }
    return out.toArray(new String[0]);
  }

  /**
   * With {@code fleetbench.binding.classpath}: YCSB loads {@link IsolatedDb}, which loads the named {@code db}
   * class from those jars in its own class loader ({@link BindingClassLoader}). The entries are checked here,
   * before YCSB starts.
   */
  private static void isolateBinding(Properties p, List<String> extra) {
    String classpath = p.getProperty(BINDING_CLASSPATH, "").trim();
    String db = p.getProperty("db", "site.ycsb.BasicDB").trim();
    if (classpath.isEmpty() || db.equals(IsolatedDb.class.getName())) {
      return;
    }
    BindingClassLoader.urlsOf(classpath);
    extra.add(IsolatedDb.DB_CLASS + "=" + db);
    extra.add("db=" + IsolatedDb.class.getName());
  }

  /** With {@code queryproportion} above 0 and YCSB's CoreWorkload: {@link QueryWorkload} (CoreWorkload + query). */
  private static void queries(Properties p, List<String> extra) {
    String q = p.getProperty(QueryWorkload.QUERY_PROPORTION, "0").trim();
    double proportion;
    try {
      proportion = QueryWorkload.proportion(q);
    } catch (site.ycsb.WorkloadException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    String workload = p.getProperty("workload", "site.ycsb.workloads.CoreWorkload").trim();
    if (proportion == 0 || workload.equals(QueryWorkload.class.getName())) {
      return;
    }
    if (!workload.equals("site.ycsb.workloads.CoreWorkload")) {
      throw new IllegalArgumentException(QueryWorkload.QUERY_PROPORTION + ": " + q + " needs YCSB's CoreWorkload "
          + "(dev.fleetbench.ycsb.QueryWorkload adds the query to it); workload is " + workload);
    }
    p.setProperty("workload", QueryWorkload.class.getName());
    extra.add("workload=" + QueryWorkload.class.getName());
  }

  private static void openLoop(Properties p, List<String> extra) {
    String schedule = p.getProperty(SCHEDULE, "open").trim();
    if (!schedule.equals("open") && !schedule.equals("per-thread")) {
      throw new IllegalArgumentException(SCHEDULE + ": '" + schedule + "' is not open or per-thread");
    }
    String target = p.getProperty("target", "0").trim();
    String workload = p.getProperty("workload", "site.ycsb.workloads.CoreWorkload").trim();
    if (schedule.equals("per-thread") || Double.parseDouble(target) <= 0
        || workload.equals(OpenLoopWorkload.class.getName())) {
      return;
    }
    extra.addAll(List.of("target=0", OpenLoopWorkload.RATE + "=" + target, OpenLoopWorkload.INNER + "=" + workload,
        "workload=" + OpenLoopWorkload.class.getName()));
  }

  /** The properties YCSB will see: -P files in order, then -p and -target (the command line wins). */
  static Properties merged(String[] args) throws IOException {
    Properties files = new Properties();
    Properties cmd = new Properties();
    for (int i = 0; i + 1 < args.length; i++) {
      switch (args[i]) {
        case "-P":
          try (InputStream in = new FileInputStream(args[++i])) {
            files.load(in);
          }
          break;
        case "-p": {
          String kv = args[++i];
          int eq = kv.indexOf('=');
          if (eq > 0) {
            cmd.setProperty(kv.substring(0, eq), kv.substring(eq + 1));
          }
          break;
        }
        case "-target":
          cmd.setProperty("target", args[++i]);
          break;
        case "-db":
          cmd.setProperty("db", args[++i]);
          break;
        default:
          break;
      }
    }
    files.putAll(cmd);
    return files;
  }
}
