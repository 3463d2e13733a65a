/** The agent's /proc CPU readers: parsing by hand-made text, and a real child process burning CPU. */
import { spawn } from 'node:child_process';
import { CpuWatch, machinePctBetween, parsePidStat, parseProcStat } from '../../../loader/agent/src/cpu';

const linux = process.platform === 'linux';

describe('/proc parsing (proc(5) layouts)', () => {
  it('machine utilisation = Δ(total − idle − iowait) ÷ Δtotal, cores from the cpuN lines', () => {
    const a = parseProcStat(
      'cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\ncpu1 50 0 25 400 25 0 0 0 0 0\nintr 1 2\n',
    )!;
    expect(a).toEqual({ busy: 150, total: 1000, cores: 2 });
    // +60 user, +40 system, +300 idle, +0 iowait: 100 busy of 400
    const b = parseProcStat('cpu  160 0 90 1100 50 0 0 0 0 0\ncpu0 1 1 1 1\ncpu1 1 1 1 1\n')!;
    expect(machinePctBetween(a, b)).toBe(25);
    expect(machinePctBetween(a, a)).toBeNull();
    expect(parseProcStat('intr 1 2\n')).toBeNull();
  });

  it('a process: utime + stime after the command name, which may hold spaces and parentheses', () => {
    // fields: pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const line = '4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 30 0 12345';
    expect(parsePidStat(line)).toBe(3000); // (250 + 50) ticks × 10 ms
    expect(parsePidStat('garbage')).toBeNull();
  });
});

(linux ? describe : describe.skip)('CpuWatch on this machine', () => {
  it("measures a child's CPU time as the child itself counts it (getrusage), and the machine around it", async () => {
    const watch = new CpuWatch(100);
    expect(watch.available).toBe(true);
    const started = Date.now();
    // burns 1.2 CPU-s of its own (not wall time: the machine may be shared), then prints its user+system µs
    const child = spawn(process.execPath, [
      '-e',
      'const t = () => { const u = process.cpuUsage(); return u.user + u.system; }; while (t() < 1.2e6) {} process.stdout.write(String(t()));',
    ]);
    watch.track(0, child.pid!);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve) => child.once('close', () => resolve()));
    watch.exited(0);
    const wall = Date.now() - started;
    watch.stop();
    const own = Number(out) / 1000;
    expect(own).toBeGreaterThanOrEqual(1200);
    const c = watch.manifestCpu(0, wall)!;
    // the last sample is at most one 100-ms period (plus a 10-ms tick) before the child's exit
    expect(c.processCpuMs).toBeGreaterThanOrEqual(own - 150);
    expect(c.processCpuMs).toBeLessThanOrEqual(own + 20);
    expect(c.processPct).toBeGreaterThan(0);
    expect(c.processPct).toBeLessThanOrEqual(100 * c.cores);
    expect(c.cores).toBeGreaterThanOrEqual(1);
    // the machine was at least as busy as the child made it
    const childShare = (c.processCpuMs! / ((c.windowEndMs - c.windowStartMs) * c.cores)) * 100;
    expect(c.machinePct).toBeGreaterThanOrEqual(childShare * 0.9);
    expect(c.machinePct).toBeLessThanOrEqual(100);
  });
});

it('without /proc nothing is measured (the manifest gets no cpu field)', () => {
  const watch = new CpuWatch(100, '/nonexistent-proc');
  watch.track(0, process.pid);
  watch.stop();
  expect(watch.available).toBe(false);
  expect(watch.manifestCpu(0, 1000)).toBeUndefined();
});
