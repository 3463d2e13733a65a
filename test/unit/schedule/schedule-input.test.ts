/**
 * A schedule's input carries the spec the user wrote, not the validated one with its defaults filled in: a
 * spec without `region` plans on a stack outside us-east-1 (the stack's region is the run's), while a spec
 * naming us-east-1 is still refused there (Plan's stack-region check, lib/core/pipeline/plan.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readScheduledSpecs, scheduleInput } from '../../../lib/constructs/schedules';
import type { InputError } from '../../../lib/core/common/errors';
import { plan } from '../../../lib/core/pipeline';
import { readSpec } from '../../../lib/core/pipeline/context';
import { FsStore } from '../../../lib/local/fs-store';

const root = mkdtempSync(path.join(tmpdir(), 'fleetbench-schedule-input-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const example = JSON.parse(
  readFileSync(
    path.join(__dirname, '..', '..', '..', 'examples', 'schedules', 'nightly-regression.json'),
    'utf8',
  ),
) as Record<string, unknown>;

/** The schedules directory with one spec: the shipped nightly example, plus `extra` fields. */
function scheduledInput(extra: Record<string, unknown>): { spec: unknown; scheduleName: string } {
  const dir = mkdtempSync(path.join(root, 'specs-'));
  writeFileSync(path.join(dir, 'nightly.json'), JSON.stringify({ ...example, ...extra }));
  const [s] = readScheduledSpecs(dir);
  return JSON.parse(scheduleInput(s!)) as { spec: unknown; scheduleName: string };
}

const store = new FsStore(mkdtempSync(path.join(root, 'store-')));
const planIn = (region: string, input: { spec: unknown; scheduleName: string }) =>
  plan(
    { executionName: `nightly-${Math.random().toString(36).slice(2, 8)}`, input },
    {
      store,
      clock: { nowMs: () => Date.UTC(2026, 10, 22, 2, 0) },
      region,
      runs: { running: () => Promise.resolve([]) },
    },
  );

describe('schedule input: the spec as written', () => {
  it('carries no region the file did not name', () => {
    expect(example).not.toHaveProperty('region'); // the shipped example names none
    const input = scheduledInput({});
    expect(input.spec).not.toHaveProperty('region');
    expect(input.scheduleName).toBe('nightly-regression');
  });

  it('plans a spec without region on a stack in eu-west-1, in eu-west-1', async () => {
    const ctx = await planIn('eu-west-1', scheduledInput({}));
    expect((await readSpec(store, ctx.runId)).region).toBe('eu-west-1');
    expect(ctx.scheduleName).toBe('nightly-regression');
  });

  it('still refuses a spec naming us-east-1 on a stack in eu-west-1, naming "region"', async () => {
    const err = (await planIn('eu-west-1', scheduledInput({ region: 'us-east-1' })).then(
      () => undefined,
      (e: InputError) => e,
    )) as InputError;
    expect(err.issues.map((i) => i.path)).toEqual(['region']);
    expect(err.issues[0]!.message).toMatch(/us-east-1 but the stack runs in eu-west-1/);
  });
});
