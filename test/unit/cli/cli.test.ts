import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseSpec, withValue } from '../spec/fixtures';

const root = join(__dirname, '..', '..', '..');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'fleetbench.js'), ...args], { encoding: 'utf8', cwd: root });
const tmp = mkdtempSync(join(tmpdir(), 'fleetbench-cli-'));
const specFile = (name: string, data: unknown) => {
  const f = join(tmp, name);
  writeFileSync(f, typeof data === 'string' ? data : JSON.stringify(data));
  return f;
};

describe('fleetbench validate / plan (the real executable)', () => {
  it('validate: exit 0 for a valid spec', () => {
    const r = cli('validate', 'examples/quickstart.json');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/valid run spec "quickstart"/);
  });

  it('validate: exit 2 with one problem per line on stderr', () => {
    let bad = withValue(baseSpec(), 'name', 'Bad Name');
    bad = withValue(bad, 'workload.warmupSeconds', 100);
    const r = cli('validate', specFile('bad.json', withValue(bad, 'dataset.recordCount', 'many')));
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2); // semantic checks wait until the structure is right
    expect(lines[0]).toMatch(/^name: /);
    expect(lines[1]).toMatch(/^dataset\.recordCount: expected number, found the string "many"/);
  });

  it('validate: a JSON syntax error names line and column', () => {
    const r = cli('validate', specFile('syntax.json', '{\n  "name": "x",\n  oops\n}'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/syntax\.json:3:\d+: not valid JSON/);
  });

  it('validate: a missing file is an input error', () => {
    const r = cli('validate', join(tmp, 'nope.json'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/nope\.json: cannot read the spec file: ENOENT/);
  });

  it('plan --json prints exactly one JSON document with cells, load and sizing', () => {
    const r = cli('plan', 'examples/quickstart.json', '--json');
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout);
    // quickstart: uniform and zipfian at 150 ops/s, 1 loader × 2 processes × 8 threads, 10,000 records
    expect(doc.cells.map((c: { id: string }) => c.id)).toEqual([
      'ddb.uniform.r50.t150',
      'ddb.zipfian.r50.t150',
    ]);
    expect(doc.cells[0]).toMatchObject({
      target: 'ddb',
      distribution: 'uniform',
      readProportion: 0.5,
      updateProportion: 0.5,
      targetOpsPerSec: 150,
      durationSeconds: 20,
      warmupSeconds: 5,
      loaders: 1,
      processesPerLoader: 2,
    });
    // the cell's shared YCSB properties; each process's share of the rate is derived, not listed
    expect(doc.cells[0].properties).toMatchObject({
      requestdistribution: 'uniform',
      threadcount: '8',
      maxexecutiontime: '20',
      recordcount: '10000',
      table: 'fleetbench-quickstart.ddb.plan',
    });
    expect(doc.cells[0].properties.target).toBeUndefined();
    expect(doc.cells[0].processes).toBeUndefined();
    expect(doc.load).toMatchObject({
      recordCount: 10000,
      processes: 2,
      processesPerLoader: 2,
      threadsPerProcess: 8,
    });
    expect(doc.bindings.ddb).toMatchObject({ binding: 'dynamodb', db: 'dev.fleetbench.ycsb.DynamoDbClient' });
    expect(doc.sizing.ddb).toEqual(
      expect.objectContaining({
        requiredConcurrency: expect.any(Number),
        loaders: 1,
        processesPerLoader: 2,
        threadsPerProcess: 8,
        totalThreads: 16,
        warnings: [],
      }),
    );
  });

  it('plan prints a readable table', () => {
    const r = cli('plan', 'examples/quickstart.json');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Plan for "quickstart": 2 cell\(s\)/);
    expect(r.stdout).toMatch(/ddb\.uniform\.r50\.t150/);
  });

  it('an unknown flag is an input error', () => {
    expect(cli('plan', 'examples/quickstart.json', '--jsn').status).toBe(2);
  });
});
