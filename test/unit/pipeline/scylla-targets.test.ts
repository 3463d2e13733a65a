/**
 * The ScyllaDB targets through the pipeline's steps (pure parts, a directory store): Plan accepts
 * scylla-ec2 and external targets and records the clusters; the loader jobs carry the endpoints,
 * the CQL binding and a credentials reference (never a secret); every example plans as the Lambda
 * plans it; `plan --json` and `cost` show the ScyllaDB targets.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BINDINGS } from '../../../lib/core/contract/bindings';
import { InputError } from '../../../lib/core/common/errors';
import { buildJobs, estimateRunUsd, plan, type RunContext } from '../../../lib/core/pipeline';
import { planIndex, planRun, runtimeEndpointProperties } from '../../../lib/core/plan';
import type { Target } from '../../../lib/core/spec/schema';
import { validateSpec } from '../../../lib/core/spec';
import { FsStore } from '../../../lib/local/fs-store';

const root = path.join(__dirname, '..', '..', '..');
const clock = { nowMs: () => Date.UTC(2026, 0, 1) };
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetbench/cloud-AbCdEf';

const mixed = {
  name: 'mixed',
  targets: [
    { id: 'scylla', kind: 'scylla-ec2', nodes: 3, api: 'cql', replicationFactor: 3 },
    { id: 'alt', kind: 'scylla-ec2', nodes: 3, api: 'alternator' },
    {
      id: 'cloud',
      kind: 'external',
      protocol: 'dynamodb',
      endpoints: ['https://a.cloud.example:8043', 'https://b.cloud.example:8043'],
      credentialsSecretArn: SECRET,
      price: { usdPerMonth: 4544 },
    },
  ],
  dataset: { recordCount: 1000 },
  workload: { readProportions: [0.5], targetOpsPerSec: [3000], durationSeconds: 60 },
  loaders: { count: 1, processesPerLoader: 3, threadsPerProcess: 10 },
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-scylla-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('Plan (the pipeline step)', () => {
  it('accepts scylla-ec2 and external targets and records the clusters to launch', async () => {
    const store = new FsStore(dir);
    const run = await plan({ executionName: 'mixed-1', spec: mixed }, { store, clock });
    // the node clusters only: no DynamoDB tables, no login secrets (scylla-ec2 makes none), nothing for external
    expect(run.resources).toEqual([
      { type: 'database-node', targetId: 'scylla', nodes: 3, api: 'cql', table: 'usertable' },
      {
        type: 'database-node',
        targetId: 'alt',
        nodes: 3,
        api: 'alternator',
        table: 'fleetbench-mixed.alt.mixed-1',
      },
    ]);
  });

  it('refuses a credentials secret the loaders may not read, naming the field', async () => {
    const bad = structuredClone(mixed);
    (bad.targets[2] as { credentialsSecretArn: string }).credentialsSecretArn =
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf';
    const err = await plan({ executionName: 'mixed-2', spec: bad }, { store: new FsStore(dir), clock }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues).toEqual([
      expect.objectContaining({
        path: 'targets[2].credentialsSecretArn',
        message: expect.stringMatching(/fleetbench\/\*/),
      }),
    ]);
    expect(readdirSync(dir)).toEqual([]); // nothing written
  });

  it("refuses a secret in another region or another account than the stack's (the loaders could not read it)", async () => {
    const withSecret = (arn: string) => {
      const s = structuredClone(mixed);
      (s.targets[2] as { credentialsSecretArn: string }).credentialsSecretArn = arn;
      return s;
    };
    const stack = { store: new FsStore(dir), clock, region: 'us-east-1', account: '123456789012' };
    const refused = async (arn: string, name: string) => {
      const err = await plan({ executionName: name, spec: withSecret(arn) }, stack).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).issues[0]).toMatchObject({
        path: 'targets[2].credentialsSecretArn',
        message: expect.stringContaining('arn:aws:secretsmanager:us-east-1:123456789012:secret:fleetbench/'),
      });
    };
    await refused('arn:aws:secretsmanager:eu-west-1:123456789012:secret:fleetbench/cloud-AbCdEf', 'region-1');
    await refused(
      'arn:aws:secretsmanager:us-east-1:210987654321:secret:fleetbench/cloud-AbCdEf',
      'account-1',
    );
    expect(readdirSync(dir)).toEqual([]); // nothing written
    // the stack's own region and account: planned
    await expect(plan({ executionName: 'own-1', spec: withSecret(SECRET) }, stack)).resolves.toBeDefined();
  });
});

it('Plan refuses scylla-ec2 client ports the nodes’ security group does not open', async () => {
  const bad = structuredClone(mixed);
  Object.assign(bad.targets[0]!, { cql: { port: 19000 } });
  Object.assign(bad.targets[1]!, { alternator: { port: 8080 } });
  const err = (await plan({ executionName: 'ports', spec: bad }, { store: new FsStore(dir), clock }).catch(
    (e: unknown) => e,
  )) as InputError;
  expect(err.issues.map((i) => i.path)).toEqual(['targets[0].cql.port', 'targets[1].alternator.port']);
  expect(err.issues[0]!.message).toMatch(/admits the loaders on 9042 only; got 19000/);
});

describe('loader jobs', () => {
  const { spec } = validateSpec(mixed);
  const p = planRun(spec, { runId: 'r' });
  const run = {
    runId: 'r',
    loadTargets: p.load!.targets,
    cellCount: p.cells.length,
  } as unknown as RunContext;
  const nodes = [
    { host: '10.0.0.1', port: 9042 },
    { host: '10.0.1.1', port: 9042 },
    { host: '10.0.2.1', port: 9042 },
  ];
  const target = (id: string): Target => spec.targets.find((t) => t.id === id)!;
  const endpoints = {
    scylla: runtimeEndpointProperties(target('scylla'), nodes),
    alt: runtimeEndpointProperties(target('alt'), [
      { host: '10.0.0.7', port: 8000 },
      { host: '10.0.1.7', port: 8000 },
    ]),
  };
  const job = (phase: 'load' | 'run', index: number) =>
    buildJobs({
      run,
      plan: planIndex(p),
      cell: phase === 'run' ? p.cells[index] : undefined,
      spec,
      phase,
      index,
      storeUri: 's3://b',
      endpoints,
    }).jobs[0]!;

  it("names the execution it belongs to: the run's, or a resuming execution's own (the agent runs a job once per execution)", () => {
    expect(job('run', 0).execution).toBe('r');
    const resumed = buildJobs({
      run: { ...run, resume: { executionName: 'r-resume-1', atMs: 0, cells: [0] } },
      plan: planIndex(p),
      cell: p.cells[0],
      spec,
      phase: 'run',
      index: 0,
      storeUri: 's3://b',
      endpoints,
    }).jobs[0]!;
    expect(resumed.execution).toBe('r-resume-1');
    expect(resumed.outputPrefix).toBe(job('run', 0).outputPrefix);
  });

  it('CQL cells run the CQL binding against every node with QUORUM and the seeds’ keyspace/table', () => {
    const j = job(
      'run',
      p.cells.findIndex((c) => c.target === 'scylla'),
    );
    expect(j.db).toBe(BINDINGS.cql.dbClass);
    expect(j.processes[0]).toMatchObject({
      'cql.hosts': '10.0.0.1,10.0.1.1,10.0.2.1',
      'cql.keyspace': 'ycsb',
      table: 'usertable',
      'cql.readConsistency': 'QUORUM',
      'cql.writeConsistency': 'QUORUM',
    });
  });

  it('Alternator cells use the DynamoDB-API binding over all node endpoints; the load phase too', () => {
    const j = job(
      'run',
      p.cells.findIndex((c) => c.target === 'alt'),
    );
    expect(j.db).toBe(BINDINGS.dynamodb.dbClass);
    expect(j.processes[0]!['dynamodb.endpoint']).toBe('http://10.0.0.7:8000,http://10.0.1.7:8000');
    // strongly consistent reads by default (LOCAL_QUORUM), as ScyllaDB's YCSB defaults for Alternator
    expect(j.processes[0]!['dynamodb.consistentReads']).toBe('true');
    const eventual = structuredClone(mixed);
    Object.assign(eventual.targets[1]!, { alternator: { consistentReads: false } });
    const ev = validateSpec(eventual).spec;
    const pe = planRun(ev, { runId: 'r' });
    const cellE = pe.cells.find((c) => c.target === 'alt')!;
    expect(cellE.properties['dynamodb.consistentReads']).toBe('false');
    const load = job('load', p.load!.targets.indexOf('alt'));
    expect(
      load.processes.every((x) => x['dynamodb.endpoint'] === 'http://10.0.0.7:8000,http://10.0.1.7:8000'),
    ).toBe(true);
    expect(load.processes[0]!.table).toBe('fleetbench-mixed.alt.r');
    // the DynamoDB-API binding batches its inserts (its descriptor's load properties); the CQL binding does not
    expect(load.processes[0]!['dynamodb.batchInserts']).toBe('25');
    expect(
      job('load', p.load!.targets.indexOf('scylla')).processes[0]!['dynamodb.batchInserts'],
    ).toBeUndefined();
  });

  it('external cells carry the endpoints and a reference to the secret, never credentials', () => {
    const j = job(
      'run',
      p.cells.findIndex((c) => c.target === 'cloud'),
    );
    expect(j.credentials).toEqual({ secretArn: SECRET, binding: 'dynamodb' });
    expect(j.processes[0]!['dynamodb.endpoint']).toBe(
      'https://a.cloud.example:8043,https://b.cloud.example:8043',
    );
    const text = JSON.stringify(j);
    for (const k of ['accessKey', 'secretAccessKey', 'password', 'AWS_SECRET']) expect(text).not.toContain(k);
  });
});

describe('examples', () => {
  const examples = readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json'));
  it.each(examples)('%s passes the Plan step as the Lambda runs it (8-day timeout, budget)', async (file) => {
    const spec = JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8'));
    const run = await plan(
      { executionName: `ex-${file.replace(/\W+/g, '-')}`, spec },
      {
        store: new FsStore(dir),
        clock,
        maxRunSeconds: 8 * 24 * 3600,
        estimateRunUsd,
        // the examples' binding jars (s3://your-bucket/…) are placeholders: a stand-in for their bytes
        readJar: async () => Buffer.from('a jar'),
      },
    );
    expect(run.cellCount).toBeGreaterThan(0);
  });

  it('scylla-vs-cassandra follows seed 002: 10K to 600K ops/s in 10K steps, RF 3, QUORUM, 10M 1 KB rows, 50:50', () => {
    const { spec } = validateSpec(
      JSON.parse(readFileSync(path.join(root, 'examples', 'scylla-vs-cassandra.json'), 'utf8')),
    );
    const p = planRun(spec);
    const steps = p.cells.filter((c) => c.target === 'scylla').map((c) => c.targetOpsPerSec);
    expect(steps).toHaveLength(60);
    expect(steps[0]).toBe(10_000);
    expect(steps[59]).toBe(600_000);
    expect(steps.every((s, i) => s === 10_000 * (i + 1))).toBe(true);
    expect(spec.targets[0]).toMatchObject({
      kind: 'scylla-ec2',
      nodes: 3,
      api: 'cql',
      replicationFactor: 3,
      cql: { consistency: 'QUORUM' },
    });
    expect(spec.targets[1]).toMatchObject({ kind: 'external', protocol: 'cql' });
    expect(spec.dataset).toMatchObject({ recordCount: 10_000_000, fieldCount: 10, fieldLength: 100 });
    expect(p.cells.every((c) => c.readProportion === 0.5 && c.updateProportion === 0.5)).toBe(true);
    // seed 002: 10 loaders × 10 processes
    expect(p.fleet).toMatchObject({ loaders: 10, processesPerLoader: 10 });
    // the external cluster's CQL endpoints reach the cells
    const cass = p.cells.find((c) => c.target === 'cassandra')!;
    expect(cass.properties['cql.hosts']).toBe('10.0.10.11:9042,10.0.11.12:9042,10.0.12.13:9042');
  });
});

describe('the CLI', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(root, 'bin', 'fleetbench.js'), ...args], {
      encoding: 'utf8',
      cwd: root,
      maxBuffer: 1 << 28, // plan --json of 120 cells × 100 processes is ~13 MB
    });

  it('plan --json prices the ScyllaDB nodes (instance-hours) and the external service apart from AWS', () => {
    const r = cli('plan', 'examples/scylla-vs-cassandra.json', '--json');
    expect(r.status).toBe(0);
    const e = JSON.parse(r.stdout).estimate;
    const nodes = e.items.find((i: { kind: string }) => i.kind === 'nodes');
    // 3 × i4i.2xlarge at the 2024-11 book's $0.686/h, for the ScyllaDB target's own life (sequential, the default)
    expect(nodes).toMatchObject({ target: 'scylla', unit: 'instance-hour', unitUsd: 0.686 });
    expect(e.attributed).toEqual([
      expect.objectContaining({ kind: 'external', target: 'cassandra', unit: 'hour', unitUsd: 2.058 }),
    ]);
    // the two lives one after the other make the run: the nodes' hours and the external service's add up to it
    expect(nodes.quantity / 3 + e.attributed[0].quantity).toBeCloseTo(e.runHours, 3);
    expect(e.items.some((i: { kind: string }) => i.kind === 'external')).toBe(false); // not in the AWS total
    const text = cli('plan', 'examples/scylla-vs-cassandra.json').stdout;
    expect(text).toMatch(/scylla: 3 × i4i\.2xlarge nodes for the run/);
    expect(text).toMatch(/Not billed by AWS[^\n]*\n\s+\$\s+[\d.]+\s+cassandra: external service/);
  });
});
