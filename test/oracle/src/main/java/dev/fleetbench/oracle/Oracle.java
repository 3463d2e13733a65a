package dev.fleetbench.oracle;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Test-only reference for the fleetbench aggregator, on HdrHistogram's own classes.
 *
 * <pre>
 * merge --from-ms A --to-ms B --series-ms S --percentiles 50,99.9,... DIR
 *     Every DIR/loader-*&#47;proc-*&#47;NAME.hdr, read with HistogramLogReader; an interval is in the
 *     window when A &lt;= its start timestamp (ms) &lt; B; in-window intervals of one NAME are added
 *     into a new Histogram(3) with Histogram.add. Series: every interval (window or not) is added to
 *     bucket floorDiv(start - A, S) of its NAME. Prints JSON to stdout.
 * write FILE START_MS     (stdin: "offsetMs lengthMs v[xN] v[xN] ..." per interval)
 *     Writes an interval log the way YCSB does (comment, version, StartTime, legend, intervals).
 * fleet DIR LOADERS PROCS INTERVALS SEED
 *     Writes a fleet-sized input: READ, UPDATE, Intended-READ, Intended-UPDATE per process, 10 s
 *     intervals, plus summary.json and manifest.json.
 * </pre>
 */
public final class Oracle {
  private static final Pattern IGNORED =
      Pattern.compile("^(Intended-)?(CLEANUP(-.*)?|THREAD_COUNT|USED_MEM_MB|SYS_LOAD_AVG|GCS|GCS_TIME)$");

  private Oracle() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage();
    }
    switch (args[0]) {
      case "merge":
        merge(args);
        break;
      case "write":
        write(args[1], Long.parseLong(args[2]));
        break;
      case "fleet":
        fleet(Path.of(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
            Long.parseLong(args[5]));
        break;
      default:
        usage();
    }
  }

  private static void usage() {
    System.err.println("usage: Oracle merge|write|fleet ...");
    System.exit(2);
  }

  // ---------------------------------------------------------------- merge

  private static void merge(String[] args) throws IOException {
    long from = Long.MIN_VALUE;
    long to = Long.MAX_VALUE;
    long seriesMs = 10_000;
    String[] pcts = {"50", "90", "95", "99", "99.9", "99.99"};
    String dir = null;
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--from-ms": from = Long.parseLong(args[++i]); break;
        case "--to-ms": to = Long.parseLong(args[++i]); break;
        case "--series-ms": seriesMs = Long.parseLong(args[++i]); break;
        case "--percentiles": pcts = args[++i].split(","); break;
        default: dir = args[i];
      }
    }
    long t0 = System.nanoTime();
    Map<String, Histogram> total = new TreeMap<>();
    Map<String, TreeMap<Long, Histogram>> series = new TreeMap<>();
    long intervals = 0;
    long inWindow = 0;
    for (File file : hdrFiles(new File(dir))) {
      String name = file.getName().substring(0, file.getName().length() - 4);
      if (IGNORED.matcher(name).matches()) {
        continue;
      }
      Histogram acc = total.computeIfAbsent(name, k -> new Histogram(3));
      TreeMap<Long, Histogram> ser = series.computeIfAbsent(name, k -> new TreeMap<>());
      HistogramLogReader reader = new HistogramLogReader(file);
      Histogram h;
      while ((h = (Histogram) reader.nextIntervalHistogram()) != null) {
        intervals++;
        long start = h.getStartTimeStamp();
        if (start >= from && start < to) {
          acc.add(h);
          inWindow++;
        }
        if (from != Long.MIN_VALUE) {
          ser.computeIfAbsent(Math.floorDiv(start - from, seriesMs), k -> new Histogram(3)).add(h);
        }
      }
      reader.close();
    }
    long mergeNanos = System.nanoTime() - t0;
    StringBuilder out = new StringBuilder();
    out.append("{\"mergeMs\":").append(mergeNanos / 1e6).append(",\"intervals\":").append(intervals)
        .append(",\"inWindow\":").append(inWindow).append(",\"ops\":{");
    boolean first = true;
    for (Map.Entry<String, Histogram> e : total.entrySet()) {
      out.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      stats(out, e.getValue(), pcts);
      first = false;
    }
    out.append("},\"series\":{");
    first = true;
    for (Map.Entry<String, TreeMap<Long, Histogram>> e : series.entrySet()) {
      out.append(first ? "" : ",").append('"').append(e.getKey()).append("\":{");
      boolean f2 = true;
      for (Map.Entry<Long, Histogram> b : e.getValue().entrySet()) {
        out.append(f2 ? "" : ",").append('"').append(b.getKey()).append("\":");
        stats(out, b.getValue(), new String[] {"50", "99"});
        f2 = false;
      }
      out.append('}');
      first = false;
    }
    out.append("}}\n");
    System.out.print(out);
  }

  private static void stats(StringBuilder out, Histogram h, String[] pcts) {
    out.append("{\"count\":").append(h.getTotalCount())
        .append(",\"min\":").append(h.getMinValue())
        .append(",\"max\":").append(h.getMaxValue())
        .append(",\"mean\":").append(Double.toString(h.getMean()))
        .append(",\"percentiles\":{");
    for (int i = 0; i < pcts.length; i++) {
      out.append(i == 0 ? "" : ",").append('"').append(pcts[i]).append("\":")
          .append(h.getValueAtPercentile(Double.parseDouble(pcts[i])));
    }
    out.append("}}");
  }

  private static List<File> hdrFiles(File dir) {
    List<File> files = new ArrayList<>();
    File[] loaders = dir.listFiles((d, n) -> n.startsWith("loader-"));
    if (loaders == null) {
      return files;
    }
    java.util.Arrays.sort(loaders);
    for (File loader : loaders) {
      File[] procs = loader.listFiles((d, n) -> n.startsWith("proc-"));
      if (procs == null) {
        continue;
      }
      java.util.Arrays.sort(procs);
      for (File proc : procs) {
        File[] logs = proc.listFiles((d, n) -> n.endsWith(".hdr"));
        if (logs != null) {
          java.util.Arrays.sort(logs);
          files.addAll(List.of(logs));
        }
      }
    }
    return files;
  }

  // ---------------------------------------------------------------- write

  private static HistogramLogWriter ycsbStyleWriter(PrintStream ps, String name, long startMs) {
    HistogramLogWriter w = new HistogramLogWriter(ps);
    w.outputComment("[Logging for: " + name + "]");
    w.outputLogFormatVersion();
    w.outputStartTime(startMs);
    w.setBaseTime(startMs);
    w.outputLegend();
    return w;
  }

  private static void write(String file, long startMs) throws IOException {
    String name = new File(file).getName().replaceFirst("\\.hdr$", "");
    try (PrintStream ps = new PrintStream(new FileOutputStream(file), false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      HistogramLogWriter w = ycsbStyleWriter(ps, name, startMs);
      String line;
      while ((line = in.readLine()) != null) {
        line = line.trim();
        if (line.isEmpty()) {
          continue;
        }
        String[] parts = line.split("\\s+");
        long offset = Long.parseLong(parts[0]);
        long length = Long.parseLong(parts[1]);
        Histogram h = new Histogram(3);
        for (int i = 2; i < parts.length; i++) {
          String[] vc = parts[i].split("x");
          h.recordValueWithCount(Long.parseLong(vc[0]), vc.length > 1 ? Long.parseLong(vc[1]) : 1);
        }
        h.setStartTimeStamp(startMs + offset);
        h.setEndTimeStamp(startMs + offset + length);
        w.outputIntervalHistogram(h);
      }
    }
  }

  // ---------------------------------------------------------------- fleet

  private static void fleet(Path dir, int loaders, int procs, int intervals, long seed) throws IOException {
    String[] names = {"READ", "UPDATE", "Intended-READ", "Intended-UPDATE"};
    Random rnd = new Random(seed);
    long base = 1_700_000_000_000L;
    int perInterval = 2_000;
    for (int l = 0; l < loaders; l++) {
      for (int p = 0; p < procs; p++) {
        Path pd = dir.resolve("loader-" + l).resolve("proc-" + p);
        Files.createDirectories(pd);
        long start = base + rnd.nextInt(2_000);
        long[] counts = new long[names.length];
        for (int n = 0; n < names.length; n++) {
          boolean intended = names[n].startsWith("Intended-");
          try (PrintStream ps = new PrintStream(new FileOutputStream(pd.resolve(names[n] + ".hdr").toFile()),
              false, StandardCharsets.UTF_8)) {
            HistogramLogWriter w = ycsbStyleWriter(ps, names[n], start);
            for (int i = 0; i < intervals; i++) {
              Histogram h = new Histogram(3);
              int c = perInterval + rnd.nextInt(200);
              for (int k = 0; k < c; k++) {
                // log-normal-ish service time around 1 ms with a long tail; intended adds queueing
                double v = Math.exp(6.9 + 0.6 * rnd.nextGaussian());
                if (rnd.nextInt(1000) == 0) {
                  v *= 40;
                }
                if (intended) {
                  v += rnd.nextInt(100) == 0 ? rnd.nextInt(200_000) : 0;
                }
                h.recordValue((long) v);
              }
              counts[n] += c;
              h.setStartTimeStamp(start + 10_000L * i + 3);
              h.setEndTimeStamp(start + 10_000L * (i + 1));
              w.outputIntervalHistogram(h);
            }
          }
        }
        long end = start + 10_000L * intervals + 500;
        StringBuilder s = new StringBuilder("[\n");
        s.append(String.format(Locale.US, "{\"metric\":\"OVERALL\",\"measurement\":\"RunTime(ms)\",\"value\":%d},\n",
            end - start));
        s.append(String.format(Locale.US,
            "{\"metric\":\"OVERALL\",\"measurement\":\"Throughput(ops/sec)\",\"value\":%s},\n",
            Double.toString(1000.0 * (counts[0] + counts[1]) / (end - start))));
        for (int n = 0; n < 2; n++) {
          s.append(String.format(Locale.US, "{\"metric\":\"%s\",\"measurement\":\"Operations\",\"value\":%d},\n",
              names[n], counts[n]));
          s.append(String.format(Locale.US, "{\"metric\":\"%s\",\"measurement\":\"Return=OK\",\"value\":%d}%s\n",
              names[n], counts[n], n == 1 ? "" : ","));
        }
        s.append("]\n");
        Files.writeString(pd.resolve("summary.json"), s);
        Files.writeString(pd.resolve("manifest.json"), String.format(Locale.US,
            "{\"loader\":%d,\"process\":%d,\"exitCode\":0,\"startMs\":%d,\"endMs\":%d,\"host\":\"bench\",\"phase\":\"run\"}\n",
            l, p, start - 1500, end));
      }
    }
  }
}
