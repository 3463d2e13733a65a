import { join } from 'node:path';
import type { Command } from 'commander';
import { assertRunnable } from '../../local/runner';
import { loadSpecFile, printWarnings } from '../spec-file';
import { DEFAULT_RESULTS_DIR } from './query';
import { runLocalWithSignals } from './run';

export const QUICKSTART = join(__dirname, '..', '..', '..', 'examples', 'quickstart.json');

export function register(program: Command): void {
  program
    .command('demo')
    .description('run examples/quickstart.json end to end on this machine (DynamoDB Local, real YCSB)')
    .option('--results <dir>', 'local results directory', DEFAULT_RESULTS_DIR)
    .action(async (opts: { results: string }) => {
      const { spec, warnings } = loadSpecFile(QUICKSTART);
      printWarnings(warnings);
      assertRunnable(spec);
      const result = await runLocalWithSignals({ spec, resultsDir: opts.results });
      process.exitCode = result.status === 'SUCCEEDED' ? 0 : 1;
    });
}
