package dev.fleetbench.ycsb;

import java.util.Map;
import java.util.TreeMap;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.MeasurementsExporter;

/** Collects what YCSB would export, as metric -> measurement -> value. */
public final class CapturingExporter implements MeasurementsExporter {
  public final Map<String, Map<String, Number>> rows = new TreeMap<>();

  public static CapturingExporter of(Measurements m) throws Exception {
    CapturingExporter e = new CapturingExporter();
    m.exportMeasurements(e);
    return e;
  }

  /** The number of recorded samples of a measurement, 0 if it was never recorded. */
  public long operations(String metric) {
    Map<String, Number> m = rows.get(metric);
    return m == null || m.get("Operations") == null ? 0 : m.get("Operations").longValue();
  }

  private void put(String metric, String measurement, Number v) {
    rows.computeIfAbsent(metric, k -> new TreeMap<>()).put(measurement, v);
  }

  @Override
  public void write(String metric, String measurement, int i) {
    put(metric, measurement, i);
  }

  @Override
  public void write(String metric, String measurement, long i) {
    put(metric, measurement, i);
  }

  @Override
  public void write(String metric, String measurement, double d) {
    put(metric, measurement, d);
  }

  @Override
  public void close() {}
}
