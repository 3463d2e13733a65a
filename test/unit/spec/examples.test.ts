import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpecText, validateSpec } from '../../../lib/core/spec';
import { planRun } from '../../../lib/core/plan';
import { renderSchema, SCHEMA_FILE } from '../../../lib/cli/commands/schema';

const dir = join(__dirname, '..', '..', '..', 'examples');
const examples = readdirSync(dir).filter((f) => f.endsWith('.json'));

/**
 * An SLO search's worst-case probes, worked by hand (docs/slo-search.md): the whole ramp, the bound failing, then
 * the last ramp interval halved until it is within the resolution.
 */
const SEARCH_WORST_CASE: Record<string, number> = {
  // ramp 20K, 40K, 80K, 160K, 320K, 640K (6); [320K, 640K] → 160K, 80K, 40K, 20K, 10K wide (5)
  'seed-002-slo.json': 11,
  // ramp 20, 40, 80, 160, 320, 400 (6); [320, 400] → 40, 20, 10 wide (3)
  'local-slo-search.json': 9,
};

describe('examples', () => {
  it('include the three the project promises', () => {
    expect(examples).toEqual(
      expect.arrayContaining(['quickstart.json', 'scylla-vs-dynamodb.json', 'nightly-regression.json']),
    );
  });

  it.each(examples)('%s validates and plans', (file) => {
    const { spec } = validateSpec(parseSpecText(readFileSync(join(dir, file), 'utf8'), file));
    const plan = planRun(spec);
    // targets × distributions × read proportions × throughput steps × repeats, counted from the file itself
    const w = JSON.parse(readFileSync(join(dir, file), 'utf8')).workload;
    const t = w.targetOpsPerSec;
    // "max": one unpaced cell; a search: its worst-case probes; a rate schedule: one cell
    const steps = w.search
      ? SEARCH_WORST_CASE[file]
      : t === 'max' || w.rateSchedule
        ? 1
        : Array.isArray(t)
          ? t.length
          : Math.floor((t.stop - t.start) / t.step) + 1;
    const cells =
      spec.targets.length *
      (w.distributions?.length ?? 1) *
      (w.readProportions?.length ?? 1) *
      steps *
      (w.repeats ?? 1);
    expect(plan.cells).toHaveLength(cells);
  });

  it('scylla-vs-dynamodb expresses the seed 000 study', () => {
    const { spec } = validateSpec(JSON.parse(readFileSync(join(dir, 'scylla-vs-dynamodb.json'), 'utf8')));
    expect(spec.dataset.recordCount).toBe(1_000_000_000);
    const ddb = spec.targets.find((t) => t.kind === 'dynamodb')!;
    expect(ddb).toMatchObject({
      billing: { mode: 'provisioned', rcu: 200000, wcu: 250000 },
      consistentReads: true,
    });
    expect(spec.targets.find((t) => t.kind === 'scylla-ec2')).toMatchObject({
      nodes: 3,
      instanceType: 'i4i.2xlarge',
    });
    expect(spec.loaders).toMatchObject({
      instanceType: 'c5.2xlarge',
      processesPerLoader: 3,
      threadsPerProcess: 60,
    });
    expect(spec.workload.distributions).toContainEqual({
      type: 'hotspot',
      dataFraction: 0.013,
      opFraction: 0.95,
    });
  });
});

describe('JSON Schema', () => {
  it('the checked-in schema/run-spec.schema.json is up to date (run `npm run schema`)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(renderSchema());
  });

  it('describes the target kinds', () => {
    const text = renderSchema();
    for (const kind of ['dynamodb', 'scylla-ec2', 'external']) expect(text).toContain(`"${kind}"`);
  });
});
