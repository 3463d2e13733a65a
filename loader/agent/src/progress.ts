/**
 * Live progress of one agent: each interval, the summed ops/s of its processes and, per operation,
 * the p99 of the last interval. YCSB's status line gives each process's own interval p99; the
 * agent reports the worst of them (`p99MaxUs`), which bounds the merged p99 from above. Exact
 * merged percentiles come later from the HDR logs (the aggregator), never from these lines.
 */
import type { MetricDatum } from '../../../lib/core/common/ports';
import { emfDocument } from '../../../lib/aws/emf-metrics';
import type { StatusLine } from './ycsb-output';

export interface ProgressContext {
  runId: string;
  cellId: string;
  loaderIndex: number;
  phase: 'load' | 'run';
  processCount: number;
}

export interface ProgressReport {
  timestampMs: number;
  /** Seconds since the first process started. */
  elapsedSeconds: number;
  /** Processes whose status line contributed to this report. */
  reporting: number;
  running: number;
  opsPerSec: number;
  totalOps: number;
  ops: Record<string, { count: number; p99MaxUs?: number }>;
}

export class ProgressTracker {
  private fresh = new Map<number, StatusLine>();
  private totals = new Map<number, number>();

  constructor(readonly startMs: number) {}

  /** Records a status line of process `proc`; true when it is that process's first line since the last report. */
  add(proc: number, line: StatusLine): boolean {
    const first = !this.fresh.has(proc);
    this.fresh.set(proc, line);
    this.totals.set(proc, line.totalOps);
    return first;
  }

  freshCount(): number {
    return this.fresh.size;
  }

  /** Builds a report from the lines received since the previous one, and starts a new interval. */
  take(nowMs: number, running: number): ProgressReport {
    const report: ProgressReport = {
      timestampMs: nowMs,
      elapsedSeconds: Math.round((nowMs - this.startMs) / 100) / 10,
      reporting: this.fresh.size,
      running,
      opsPerSec: 0,
      totalOps: [...this.totals.values()].reduce((a, b) => a + b, 0),
      ops: {},
    };
    for (const line of this.fresh.values()) {
      if (line.currentOpsPerSec !== undefined && Number.isFinite(line.currentOpsPerSec)) {
        report.opsPerSec += line.currentOpsPerSec;
      }
      for (const [name, op] of Object.entries(line.ops)) {
        const agg = (report.ops[name] ??= { count: 0 });
        agg.count += op.count;
        if (op.count > 0 && op.p99Us !== undefined && Number.isFinite(op.p99Us)) {
          agg.p99MaxUs = Math.max(agg.p99MaxUs ?? 0, op.p99Us);
        }
      }
    }
    report.opsPerSec = Math.round(report.opsPerSec * 100) / 100;
    this.fresh.clear();
    return report;
  }
}

/** One plain line for a terminal or a log file. */
export function formatPlain(ctx: ProgressContext, r: ProgressReport): string {
  const ops = Object.entries(r.ops)
    .filter(([name]) => !name.startsWith('Intended-') && name !== 'CLEANUP')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, o]) => `${name} ${o.count} p99<=${o.p99MaxUs ?? '-'}us`)
    .join(', ');
  return (
    `[progress] run=${ctx.runId} cell=${ctx.cellId} loader=${ctx.loaderIndex} phase=${ctx.phase} ` +
    `t=${r.elapsedSeconds}s procs=${r.reporting}/${r.running} ops/s=${r.opsPerSec} total=${r.totalOps}` +
    (ops ? ` | ${ops}` : '')
  );
}

/**
 * The live progress of one loader as CloudWatch metrics (namespace Fleetbench, which the loader role
 * may write to): LoaderOpsPerSecond and LoaderP99Us_<op> by RunId, CellId and Phase. The agent puts
 * them with PutMetricData: EMF printed on stdout would only reach the Run Command output, which
 * CloudWatch never reads as metrics.
 */
export function progressMetrics(
  ctx: ProgressContext,
  r: ProgressReport,
): { dimensions: Record<string, string>; data: MetricDatum[] } {
  const data: MetricDatum[] = [{ name: 'LoaderOpsPerSecond', value: r.opsPerSec, unit: 'Count/Second' }];
  for (const [name, o] of Object.entries(r.ops).sort(([a], [b]) => a.localeCompare(b))) {
    if (name === 'CLEANUP' || o.p99MaxUs === undefined) continue;
    data.push({ name: `LoaderP99Us_${name}`, value: o.p99MaxUs, unit: 'Microseconds' });
  }
  return { dimensions: { RunId: ctx.runId, CellId: ctx.cellId, Phase: ctx.phase }, data };
}

/**
 * The same metrics (progressMetrics) as one CloudWatch Embedded Metric Format document for stdout (`--progress emf`):
 * for a log pipeline that reads EMF. On a loader nothing does (Run Command's output is not one): the stack's document
 * uses `cloudwatch` (PutMetricData).
 */
export function formatEmf(ctx: ProgressContext, r: ProgressReport): string {
  return emfDocument({
    ...progressMetrics(ctx, r),
    timestampMs: r.timestampMs,
    properties: { Loader: String(ctx.loaderIndex), ProcessesReporting: r.reporting, TotalOps: r.totalOps },
  });
}
