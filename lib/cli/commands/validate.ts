import type { Command } from 'commander';
import { loadSpecFile, printWarnings } from '../spec-file';

export function register(program: Command): void {
  program
    .command('validate')
    .description('check a run spec; exit 0 when valid, 2 with one problem per line on stderr when not')
    .argument('<spec>', 'run spec JSON file')
    .action((file: string) => {
      const { spec, warnings } = loadSpecFile(file);
      printWarnings(warnings);
      process.stdout.write(`${file}: valid run spec "${spec.name}" (${spec.targets.length} target(s))\n`);
    });
}
