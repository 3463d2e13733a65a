// Writes test/fixtures/ycsb/slo-timeouts: the HDR interval logs YCSB 0.17.0 would write for the SLO verdict's
// worked example, with HdrHistogram 2.1.12's own HistogramLogWriter (as YCSB's OneMeasurementHdrHistogram does:
// comment, format version, StartTime, BaseTime set to it, legend, one interval per second).
//   100,000 reads over 10 one-second intervals; 99,500 succeed (98,500 at 2 ms, 1,000 at 8 ms: their P99.9 is
//   8 ms) and 500 fail after a 2-s timeout (READ-FAILED at 2,000 ms: error rate 0.5 %).
// Run by test/oracle/gen-slo-timeouts.sh.
import java.io.File;
import java.io.PrintStream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

public class GenSloTimeouts {
  static final long START_MS = 1795400000000L;

  static void log(File dir, String name, long[][] valueCounts) throws Exception {
    try (PrintStream out = new PrintStream(new File(dir, name + ".hdr"))) {
      HistogramLogWriter w = new HistogramLogWriter(out);
      w.outputComment("[Logging for: " + name + "]");
      w.outputLogFormatVersion();
      w.outputStartTime(START_MS);
      w.setBaseTime(START_MS);
      w.outputLegend();
      for (int i = 0; i < 10; i++) {
        Histogram h = new Histogram(3);
        for (long[] vc : valueCounts) h.recordValueWithCount(vc[0], vc[1]);
        h.setStartTimeStamp(START_MS + 500 + i * 1000L);
        h.setEndTimeStamp(START_MS + 1500 + i * 1000L);
        w.outputIntervalHistogram(h);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    File dir = new File(args[0]);
    dir.mkdirs();
    long[][] ok = {{2000, 9850}, {8000, 100}};
    long[][] failed = {{2000000, 50}};
    log(dir, "READ", ok);
    log(dir, "Intended-READ", ok);
    log(dir, "READ-FAILED", failed);
    log(dir, "Intended-READ-FAILED", failed);
  }
}
