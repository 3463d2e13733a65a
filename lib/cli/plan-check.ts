/**
 * The Plan step's own checks (spec, run id, region, kinds the pipeline runs, history-event budget, budget
 * cap) run from the CLI against a scratch store, so `start` starts nothing Plan would refuse and `doctor`
 * reports the same problems. Throws Plan's InputError; returns the run id Plan derives. `priceBooks`: the
 * stack's refreshed books (its bucket's `prices/<region>/`), so the budget cap is checked with Plan's book.
 * `validate` and `plan` run it too, without a stack (the spec's region).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { estimateRunUsd, plan } from '../core/pipeline';
import { systemClock } from '../core/common/ports';
import { FsStore } from '../local/fs-store';
import type { PriceBook } from '../core/cost/book';
import { priceBookKey } from '../core/cost/book-choice';

export async function checkAsPlanWould(
  spec: unknown,
  executionName: string,
  region: string | undefined,
  opts: { priceBooks?: PriceBook[]; budget?: boolean } = {},
): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-plan-check-'));
  try {
    const store = new FsStore(dir);
    // the stack's refreshed books where Plan looks for them, so Plan's own choice picks the book it will pick
    for (const b of opts.priceBooks ?? []) await store.putJson(priceBookKey(b), { ...b, file: undefined });
    const ctx = await plan(
      { executionName, spec },
      {
        store,
        clock: systemClock,
        // `budget: false`: the caller checks the budget cap with the price book it chose (`fleetbench plan --prices`)
        ...(opts.budget === false ? {} : { estimateRunUsd }),
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
