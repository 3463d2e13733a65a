/**
 * The report's view of how the targets were measured (`execution`, issue #33): one after another, or side by side
 * with each target on its own loader group. Per target: its kind, its loaders, its cells and the span of their
 * measured windows; for the run, how long cells of two or more targets were measured at the same time (their figures
 * then share the account, the region and the network, but not the loaders).
 */
import { escapeXml } from './svg';

export interface ReportTargetSpan {
  target: string;
  kind: string;
  /** the target's own loader group (parallel) or the run's fleet (sequential) */
  loaders: number;
  /** cells with a measured window */
  cells: number;
  firstMs: number | null;
  lastMs: number | null;
}

export interface ReportExecution {
  mode: 'sequential' | 'parallel';
  targets: ReportTargetSpan[];
  /** seconds during which measured windows of two or more targets overlapped */
  overlapSeconds: number;
}

export interface ExecutionInput {
  mode: 'sequential' | 'parallel';
  targets: readonly { id: string; kind: string }[];
  /** parallel runs: each target's group */
  loaderGroups?: readonly { target: string; loaders: number }[];
  fleetLoaders: number;
  /** the cells' measured windows */
  windows: readonly { target: string; startMs: number; endMs: number }[];
}

export function executionOf(x: ExecutionInput): ReportExecution {
  const targets = x.targets.map((t) => {
    const own = x.windows.filter((w) => w.target === t.id);
    return {
      target: t.id,
      kind: t.kind,
      loaders: x.loaderGroups?.find((g) => g.target === t.id)?.loaders ?? x.fleetLoaders,
      cells: own.length,
      firstMs: own.length ? Math.min(...own.map((w) => w.startMs)) : null,
      lastMs: own.length ? Math.max(...own.map((w) => w.endMs)) : null,
    };
  });
  return { mode: x.mode, targets, overlapSeconds: overlapMs(x.windows) / 1000 };
}

/** Time during which windows of at least two different targets are open (a sweep over their starts and ends). */
function overlapMs(windows: ExecutionInput['windows']): number {
  const events = windows
    .flatMap((w) => [
      { at: w.startMs, target: w.target, d: 1 },
      { at: w.endMs, target: w.target, d: -1 },
    ])
    // ends before starts at the same instant: windows that only touch do not overlap
    .sort((a, b) => a.at - b.at || a.d - b.d);
  const open = new Map<string, number>();
  let total = 0;
  let last = 0;
  for (const e of events) {
    if (open.size >= 2) total += e.at - last;
    last = e.at;
    const n = (open.get(e.target) ?? 0) + e.d;
    if (n > 0) open.set(e.target, n);
    else open.delete(e.target);
  }
  return total;
}

const when = (ms: number | null) => (ms === null ? '–' : new Date(ms).toISOString().replace('.000Z', 'Z'));

/** The "Targets" section: the execution, each target's loaders and measured span, the overlap. */
export function executionSection(e: ReportExecution | undefined): string[] {
  if (!e || e.targets.length < 2) return [];
  const rows = e.targets
    .map(
      (t) =>
        `<tr><td>${escapeXml(t.target)}</td><td>${escapeXml(t.kind)}</td><td>${t.loaders}</td><td>${t.cells}</td>` +
        `<td>${when(t.firstMs)}</td><td>${when(t.lastMs)}</td></tr>`,
    )
    .join('');
  const how =
    e.mode === 'parallel'
      ? `Measured side by side (<code>"execution": "parallel"</code>), each target on its own loader group: cells of ` +
        `two or more targets were measured at the same time for ${Math.round(e.overlapSeconds)} s. Their figures ` +
        `share the account, the region and the network; compare them with a sequential run when that matters.`
      : `Measured one target after another (<code>"execution": "sequential"</code>) on the run's loaders` +
        (e.overlapSeconds > 0
          ? `; yet windows of two targets overlapped for ${Math.round(e.overlapSeconds)} s.`
          : ': no two targets were measured at the same time.');
  return [
    '<h2>Targets</h2>',
    `<p>${how}</p>`,
    '<table><thead><tr><th>target</th><th>kind</th><th>loaders</th><th>cells</th><th>first window start</th>' +
      `<th>last window end</th></tr></thead><tbody>${rows}</tbody></table>`,
  ];
}
