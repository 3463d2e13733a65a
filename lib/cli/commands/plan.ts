import type { Command } from 'commander';
import { launchedLoaders, planRun, type Plan } from '../../core/plan';
import { InputError } from '../../core/common/errors';
import { budgetIssues } from '../../core/cost/estimate';
import { loadSpecFile, printWarnings } from '../spec-file';
import { table } from '../table';
import { choosePriceBook } from '../price-book';
import { DEFAULT_RESULTS_DIR } from './query';
import { planChecks } from './validate';

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
    .option(
      '--local',
      'check it for `fleetbench run --local` (no budget cap: a local run costs nothing on AWS)',
    )
    .action(
      async (
        file: string,
        opts: { json?: boolean; runId: string; prices?: string; results: string; local?: boolean },
      ) => {
        const { spec, warnings } = loadSpecFile(file);
        const chosen = await choosePriceBook(spec.region, opts);
        const plan = planRun(spec, { runId: opts.runId, priceBook: chosen.book });
        // the budget cap: refuse a run whose estimate exceeds budget.maxUsd (exit 2), with the book chosen here
        const overBudget = opts.local ? [] : budgetIssues(spec, plan.estimate);
        if (overBudget.length) throw new InputError(overBudget);
        // whatever else the Plan step would refuse (history budget, the agent's job check, the stack's rules)
        await planChecks(file, spec, { local: opts.local === true, resultsDir: opts.results, budget: false });
        const allWarnings = [...warnings, ...plan.warnings, ...chosen.warnings];
        if (opts.json) {
          process.stdout.write(JSON.stringify({ ...plan, warnings: allWarnings }, null, 2) + '\n');
          return;
        }
        printWarnings(allWarnings);
        process.stdout.write(renderPlan(plan));
        process.stdout.write(`${chosen.line}\n`);
      },
    );
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
  lines.push(
    plan.loaderGroups
      ? `Loader groups (parallel): ${plan.loaderGroups.map((g) => `${g.target} ${g.loaders}`).join(', ')} ` +
          `× ${plan.fleet.instanceType} (${launchedLoaders(plan)} in all)`
      : `Loader fleet: ${plan.fleet.loaders} × ${plan.fleet.instanceType}`,
  );
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
          ? `${c.unpaced ? `${Math.round(c.prediction.goodOpsPerSec).toLocaleString('en-US')} ops/s` : `${(c.prediction.attainment * 100).toFixed(1)}%`}${c.prediction.limitedBy !== 'none' ? ` ${c.prediction.limitedBy}` : ''}`
          : '',
      ]),
    ),
  );
  lines.push(...placementLines(plan), ...searchLines(plan), ...estimateLines(plan));
  lines.push(cellFailureLine(plan.onCellFailure));
  return lines.join('\n') + '\n';
}

/** One line per cell with N partition-key values: its read units' p10–p90 over random placements of the values. */
function placementLines(plan: Plan): string[] {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const range = (p: { p10: number; p90: number }) => `${n(p.p10)}–${n(p.p90)}`;
  const lines = plan.cells.flatMap((c) => {
    const s = c.prediction?.placementSpread;
    if (!s) return [];
    const step = s.afterFirstDoubling;
    return [
      `  ${c.id}: start ${range(s.start.consumedReadUnits)}` +
        (step ? `, after ${n(step.tSeconds.p50 / 60)} min ${range(step.consumedReadUnits)}` : '') +
        `, end ${range(s.final.consumedReadUnits)}; the model's hash: ${s.modelHottestValues} values on the hottest ` +
        `of ${s.partitions}, in ${n(s.modelHottestFraction * 100)} % of ${s.placements} placements`,
    ];
  });
  if (!lines.length) return [];
  const head =
    'Read units/s, p10–p90 over random placements of the partition-key values (docs/dynamodb-model.md):';
  return [head, ...lines];
}

/** The run's estimate, itemised, and what external services would cost beside it. */
function estimateLines(plan: Plan): string[] {
  const e = plan.estimate;
  const lines = [
    '',
    `Estimated cost of the run on AWS: $${e.totalUsd.toFixed(2)} (price book ${e.priceBook}, ${e.runHours} h)`,
  ];
  for (const it of e.items) lines.push(`  $${it.usd.toFixed(2).padStart(10)}  ${it.label}`);
  if (e.attributed.length) {
    lines.push('Not billed by AWS (external services at the price the spec gives):');
    for (const it of e.attributed) lines.push(`  $${it.usd.toFixed(2).padStart(10)}  ${it.label}`);
  }
  return [...lines, ...scheduleLines(plan)];
}

/** Both executions side by side, the chosen one marked, with each target's node-hours (lib/core/cost/schedule.ts). */
function scheduleLines(plan: Plan): string[] {
  const chosen = plan.estimate.execution;
  const order = [chosen, chosen === 'sequential' ? 'parallel' : 'sequential'] as const;
  const targets = Object.keys(plan.schedules.sequential.nodeHoursByTarget);
  return [
    '',
    'Schedules (the spec\'s "execution" chooses; sequential: one target at a time, each torn down after its cells; ' +
      'parallel: side by side, each with its own loaders)',
    table(
      ['execution', 'estimate', 'wall time', ...targets.map((t) => `${t} node-h`)],
      order.map((x) => {
        const s = plan.schedules[x];
        return [
          `${x}${x === chosen ? ' (chosen)' : ''}`,
          `$${s.totalUsd.toFixed(2)}`,
          `${s.runHours} h`,
          ...targets.map((t) => String(s.nodeHoursByTarget[t] ?? 0)),
        ];
      }),
    ),
  ];
}

/** The failure policy and what its retries can add at worst (lib/core/plan/cell-failure.ts). */
function cellFailureLine(f: Plan['onCellFailure']): string {
  if (f.policy === 'stop') return 'On a cell failure: stop (the run ends, torn down; no retries)';
  return (
    `On a cell failure: ${f.policy} (a cell runs at most ${f.attempts} times; up to ${f.retries} retries and ` +
    `${f.replacements} loader replacements fit the execution history; ${f.stopAfterConsecutiveFailures} failed cells ` +
    `of a target in a row stop the run; an SLO search's probes do not count). Worst case, every retry spent on the longest cells and every replacement waited on to ` +
    `its deadline: +$${f.worstCase.extraUsd.toFixed(2)}, +${f.worstCase.extraHours} h`
  );
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
