/**
 * What `validate`, `plan`, `run --local` and `query` refuse before anything starts (the real executable): a spec the
 * Plan step refuses, a run id already in the results directory, a `--results` that is not a results directory. Each
 * refusal is exit 2 naming the field, with nothing written and no process started (`run --local` prints its first
 * line, "building/checking the loader bundle", only once the checks passed; a run that started would take a minute,
 * past the spawn's timeout).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plan } from '../../../lib/core/pipeline';
import { systemClock } from '../../../lib/core/common/ports';
import { FsStore } from '../../../lib/local/fs-store';

const root = join(__dirname, '..', '..', '..');
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin', 'fleetbench.js'), ...args], {
    encoding: 'utf8',
    cwd: root,
    timeout: 45_000,
  });

let tmp: string;
beforeAll(() => (tmp = mkdtempSync(join(tmpdir(), 'fb-refusals-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A small local spec (examples/quickstart.json's shape, one cell) with `change` applied. */
type Obj = Record<string, unknown>;
interface Spec {
  name: string;
  targets: Obj[];
  dataset: Obj;
  workload: Obj;
  loaders: Obj;
}

function spec(name: string, change: (s: Spec) => void = () => undefined): string {
  const s: Spec = {
    name: 'refusals',
    targets: [{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'provisioned', rcu: 1000, wcu: 1000 } }],
    dataset: { recordCount: 10000, load: true },
    workload: {
      base: 'a',
      readProportions: [0.5],
      targetOpsPerSec: [100],
      distributions: ['uniform'],
      durationSeconds: 20,
      warmupSeconds: 5,
    },
    loaders: { count: 1, processesPerLoader: 2, threadsPerProcess: 8 },
  };
  change(s);
  const file = join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify(s));
  return file;
}

/** What the Plan step itself says of the spec (the local Plan's deps), or 'accepted'. */
async function planSays(file: string): Promise<string> {
  const dir = mkdtempSync(join(tmp, 'plan-'));
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return plan({ executionName: 'x-1', spec: raw }, { store: new FsStore(dir), clock: systemClock }).then(
    () => 'accepted',
    (e: Error) => e.message,
  );
}

// a staircase of 300 throughput steps: 300 cells, more than one execution's history holds (Step Functions stops at
// 25,000 events, https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html)
const staircase = (s: Spec) => (s.workload.targetOpsPerSec = { start: 10, stop: 309, step: 1 });
// 1,000,000 records at 1 record/s: 1,000,000 s of load, beyond the loader agent's 7 days (604,800 s) for a job
const slowLoad = (s: Spec) => {
  s.dataset.recordCount = 1_000_000;
  s.dataset.loadTargetOpsPerSec = 1;
};

describe.each([
  ['300 cells', staircase, /^workload: the plan has 300 cells.*25,000/m],
  ['a 1,000,000-record load at 1 record/s', slowLoad, /^dataset\.loadTargetOpsPerSec: .*604,800/m],
])('a spec the Plan step refuses (%s)', (name, change, refusal) => {
  let file: string;
  beforeAll(() => (file = spec(name.replace(/\W+/g, '-'), change)));

  it('the Plan step refuses it (the reference for the commands below)', async () => {
    expect(await planSays(file)).toMatch(refusal);
  });

  it.each([['validate'], ['validate', '--local'], ['plan'], ['plan', '--local']])(
    '%s %s refuses it: exit 2, the field named',
    (...args) => {
      const never = join(tmp, 'never');
      const r = cli(...args, file, ...(args[0] === 'plan' ? ['--results', never] : []));
      expect(r.stderr).toMatch(refusal);
      expect(r.status).toBe(2);
      expect(r.stdout).not.toMatch(/valid run spec|Plan for/);
      expect(existsSync(never)).toBe(false);
    },
  );

  it('run --local refuses it before anything starts: exit 2, nothing written', () => {
    const results = join(tmp, `results-${name.replace(/\W+/g, '-')}`);
    const r = cli('run', file, '--local', '--results', results);
    expect(r.stderr).toMatch(refusal);
    expect(r.status).toBe(2);
    expect(r.stdout).not.toMatch(/building|DynamoDB Local|FAILED/);
    expect(existsSync(results)).toBe(false);
  });
});

describe('existingTable outside fleetbench-*', () => {
  let file: string;
  beforeAll(() => (file = spec('existing', (s) => (s.targets[0]!.existingTable = 'foo-table'))));

  it('validate and plan refuse it as Plan on AWS does: the roles reach fleetbench-* tables only', async () => {
    expect(await planSays(file)).toMatch(/^targets\[0\]\.existingTable: .*fleetbench-\*/);
    for (const r of [cli('validate', file), cli('plan', file)]) {
      expect(r.stderr).toMatch(/^targets\[0\]\.existingTable: .*fleetbench-\*/m);
      expect(r.status).toBe(2);
    }
  });

  it('the local mode refuses any existingTable: its DynamoDB Local starts empty for each run', () => {
    const local = spec('existing-local', (s) => (s.targets[0]!.existingTable = 'fleetbench-foo'));
    const results = join(tmp, 'results-existing');
    for (const r of [
      cli('validate', '--local', local),
      cli('plan', '--local', local, '--results', results),
      cli('run', local, '--local', '--results', results),
    ]) {
      expect(r.stderr).toMatch(/^targets\[0\]\.existingTable: expected no existingTable in local mode/m);
      expect(r.status).toBe(2);
    }
    expect(existsSync(results)).toBe(false);
    // on AWS a fleetbench-* table may be reused
    expect(cli('validate', local).status).toBe(0);
  });
});

describe('a user binding given by Maven coordinates alone', () => {
  it('passes the checks, as Plan sees it once the CLI resolved the coordinates into jars', async () => {
    const file = spec('maven-only', (s) => {
      s.targets = [
        {
          id: 'mine',
          kind: 'external',
          protocol: 'custom',
          endpoints: ['127.0.0.1:6379'],
          binding: { dbClass: 'site.ycsb.db.RedisClient', maven: ['site.ycsb:redis-binding:0.17.0'] },
          price: { usdPerHour: 0.1 },
        },
      ];
    });
    // Plan itself refuses the spec as written: the CLI resolves the coordinates before it starts an execution
    expect(await planSays(file)).toMatch(/^targets\[0\]\.binding\.maven: .*resolved into jars by the CLI/);
    for (const r of [cli('validate', file), cli('validate', '--local', file)]) {
      expect(r.stderr).not.toMatch(/binding/);
      expect(r.status).toBe(0);
    }
  });
});

describe('run --local never overwrites another run', () => {
  it('refuses --name of a run already in the results directory, and changes nothing there', () => {
    const results = join(tmp, 'results-named');
    mkdirSync(join(results, 'runs', 'earlier'), { recursive: true });
    writeFileSync(join(results, 'runs', 'earlier', 'spec.json'), '{}');
    const r = cli('run', spec('named'), '--local', '--results', results, '--name', 'earlier');
    expect(r.stderr).toMatch(
      /^--name: expected a new run id, found run "earlier" already in .*fleetbench resume earlier --local/,
    );
    expect(r.status).toBe(2);
    expect(r.stdout).not.toMatch(/building/);
    expect(readdirSync(join(results, 'runs'))).toEqual(['earlier']);
    expect(readdirSync(join(results, 'runs', 'earlier'))).toEqual(['spec.json']);
  });

  it('a 40-character spec name keeps the whole UTC stamp in the default run id; a taken one is refused', () => {
    const name = 'nightly-dynamodb-zipfian-regression-v002'; // 40 characters: the whole run-id length
    const file = spec('long-name', (s) => (s.name = name));
    const results = join(tmp, 'results-long');
    // the run ids of the next 30 s (the command starts within them), as AWS names executions: the name cut to leave room for
    // -yyyymmdd-hhmmss (40 characters in all, the run id's limit), taken by "earlier runs"
    const t0 = Date.now();
    const ids = Array.from({ length: 31 }, (_, s) => {
      const d = new Date(t0 + s * 1000).toISOString();
      const stamp = `${d.slice(0, 10).replace(/-/g, '')}-${d.slice(11, 19).replace(/:/g, '')}`;
      return `${name.slice(0, 40 - 16)}-${stamp}`;
    });
    for (const id of ids) mkdirSync(join(results, 'runs', id), { recursive: true });
    expect(ids[0]).toHaveLength(40);
    const r = cli('run', file, '--local', '--results', results);
    expect(r.stderr).toMatch(
      /^--name: expected a new run id, found run "nightly-dynamodb-zipfian-\d{8}-\d{6}" .*same second/,
    );
    const refused = /found run "([^"]+)"/.exec(r.stderr)![1]!;
    expect(ids).toContain(refused);
    expect(r.status).toBe(2);
    expect(readdirSync(join(results, 'runs')).sort()).toEqual([...ids].sort());
  });

  it('refuses a --name that is no execution name', () => {
    const r = cli('run', spec('badname'), '--local', '--results', join(tmp, 'r-badname'), '--name', 'a b');
    expect(r.stderr).toMatch(/^--name: expected 1-80 letters, digits, "-" or "_", found "a b"/);
    expect(r.status).toBe(2);
  });
});

describe('--results that is not a results directory', () => {
  it('run --local: a regular file, or a path under one, is refused naming --results', () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'x');
    for (const results of [file, join(file, 'sub')]) {
      const r = cli('run', spec('results-file'), '--local', '--results', results);
      expect(r.stderr).toMatch(/^--results: expected a directory \(the results directory\)/);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.status).toBe(2);
    }
  });

  it('query: a missing directory, a file, a directory that holds no results are refused; a results directory is read', () => {
    const empty = mkdtempSync(join(tmp, 'empty-'));
    const file = join(tmp, 'another-file');
    writeFileSync(file, 'x');
    for (const results of [join(tmp, 'nonexistent'), file, empty]) {
      const r = cli('query', 'SELECT count(*) AS n FROM cells', '--results', results);
      expect(r.stderr).toMatch(/^--results: expected a local results directory/);
      expect(r.stdout).toBe('');
      expect(r.status).toBe(2);
    }
    mkdirSync(join(empty, 'runs'));
    const r = cli('query', 'SELECT count(*) AS n FROM cells', '--results', empty, '--json');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ n: 0 }]);
  });
});
