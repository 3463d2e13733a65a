package dev.fleetbench.oracle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import site.ycsb.generator.HotspotIntegerGenerator;
import site.ycsb.generator.NumberGenerator;
import site.ycsb.generator.ScrambledZipfianGenerator;
import site.ycsb.generator.UniformLongGenerator;

/**
 * Draws keynums with YCSB 0.17.0's own key choosers, built as CoreWorkload builds them for the run
 * phase (insertstart 0, insertcount = recordcount, no inserts), including CoreWorkload.nextKeynum's
 * re-draw of a keynum above the last loaded one. Prints the `top` most drawn keynums and their
 * counts as JSON: {"samples": n, "top": [[keynum, count], ...]}.
 *
 * <p>Usage: KeyChooser zipfian|uniform|hotspot recordcount samples top [hotsetfraction hotopnfraction]
 */
public final class KeyChooser {
  private KeyChooser() {}

  public static void main(String[] args) {
    String dist = args[0];
    long records = Long.parseLong(args[1]);
    long samples = Long.parseLong(args[2]);
    int top = Integer.parseInt(args[3]);
    NumberGenerator gen;
    switch (dist) {
      case "zipfian":
        gen = new ScrambledZipfianGenerator(0, records);
        break;
      case "uniform":
        gen = new UniformLongGenerator(0, records - 1);
        break;
      case "hotspot":
        gen = new HotspotIntegerGenerator(0, records - 1, Double.parseDouble(args[4]), Double.parseDouble(args[5]));
        break;
      default:
        throw new IllegalArgumentException("unknown distribution " + dist);
    }
    Map<Long, long[]> counts = new HashMap<>();
    for (long i = 0; i < samples; i++) {
      long k;
      do {
        k = gen.nextValue().longValue();
      } while (k > records - 1);
      counts.computeIfAbsent(k, x -> new long[1])[0]++;
    }
    List<Map.Entry<Long, long[]>> all = new ArrayList<>(counts.entrySet());
    all.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
    StringBuilder out = new StringBuilder("{\"samples\":").append(samples).append(",\"top\":[");
    for (int i = 0; i < Math.min(top, all.size()); i++) {
      if (i > 0) out.append(',');
      out.append('[').append(all.get(i).getKey()).append(',').append(all.get(i).getValue()[0]).append(']');
    }
    System.out.println(out.append("]}"));
  }
}
