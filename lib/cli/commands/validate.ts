import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { defaultExecutionName } from '../../core/pipeline/follow';
import { parseSpecText } from '../../core/spec';
import { checkLocalRun, withMavenStandIns } from '../../local/run-checks';
import { checkAsPlanWould } from '../plan-check';
import { loadSpecFile, printWarnings } from '../spec-file';
import { DEFAULT_RESULTS_DIR } from './query';

export function register(program: Command): void {
  program
    .command('validate')
    .description(
      'check a run spec as the Plan step would; exit 0 when valid, 2 with one problem per line on stderr when not',
    )
    .argument('<spec>', 'run spec JSON file')
    .option('--local', 'check it for `fleetbench run --local` (what the local mode runs, and its Plan step)')
    .action(async (file: string, opts: { local?: boolean }) => {
      const { spec, warnings } = loadSpecFile(file);
      printWarnings(warnings);
      await planChecks(file, spec, { local: opts.local === true, resultsDir: DEFAULT_RESULTS_DIR });
      process.stdout.write(
        `${file}: valid run spec "${spec.name}" (${spec.targets.length} target(s)` +
          `${opts.local ? ', for the local mode' : ''})\n`,
      );
    });
}

/**
 * What the Plan step would refuse, refused now (InputError, exit 2), with a run id of the default form:
 * `fleetbench run --local`'s checks with `local` (./run.ts runs the same before it starts anything), else the
 * pipeline's on AWS as `start` runs them (lib/cli/plan-check.ts; the region is the spec's, the stack's being
 * unknown here). `budget`: false where the caller checks the budget cap itself with the price book it chose.
 */
export async function planChecks(
  file: string,
  spec: Parameters<typeof checkLocalRun>[0]['spec'],
  o: { local: boolean; resultsDir: string; budget?: boolean },
): Promise<void> {
  const executionName = defaultExecutionName(spec.name, Date.now());
  if (o.local) return checkLocalRun({ spec, executionName, resultsDir: o.resultsDir });
  // Plan takes the spec as the execution input carries it (as `start` sends it), not the validated copy
  // (with its Maven coordinates as resolved jars: `start` resolves them before its check)
  const raw = withMavenStandIns(parseSpecText(readFileSync(file, 'utf8'), file));
  await checkAsPlanWould(raw, executionName, undefined, { budget: o.budget ?? true });
}
