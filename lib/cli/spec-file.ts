import { readFileSync } from 'node:fs';
import { InputError } from '../core/common/errors';
import { parseSpecText, validateSpec, type Validated } from '../core/spec';

/** Reads and validates a run spec file; every problem becomes an InputError. */
export function loadSpecFile(file: string): Validated {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError([
      {
        path: file,
        message: `cannot read the spec file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      },
    ]);
  }
  return validateSpec(parseSpecText(text, file));
}

export function printWarnings(warnings: string[]): void {
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
}
