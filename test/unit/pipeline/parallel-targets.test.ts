/**
 * `"execution": "parallel"` (issue #33 item 2): each target's own loader group, sized for its own phases, launched
 * by ProvisionFleet tagged with its target, used by its phases only, terminated by its TeardownTarget; the plan's
 * wall time, the preflight's vCPUs and the worst case count the targets side by side.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadSpecFile } from '../../../lib/cli/spec-file';
import { planRun } from '../../../lib/core/plan';
import { accountNeeds, VCPU_QUOTAS } from '../../../lib/core/pipeline/preflight';
import { phaseTimes } from '../../../lib/core/pipeline/timing';
import {
  expectedLoaders,
  loaderIds,
  provisionFleet,
  targetLoaders,
} from '../../../lib/core/pipeline/provision';
import { teardownTarget } from '../../../lib/core/pipeline/teardown';
import { TAG_LOADER_GROUP, type RunContext } from '../../../lib/core/pipeline/run-context';
import { LocalFleet } from '../../../lib/local/fleet';
import { FsStore } from '../../../lib/local/fs-store';
import type { RunSpec } from '../../../lib/core/spec';

const seed002 = loadSpecFile(path.join(__dirname, '../../../examples/seed-002-staircase.json')).spec;
const parallel: RunSpec = { ...seed002, execution: 'parallel' };

describe("seed 002's staircase run in parallel", () => {
  const p = planRun(parallel);

  it('takes at most 7 h (issue #33: 24.26 h one target after another), with a loader group per target', () => {
    expect(p.estimate.execution).toBe('parallel');
    expect(p.estimate.runHours).toBeLessThanOrEqual(7);
    expect(p.loaderGroups!.map((g) => g.target)).toEqual(seed002.targets.map((t) => t.id));
    for (const g of p.loaderGroups!) {
      // a group holds its target's largest cell and its load (processesPerLoader processes a loader)
      const cells = p.cells.filter((c) => c.target === g.target).map((c) => c.loaders);
      const load = p.load!.targets.includes(g.target)
        ? Math.ceil(p.load!.processes / seed002.loaders.processesPerLoader)
        : 0;
      expect(g.loaders).toBe(Math.max(...cells, load));
    }
    // the sequential plan of the same spec has no groups: one fleet, shared in turn
    expect(planRun(seed002).loaderGroups).toBeUndefined();
  });

  it("preflight counts every group's loaders and every target's nodes, running at once", () => {
    // vCPUs per instance, from https://aws.amazon.com/ec2/instance-types/ (c5.2xlarge: 8; i4i.4xlarge: 16)
    const vcpus: Record<string, number> = { 'c5.2xlarge': 8, 'i4i.4xlarge': 16 };
    const loaders = p.loaderGroups!.reduce((n, g) => n + g.loaders, 0);
    const nodes = seed002.targets.reduce(
      (n, t) => n + (t as { nodes: number }).nodes * vcpus[(t as { instanceType: string }).instanceType]!,
      0,
    );
    expect(loaders).toBe(40);
    const standard = accountNeeds(parallel, p).vcpus.find((v) => v.quota.code === VCPU_QUOTAS.standard.code)!;
    expect(standard.vcpus).toBe(loaders * vcpus[seed002.loaders.instanceType]! + nodes);
    expect(standard.vcpus).toBe(40 * 8 + (3 + 3 + 9 + 15) * 16);
    // sequential: one fleet of the largest group
    const seq = planRun(seed002);
    const one = accountNeeds(seed002, seq).vcpus.find((v) => v.quota.code === VCPU_QUOTAS.standard.code)!;
    expect(one.vcpus).toBe(seq.fleet.loaders * 8 + nodes);
  });

  it("the worst case's wall time is the longest target's, not their sum", () => {
    const seq = phaseTimes(planRun(seed002), seed002).worstCaseSeconds;
    const par = phaseTimes(p, parallel).worstCaseSeconds;
    // four targets, the largest with the most cells: well under half the sequential worst case
    expect(par).toBeLessThan(seq / 2);
    expect(par).toBeGreaterThan(seq / seed002.targets.length - 1);
  });
});

describe('loader groups in the pipeline', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'parallel-targets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const span = (id: string, i: number, loaders?: number) => ({
    id,
    loadStart: 0,
    loadEnd: 0,
    cellStart: i,
    cellEnd: i + 1,
    ...(loaders !== undefined ? { loaders } : {}),
  });
  const runOf = (targets: ReturnType<typeof span>[], loaders: number): RunContext => ({
    runId: 'par-1',
    specName: 's',
    storeUri: 'file:///x',
    startedAtMs: 0,
    cellCount: targets.length,
    loadTargets: [],
    loadCount: 0,
    loaders,
    instanceType: 'c5.large',
    resources: [],
    targets,
    targetConcurrency: targets.length,
    expiresAt: 9e9,
  });
  const fleetOf = () => new LocalFleet({ bundleDir: dir, endpoint: 'http://x', logDir: dir });

  it("launches each target's group tagged with it; a target's steps see only its group", async () => {
    const fleet = fleetOf();
    const run = runOf([span('a', 0, 2), span('b', 1, 1)], 3);
    expect(await provisionFleet(run, { fleet })).toEqual({ launched: 3, instances: 3 });
    const tags = (await fleet.list({ runId: 'par-1' })).map((i) => i.tags[TAG_LOADER_GROUP]);
    expect(tags.sort()).toEqual(['a', 'a', 'b']);
    const a = await targetLoaders(fleet, run, 'a');
    const b = await targetLoaders(fleet, run, 'b');
    expect([a.ids.length, a.expected, b.ids.length, b.expected]).toEqual([2, 2, 1, 1]);
    expect(a.ids.filter((id) => b.ids.includes(id))).toEqual([]);
    // idempotent: nothing missing, nothing launched
    expect(await provisionFleet(run, { fleet })).toEqual({ launched: 0, instances: 3 });
  });

  it("a target's teardown terminates its own group; a replacement does not launch it again", async () => {
    const fleet = fleetOf();
    const store = new FsStore(dir);
    const run = runOf([span('a', 0, 2), span('b', 1, 1)], 3);
    await provisionFleet(run, { fleet });
    const b = await loaderIds(fleet, 'par-1', 'b');
    const rec = await teardownTarget({ run, target: 1 }, {
      fleet,
      store,
      clock: { nowMs: () => 1000 },
    } as never);
    expect(rec).toMatchObject({ target: 'b', terminated: b });
    expect(await loaderIds(fleet, 'par-1', 'b')).toEqual([]);
    expect((await loaderIds(fleet, 'par-1', 'a')).length).toBe(2);
    // the loaders the run should have now: group a's only
    expect(await expectedLoaders(run, store)).toEqual({ loaders: 2, doneGroups: ['b'] });
    expect(await provisionFleet(run, { fleet }, ['b'])).toEqual({ launched: 0, instances: 2 });
    // an execution resuming the run after that teardown (at 1000) counts b's group again
    const resumed = { ...run, resume: { executionName: 'par-1-r', atMs: 2000, cells: [1] } };
    expect(await expectedLoaders(resumed, store)).toEqual({ loaders: 3, doneGroups: [] });
  });

  it('a sequential run keeps one fleet for every target, untagged, and its teardowns leave it', async () => {
    const fleet = fleetOf();
    const store = new FsStore(dir);
    const run = { ...runOf([span('a', 0), span('b', 1)], 2), targetConcurrency: 1 };
    expect(await provisionFleet(run, { fleet })).toEqual({ launched: 2, instances: 2 });
    expect((await fleet.list({ runId: 'par-1' })).every((i) => !(TAG_LOADER_GROUP in i.tags))).toBe(true);
    expect((await targetLoaders(fleet, run, 'b')).ids.length).toBe(2);
    await teardownTarget({ run, target: 0 }, { fleet, store, clock: { nowMs: () => 1000 } } as never);
    expect((await loaderIds(fleet, 'par-1')).length).toBe(2);
    expect(await expectedLoaders(run, store)).toEqual({ loaders: 2, doneGroups: [] });
  });
});
