/**
 * Runs Apache Otava 0.8 (Python, `otava_oracle.py`) on series, for the oracle test and the detection
 * benchmark. Throws, naming the fix, when Python or the package is missing: the oracle test must fail
 * then, not skip.
 */
import { spawnSync } from 'node:child_process';
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
  if (r.error || r.status !== 0) {
    throw new Error(
      `Apache Otava oracle failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}\n` +
        'It needs Python 3 with apache-otava 0.8.x: python3 -m pip install apache-otava==0.8.0 (.ci/run does).',
    );
  }
  const out = JSON.parse(r.stdout) as { otava: string; cases: OtavaResult[] };
  return { version: out.otava, results: out.cases };
}
