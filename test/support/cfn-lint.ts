/**
 * cfn-lint on a synthesized template: its error lines (`:E<nnnn>:`). cfn-lint is required (`npm test`'s pretest
 * installs it into .venv: test/setup/ensure-tools.sh): a missing or crashing cfn-lint throws, so a lint that did not run never passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** cfn-lint's exit status is a bit mask of what it found (https://github.com/aws-cloudformation/cfn-lint#exit-codes). */
const FOUND = { errors: 2, warnings: 4, informational: 8 } as const;

export function cfnLintErrors(template: unknown): string[] {
  const has = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  if (has.status !== 0) {
    throw new Error(
      `cfn-lint is required (bash test/setup/ensure-tools.sh installs it into .venv): ${has.error?.message ?? `exit ${has.status}: ${has.stderr}`}`,
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-cfn-'));
  try {
    const file = path.join(dir, 'template.json');
    writeFileSync(file, JSON.stringify(template));
    const r = spawnSync('cfn-lint', ['--format', 'parseable', file], { encoding: 'utf8' });
    const known = FOUND.errors | FOUND.warnings | FOUND.informational;
    if (r.status === null || (r.status & ~known) !== 0) {
      throw new Error(`cfn-lint did not lint the template (exit ${r.status ?? r.signal}): ${r.stderr}`);
    }
    const errors = r.stdout.split('\n').filter((l) => /:E\d{4}:/.test(l));
    if ((r.status & FOUND.errors) !== 0 && errors.length === 0) {
      throw new Error(`cfn-lint exited with errors it did not print: ${r.stdout}${r.stderr}`);
    }
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
