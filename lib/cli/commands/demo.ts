import { join } from 'node:path';
import type { Command } from 'commander';
import { planRun } from '../../core/plan';
import { loadSpecFile, printWarnings } from '../spec-file';
import { renderPlan } from './plan';

export const QUICKSTART = join(__dirname, '..', '..', '..', 'examples', 'quickstart.json');

export function register(program: Command): void {
  program
    .command('demo')
    .description('the local demo on examples/quickstart.json (prints its plan until the local mode lands)')
    .action(() => {
      const { spec, warnings } = loadSpecFile(QUICKSTART);
      const plan = planRun(spec);
      printWarnings([...warnings, ...plan.warnings]);
      process.stdout.write(renderPlan(plan));
    });
}
