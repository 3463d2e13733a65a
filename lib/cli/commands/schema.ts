import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { runSpecJsonSchema } from '../../core/spec';

export const SCHEMA_FILE = join(__dirname, '..', '..', '..', 'schema', 'run-spec.schema.json');

export function renderSchema(): string {
  return JSON.stringify(runSpecJsonSchema(), null, 2) + '\n';
}

export function register(program: Command): void {
  program
    .command('schema')
    .description('print the run spec JSON Schema (or write schema/run-spec.schema.json with --write)')
    .option('--write', 'write the checked-in schema file')
    .option('--check', 'exit 1 when the checked-in schema file is stale')
    .action((opts: { write?: boolean; check?: boolean }) => {
      const text = renderSchema();
      if (opts.write) {
        writeFileSync(SCHEMA_FILE, text);
        process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
      } else if (opts.check) {
        if (readFileSync(SCHEMA_FILE, 'utf8') !== text) {
          // a finding, not a bug: one line and exit 1, as the option says
          process.stderr.write(`${SCHEMA_FILE} is stale: run npm run schema\n`);
          process.exitCode = 1;
        }
      } else process.stdout.write(text);
    });
}
