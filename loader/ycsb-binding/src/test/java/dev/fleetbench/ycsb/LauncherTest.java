package dev.fleetbench.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the launcher turns YCSB's target into the open-loop schedule, and the schedule's arrival times. */
class LauncherTest {
  @TempDir
  Path dir;

  @Test
  void targetFromAPropertyFileBecomesTheOpenLoopRate() throws Exception {
    Path f = dir.resolve("w.properties");
    Files.writeString(f, "target=1500\nworkload=site.ycsb.workloads.CoreWorkload\nthreadcount=16\n");
    String[] args = {"-db", "x.Y", "-s", "-P", f.toString(), "-t"};
    String[] out = Launcher.rewrite(args);
    assertArrayEquals(args, Arrays.copyOf(out, args.length), "the original arguments come first, unchanged");
    List<String> added = Arrays.asList(out).subList(args.length, out.length);
    assertEquals(List.of("-p", "target=0", "-p", "fleetbench.targetOpsPerSec=1500", "-p",
        "fleetbench.workload=site.ycsb.workloads.CoreWorkload", "-p",
        "workload=dev.fleetbench.ycsb.OpenLoopWorkload"), added);
  }

  @Test
  void commandLineWinsOverFilesAndPerThreadOrNoTargetIsPlainYcsb() throws Exception {
    Path f = dir.resolve("w.properties");
    Files.writeString(f, "target=1500\n");
    String[] perThread = {"-P", f.toString(), "-p", "fleetbench.schedule=per-thread", "-t"};
    assertArrayEquals(perThread, Launcher.rewrite(perThread));
    String[] noTarget = {"-P", f.toString(), "-p", "target=0", "-t"};
    assertArrayEquals(noTarget, Launcher.rewrite(noTarget));
    String[] flag = {"-P", f.toString(), "-target", "300", "-t"};
    assertTrue(String.join(" ", Launcher.rewrite(flag)).contains("fleetbench.targetOpsPerSec=300"));
    Properties merged = Launcher.merged(new String[] {"-P", f.toString(), "-p", "target=7"});
    assertEquals("7", merged.getProperty("target"));
    assertThrows(IllegalArgumentException.class,
        () -> Launcher.rewrite(new String[] {"-P", f.toString(), "-p", "fleetbench.schedule=closed"}));
  }

  @Test
  void aQueryProportionInstallsTheQueryWorkloadInsideTheSchedule() throws Exception {
    String[] paced = {"-p", "workload=site.ycsb.workloads.CoreWorkload", "-p", "queryproportion=0.4", "-target",
        "100", "-t"};
    List<String> added = Arrays.asList(Launcher.rewrite(paced)).subList(paced.length, paced.length + 10);
    assertEquals(List.of("-p", "workload=dev.fleetbench.ycsb.QueryWorkload", "-p", "target=0", "-p",
        "fleetbench.targetOpsPerSec=100", "-p", "fleetbench.workload=dev.fleetbench.ycsb.QueryWorkload", "-p",
        "workload=dev.fleetbench.ycsb.OpenLoopWorkload"), added.subList(0, 10));
    String[] unpaced = {"-p", "queryproportion=1", "-t"};
    assertEquals(List.of("-p", "queryproportion=1", "-t", "-p", "workload=dev.fleetbench.ycsb.QueryWorkload"),
        Arrays.asList(Launcher.rewrite(unpaced)));
    String[] none = {"-p", "queryproportion=0", "-t"};
    assertArrayEquals(none, Launcher.rewrite(none));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Launcher.rewrite(new String[] {"-p", "queryproportion=1.5"}));
    assertEquals("queryproportion: '1.5' is not a number from 0 to 1", e.getMessage());
    IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
        () -> Launcher.rewrite(new String[] {"-p", "queryproportion=0.5", "-p", "workload=x.MyWorkload"}));
    assertEquals("queryproportion: 0.5 needs YCSB's CoreWorkload (dev.fleetbench.ycsb.QueryWorkload adds the query "
        + "to it); workload is x.MyWorkload", other.getMessage());
  }

  @Test
  void constantArrivalsAreEvenlySpacedAndPoissonHasTheRateAsMean() {
    OpenLoopWorkload.Schedule c = new OpenLoopWorkload.Schedule(1000, false);
    long first = c.next();
    for (int k = 1; k <= 10; k++) {
      assertEquals(first + k * 1_000_000L, c.next(), 2, "slot " + k + " 1 ms apart");
    }
    OpenLoopWorkload.Schedule p = new OpenLoopWorkload.Schedule(1000, true);
    long p0 = p.next();
    int n = 200_000;
    long prev = p0;
    double sumSq = 0;
    long last = p0;
    for (int k = 0; k < n; k++) {
      last = p.next();
      double gap = (last - prev) / 1e6;
      sumSq += gap * gap;
      prev = last;
    }
    double mean = (last - p0) / 1e6 / n;
    assertEquals(1.0, mean, 0.02, "mean gap 1 ms at 1000/s");
    // exponential gaps: variance = mean^2, so E[gap^2] = 2 mean^2
    assertEquals(2.0, sumSq / n, 0.1, "second moment of exponential gaps");
  }
}
