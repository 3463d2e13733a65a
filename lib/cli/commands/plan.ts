import type { Command } from 'commander';
import { planRun, type Plan } from '../../core/plan';
import { InputError } from '../../core/common/errors';
import { budgetIssues } from '../../core/cost/estimate';
import { loadSpecFile, printWarnings } from '../spec-file';
import { table } from '../table';
import { planPriceBook } from '../price-book';
import { priceBookLine, priceBookWarnings } from '../../core/cost/book-choice';
import { isBuiltInBook } from '../../core/cost/book';
import { DEFAULT_RESULTS_DIR } from './query';

export function register(program: Command): void {
  program
    .command('plan')
    .description('expand a run spec into cells, load ranges and loader sizing')
    .argument('<spec>', 'run spec JSON file')
    .option('--json', 'print one JSON document on stdout')
    .option('--run-id <id>', 'run id used in table names', 'plan')
    .option(
      '--prices <book>',
      "price book for the cost estimate (id or .json file); default: the newest for the spec's region",
    )
    .option(
      '--results <dir>',
      'local results directory whose prices/<region>/ holds refreshed books',
      DEFAULT_RESULTS_DIR,
    )
    .action((file: string, opts: { json?: boolean; runId: string; prices?: string; results: string }) => {
      const { spec, warnings } = loadSpecFile(file);
      const book = planPriceBook(spec.region, opts);
      const plan = planRun(spec, { runId: opts.runId, priceBook: book });
      // the budget cap: refuse a run whose estimate exceeds budget.maxUsd (exit 2)
      const overBudget = budgetIssues(spec, plan.estimate);
      if (overBudget.length) throw new InputError(overBudget);
      const allWarnings = [
        ...warnings,
        ...plan.warnings,
        ...priceBookWarnings(book, { region: spec.region, nowMs: Date.now() }),
      ];
      if (opts.json) {
        process.stdout.write(JSON.stringify({ ...plan, warnings: allWarnings }, null, 2) + '\n');
        return;
      }
      printWarnings(allWarnings);
      process.stdout.write(renderPlan(plan));
      process.stdout.write(
        `Prices: ${priceBookLine(book)}${isBuiltInBook(book) ? ', built in' : `, read from ${book.file}`}\n`,
      );
    });
}

export function renderPlan(plan: Plan): string {
  const lines: string[] = [];
  lines.push(
    `Plan for "${plan.specName}": ${plan.cells.length} cell(s), ${formatDuration(plan.cellSeconds)} of measurement`,
  );
  lines.push('');
  lines.push("Sizing (Little's Law: concurrency = ops/s × latency × headroom)");
  lines.push(
    table(
      [
        'target',
        'max ops/s',
        'latency ms',
        'headroom',
        'needed',
        'loaders',
        'proc/loader',
        'threads/proc',
        'threads',
        'vCPUs busy',
        'decided by',
      ],
      Object.entries(plan.sizing).map(([id, s]) => [
        id,
        s.maxTargetOpsPerSec.toLocaleString('en-US'),
        String(s.expectedLatencyMs),
        String(s.headroom),
        s.requiredConcurrency.toLocaleString('en-US'),
        String(s.loaders),
        String(s.processesPerLoader),
        String(s.threadsPerProcess),
        s.totalThreads.toLocaleString('en-US'),
        s.cpu ? s.cpu.cpusNeeded.toLocaleString('en-US', { maximumSignificantDigits: 3 }) : '–',
        s.decidedBy,
      ]),
    ),
  );
  lines.push(`Loader fleet: ${plan.fleet.loaders} × ${plan.fleet.instanceType}`);
  for (const [id, s] of Object.entries(plan.sizing)) {
    if (s.cpu)
      lines.push(
        `Loader CPU for ${id}: ${s.cpu.cpuMsPerOp.toFixed(4)} CPU-ms per op on ${s.cpu.instanceType} ` +
          `(per-vCPU factor ${s.cpu.perVcpuFactor}, ${s.cpu.basis}), ~${Math.round((s.cpu.cpusNeeded / (s.loaders * s.cpu.vcpus)) * 100)} % of ${s.loaders} loaders' vCPUs at ${s.maxTargetOpsPerSec.toLocaleString('en-US')} ops/s`,
      );
    else if (s.cpuNote) lines.push(`Loader CPU for ${id}: ${s.cpuNote}`);
  }
  lines.push('');
  if (plan.load) {
    lines.push(
      `Load phase: ${plan.load.recordCount.toLocaleString('en-US')} records into ${plan.load.targets.join(', ')} ` +
        `by ${plan.load.processes} process(es)`,
    );
  } else lines.push('Load phase: none');
  lines.push('');
  lines.push(
    table(
      [
        '#',
        'cell',
        'target',
        'distribution',
        'read',
        'update',
        'ops/s',
        'duration s',
        'warm-up s',
        'processes',
        'predicted',
      ],
      plan.cells.map((c) => [
        String(c.index + 1),
        c.id,
        c.target,
        c.distributionLabel,
        String(c.readProportion),
        String(c.updateProportion),
        c.targetOpsPerSec.toLocaleString('en-US'),
        String(c.durationSeconds),
        String(c.warmupSeconds),
        String(c.loaders * c.processesPerLoader),
        // the DynamoDB capacity model's steady-state attainment (docs/dynamodb-model.md)
        c.prediction
          ? `${(c.prediction.attainment * 100).toFixed(1)}%${c.prediction.limitedBy !== 'none' ? ` ${c.prediction.limitedBy}` : ''}`
          : '',
      ]),
    ),
  );
  lines.push(...searchLines(plan));
  const e = plan.estimate;
  lines.push('');
  lines.push(
    `Estimated cost of the run on AWS: $${e.totalUsd.toFixed(2)} (price book ${e.priceBook}, ${e.runHours} h)`,
  );
  for (const it of e.items) lines.push(`  $${it.usd.toFixed(2).padStart(10)}  ${it.label}`);
  if (e.attributed.length) {
    lines.push('Not billed by AWS (external services at the price the spec gives):');
    for (const it of e.attributed) lines.push(`  $${it.usd.toFixed(2).padStart(10)}  ${it.label}`);
  }
  return lines.join('\n') + '\n';
}

/** The SLO searches: worst-case probes (each planned at the upper bound: the estimate's worst case) and the model's limit. */
function searchLines(plan: Plan): string[] {
  if (!plan.searches?.length) return [];
  const f = (x: number | null) => (x === null ? '–' : x.toLocaleString('en-US'));
  const probeSeconds = plan.cells.find((c) => c.probe)?.durationSeconds ?? 0;
  return [
    '',
    "SLO searches (docs/slo-search.md): the cells above are each search's worst-case probes, costed at the upper bound",
    table(
      [
        'search',
        'worst-case probes',
        'worst-case measurement',
        'predicted limit ops/s',
        'predicted (local) ops/s',
      ],
      plan.searches.map((s) => [
        s.id,
        String(s.worstCaseProbes),
        formatDuration(s.worstCaseProbes * probeSeconds),
        f(s.predictedLimitOpsPerSec),
        f(s.localPredictedLimitOpsPerSec),
      ]),
    ),
  ];
}

export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}
