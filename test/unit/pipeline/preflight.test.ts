/**
 * Preflight (lib/core/pipeline/preflight.ts) and the Plan step's use of it, on AWS's documented default quotas:
 * DynamoDB 40,000 read and write units per table and 80,000 per account
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html), and 5 vCPUs of
 * Running On-Demand Standard instances, the value AWS's CLI reference shows for a new account
 * (https://docs.aws.amazon.com/cli/latest/reference/service-quotas/get-aws-default-service-quota.html).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../lib/core/common/errors';
import { plan } from '../../../lib/core/pipeline';
import { planRun } from '../../../lib/core/plan';
import type { AccountQuotas } from '../../../lib/core/common/ports';
import {
  SSM_MAX_EXECUTION_TIMEOUT_SECONDS,
  accountNeeds,
  checkAccount,
  preflight,
  vcpuQuotaOf,
} from '../../../lib/core/pipeline/preflight';
import { validateSpec } from '../../../lib/core/spec';
import { FsStore } from '../../../lib/local/fs-store';

const root = path.join(__dirname, '..', '..', '..');
const example = (name: string) =>
  JSON.parse(readFileSync(path.join(root, 'examples', `${name}.json`), 'utf8')) as Record<string, unknown>;

/** An account on AWS's defaults, as the port would report it. */
const defaults = (over: Partial<{ vcpus: number | null; azs: string[] | null }> = {}): AccountQuotas => ({
  dynamoDbLimits: async () => ({
    tableMaxReadCapacityUnits: 40000,
    tableMaxWriteCapacityUnits: 40000,
    accountMaxReadCapacityUnits: 80000,
    accountMaxWriteCapacityUnits: 80000,
  }),
  quota: async (service, code) =>
    service === 'ec2' && code === 'L-1216C47A' ? (over.vcpus === undefined ? 5 : over.vcpus) : null,
  availabilityZones: async () => (over.azs === undefined ? ['a', 'b', 'c', 'd'] : over.azs),
});

const needsOf = (raw: unknown) => {
  const { spec } = validateSpec(raw);
  return accountNeeds(spec, planRun(spec, { runId: 'r' }));
};

describe('instance types', () => {
  // their vCPUs: test/unit/instance-types.test.ts
  it.each([
    ['c5.2xlarge', 'L-1216C47A'],
    ['i4i.2xlarge', 'L-1216C47A'],
    ['p4d.24xlarge', 'L-417A185B'],
    ['g5.xlarge', 'L-DB2E81BA'],
    ['inf2.xlarge', 'L-1945791B'],
    ['x2idn.16xlarge', 'L-7295265B'],
    ['f1.2xlarge', 'L-74FC7D96'],
  ])('%s counts against %s', (type, code) => expect(vcpuQuotaOf(type)?.code).toBe(code));
});

describe('checkAccount', () => {
  it('refuses the seed-size study on default quotas: both table limits, both account limits, the vCPUs', async () => {
    const problems = await preflight(needsOf(example('scylla-vs-dynamodb')), defaults(), {
      availabilityZones: 3,
    });
    expect(problems.map((p) => p.message)).toEqual([
      'DynamoDB per-table read capacity (TableMaxReadCapacityUnits): needs 200,000, the account has 40,000 (raise it in Service Quotas, or lower the spec)',
      'DynamoDB per-table write capacity (TableMaxWriteCapacityUnits): needs 250,000, the account has 40,000 (raise it in Service Quotas, or lower the spec)',
      'DynamoDB account read capacity (AccountMaxReadCapacityUnits): needs 200,000, the account has 80,000 (raise it in Service Quotas, or lower the spec)',
      'DynamoDB account write capacity (AccountMaxWriteCapacityUnits): needs 250,000, the account has 80,000 (raise it in Service Quotas, or lower the spec)',
      'EC2 Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances vCPUs (ec2/L-1216C47A): needs 64, the account has 5 (5 × c5.2xlarge loaders + 3 × i4i.2xlarge ScyllaDB nodes (scylla); raise it in Service Quotas, or lower the spec)',
    ]);
  });

  it("seed 002's Cassandra nodes count against the vCPU quota with the ScyllaDB nodes and loaders", () => {
    const needs = needsOf(example('seed-002-staircase'));
    // 10 × c5.2xlarge (8) + 3 × i4i.4xlarge (16) ScyllaDB + (3 + 9 + 15) × i4i.4xlarge (16) Cassandra
    expect(needs.vcpus.map((v) => v.vcpus)).toEqual([10 * 8 + 3 * 16 + 27 * 16]);
    expect(needs.vcpus[0]!.what).toEqual([
      '10 × c5.2xlarge loaders',
      '3 × i4i.4xlarge ScyllaDB nodes (scylla-3)',
      '3 × i4i.4xlarge Cassandra nodes (cassandra-3)',
      '9 × i4i.4xlarge Cassandra nodes (cassandra-9)',
      '15 × i4i.4xlarge Cassandra nodes (cassandra-15)',
    ]);
    expect(needs.replication).toEqual({ path: 'targets[0].replicationFactor', factor: 3 });
  });

  it('passes when the quotas were raised to what the study needs', async () => {
    const raised: AccountQuotas = {
      dynamoDbLimits: async () => ({
        tableMaxReadCapacityUnits: 200000,
        tableMaxWriteCapacityUnits: 250000,
        accountMaxReadCapacityUnits: 200000,
        accountMaxWriteCapacityUnits: 250000,
      }),
      quota: async () => 64,
      availabilityZones: async () => ['a', 'b', 'c'],
    };
    expect(await preflight(needsOf(example('scylla-vs-dynamodb')), raised, { availabilityZones: 3 })).toEqual(
      [],
    );
  });

  it("RF 3 needs subnets in 3 AZs: the stack's or the region's, whichever is fewer", async () => {
    const needs = needsOf(example('scylla-vs-dynamodb'));
    const az = (ps: { setting: string; message: string }[]) =>
      ps.filter((p) => p.setting.startsWith('availability zones')).map((p) => p.message);
    const raised = { ...defaults({ vcpus: 1000 }), dynamoDbLimits: async () => null };
    expect(az(await preflight(needs, raised, { availabilityZones: 2 }))).toEqual([
      "availability zones of the stack's subnets: needs 3, the account has 2 (one replica per AZ: lower replicationFactor, or deploy into a VPC with that many AZs)",
    ]);
    expect(az(await preflight(needs, defaults({ azs: ['a', 'b'] }), { availabilityZones: 3 }))).toHaveLength(
      1,
    );
    expect(az(await preflight(needs, defaults(), { availabilityZones: 3 }))).toEqual([]);
  });

  it("a load phase that could outlast Run Command's 48 h timeout is refused, naming the field", () => {
    const spec = example('quickstart');
    const needs = needsOf({
      ...spec,
      dataset: { ...(spec.dataset as object), recordCount: 2_000_000_000, loadTargetOpsPerSec: 1000 },
    });
    // expected 2,000,000 s + 30 s start-up; deadline 4 × expected + 300 s (lib/core/pipeline/timing.ts)
    expect(needs.longestCommand).toEqual({ phase: 'load', seconds: 4 * 2_000_030 + 300 });
    const [p] = checkAccount(needs, { dynamodb: null, vcpuQuotas: {}, availabilityZones: null }).filter((q) =>
      q.setting.startsWith('Run Command'),
    );
    expect(p).toMatchObject({
      path: 'dataset.loadTargetOpsPerSec',
      needed: 8_000_420,
      available: SSM_MAX_EXECUTION_TIMEOUT_SECONDS,
    });
  });

  it('an unreadable quota is unverified (available null), not a pass and not a number', () => {
    const needs = needsOf(example('scylla-vs-dynamodb'));
    const ps = checkAccount(needs, { dynamodb: null, vcpuQuotas: {}, availabilityZones: 3 });
    expect(ps.length).toBeGreaterThanOrEqual(3);
    for (const p of ps) expect(p.available).toBeNull();
  });
});

describe('the Plan step', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-preflight-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const deps = (extra: object) => ({
    store: new FsStore(dir),
    clock: { nowMs: () => Date.UTC(2026, 10, 23) },
    ...extra,
  });

  it('refuses a run over the quotas before writing anything', async () => {
    const err = await plan(
      { executionName: 'seed-1', spec: example('scylla-vs-dynamodb') },
      deps({ quotas: defaults(), availabilityZones: 3, region: 'us-east-1' }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues.map((i) => i.path)).toEqual([
      'targets[0].billing',
      'targets[0].billing',
      'targets',
      'targets',
      'loaders.instanceType',
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("gives a spec without region the stack's region, and refuses one naming another, naming both", async () => {
    const spec = example('quickstart');
    expect(spec.region).toBeUndefined(); // the quickstart runs in the stack's region
    const ctx = await plan({ executionName: 'q-1', spec }, deps({ region: 'eu-west-1' }));
    const written = JSON.parse(readFileSync(path.join(dir, 'runs', ctx.runId, 'spec.json'), 'utf8'));
    expect(written.region).toBe('eu-west-1');
    const plan2 = JSON.parse(readFileSync(path.join(dir, 'runs', ctx.runId, 'plan.json'), 'utf8'));
    expect(JSON.stringify(plan2)).toContain('"dynamodb.region":"eu-west-1"');

    const err = await plan(
      { executionName: 'q-2', spec: { ...spec, region: 'us-east-1' } },
      deps({ region: 'eu-west-1' }),
    ).catch((e: unknown) => e);
    expect((err as InputError).issues).toEqual([
      {
        path: 'region',
        message: expect.stringMatching(/^the spec's region is us-east-1 but the stack runs in eu-west-1 /),
      },
    ]);
  });
});
