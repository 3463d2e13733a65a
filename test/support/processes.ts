import { execFileSync } from 'node:child_process';

/** Whether a process id is still alive (signal 0 probes without signalling). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Java processes whose command line mentions `marker` (e.g. a results directory YCSB writes into). */
export function strayJvms(marker: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', marker], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes('java') && !l.includes('pgrep'));
  } catch {
    return [];
  }
}
