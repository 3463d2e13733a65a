/**
 * The Plan step's own checks (spec, run id, region, kinds the pipeline runs, history-event budget, budget
 * cap) run from the CLI against a scratch store, so `start` starts nothing Plan would refuse and `doctor`
 * reports the same problems. Throws Plan's InputError; returns the run id Plan derives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { estimateRunUsd, plan } from '../core/pipeline';
import { systemClock } from '../core/common/ports';
import { FsStore } from '../local/fs-store';

export async function checkAsPlanWould(
  spec: unknown,
  executionName: string,
  region: string | undefined,
): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-plan-check-'));
  try {
    const ctx = await plan(
      { executionName, spec },
      {
        store: new FsStore(dir),
        clock: systemClock,
        estimateRunUsd,
        ...(region ? { region } : {}),
        // the binding jars' digests are Plan's to record from the bucket; the scratch store has no jars
        readJar: async () => Buffer.alloc(0),
      },
    );
    return ctx.runId;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
