/**
 * Runs Apache Otava 0.8 (Python, `otava_oracle.py`) on series, for the oracle test and the detection
 * benchmark. Throws, naming the fix, when Python or the package is missing: the oracle test must fail
 * then, not skip.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';

export interface OtavaCase {
  name: string;
  values: (number | null)[];
  window: number;
  maxPValue: number;
  minMagnitude: number;
}

export interface OtavaPoint {
  index: number;
  meanBefore: number;
  meanAfter: number;
  stdBefore: number;
  stdAfter: number;
  /** null where Otava's t-test gave NaN (two constant sides with equal means) */
  pValue: number | null;
  magnitude: number;
}

export interface OtavaResult {
  name: string;
  /** the split's (weak) change points */
  weak: number[];
  points: OtavaPoint[];
}

const SCRIPT = path.join(__dirname, 'otava_oracle.py');

export function runOtava(cases: readonly OtavaCase[]): { version: string; results: OtavaResult[] } {
  const r = spawnSync(process.env.PYTHON ?? 'python3', [SCRIPT], {
    input: JSON.stringify({ cases }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return parse(r.error?.message ?? (r.status !== 0 ? `exit ${r.status}` : undefined), r.stdout, r.stderr);
}

/** `runOtava` without blocking, so the benchmark can run two option sets on two cores at once. */
export function runOtavaAsync(
  cases: readonly OtavaCase[],
): Promise<{ version: string; results: OtavaResult[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PYTHON ?? 'python3', [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(
          parse(
            code !== 0 ? `exit ${code}` : undefined,
            Buffer.concat(out).toString('utf8'),
            Buffer.concat(err).toString('utf8'),
          ),
        );
      } catch (e) {
        reject(e as Error);
      }
    });
    child.stdin.end(JSON.stringify({ cases }));
  });
}

function parse(
  failure: string | undefined,
  stdout: string,
  stderr: string,
): { version: string; results: OtavaResult[] } {
  if (failure !== undefined) {
    throw new Error(
      `Apache Otava oracle failed (${failure}): ${stderr}\n` +
        'It needs Python 3 with apache-otava 0.8.x: bash test/setup/ensure-tools.sh installs it into .venv (npm test does).',
    );
  }
  const out = JSON.parse(stdout) as { otava: string; cases: OtavaResult[] };
  return { version: out.otava, results: out.cases };
}
