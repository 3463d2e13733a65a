/**
 * Test helper: builds the Java oracle once (mvn, guarded by a lock directory so parallel jest workers
 * and other test files wait for one build) and runs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ORACLE_DIR = __dirname;
const TARGET = path.join(ORACLE_DIR, 'target');
const LOCK = path.join(ORACLE_DIR, '.build.lock');
const MARK = path.join(TARGET, '.built');

function sourcesMtime(): number {
  let newest = fs.statSync(path.join(ORACLE_DIR, 'pom.xml')).mtimeMs;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  walk(path.join(ORACLE_DIR, 'src'));
  return newest;
}

function upToDate(): boolean {
  return fs.existsSync(MARK) && fs.statSync(MARK).mtimeMs >= sourcesMtime();
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds test/oracle with `mvn -q -B package` unless it is up to date. */
export function ensureOracleBuilt(): void {
  if (upToDate()) return;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch {
      // another worker is building; a lock older than 10 minutes is stale
      try {
        if (Date.now() - fs.statSync(LOCK).mtimeMs > 10 * 60_000) fs.rmdirSync(LOCK);
      } catch {
        /* gone meanwhile */
      }
      if (upToDate()) return;
      if (Date.now() > deadline) throw new Error('timed out waiting for the oracle build lock');
      sleep(500);
    }
  }
  try {
    if (upToDate()) return;
    execFileSync(
      'mvn',
      ['-q', '-B', '--strict-checksums', '-f', path.join(ORACLE_DIR, 'pom.xml'), 'package'],
      {
        stdio: 'inherit',
      },
    );
    fs.writeFileSync(MARK, new Date().toISOString());
  } finally {
    fs.rmdirSync(LOCK);
  }
}

export function oracleClasspath(): string {
  return [path.join(TARGET, 'classes'), path.join(TARGET, 'lib', '*')].join(path.delimiter);
}

/** Runs `Oracle <args>` on a small JVM; returns stdout. */
export function runOracle(args: string[], input?: string): string {
  return runOracleMain('dev.fleetbench.oracle.Oracle', args, input);
}

/** Runs one of the oracle's main classes (e.g. dev.fleetbench.oracle.KeyChooser) on a small JVM. */
export function runOracleMain(mainClass: string, args: string[], input?: string): string {
  ensureOracleBuilt();
  const r = spawnSync(
    'java',
    ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', oracleClasspath(), mainClass, ...args],
    { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`oracle ${args[0]} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

export interface OracleStats {
  count: number;
  min: number;
  max: number;
  mean: number;
  percentiles: Record<string, number>;
}

export interface OracleMerge {
  mergeMs: number;
  intervals: number;
  inWindow: number;
  ops: Record<string, OracleStats>;
  series: Record<string, Record<string, OracleStats>>;
}

export function oracleMerge(
  dir: string,
  opts: { fromMs: number; toMs: number; seriesMs?: number; percentiles: string[] },
): OracleMerge {
  const out = runOracle([
    'merge',
    '--from-ms',
    String(opts.fromMs),
    '--to-ms',
    String(opts.toMs),
    '--series-ms',
    String(opts.seriesMs ?? 10_000),
    '--percentiles',
    opts.percentiles.join(','),
    dir,
  ]);
  return JSON.parse(out) as OracleMerge;
}
