/**
 * A resume's Plan (lib/core/pipeline/resume.ts) under Step Functions' Lambda retries: the state machine retries a
 * Task on Lambda.ClientExecutionTimeoutException and the service exceptions (retryOnServiceExceptions,
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html), so Plan can run again after
 * its first invocation wrote the resume record. The same execution gets the same context back; another is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { plan, type RunContext } from '../../../lib/core/pipeline';
import { contextKey, resumeKey, resumesKey, teardownKey } from '../../../lib/core/pipeline/context';
import { runIdFromExecutionName } from '../../../lib/core/pipeline/context';
import { FsStore } from '../../../lib/local/fs-store';
import { freeResumeExecutionName } from '../../../lib/core/pipeline/resume';

let dir: string;
let store: FsStore;
let nowMs = Date.UTC(2026, 10, 27, 12);
const clock = { nowMs: () => nowMs };

const spec = {
  name: 'retry-run',
  targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.95, 0.5], targetOpsPerSec: [100], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
};

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-resume-retry-'));
  store = new FsStore(dir);
  await plan({ executionName: 'r1', spec }, { store, clock });
  // the failed run's teardown finished
  await store.putJson(teardownKey('r1'), { runId: 'r1', failed: true, atMs: nowMs + 1000 });
  nowMs += 3600_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const resume = (executionName: string) => plan({ executionName, input: { resume: 'r1' } }, { store, clock });

it("Plan retried by the resuming execution returns the first invocation's context, and records nothing new", async () => {
  const first = await resume('r1-resume');
  const record = await store.getJson(resumeKey('r1'));
  nowMs += 65_000; // the retry comes after the Lambda's timeout and Step Functions' back-off
  const retried = await resume('r1-resume');
  expect(retried).toEqual(first);
  expect(await store.getJson(resumeKey('r1'))).toEqual(record);
  expect(await store.getJson(contextKey('r1'))).toEqual(first);
  expect(await store.getJson(resumesKey(runIdFromExecutionName('r1-resume')))).toEqual({ runId: 'r1' });
});

it('a retry after the first invocation stopped between its writes completes the same context', async () => {
  const original = (await store.getJson(contextKey('r1'))) as RunContext;
  const first = await resume('r1-resume');
  // as if the first invocation had timed out after resume.json: the run's context and the pointer not yet written
  await store.putJson(contextKey('r1'), original);
  rmSync(path.join(dir, resumesKey(runIdFromExecutionName('r1-resume'))));
  nowMs += 65_000;
  expect(await resume('r1-resume')).toEqual(first);
  expect(await store.getJson(contextKey('r1'))).toEqual(first);
  expect(await store.getJson(resumesKey(runIdFromExecutionName('r1-resume')))).toEqual({ runId: 'r1' });
});

it('another execution is still refused: a run is resumed once', async () => {
  await resume('r1-resume');
  await expect(resume('r1-resume-2')).rejects.toThrow(/resumed already, by execution r1-resume at /);
});

it('`fleetbench resume` names a try after a refused one <runId>-resume-2 (Step Functions keeps an execution name)', async () => {
  const taken = new Set<string>();
  const name = () => freeResumeExecutionName('r1', (n) => Promise.resolve(taken.has(n)));
  expect(await name()).toBe('r1-resume');
  taken.add('r1-resume');
  expect(await name()).toBe('r1-resume-2');
  taken.add('r1-resume-2');
  expect(await name()).toBe('r1-resume-3');
});
