/**
 * `fleetbench aggregate <dir> [--warmup-seconds N] [--cooldown-seconds N] [--duration-seconds N] [--target-ops N]
 * [--series] [--json]`: merges the HDR interval logs of every `loader-<i>/proc-<j>/` under <dir> (one cell) and prints
 * per-operation latency (µs), throughput, status counts, good ops/s, attainment and what is missing. Each process's
 * window ends where its schedule did (`durationSeconds`, as AggregateCell takes it from the plan): given, or read
 * from the `maxexecutiontime` of the `process.properties` the agent uploads beside each process's logs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { readCellDir } from '../../local/cell-dir';
import { aggregateCell, CellAggregate } from '../../core/results/aggregate';

interface AggregateFlags {
  warmupSeconds?: string;
  durationSeconds?: string;
  cooldownSeconds?: string;
  targetOps?: string;
  series?: boolean;
  json?: boolean;
}

function number(flag: string, v: string | undefined, positive: boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (positive ? n <= 0 : n < 0)) {
    throw new InputError([
      { path: flag, message: `expected a number ${positive ? '> 0' : '>= 0'}, got "${v}"` },
    ]);
  }
  return n;
}

/**
 * The run phase's length as the processes were given it: `maxexecutiontime` of every `process.properties` under the
 * cell's directory (the agent's upload), when they all have one and agree; undefined when none has it.
 */
export function scheduledSeconds(dir: string): number | undefined {
  const found = new Set<number>();
  let without = 0;
  for (const l of readdirSync(dir).filter((n) => /^loader-\d+$/.test(n)))
    for (const p of readdirSync(path.join(dir, l)).filter((n) => /^proc-\d+$/.test(n))) {
      const file = path.join(dir, l, p, 'process.properties');
      const m = existsSync(file)
        ? /^maxexecutiontime\s*[=:]\s*(\d+)\s*$/m.exec(readFileSync(file, 'utf8'))
        : null;
      if (m) found.add(Number(m[1]));
      else without++;
    }
  if (!found.size) return undefined;
  if (found.size > 1 || without)
    throw new InputError([
      {
        path: '--duration-seconds',
        message: `the processes' maxexecutiontime differ or are missing (${[...found].join(', ')}${without ? `, ${without} without` : ''}): give the run phase's length`,
      },
    ]);
  return [...found][0];
}

/** The `--json` document. */
export function aggregateDocument(agg: CellAggregate, withSeries = false): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    ops: agg.ops,
    statuses: agg.statuses,
    goodOpsPerSec: agg.goodOpsPerSec,
    ...(agg.attainment !== null ? { attainment: agg.attainment } : {}),
    incomplete: agg.incomplete,
    achievedOpsPerSec: agg.achievedOpsPerSec,
    errorRate: agg.errorRate,
    throttledAttempts: agg.throttledAttempts,
    window: agg.window,
    processes: agg.processes.length,
    loaders: agg.loaders,
  };
  if (withSeries) doc.series = agg.series;
  return doc;
}

function fmt(v: number, digits = 0): string {
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function table(agg: CellAggregate): string {
  const lines: string[] = [];
  const w = agg.window;
  lines.push(
    `window: ${new Date(w.startMs).toISOString()} .. ${new Date(w.endMs).toISOString()} ` +
      `(warm-up ${w.warmupSeconds} s, cool-down ${w.cooldownSeconds} s), measured ${fmt(w.measuredSeconds, 3)} s, ` +
      `${agg.processes.length} processes on ${agg.loaders} loaders`,
  );
  const head = ['op', 'count', 'ops/s', 'mean', 'min', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'p99.99', 'max'];
  const rows = Object.entries(agg.ops).map(([name, s]) => [
    name,
    fmt(s.count),
    fmt(s.throughput, 1),
    fmt(s.mean, 1),
    ...[s.min, s.p50, s.p90, s.p95, s.p99, s.p999, s.p9999, s.max].map((x) => fmt(x)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]): string =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  lines.push('latency in µs', line(head), ...rows.map(line));
  for (const [op, per] of Object.entries(agg.statuses)) {
    lines.push(
      `${op} returns (whole run): ${Object.entries(per)
        .map(([s, n]) => `${s}=${n}`)
        .join(' ')}`,
    );
  }
  lines.push(
    `good ops/s ${fmt(agg.goodOpsPerSec, 1)}, achieved ops/s ${fmt(agg.achievedOpsPerSec, 1)}, ` +
      `error rate ${agg.errorRate === null ? 'n/a' : fmt(agg.errorRate * 100, 3) + ' %'}, ` +
      `throttled attempts ${agg.throttledAttempts}` +
      (agg.attainment !== null
        ? `, attainment ${fmt(agg.attainment * 100, 1)} % of ${agg.targetOpsPerSec} ops/s`
        : ''),
  );
  lines.push(agg.incomplete.length ? `INCOMPLETE:\n  ${agg.incomplete.join('\n  ')}` : 'complete');
  return lines.join('\n') + '\n';
}

export function register(program: Command): void {
  program
    .command('aggregate')
    .description(
      'merge the HDR interval logs of every loader-<i>/proc-<j>/ of one cell into exact percentiles',
    )
    .argument('<dir>', 'directory of loader-<i>/proc-<j>/ outputs (*.hdr, summary.json, manifest.json)')
    .option('--warmup-seconds <n>', 'exclude intervals starting in the first N seconds of the cell', '0')
    .option('--cooldown-seconds <n>', 'exclude intervals starting in the last N seconds of the cell', '0')
    .option(
      '--duration-seconds <n>',
      "the run phase's length: each process's window ends there, not after the drain (default: maxexecutiontime of the processes' process.properties)",
    )
    .option('--target-ops <n>', "the cell's throughput target in ops/s (gives attainment)")
    .option('--series', 'include the 10 s time series in the JSON document')
    .option('--json', 'print one JSON document')
    .action(async (dir: string, flags: AggregateFlags) => {
      const targetOpsPerSec = number('--target-ops', flags.targetOps, true);
      const cell = await readCellDir(dir);
      const durationSeconds =
        number('--duration-seconds', flags.durationSeconds, true) ?? scheduledSeconds(dir);
      const agg = await aggregateCell(cell, {
        warmupSeconds: number('--warmup-seconds', flags.warmupSeconds, false),
        cooldownSeconds: number('--cooldown-seconds', flags.cooldownSeconds, false),
        ...(durationSeconds !== undefined ? { durationSeconds } : {}),
        ...(targetOpsPerSec !== undefined ? { targetOpsPerSec } : {}),
      });
      if (durationSeconds === undefined)
        process.stderr.write(
          'note: no run-phase length (no --duration-seconds, no maxexecutiontime in process.properties): ' +
            "each process's window runs to its last interval, the drain after its schedule included\n",
        );
      if (flags.json)
        process.stdout.write(JSON.stringify(aggregateDocument(agg, flags.series), null, 2) + '\n');
      else process.stdout.write(table(agg));
    });
}
