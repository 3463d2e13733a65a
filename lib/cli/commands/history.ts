/**
 * `fleetbench history <spec> --metric <id> --dir <results> [--target <id>] [--cell <id>] [--json]`:
 * the metric's series per target × cell, run by run, with Hunter-style markers where a change began.
 */
import { Command } from 'commander';
import { InputError } from '../../core/common/errors';
import { METRICS, analyzeSeries, buildSeries, metricDef } from '../../core/regression';
import { DEFAULT_RESULTS_DIR } from './query';
import { historyDir, loadTables } from './regressions';

interface HistoryOptions {
  dir?: string;
  local?: boolean;
  results?: string;
  metric: string;
  target?: string;
  cell?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('history <spec>')
    .description("Print a metric's history per target and cell, with change points marked")
    .option('--dir <path>', 'results root or directory of cells rows (JSON lines)')
    .option('--local', 'read the local results directory (what `fleetbench run --local` writes)')
    .option('--results <dir>', `local results directory for --local (default ${DEFAULT_RESULTS_DIR})`)
    .requiredOption('--metric <id>', `one of ${METRICS.map((m) => m.id).join(', ')}`)
    .option('--target <id>', 'only this target')
    .option('--cell <id>', 'only this cell')
    .option('--json', 'print JSON')
    .action((spec: string, o: HistoryOptions) => {
      if (!metricDef(o.metric)) {
        throw new InputError([
          {
            path: '--metric',
            message: `unknown metric "${o.metric}"; expected one of ${METRICS.map((m) => m.id).join(', ')}`,
          },
        ]);
      }
      const dir = historyDir(o);
      const { cells, runStarts } = loadTables(dir);
      const series = buildSeries(
        cells.map((c) => c.row),
        { spec, runStarts, metrics: [o.metric], where: (i) => cells[i].where },
      ).filter((s) => (!o.target || s.key.target === o.target) && (!o.cell || s.key.cell === o.cell));
      if (series.length === 0) {
        throw new InputError([
          { path: 'spec', message: `no cells rows for spec "${spec}" (with the given filters) in ${dir}` },
        ]);
      }
      const analyses = series.map((s) => analyzeSeries(s));
      if (o.json) {
        process.stdout.write(JSON.stringify(analyses, null, 2) + '\n');
        return;
      }
      const lines: string[] = [];
      for (const a of analyses) {
        lines.push(
          `${a.key.spec}/${a.key.target}/${a.key.cell} ${a.key.metric} (${a.unit}, ${a.better} is better)`,
        );
        a.points.forEach((p, i) => {
          const c = a.changes.find((x) => x.index === i);
          if (c) {
            const pct = `${c.forwardChange >= 0 ? '+' : ''}${(c.forwardChange * 100).toFixed(1)}%`;
            lines.push(`  ${'·'.repeat(40)}`);
            lines.push(
              `  ${pct.padStart(8)} ${c.kind}${c.confirmed ? '' : ' (unconfirmed)'}, p=${c.pValue.toExponential(1)}`,
            );
            lines.push(`  ${'·'.repeat(40)}`);
          }
          const when = new Date(p.timeMs).toISOString().replace('T', ' ').slice(0, 19);
          const value = p.value === null ? '—' : String(p.value);
          const mark = i === a.points.length - 1 && a.newest.status === 'suspect' ? '  <- suspect' : '';
          lines.push(`  ${when}  ${p.runId.padEnd(28)} ${value.padStart(12)}${mark}`);
        });
      }
      process.stdout.write(lines.join('\n') + '\n');
    });
}
