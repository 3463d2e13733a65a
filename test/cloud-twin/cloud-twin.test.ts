/**
 * The deployed wiring, proven before anyone deploys: the synthesized stack's bundled Lambdas, with
 * the template's environments and role policies, the state machine definition from the template,
 * the SSM document and the loader agent bundle, run on moto server + DynamoDB Local (./twin.ts).
 * Every AWS call is checked against its caller's role; each scenario ends by asserting that no call
 * was denied (a denied call also fails the step that made it).
 */
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { CloudWatchClient, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import {
  DescribeInstanceAttributeCommand,
  DescribeInstancesCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
} from '@aws-sdk/client-secrets-manager';
import { TAG_EXPIRES_AT, TAG_ROLE, TAG_RUN_ID } from '../../lib/core/common/ports';
import { TAG_LOADER_GROUP } from '../../lib/core/pipeline/run-context';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  cassandraBootstrapScript,
  ec2NodeParams,
  scriptVariable,
} from '../../lib/core/targets/cassandra-ec2/node';
import { TAG_NODE_INDEX, parseHealth } from '../../lib/core/targets/nodes/cluster';
import { validateSpec } from '../../lib/core/spec';
import type { CassandraEc2Target } from '../../lib/core/spec/schema';
import { cassandraAssetPath } from '../../lib/build/cassandra-asset';
import { cqlQuery } from '../../lib/local/cql-client';
import { S3Store } from '../../lib/aws/s3-store';
import { CloudTwin, accessKeyOf } from './twin';
import { daxResourceName } from '../../lib/core/targets/dynamodb/dax';
import { memoryDbResourceName, memoryDbSecretName } from '../../lib/core/targets/memorydb/names';
import { keyspaceName } from '../../lib/core/targets/keyspaces/keyspace';
import { evaluate } from './iam';
import { launchTemplateRole, resourcesOfType, rolePolicies } from './template';
import { ACCOUNT, REGION } from './template';
import { fixtureItems, startPriceListStandIn } from '../support/price-list-stand-in';

jest.setTimeout(240_000);

let twin: CloudTwin;

beforeAll(async () => {
  twin = await CloudTwin.start();
}, 180_000);

afterAll(async () => {
  await twin?.stop();
});

afterEach(() => {
  twin.gateway.clearFaults();
});

/** Fails naming every call IAM refused (function, action, resource) since the mark. */
function expectNoDenials(from: number): void {
  const denied = twin.gateway.calls
    .slice(from)
    .filter((c) => c.result !== 'Allowed')
    .map((c) => `${c.principal}: ${c.action} on ${c.resource} (${c.result})`);
  expect(denied).toEqual([]);
}

const logsOnFailure = (r: { status: string }) =>
  r.status === 'SUCCEEDED' ? '' : twin.logs.slice(-40).join('\n');

function spec(name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    region: REGION,
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'provisioned', rcu: 100, wcu: 100 },
        expectedLatencyMs: 20,
      },
    ],
    dataset: { recordCount: 300, fieldCount: 2, fieldLength: 20, load: true },
    workload: {
      base: 'a',
      readProportions: [0.5],
      targetOpsPerSec: [50],
      distributions: ['uniform'],
      durationSeconds: 5,
      warmupSeconds: 0,
    },
    loaders: { instanceType: 'c5.large', count: 1, processesPerLoader: 1, threadsPerProcess: 2 },
    ...over,
  };
}

/**
 * A run of `s` stopped once its target is ready (the loaders would call addresses that exist only in moto, or a
 * service that is not here): it must reach InitLoad with no call denied, and is then ABORTED. A connection
 * a security group refused (a node that cannot boot: WaitReady would wait for its whole time budget) stops
 * it at once, and fails it with the other denials.
 */
async function runUntilLoad(mark: number, s: Record<string, unknown>, name: string) {
  const refused = () => twin.gateway.calls.slice(mark).some((c) => c.result.startsWith('NetworkRefused'));
  const r = await twin.execute({
    input: { spec: s },
    name,
    waitMs: 1000,
    onState: (state) => (state === 'InitLoad' || refused() ? 'abort' : undefined),
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: r.status === 'ABORTED' ? '' : twin.logs.slice(-40).join('\n') }).toEqual({
    status: 'ABORTED',
    logs: '',
  });
  expect(r.states).toEqual(expect.arrayContaining(['ProvisionTarget', 'WaitReady', 'Ready?', 'InitLoad']));
  return r;
}

/** The abort rule's target, given what EventBridge delivers for that ABORTED execution; its teardown result. */
async function abortRuleTeardown<T>(r: { executionArn: string }, name: string): Promise<T> {
  return (await twin.invoke(twin.ruleTarget('AbortRule').fn, {
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    detail: {
      executionArn: r.executionArn,
      stateMachineArn: twin.stateMachine().arn,
      name,
      status: 'ABORTED',
    },
  })) as T;
}

async function runInstancesOf(runId: string) {
  return (await twin.instances()).filter((i) => i.tags[TAG_RUN_ID] === runId);
}

test('a loader lost between cells is replaced under the template roles, and teardown leaves nothing (#32)', async () => {
  const mark = twin.gateway.calls.length;
  const ec2 = new EC2Client(twin.moto.clientConfig);
  let lost: Promise<string> | undefined;
  const r = await twin.execute({
    input: {
      spec: spec('twin-lost', {
        workload: { ...(spec('x').workload as object), targetOpsPerSec: [50, 60] },
      }),
    },
    name: 'twin-lost-1',
    waitMs: 1000,
    // the first cell has run (its command succeeded): its loader instance goes, as one lost to EC2 would
    onState: (state) => {
      if (state !== 'AggregateCell' || lost) return;
      lost = runInstancesOf('twin-lost-1').then(async ([i]) => {
        await ec2.send(new TerminateInstancesCommand({ InstanceIds: [i!.id] }));
        return i!.id;
      });
    },
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  expect(r.states).toEqual(
    expect.arrayContaining(['CellFailed', 'RetryCell', 'WaitLoaders', 'LoadersReady?']),
  );
  const first = await lost!;
  const summary = (await twin.getJson('runs/twin-lost-1/summary.json')) as {
    cells: { cellId: string; incomplete: boolean }[];
    loaderReplacements: { launched: number; missing: number }[];
  };
  expect(summary.cells.map((c) => c.incomplete)).toEqual([false, false]);
  expect(summary.loaderReplacements).toEqual([expect.objectContaining({ launched: 1, missing: 1 })]);
  // the replacement was launched by CellFailed (its role) from the loader template, tagged with the run
  const instances = await runInstancesOf('twin-lost-1');
  expect(instances).toHaveLength(2);
  const replacement = instances.find((i) => i.id !== first)!;
  expect(replacement.tags).toMatchObject({ [TAG_RUN_ID]: 'twin-lost-1', [TAG_ROLE]: 'loader' });
  const launchedBy = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action === 'ec2:RunInstances' && c.result === 'Allowed')
    .map((c) => c.principal);
  expect(launchedBy.some((p) => /CellFailed/.test(p))).toBe(true);
  // teardown: every loader of the run gone, the table deleted
  expect(instances.map((i) => i.state)).toEqual(['terminated', 'terminated']);
  const teardown = (await twin.getJson('runs/twin-lost-1/teardown.json')) as { terminated: string[] };
  expect(teardown.terminated).toContain(replacement.id);
  expect(await twin.tables()).not.toContain('fleetbench-twin-lost.ddb.twin-lost-1');
  expect(twin.ssm.running()).toBe(0);
});

test('a run stopped after its first cell is resumed: only the missing cell runs, under the roles (#32)', async () => {
  const mark = twin.gateway.calls.length;
  const s = spec('twin-resume', {
    workload: { ...(spec('x').workload as object), targetOpsPerSec: [50, 60] },
    onCellFailure: 'stop',
  });
  // stopped once the first cell's row is written; the abort rule tears it down, as EventBridge would
  const first = await twin.execute({
    input: { spec: s },
    name: 'twin-resume-1',
    waitMs: 1000,
    onState: (state) => (state === 'NextCell' ? 'abort' : undefined),
  });
  expect(first.status).toBe('ABORTED');
  await abortRuleTeardown(first, 'twin-resume-1');
  // the aborted run's row, written by the abort rule's teardown under OnAbort's role: one of two cells measured
  expect(await runsRow('twin-resume-1')).toMatchObject({
    status: 'ABORTED',
    cells_total: 2,
    cells_incomplete: 1,
  });
  const r = await twin.execute({
    input: { resume: 'twin-resume-1' },
    name: 'twin-resume-1-resume',
    waitMs: 1000,
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  // loaded again, then only the missing cell started
  expect(r.states.filter((st) => st === 'StartLoad')).toHaveLength(1);
  expect(r.states.filter((st) => st === 'StartCell')).toHaveLength(1);
  expect(await twin.getJson('runs/twin-resume-1/resume.json')).toMatchObject({ cells: [1] });
  const summary = (await twin.getJson('runs/twin-resume-1/summary.json')) as {
    runId: string;
    cells: { cellId: string; incomplete: boolean }[];
  };
  expect(summary.runId).toBe('twin-resume-1');
  // the same row, now the resumed run's
  expect(await runsRow('twin-resume-1')).toMatchObject({ status: 'SUCCEEDED', cells_incomplete: 0 });
  expect(summary.cells.map((c) => [c.cellId, c.incomplete])).toEqual([
    ['ddb.uniform.r50.t50', false],
    ['ddb.uniform.r50.t60', false],
  ]);
  // everything of both executions torn down
  expect((await runInstancesOf('twin-resume-1')).map((i) => i.state)).toEqual(['terminated', 'terminated']);
  expect(await twin.tables()).not.toContain('fleetbench-twin-resume.ddb.twin-resume-1');
  // a run is resumed once: Plan refuses the second, nothing is provisioned
  const again = await twin.execute({
    input: { resume: 'twin-resume-1' },
    name: 'twin-resume-1-again',
    waitMs: 1000,
  });
  expect(again.status).toBe('FAILED');
  expect(again.cause).toMatch(/resumed already/);
  expect(again.states).not.toContain('ProvisionTarget');
});

/** Does an EventBridge pattern (arrays of allowed values, nested objects) match the event? */
function matches(pattern: unknown, event: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(event);
  if (pattern && typeof pattern === 'object') {
    const ev = (event ?? {}) as Record<string, unknown>;
    return Object.entries(pattern as Record<string, unknown>).every(([k, p]) => matches(p, ev[k]));
  }
  return pattern === event;
}

test('a DynamoDB run: every step from its bundle, under its role, writes the results and tears down', async () => {
  const mark = twin.gateway.calls.length;
  const r = await twin.execute({ input: { spec: spec('twin-ddb') }, name: 'twin-ddb-1', waitMs: 1000 });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  const entered = [...new Set(r.states)];
  expect(entered).toEqual(
    expect.arrayContaining([
      'Plan',
      'ProvisionTarget',
      'ProvisionFleet',
      'WaitReady',
      'StartLoad',
      'CheckLoad',
      'ConfigureCell',
      'StartCell',
      'CheckCell',
      'AggregateCell',
      'Report',
      'DetectRegressions',
      'Teardown',
      'Done',
    ]),
  );
  expect(entered).not.toContain('TeardownAfterFailure');

  const runKeys = await twin.keys('runs/twin-ddb-1/');
  const cell = 'ddb.uniform.r50.t50';
  for (const k of ['spec.json', 'plan.json', 'context.json', 'summary.json', 'teardown.json'])
    expect(runKeys).toContain(`runs/twin-ddb-1/${k}`);
  // the agent's raw outputs (HDR logs, summary) uploaded under the loader role
  expect(runKeys.filter((k) => k.startsWith(`runs/twin-ddb-1/cells/${cell}/raw/`)).length).toBeGreaterThan(2);
  expect(runKeys.some((k) => /load\/ddb\/raw\/loader-0\/proc-0\/summary\.json$/.test(k))).toBe(true);
  const summary = (await twin.getJson('runs/twin-ddb-1/summary.json')) as { cells: { cellId: string }[] };
  expect(summary.cells.map((c) => c.cellId)).toEqual([cell]);
  const rows = await twin.keys('tables/');
  expect(rows.some((k) => k.startsWith('tables/runs/') && k.includes('twin-ddb-1'))).toBe(true);
  expect(rows.some((k) => k.startsWith('tables/cells/') && k.includes('twin-ddb-1'))).toBe(true);

  const instances = await runInstancesOf('twin-ddb-1');
  expect(instances.map((i) => i.state)).toEqual(['terminated']);
  const teardown = (await twin.getJson('runs/twin-ddb-1/teardown.json')) as Record<string, unknown>;
  expect(teardown).toMatchObject({
    terminated: [instances[0]!.id],
    deletedTables: ['fleetbench-twin-ddb.ddb.twin-ddb-1'],
    failed: false,
  });
  expect(await twin.tables()).not.toContain('fleetbench-twin-ddb.ddb.twin-ddb-1');
  expect(twin.ssm.running()).toBe(0);
  // the loaders' live progress became CloudWatch metrics, put under the loader role
  const metrics = await new CloudWatchClient(twin.moto.clientConfig).send(
    new ListMetricsCommand({ Namespace: 'Fleetbench', MetricName: 'LoaderOpsPerSecond' }),
  );
  const cells = [
    ...new Set(
      (metrics.Metrics ?? [])
        .map((m) => Object.fromEntries((m.Dimensions ?? []).map((d) => [d.Name!, d.Value!])))
        .filter((d) => d.RunId === 'twin-ddb-1')
        .map((d) => `${d.CellId}/${d.Phase}`),
    ),
  ].sort();
  expect(cells).toEqual(['ddb.uniform.r50.t50/run', 'load-ddb/load']);
  expect(
    twin.gateway.calls.filter(
      (c) => c.action === 'cloudwatch:PutMetricData' && c.principal.startsWith('Loaders'),
    ).length,
  ).toBeGreaterThan(0);
  expectNoDenials(mark);
});

test("two DynamoDB targets in sequence (#33): the first's table deleted by TeardownTarget before the second's is created", async () => {
  const mark = twin.gateway.calls.length;
  const target = (id: string) => ({
    id,
    kind: 'dynamodb',
    billing: { mode: 'provisioned', rcu: 100, wcu: 100 },
    expectedLatencyMs: 20,
  });
  const r = await twin.execute({
    input: { spec: spec('twin-seq', { targets: [target('one'), target('two')] }) },
    name: 'twin-seq-1',
    waitMs: 1000,
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  expect(r.states.filter((s) => s === 'TeardownTarget')).toHaveLength(2);
  const [one, two] = ['one', 'two'].map((t) => `fleetbench-twin-seq.${t}.twin-seq-1`);
  // CreateTable and DeleteTable as IAM saw them: who made each call, in order
  const tableCalls = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action === 'dynamodb:CreateTable' || c.action === 'dynamodb:DeleteTable')
    .map((c) => [c.action, c.resource.split('/').pop(), c.principal.replace(/Fn.*$/, '')]);
  expect(tableCalls).toEqual([
    ['dynamodb:CreateTable', one, 'PipelineProvisionTarget'],
    ['dynamodb:DeleteTable', one, 'PipelineTeardown'],
    ['dynamodb:CreateTable', two, 'PipelineProvisionTarget'],
    ['dynamodb:DeleteTable', two, 'PipelineTeardown'],
  ]);
  expect(await twin.getJson('runs/twin-seq-1/teardown/one.json')).toMatchObject({ deletedTables: [one] });
  // the run's Teardown: the loader (which served both targets), no table left; its record lists the targets'
  const instances = await runInstancesOf('twin-seq-1');
  expect(instances.map((i) => i.state)).toEqual(['terminated']);
  expect(await twin.getJson('runs/twin-seq-1/teardown.json')).toMatchObject({
    terminated: [instances[0]!.id],
    deletedTables: [one, two],
    failed: false,
  });
  expect((await twin.tables()).filter((t) => t.includes('twin-seq'))).toEqual([]);
  const summary = (await twin.getJson('runs/twin-seq-1/summary.json')) as { cells: { cellId: string }[] };
  expect(summary.cells.map((c) => c.cellId)).toEqual(['one.uniform.r50.t50', 'two.uniform.r50.t50']);
});

/** The run's row of table `runs` (one JSON line). */
async function runsRow(runId: string): Promise<Record<string, unknown>> {
  const keys = (await twin.keys('tables/runs/')).filter((k) => k.endsWith(`/${runId}.jsonl`));
  expect(keys).toHaveLength(1);
  return (await twin.getJson(keys[0]!)) as Record<string, unknown>;
}

/** DynamoDB's refusal of a DeleteTable while the table is being updated (its API reference, DeleteTable errors). */
const tableInUse = (table: string) => ({
  operation: 'dynamodb:DeleteTable',
  code: 'ResourceInUseException',
  message: `Attempt to change a resource which is still in use: Table is being updated: ${table}`,
});

test("a target's teardown still failing after its retries: Report runs, the run succeeds, its Teardown removes the table", async () => {
  const mark = twin.gateway.calls.length;
  const table = 'fleetbench-twin-tdfail.ddb.twin-tdfail-1';
  // TeardownTarget's three tries (its retrier: 2 more) are refused; the run's Teardown's is not
  for (let i = 0; i < 3; i++) twin.gateway.injectFault(tableInUse(table));
  const r = await twin.execute({
    input: { spec: spec('twin-tdfail') },
    name: 'twin-tdfail-1',
    waitMs: 1000,
    retryMs: { TeardownTarget: 0 },
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  expect(r.states).toEqual(
    expect.arrayContaining(['TargetTeardownFailed', 'Report', 'DetectRegressions', 'Teardown', 'Done']),
  );
  expect(r.states).not.toContain('TeardownAfterFailure');
  const deletes = twin.gateway.calls.slice(mark).filter((c) => c.action === 'dynamodb:DeleteTable');
  expect(deletes).toHaveLength(4);
  // the report says so: summary.json, report.html
  const summary = (await twin.getJson('runs/twin-tdfail-1/summary.json')) as Record<string, unknown>;
  expect(summary).toMatchObject({
    status: 'SUCCEEDED',
    cells: [expect.objectContaining({ incomplete: false })],
    targetTeardownFailures: [
      {
        target: 'ddb',
        error: expect.stringContaining('ResourceInUseException'),
        left: [expect.stringContaining(table)],
      },
    ],
  });
  const html = await twin.clients.s3.send(
    new GetObjectCommand({ Bucket: twin.bucket, Key: 'runs/twin-tdfail-1/report.html' }),
  );
  expect(await html.Body!.transformToString()).toContain('Target ddb: its teardown failed');
  // the run's row: its price book and the plan's estimate
  const plan = (await twin.getJson('runs/twin-tdfail-1/plan.json')) as {
    estimate: { totalUsd: number; priceBook: string };
  };
  expect(await runsRow('twin-tdfail-1')).toMatchObject({
    status: 'SUCCEEDED',
    mode: 'aws',
    price_book: plan.estimate.priceBook,
    run_cost_estimate_usd: plan.estimate.totalUsd,
    cells_incomplete: 0,
  });
  // nothing of the run left: the run's Teardown deleted the table the target's left, and says so in its record
  expect(await twin.tables()).not.toContain(table);
  expect((await runInstancesOf('twin-tdfail-1')).map((i) => i.state)).toEqual(['terminated']);
  expect(await twin.getJson('runs/twin-tdfail-1/teardown.json')).toMatchObject({
    deletedTables: [table],
    failed: false,
  });
  expect(await twin.getJson('runs/twin-tdfail-1/teardown/ddb.json')).toMatchObject({
    errors: [expect.stringContaining('ResourceInUseException')],
  });
});

test("the run's Teardown failing too: the run fails after its report with the teardown's error; the abort rule's pass removes the table", async () => {
  const mark = twin.gateway.calls.length;
  const table = 'fleetbench-twin-tdfail.ddb.twin-tdfail-2';
  // TeardownTarget (3 tries), Teardown (1), TeardownAfterFailure (4 tries): all refused
  for (let i = 0; i < 8; i++) twin.gateway.injectFault(tableInUse(table));
  const r = await twin.execute({
    input: { spec: spec('twin-tdfail') },
    name: 'twin-tdfail-2',
    waitMs: 1000,
    retryMs: { TeardownTarget: 0, TeardownAfterFailure: 0 },
  });
  expectNoDenials(mark);
  expect(r.status).toBe('FAILED');
  expect(r.cause).toContain(`teardown of run twin-tdfail-2 incomplete`);
  expect(r.cause).toContain('ResourceInUseException');
  expect(r.states.slice(-4)).toEqual(['DetectRegressions', 'Teardown', 'TeardownAfterFailure', 'RunFailed']);
  // the results were written before: summary and report of the measured cell
  expect(await twin.getJson('runs/twin-tdfail-2/summary.json')).toMatchObject({
    cells: [expect.objectContaining({ incomplete: false })],
  });
  expect(await twin.keys('runs/twin-tdfail-2/report.html')).toEqual(['runs/twin-tdfail-2/report.html']);
  // the row Report wrote is now the failed run's, written by TeardownAfterFailure under its role
  expect(await runsRow('twin-tdfail-2')).toMatchObject({ status: 'FAILED', cells_incomplete: 0 });
  expect(await twin.getJson('runs/twin-tdfail-2/failure.json')).toMatchObject({
    executionName: 'twin-tdfail-2',
    cause: expect.stringContaining('teardown of run twin-tdfail-2 incomplete'),
  });
  expect(await twin.tables()).toContain(table);
  // EventBridge's FAILED event: the abort rule's teardown, the refusals over, removes the table
  twin.gateway.clearFaults();
  const out = (await twin.invoke(twin.ruleTarget('AbortRule').fn, {
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    detail: {
      executionArn: r.executionArn,
      stateMachineArn: twin.stateMachine().arn,
      name: 'twin-tdfail-2',
      status: 'FAILED',
      error: r.error,
      cause: r.cause,
    },
  })) as { deletedTables: string[] };
  expectNoDenials(mark);
  expect(out.deletedTables).toEqual([table]);
  expect(await runsRow('twin-tdfail-2')).toMatchObject({ status: 'FAILED' });
  expect(await twin.tables()).not.toContain(table);
  expect((await runInstancesOf('twin-tdfail-2')).map((i) => i.state)).toEqual(['terminated']);
});

const ddbTarget = (id: string) => ({
  id,
  kind: 'dynamodb',
  billing: { mode: 'provisioned', rcu: 100, wcu: 100 },
  expectedLatencyMs: 20,
});

test('two DynamoDB targets in parallel (#33): both under way together, each on its own loader group', async () => {
  const mark = twin.gateway.calls.length;
  const r = await twin.execute({
    input: {
      spec: spec('twin-par', { execution: 'parallel', targets: [ddbTarget('one'), ddbTarget('two')] }),
    },
    name: 'twin-par-1',
    waitMs: 1000,
  });
  expectNoDenials(mark);
  expect({ status: r.status, logs: logsOnFailure(r) }).toEqual({ status: 'SUCCEEDED', logs: '' });
  expect(r.states.filter((s) => s === 'TeardownTarget')).toHaveLength(2);
  const [one, two] = ['one', 'two'].map((t) => `fleetbench-twin-par.${t}.twin-par-1`);
  const calls = twin.gateway.calls.slice(mark);
  const at = (action: string, table: string) =>
    calls.findIndex((c) => c.action === action && c.resource.endsWith(`/${table}`));
  // side by side: each target's table is created before the other's is deleted
  expect(at('dynamodb:CreateTable', two)).toBeLessThan(at('dynamodb:DeleteTable', one));
  expect(at('dynamodb:CreateTable', one)).toBeLessThan(at('dynamodb:DeleteTable', two));
  for (const t of [one, two]) expect(at('dynamodb:DeleteTable', t)).toBeGreaterThan(-1);
  // one loader per group, launched under ProvisionFleet's role tagged with its target, terminated by the
  // target's own TeardownTarget
  const instances = await runInstancesOf('twin-par-1');
  expect(instances.map((i) => i.tags[TAG_LOADER_GROUP]).sort()).toEqual(['one', 'two']);
  expect(instances.map((i) => i.state)).toEqual(['terminated', 'terminated']);
  for (const t of ['one', 'two']) {
    const id = instances.find((i) => i.tags[TAG_LOADER_GROUP] === t)!.id;
    expect(await twin.getJson(`runs/twin-par-1/teardown/${t}.json`)).toMatchObject({ terminated: [id] });
  }
  expect((await twin.tables()).filter((t) => t.includes('twin-par'))).toEqual([]);
  const summary = (await twin.getJson('runs/twin-par-1/summary.json')) as { cells: { cellId: string }[] };
  expect(summary.cells.map((c) => c.cellId)).toEqual(['one.uniform.r50.t50', 'two.uniform.r50.t50']);
});

test("a failing cell in one of two parallel targets: the run fails with that cell's error, teardown removes both", async () => {
  const mark = twin.gateway.calls.length;
  const [one, two] = ['one', 'two'].map((t) => `fleetbench-twin-pfail.${t}.twin-pfail-1`);
  let waits = 0;
  let deleted: Promise<boolean> | undefined;
  const r = await twin.execute({
    input: {
      spec: spec('twin-pfail', {
        execution: 'parallel',
        targets: [ddbTarget('one'), ddbTarget('two')],
        dataset: { recordCount: 300, fieldCount: 2, fieldLength: 20, load: false },
        onCellFailure: 'stop',
      }),
    },
    name: 'twin-pfail-1',
    waitMs: 1000,
    onState: (state) => {
      // both targets' cells under way: target one's table goes from under its loader
      if (state === 'WaitCell' && ++waits === 2)
        deleted = twin.clients.ddb.send(new DeleteTableCommand({ TableName: one })).then(() => true);
    },
  });
  expectNoDenials(mark);
  expect(await deleted).toBe(true);
  expect(r.status).toBe('FAILED');
  expect(r.error).toBe('StepFailedError');
  expect(r.cause).toMatch(/CheckCell: the loader command failed on 1 of 1 loaders: i-/);
  expect(r.states.slice(-2)).toEqual(['TeardownAfterFailure', 'RunFailed']);
  // the other target's table, both groups' loaders: all removed by the run's teardown
  const instances = await runInstancesOf('twin-pfail-1');
  expect(instances.map((i) => i.state)).toEqual(['terminated', 'terminated']);
  expect((await twin.tables()).filter((t) => t.includes('twin-pfail'))).toEqual([]);
  const teardown = (await twin.getJson('runs/twin-pfail-1/teardown.json')) as Record<string, unknown>;
  expect(teardown).toMatchObject({ failed: true, deletedTables: [two] });
  expect([...(teardown.terminated as string[])].sort()).toEqual(instances.map((i) => i.id).sort());
  expectNoDenials(mark);
});

test('a scheduled start while another run of the schedule is running is refused by Plan, nothing provisioned', async () => {
  const mark = twin.gateway.calls.length;
  const sm = twin.stateMachine();
  const input = { spec: spec('twin-nightly'), scheduleName: 'twin-nightly' };
  // the previous run of the schedule, still RUNNING in Step Functions (moto)
  const other = await twin.clients.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: sm.arn,
      name: 'twin-nightly-prev',
      input: JSON.stringify(input),
    }),
  );
  try {
    const r = await twin.execute({ input, name: 'twin-nightly-2', waitMs: 1000 });
    expectNoDenials(mark);
    expect(r.status).toBe('FAILED');
    expect({ error: r.error, cause: r.cause }).toEqual({
      error: 'ScheduleOverlapError',
      cause: expect.stringContaining('twin-nightly-prev'),
    });
    expect(r.states).toEqual(['Init', 'Plan', 'TeardownAfterFailure', 'RunFailed']);
    expect(await runInstancesOf('twin-nightly-2')).toEqual([]);
    expect((await twin.tables()).filter((t) => t.includes('twin-nightly'))).toEqual([]);
    expect(await twin.keys('runs/twin-nightly-2/plan.json')).toEqual([]);
  } finally {
    await twin.clients.sfn.send(new StopExecutionCommand({ executionArn: other.executionArn }));
  }
  // Plan asked Step Functions under its own role
  expect(
    twin.gateway.calls
      .slice(mark)
      .filter((c) => c.action === 'states:ListExecutions')
      .map((c) => [c.principal, c.resource, c.result]),
  ).toEqual([[expect.stringMatching(/^PipelinePlanFn/), sm.arn, 'Allowed']]);
  expectNoDenials(mark);
});

test('a {"specKey": "specs/..."} start, aborted while the loaders run: the abort rule\'s target tears down', async () => {
  const mark = twin.gateway.calls.length;
  const s = spec('twin-abort', { workload: { ...(spec('x').workload as object), durationSeconds: 60 } });
  await twin.putJson('specs/twin-abort.json', s);
  const r = await twin.execute({
    input: { specKey: 'specs/twin-abort.json' },
    name: 'twin-abort-1',
    waitMs: 1000,
    onState: (state) => (state === 'CheckCell' ? 'abort' : undefined),
  });
  expectNoDenials(mark);
  expect(r.status).toBe('ABORTED');
  expect(r.states).toContain('StartCell');
  // Plan read the spec from specs/ and wrote it under the run
  expect(((await twin.getJson('runs/twin-abort-1/spec.json')) as { name: string }).name).toBe('twin-abort');
  expect(twin.ssm.running()).toBe(1);

  // what EventBridge delivers for an ABORTED execution (Step Functions Execution Status Change)
  const rule = twin.ruleTarget('AbortRule');
  const sm = twin.stateMachine();
  const event = {
    version: '0',
    id: 'twin-event-1',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [r.executionArn],
    detail: {
      executionArn: r.executionArn,
      stateMachineArn: sm.arn,
      name: 'twin-abort-1',
      status: 'ABORTED',
      startDate: Date.now() - 30_000,
      stopDate: Date.now(),
      input: '{"specKey":"specs/twin-abort.json"}',
      output: null,
      error: null,
      cause: null,
    },
  };
  expect(matches(rule.pattern, event)).toBe(true);
  const out = (await twin.invoke(rule.fn, event)) as { terminated: string[]; deletedTables: string[] };
  expectNoDenials(mark);
  const instances = await runInstancesOf('twin-abort-1');
  expect(out.terminated).toEqual(instances.map((i) => i.id));
  expect(instances.map((i) => i.state)).toEqual(['terminated']);
  expect(out.deletedTables).toEqual(['fleetbench-twin-abort.ddb.twin-abort-1']);
  expect(await twin.tables()).not.toContain('fleetbench-twin-abort.ddb.twin-abort-1');
  // the agent on the terminated loader is gone with it
  await waitFor(() => twin.ssm.running() === 0, 20_000);
  const teardown = (await twin.getJson('runs/twin-abort-1/teardown.json')) as Record<string, unknown>;
  expect(teardown).toMatchObject({ failed: true });
  expectNoDenials(mark);
});

test('a failing cell (its table deleted under the loaders) fails the run with the loader named, then tears down', async () => {
  const mark = twin.gateway.calls.length;
  const table = 'fleetbench-twin-fail.ddb.twin-fail-1';
  let deleted: Promise<boolean> | undefined;
  const r = await twin.execute({
    input: {
      spec: spec('twin-fail', { dataset: { recordCount: 300, fieldCount: 2, fieldLength: 20, load: false } }),
    },
    name: 'twin-fail-1',
    waitMs: 1000,
    onState: (state) => {
      if (state === 'WaitCell' && !deleted)
        deleted = twin.clients.ddb.send(new DeleteTableCommand({ TableName: table })).then(() => true);
    },
  });
  expectNoDenials(mark);
  expect(await deleted).toBe(true);
  expect(r.status).toBe('FAILED');
  expect(r.error).toBe('StepFailedError');
  expect(r.cause).toMatch(/CheckCell: the loader command failed on 1 of 1 loaders: i-/);
  expect(r.states.slice(-2)).toEqual(['TeardownAfterFailure', 'RunFailed']);
  expect(r.states).not.toContain('AggregateCell');
  const instances = await runInstancesOf('twin-fail-1');
  expect(instances.map((i) => i.state)).toEqual(['terminated']);
  const teardown = (await twin.getJson('runs/twin-fail-1/teardown.json')) as Record<string, unknown>;
  expect(teardown).toMatchObject({ terminated: [instances[0]!.id], failed: true });
  expectNoDenials(mark);
});

test('RunInstances refused after a partial launch: ProvisionFleet terminates what it launched, the refusal is the error', async () => {
  const mark = twin.gateway.calls.length;
  // two loaders over the two subnets = two RunInstances calls; the second is refused
  twin.gateway.injectFault({
    operation: 'ec2:RunInstances',
    skip: 1,
    code: 'InsufficientInstanceCapacity',
    message: 'We currently do not have sufficient c5.large capacity in the Availability Zone you requested.',
  });
  const s = spec('twin-capacity', {
    loaders: { instanceType: 'c5.large', count: 2, processesPerLoader: 1, threadsPerProcess: 2 },
  });
  const r = await twin.execute({ input: { spec: s }, name: 'twin-capacity-1', waitMs: 1000 });
  expectNoDenials(mark);
  expect(r.status).toBe('FAILED');
  expect(r.error).toBe('CapacityError');
  expect(r.cause).toContain('RunInstances: InsufficientInstanceCapacity');
  const launched = await runInstancesOf('twin-capacity-1');
  expect(launched.map((i) => i.state)).toEqual(['terminated']);
  // terminated by ProvisionFleet's rollback, under its own role
  expect(
    twin.gateway.calls
      .slice(mark)
      .filter(
        (c) => c.action === 'ec2:TerminateInstances' && c.principal.startsWith('PipelineProvisionFleetFn'),
      )
      .map((c) => [c.resource, c.result]),
  ).toEqual([[`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${launched[0]!.id}`, 'Allowed']]);
  expect(await twin.tables()).not.toContain('fleetbench-twin-capacity.ddb.twin-capacity-1');
});

test('a scylla-ec2 run: nodes launched in moto, probed from a loader (stand-ins answer), schema made, torn down', async () => {
  const mark = twin.gateway.calls.length;
  const s = spec('twin-scylla', {
    targets: [
      {
        id: 'scylla',
        kind: 'scylla-ec2',
        nodes: 3,
        instanceType: 'i4i.large',
        ami: { id: await anyAmi() },
        api: 'alternator',
        replicationFactor: 3,
      },
    ],
  });
  // the loaders' YCSB would call the nodes' private addresses, which only exist in moto: the run
  // is stopped once the cluster is ready and its schema made, and torn down by the abort rule's target
  const r = await runUntilLoad(mark, s, 'twin-scylla-1');
  expect(r.states).toContain('ProvisionFleet');
  const all = await runInstancesOf('twin-scylla-1');
  const nodes = all.filter((i) => i.tags['fleetbench:role'] === 'scylla-node');
  expect(nodes).toHaveLength(3);
  // the probe ran on a loader under WaitReady's role, with the stack's probe document (never AWS-RunShellScript)
  const sends = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action === 'ssm:SendCommand' && /:document\/twin-LoadersProbeDocument/.test(c.resource));
  expect(new Set(sends.map((c) => c.principal.replace(/[0-9A-F]{8}$/, '')))).toEqual(
    new Set(['PipelineWaitReadyFn']),
  );
  expect(twin.gateway.calls.slice(mark).filter((c) => c.resource.includes('AWS-RunShellScript'))).toEqual([]);
  // the Alternator table exists on the (stand-in) cluster
  expect(await twin.tables()).toContain('fleetbench-twin-scylla.scylla.twin-scylla-1');
  // the nodes' boot (gossip to the seed on 7000, within the nodes' group) and the loader's probes on
  // Alternator (the loaders' egress, the nodes' ingress) were checked against the security groups
  const opened = twin.connections.filter((c) => nodes.some((n) => c.who === `node ${n.id}`));
  expect(opened.filter((c) => c.port === 7000 && c.allowed)).toHaveLength(2);
  expect(opened.every((c) => c.allowed && c.port === 7000)).toBe(true);
  expect(
    twin.connections.some((c) => c.why.startsWith('probe of node') && c.port === 8000 && c.allowed),
  ).toBe(true);

  const out = await abortRuleTeardown<{ terminated: string[]; terminatedNodes: string[] }>(
    r,
    'twin-scylla-1',
  );
  expectNoDenials(mark);
  expect([...out.terminatedNodes].sort()).toEqual(nodes.map((n) => n.id).sort());
  const after = await runInstancesOf('twin-scylla-1');
  expect(after.map((i) => i.state)).toEqual(all.map(() => 'terminated'));
});

test('an existingTable not named fleetbench-* is refused by Plan with the field named, nothing provisioned', async () => {
  const mark = twin.gateway.calls.length;
  await twin.clients.ddb.send(
    new CreateTableCommand({
      TableName: 'orders',
      AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const s = spec('twin-existing', {
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'on-demand' },
        existingTable: 'orders',
        expectedLatencyMs: 20,
      },
    ],
  });
  const r = await twin.execute({ input: { spec: s }, name: 'twin-existing-1', waitMs: 1000 });
  expectNoDenials(mark);
  expect({ status: r.status, error: r.error }).toEqual({ status: 'FAILED', error: 'InputError' });
  expect(r.cause).toContain('targets[0].existingTable');
  expect(r.states).toEqual(['Init', 'Plan', 'TeardownAfterFailure', 'RunFailed']);
  expect(await runInstancesOf('twin-existing-1')).toEqual([]);
  expect(await twin.tables()).toContain('orders');
});

test('a spec above the account quotas is refused by Plan before anything is provisioned, naming quota and numbers', async () => {
  const mark = twin.gateway.calls.length;
  const s = spec('twin-quota', {
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'provisioned', rcu: 200_000, wcu: 250_000 },
        expectedLatencyMs: 20,
      },
    ],
  });
  const r = await twin.execute({ input: { spec: s }, name: 'twin-quota-1', waitMs: 1000 });
  // Plan's quota reads (DescribeLimits, Service Quotas, EC2 AZs) are all allowed by its role
  expectNoDenials(mark);
  const planCalls = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.principal.startsWith('PipelinePlanFn'))
    .map((c) => c.action);
  expect(planCalls).toEqual(expect.arrayContaining(['dynamodb:DescribeLimits']));
  expect({ status: r.status, error: r.error }).toEqual({ status: 'FAILED', error: 'InputError' });
  expect(r.cause).toMatch(/TableMaxReadCapacityUnits\)?: needs 200,000, the account has [0-9,]+/);
  expect(r.cause).toMatch(/TableMaxWriteCapacityUnits\)?: needs 250,000, the account has [0-9,]+/);
  expect(r.states).toEqual(['Init', 'Plan', 'TeardownAfterFailure', 'RunFailed']);
  expect(await runInstancesOf('twin-quota-1')).toEqual([]);
  expect((await twin.tables()).filter((t) => t.includes('twin-quota'))).toEqual([]);
});

test("the janitor (its rule's target) removes expired loaders, tables and login secrets, keeps unexpired ones", async () => {
  const mark = twin.gateway.calls.length;
  const now = Math.floor(Date.now() / 1000);
  const launch = async (runId: string, expiresAt: number) => {
    const out = await twin.clients.ec2.send(
      new RunInstancesCommand({
        ImageId: await anyAmi(),
        MinCount: 1,
        MaxCount: 1,
        InstanceType: 'c5.large',
        TagSpecifications: [
          {
            ResourceType: 'instance',
            Tags: [
              { Key: TAG_RUN_ID, Value: runId },
              { Key: TAG_ROLE, Value: 'loader' },
              { Key: TAG_EXPIRES_AT, Value: String(expiresAt) },
            ],
          },
        ],
      }),
    );
    return out.Instances![0]!.InstanceId!;
  };
  const table = async (name: string, runId: string, expiresAt: number) => {
    const out = await twin.clients.ddb.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: [{ AttributeName: 'p', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'p', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    twin.gateway.setTableTags(out.TableDescription!.TableName!, {
      [TAG_RUN_ID]: runId,
      [TAG_EXPIRES_AT]: String(expiresAt),
    });
  };
  const oldLoader = await launch('twin-old', now - 3600);
  const newLoader = await launch('twin-new', now + 3600);
  await table('fleetbench-twin-old', 'twin-old', now - 3600);
  await table('fleetbench-twin-new', 'twin-new', now + 3600);
  // cassandra-ec2 logins (lib/core/targets/cassandra-ec2/cql-auth.ts): listed with ListSecrets, deleted under the template's grants
  const login = async (runId: string, expiresAt: number) => {
    const Name = `fleetbench/${runId}/cass-cql`;
    await twin.clients.secrets.send(
      new CreateSecretCommand({
        Name,
        SecretString: '{"username":"u","password":"p"}',
        Tags: [
          { Key: TAG_RUN_ID, Value: runId },
          { Key: TAG_EXPIRES_AT, Value: String(expiresAt) },
        ],
      }),
    );
    return Name;
  };
  const oldLogin = await login('twin-old', now - 3600);
  const newLogin = await login('twin-new', now + 3600);

  const rule = twin.ruleTarget('JanitorSchedule');
  expect(rule.schedule).toBe('rate(1 hour)');
  const out = (await twin.invoke(rule.fn, {
    version: '0',
    id: 'twin-janitor-1',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/JanitorSchedule`],
    detail: {},
  })) as { terminated: string[]; deletedTables: string[]; deletedSecrets: string[] };
  expectNoDenials(mark);
  expect(out.terminated).toEqual([oldLoader]);
  expect(out.deletedTables).toEqual(['fleetbench-twin-old']);
  expect(out.deletedSecrets).toEqual([oldLogin]);
  expect(
    twin.gateway.calls
      .slice(mark)
      .filter((c) => c.action.startsWith('secretsmanager:'))
      .map((c) => [c.action, c.result]),
  ).toEqual([
    ['secretsmanager:ListSecrets', 'Allowed'],
    ['secretsmanager:DeleteSecret', 'Allowed'],
  ]);
  await expect(
    twin.clients.secrets.send(new DescribeSecretCommand({ SecretId: oldLogin })),
  ).rejects.toThrow();
  expect((await twin.clients.secrets.send(new DescribeSecretCommand({ SecretId: newLogin }))).Name).toBe(
    newLogin,
  );
  const states = Object.fromEntries(
    (await twin.instances([oldLoader, newLoader])).map((i) => [i.id, i.state]),
  );
  expect(states).toEqual({ [oldLoader]: 'terminated', [newLoader]: 'running' });
  const tables = await twin.tables();
  expect(tables).toContain('fleetbench-twin-new');
  expect(tables).not.toContain('fleetbench-twin-old');
  expectNoDenials(mark);
});

test("the janitor's second pass, under its role: a loader that landed after its run's teardown goes once the record is 15 minutes old", async () => {
  const mark = twin.gateway.calls.length;
  const launchLoader = async (runId: string) =>
    (
      await twin.clients.ec2.send(
        new RunInstancesCommand({
          ImageId: await anyAmi(),
          MinCount: 1,
          MaxCount: 1,
          InstanceType: 'c5.large',
          TagSpecifications: [
            {
              ResourceType: 'instance',
              Tags: [
                { Key: TAG_RUN_ID, Value: runId },
                { Key: TAG_ROLE, Value: 'loader' },
                // days away: only the second pass can remove it
                { Key: TAG_EXPIRES_AT, Value: String(Math.floor(Date.now() / 1000) + 10 * 86400) },
              ],
            },
          ],
        }),
      )
    ).Instances![0]!.InstanceId!;
  await twin.putJson('runs/twin-late-1/teardown.json', {
    runId: 'twin-late-1',
    atMs: Date.now() - 20 * 60_000,
  });
  await twin.putJson('runs/twin-late-2/teardown.json', {
    runId: 'twin-late-2',
    atMs: Date.now() - 5 * 60_000,
  });
  const late = await launchLoader('twin-late-1');
  const recent = await launchLoader('twin-late-2');
  const out = (await twin.invoke(twin.ruleTarget('JanitorSchedule').fn, {
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    detail: {},
  })) as { lateArrivals: { runId: string; owned: string[] }[] };
  expectNoDenials(mark);
  expect(out.lateArrivals).toEqual([{ runId: 'twin-late-1', owned: [`loader ${late}`] }]);
  const states = Object.fromEntries((await twin.instances([late, recent])).map((i) => [i.id, i.state]));
  expect(states).toEqual({ [late]: 'terminated', [recent]: 'running' });
  expect(await twin.getJson('runs/twin-late-1/teardown.json')).toMatchObject({
    terminated: [late],
    passes: 2,
  });
  await twin.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [recent] }));
});

async function anyAmi(): Promise<string> {
  const { DescribeImagesCommand } = await import('@aws-sdk/client-ec2');
  return (await twin.clients.ec2.send(new DescribeImagesCommand({}))).Images![0]!.ImageId!;
}

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("a user's binding jars: the loader role reads them under the results bucket's bindings/ and nowhere else", async () => {
  const mark = twin.gateway.calls.length;
  const jar = Buffer.from('PK\u0003\u0004 a binding jar');
  await twin.clients.s3.send(
    new PutObjectCommand({ Bucket: twin.bucket, Key: 'bindings/abc/my-binding.jar', Body: jar }),
  );
  await twin.clients.s3.send(
    new PutObjectCommand({ Bucket: twin.bucket, Key: 'specs/other.jar', Body: jar }),
  );
  // the agent's own store (lib/open-store.ts: S3 for s3:// URIs), with the loader instances' role as its identity
  const loaderLt = resourcesOfType(twin.asm.template, 'AWS::EC2::LaunchTemplate').find(
    ([id]) => launchTemplateRole(twin.asm.template, id) && !/Node/i.test(id),
  )!;
  const store = new S3Store(`s3://${twin.bucket}`, {
    clientConfig: {
      endpoint: twin.gateway.endpoint,
      region: REGION,
      forcePathStyle: true,
      credentials: {
        accessKeyId: accessKeyOf(launchTemplateRole(twin.asm.template, loaderLt[0])!),
        secretAccessKey: 'twin',
      },
    },
  });
  expect((await store.get('bindings/abc/my-binding.jar')).equals(jar)).toBe(true);
  expectNoDenials(mark);
  await expect(store.get('specs/other.jar')).rejects.toThrow();
  expect(twin.gateway.denials().slice(-1)[0]).toMatch(
    /s3:GetObject on arn:aws:s3:::.*\/specs\/other\.jar \(ImplicitlyDenied\)/,
  );
});

// CASSANDRA-EC2 (issue 16): nodes launched in moto, a real Apache Cassandra answers (./cassandra-nodes.ts)
// ========================================================================================================

const cassandraTarget = {
  id: 'cass',
  kind: 'cassandra-ec2',
  nodes: 3,
  instanceType: 'r6i.xlarge',
  volume: { sizeGb: 100 },
  // one real JVM answers for the three nodes (./cassandra-nodes.ts): the schema step raises system_auth to the
  // replication factor and then writes the run's role at EACH_QUORUM, which a one-node ring with RF 3 refuses
  replicationFactor: 1,
};

/** ProvisionTarget: the function the stack gives the Cassandra asset, image and instance profile. */
function provisionTargetFn(): string {
  return twin.asm.functions.find((f) => 'CASSANDRA_ASSET' in f.environment)!.logicalId;
}

async function userDataOf(id: string): Promise<string> {
  const a = await twin.clients.ec2.send(
    new DescribeInstanceAttributeCommand({ InstanceId: id, Attribute: 'userData' }),
  );
  return Buffer.from(a.UserData!.Value!, 'base64').toString('utf8');
}

test('a cassandra-ec2 run: nodes launched under ProvisionTarget’s role with their bootstrap script, probed over CQL from a loader, schema made in a real Cassandra, torn down', async () => {
  const mark = twin.gateway.calls.length;
  const s = spec('twin-cass', { targets: [cassandraTarget] });
  // as the scylla-ec2 run: stopped once the cluster is ready and its schema made
  const r = await runUntilLoad(mark, s, 'twin-cass-1');
  const all = await runInstancesOf('twin-cass-1');
  const nodes = all
    .filter((i) => i.tags[TAG_ROLE] === 'cassandra-node')
    .sort((a, b) => Number(a.tags[TAG_NODE_INDEX]) - Number(b.tags[TAG_NODE_INDEX]));
  expect(nodes.map((n) => [n.tags[TAG_NODE_INDEX], n.tags['fleetbench:target'], n.state])).toEqual([
    ['0', 'cass', 'running'],
    ['1', 'cass', 'running'],
    ['2', 'cass', 'running'],
  ]);

  // launched by ProvisionTarget under its role, handing the Cassandra node role to EC2 (nothing else passed)
  const provisionCalls = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.principal.startsWith(provisionTargetFn()))
    .map((c) => [c.action, c.resource]);
  const cassandraRole = resourcesOfType(twin.asm.template, 'AWS::IAM::Role').find(([id]) =>
    id.includes('CassandraNodeRole'),
  )![0];
  expect(provisionCalls.filter(([a]) => a === 'iam:PassRole')).toEqual(
    nodes.map(() => ['iam:PassRole', `arn:aws:iam::${ACCOUNT}:role/${cassandraRole}`]),
  );
  expect(provisionCalls.filter(([a]) => a === 'ec2:RunInstances').length).toBeGreaterThanOrEqual(3);

  // the user data moto holds is the target's bootstrap script: node 0 seeds itself, the others its IP
  const env = twin.functionEnv(provisionTargetFn());
  const target = validateSpec(s).spec.targets[0] as CassandraEc2Target;
  const scripts = await Promise.all(nodes.map((n) => userDataOf(n.id)));
  expect(scripts).toEqual(
    nodes.map((_, index) =>
      cassandraBootstrapScript(
        ec2NodeParams({
          target,
          runId: 'twin-cass-1',
          index,
          ...(index ? { seedIp: nodes[0]!.privateIp! } : {}),
          asset: env.CASSANDRA_ASSET!,
          login: true,
        }),
      ),
    ),
  );
  // independently of ec2NodeParams: r6i.xlarge has 32 GiB, Cassandra's rule gives max(min(16384, 1024),
  // min(8192, 8192)) = 8192 MB; seeds and tokens by node index; the stack's asset is the 5.0.6 archive
  expect(scripts.map((x) => scriptVariable(x, 'FB_HEAP_MB'))).toEqual(['8192', '8192', '8192']);
  // the nodes ask for a login: the run's, which ProvisionTarget made tagged with the run before the nodes
  expect(scripts.map((x) => scriptVariable(x, 'FB_AUTHENTICATOR'))).toEqual(
    nodes.map(() => 'PasswordAuthenticator'),
  );
  const loginName = 'fleetbench/twin-cass-1/cass-cql';
  expect(provisionCalls.filter(([a]) => a.startsWith('secretsmanager:'))).toEqual([
    ['secretsmanager:CreateSecret', `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${loginName}`],
    ['secretsmanager:TagResource', `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${loginName}`],
  ]);
  const secret = await twin.clients.secrets.send(new DescribeSecretCommand({ SecretId: loginName }));
  expect(secret.Tags).toEqual(expect.arrayContaining([{ Key: TAG_RUN_ID, Value: 'twin-cass-1' }]));
  const login = JSON.parse(
    (await twin.clients.secrets.send(new GetSecretValueCommand({ SecretId: loginName }))).SecretString!,
  ) as { username: string; password: string };
  expect(scripts.map((x) => scriptVariable(x, 'FB_SEEDS'))).toEqual([
    '',
    `${nodes[0]!.privateIp}:7000`,
    `${nodes[0]!.privateIp}:7000`,
  ]);
  expect(scripts.map((x) => scriptVariable(x, 'FB_TOKEN'))).toEqual([
    '-9223372036854775808',
    '-3074457345618258603',
    '3074457345618258602',
  ]);
  const staged = twin.asm.assetPath(path.basename(env.CASSANDRA_ASSET!).split('.')[0]!);
  expect(statSync(staged).size).toBe(statSync(cassandraAssetPath()).size);
  expect(path.basename(cassandraAssetPath())).toBe('fleetbench-cassandra-5.0.6.tar.gz');

  // probed from a loader under WaitReady's role, with the stack's probe document; the last probe: every node
  // answered 5.0.6 over CQL
  const sends = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action === 'ssm:SendCommand' && /:document\/twin-LoadersProbeDocument/.test(c.resource));
  expect(new Set(sends.map((c) => c.principal.replace(/[0-9A-F]{8}$/, '')))).toEqual(
    new Set(['PipelineWaitReadyFn']),
  );
  const endpoints = nodes.map((n) => ({ host: n.privateIp!, port: 9042 }));
  const probes = twin.ssm.invocations.filter((i) => i.output.includes('fleetbench-cql '));
  // (the probe logs in with the default superuser: a node answers its version, or, before Cassandra created
  // that superuser (superuser_setup_delay_ms) or once the schema step locked it, refuses the login: up)
  const last = parseHealth('cql', probes[probes.length - 1]!.output, endpoints);
  expect(last.map((h) => h.ok)).toEqual(endpoints.map(() => true));
  for (const h of last)
    if (h.version === undefined) expect(h.detail).toMatch(/^serves CQL, refuses the default login/);
    else expect(h.version).toBe('5.0.6');
  // the schema, made by the binding's CqlSchema from the loader, is in the real node
  const real = twin.cassandra.realNode!;
  expect(nodes.map((n) => n.id)).toContain(real.instanceId);
  // (with the run's login, read from its secret by the loader under the loader role; the default login is locked)
  const [tables, columns] = await cqlQuery(
    real,
    [
      "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ycsb'",
      "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ycsb' AND table_name = 'usertable'",
    ],
    { credentials: login },
  );
  await expect(
    cqlQuery(real, ['SELECT release_version FROM system.local'], {
      credentials: { username: 'cassandra', password: 'cassandra' },
    }),
  ).rejects.toThrow();
  const reads = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action === 'secretsmanager:GetSecretValue' && c.resource.includes(loginName));
  expect(reads.length).toBeGreaterThan(0);
  const loaderRole = resourcesOfType(twin.asm.template, 'AWS::IAM::Role').find(([id]) =>
    id.includes('LoaderRole'),
  )![0];
  expect(new Set(reads.map((c) => `${c.principal} ${c.result}`))).toEqual(new Set([`${loaderRole} Allowed`]));
  expect(tables).toEqual({ kind: 'rows', columns: ['table_name'], rows: [['usertable']] });
  expect((columns as { rows: string[][] }).rows.map((x) => x[0]).sort()).toEqual([
    'field0',
    'field1',
    'y_id',
  ]);

  // each node's boot was checked against the nodes' security group: HTTPS to S3 for dnf and the archive,
  // gossip to the seed; the loader's probes against the loaders' group out and the nodes' group in
  const opened = twin.connections.filter((c) => nodes.some((n) => c.who === `node ${n.id}`));
  expect(new Set(opened.map((c) => `${c.who} ${c.to} ${c.port} ${c.allowed}`))).toEqual(
    new Set(
      nodes.flatMap((n, i) => [
        `node ${n.id} s3 (HTTPS) 443 true`,
        ...(i ? [`node ${n.id} group ${twin.nodeGroup} 7000 true`] : []),
      ]),
    ),
  );
  expect(opened.filter((c) => c.port === 443).map((c) => c.why)).toEqual(
    expect.arrayContaining(['dnf install (AL2023 repositories)', 'aws s3 cp of the Cassandra archive']),
  );
  expect(
    twin.connections.filter((c) => c.why.startsWith('probe of node') && c.port === 9042).length,
  ).toBeGreaterThan(0);

  const out = await abortRuleTeardown<{ terminatedNodes: string[]; deletedSecrets: string[] }>(
    r,
    'twin-cass-1',
  );
  expectNoDenials(mark);
  expect([...out.terminatedNodes].sort()).toEqual(nodes.map((n) => n.id).sort());
  // the login secret, deleted under the abort rule's role (DeleteSecret only on secrets with a run tag)
  expect(out.deletedSecrets).toEqual([loginName]);
  await expect(
    twin.clients.secrets.send(new DescribeSecretCommand({ SecretId: loginName })),
  ).rejects.toThrow();
  expect((await runInstancesOf('twin-cass-1')).map((i) => i.state)).toEqual(all.map(() => 'terminated'));
});

test('a cassandra-ec2 node running another Apache Cassandra: WaitReady fails naming both versions, TeardownAfterFailure terminates every node', async () => {
  const mark = twin.gateway.calls.length;
  twin.cassandra.answerAs((n) =>
    n.tags[TAG_RUN_ID] === 'twin-cass-v-1' && n.tags[TAG_NODE_INDEX] === '1'
      ? { releaseVersion: '4.1.9' }
      : undefined,
  );
  try {
    const r = await twin.execute({
      input: { spec: spec('twin-cass-v', { targets: [cassandraTarget] }) },
      name: 'twin-cass-v-1',
      waitMs: 1000,
    });
    expectNoDenials(mark);
    const all = await runInstancesOf('twin-cass-v-1');
    const node1 = all.find((i) => i.tags[TAG_ROLE] === 'cassandra-node' && i.tags[TAG_NODE_INDEX] === '1')!;
    expect({ status: r.status, error: r.error }).toEqual({ status: 'FAILED', error: 'StepFailedError' });
    expect(r.cause).toBe(
      `WaitReady: cass: node ${node1.privateIp}:9042 runs Apache Cassandra 4.1.9; the spec asks for 5.0.6 (targets[0].version)`,
    );
    expect(r.states.slice(-2)).toEqual(['TeardownAfterFailure', 'RunFailed']);
    expect(r.states).not.toContain('InitLoad');
    // the loader and the three nodes, all terminated; the other node was only asked its version
    expect(all.map((i) => i.tags[TAG_ROLE]).sort()).toEqual([
      'cassandra-node',
      'cassandra-node',
      'cassandra-node',
      'loader',
    ]);
    expect(all.map((i) => i.state)).toEqual(all.map(() => 'terminated'));
    expect(twin.cassandra.asked(node1.privateIp!)).toEqual(['SELECT release_version FROM system.local']);
  } finally {
    await twin.cassandra.reset();
  }
});

test('ProvisionTarget may pass the Cassandra node role to EC2 only, and no other role', async () => {
  const fn = twin.fn(provisionTargetFn());
  const policies = rolePolicies(twin.asm.template, fn.roleLogicalId).map((p) => ({
    name: p.name,
    doc: twin.resolver.resolve(p.doc),
  }));
  const roleOf = (part: string) =>
    `arn:aws:iam::${ACCOUNT}:role/${resourcesOfType(twin.asm.template, 'AWS::IAM::Role').find(([id]) => id.includes(part))![0]}`;
  const pass = async (role: string, service: string) =>
    (
      await evaluate(`arn:aws:iam::${ACCOUNT}:role/${fn.roleLogicalId}`, policies, {
        action: 'iam:PassRole',
        resource: role,
        context: { 'iam:PassedToService': service },
      })
    ).allowed;
  expect(await pass(roleOf('CassandraNodeRole'), 'ec2.amazonaws.com')).toBe(true);
  expect(await pass(roleOf('CassandraNodeRole'), 'lambda.amazonaws.com')).toBe(false);
  expect(await pass(roleOf('LoaderRole'), 'ec2.amazonaws.com')).toBe(false);
  const teardownRole = twin.asm.functions.find((f) =>
    f.logicalId.startsWith('PipelineTeardownFn'),
  )!.roleLogicalId;
  expect(await pass(`arn:aws:iam::${ACCOUNT}:role/${teardownRole}`, 'lambda.amazonaws.com')).toBe(false);
});

test('the Cassandra node role may read the Cassandra asset and nothing else', async () => {
  const roleId = resourcesOfType(twin.asm.template, 'AWS::IAM::Role').find(([id]) =>
    id.includes('CassandraNodeRole'),
  )![0];
  const asset = new URL(twin.functionEnv(provisionTargetFn()).CASSANDRA_ASSET!);
  const s3 = new S3Client({
    endpoint: twin.gateway.endpoint,
    region: REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: accessKeyOf(roleId), secretAccessKey: 'twin' },
  });
  const ec2 = new EC2Client({
    endpoint: twin.gateway.endpoint,
    region: REGION,
    credentials: { accessKeyId: accessKeyOf(roleId), secretAccessKey: 'twin' },
  });
  const mark = twin.gateway.calls.length;
  const get = (Bucket: string, Key: string) =>
    s3.send(new GetObjectCommand({ Bucket, Key })).then(
      () => 'read',
      (e: Error) => e.name,
    );
  // the assets bucket is not in the twin's moto: past IAM, the read ends there (NoSuchBucket)
  expect(await get(asset.host, asset.pathname.slice(1))).toBe('NoSuchBucket');
  expect(await get(asset.host, 'other-asset.zip')).toBe('AccessDenied');
  expect(await get(twin.bucket, 'runs/twin-cass-1/spec.json')).toBe('AccessDenied');
  // a node cannot even reach EC2's API (its group lets it out to S3 only): the call never gets to IAM
  expect(
    await ec2.send(new DescribeInstancesCommand({})).then(
      () => 'ok',
      (e: Error) => e.name,
    ),
  ).toBe('RequestTimeout');
  const calls = twin.gateway.calls.slice(mark).map((c) => [c.action, c.resource, c.result]);
  expect(calls.slice(0, 3)).toEqual([
    ['s3:GetObject', `arn:aws:s3:::${asset.host}${asset.pathname}`, 'Allowed'],
    ['s3:GetObject', `arn:aws:s3:::${asset.host}/other-asset.zip`, 'ImplicitlyDenied'],
    ['s3:GetObject', `arn:aws:s3:::${twin.bucket}/runs/twin-cass-1/spec.json`, 'ImplicitlyDenied'],
  ]);
  expect(new Set(calls.slice(3).map(([a, r, res]) => `${a} ${r} ${res!.split(':')[0]}`))).toEqual(
    new Set(['network:tcp/443 ec2 (HTTPS) NetworkRefused']),
  );
  // and IAM would refuse it too
  const node = twin.gatewayRole(roleId);
  expect(
    (
      await evaluate(node.roleArn, node.policies, {
        action: 'ec2:DescribeInstances',
        resource: '*',
        context: {},
      })
    ).result,
  ).toBe('ImplicitlyDenied');
});

test('a keyspaces run: ProvisionTarget creates the keyspace and table under its role, WaitReady sees ACTIVE, the abort rule deletes the keyspace', async () => {
  const mark = twin.gateway.calls.length;
  const ks = twin.keyspaces!;
  const s = spec('twin-ks', {
    targets: [{ id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 100, wcu: 50 } }],
  });
  // the loaders' CQL would go to cassandra.us-east-1.amazonaws.com:9142 (SigV4, TLS), which is not here: the run
  // is stopped once the table is ACTIVE and the loaders online, and torn down by the abort rule's target
  const r = await runUntilLoad(mark, s, 'twin-ks-1');
  const context = (await twin.getJson('runs/twin-ks-1/context.json')) as { resources: unknown[] };
  expect(context.resources).toEqual([
    { type: 'keyspace', targetId: 'ks', name: 'fb_twin_ks_1_ks_97f33285', table: 'usertable' },
  ]);
  const made = ks.keyspaces.get('fb_twin_ks_1_ks_97f33285')!;
  expect(Object.fromEntries(made.tags.map((t) => [t.key, t.value]))).toMatchObject({
    [TAG_RUN_ID]: 'twin-ks-1',
  });
  expect(made.tables.get('usertable')!.status).toBe('ACTIVE');
  // who did what, under which role (the calls the gateway evaluated and let through)
  const byCall = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.action.startsWith('cassandra:'))
    .map((c) => `${c.principal.replace(/[0-9A-F]{8}$/, '')} ${c.operation} ${c.action}`);
  expect([...new Set(byCall)]).toEqual(
    expect.arrayContaining([
      'PipelineProvisionTargetFn cassandra:CreateKeyspace cassandra:Create',
      'PipelineProvisionTargetFn cassandra:CreateKeyspace cassandra:TagResource',
      'PipelineProvisionTargetFn cassandra:CreateTable cassandra:Create',
      'PipelineWaitReadyFn cassandra:GetTable cassandra:Select',
    ]),
  );

  const out = await abortRuleTeardown<{ deletedKeyspaces: string[] }>(r, 'twin-ks-1');
  expectNoDenials(mark);
  expect(out.deletedKeyspaces).toEqual(['fb_twin_ks_1_ks_97f33285']);
  expect(ks.keyspaces.has('fb_twin_ks_1_ks_97f33285')).toBe(false);
  expect(
    twin.gateway.calls
      .slice(mark)
      .filter((c) => c.action === 'cassandra:Drop')
      .map((c) => [c.principal.replace(/[0-9A-F]{8}$/, ''), c.resource, c.result]),
  ).toEqual([
    [
      'PipelineOnAbortFn',
      `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/fb_twin_ks_1_ks_97f33285/`,
      'Allowed',
    ],
  ]);
  expect((await runInstancesOf('twin-ks-1')).map((i) => i.state)).toEqual(['terminated']);
});

test("the loader role's CQL grant: runs' fb_ keyspaces and the system tables, not other keyspaces; creates need the run tag", async () => {
  // CQL (port 9142, SigV4) has no HTTP call the gateway sees: the loader role's template policies are evaluated
  // directly, as IAM would for the Select/Modify the binding's statements authorize
  const loaderLt = resourcesOfType(twin.asm.template, 'AWS::EC2::LaunchTemplate').find(
    ([id]) => launchTemplateRole(twin.asm.template, id) && !/Node/i.test(id),
  )!;
  const roleId = launchTemplateRole(twin.asm.template, loaderLt[0])!;
  const roleArn = `arn:aws:iam::${ACCOUNT}:role/${roleId}`;
  const policies = rolePolicies(twin.asm.template, roleId).map((p) => ({
    name: p.name,
    doc: twin.resolver.resolve(p.doc),
  }));
  const table = (ks: string, t = 'usertable') =>
    `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/table/${t}`;
  expect(JSON.stringify(policies)).toContain('cassandra:Modify');
  const decide = async (action: string, resource: string) =>
    (await evaluate(roleArn, policies, { action, resource, context: {} })).result;
  expect({
    runSelect: await decide('cassandra:Select', table('fb_twin_ks_1_ks_97f33285')),
    runModify: await decide('cassandra:Modify', table('fb_twin_ks_1_ks_97f33285')),
    peers: await decide('cassandra:Select', table('system', 'peers')),
    schema: await decide('cassandra:Select', table('system_schema', 'tables')),
    otherSelect: await decide('cassandra:Select', table('orders')),
    otherModify: await decide('cassandra:Modify', table('orders', 'customers')),
    systemModify: await decide('cassandra:Modify', table('system', 'local')),
    create: await decide(
      'cassandra:Create',
      `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/fb_twin_ks_1_ks_97f33285/`,
    ),
    drop: await decide(
      'cassandra:Drop',
      `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/fb_twin_ks_1_ks_97f33285/`,
    ),
    // the known limit: the role is the stack's, shared by runs, so another run's fb_ keyspace is allowed too
    anotherRun: await decide('cassandra:Modify', table('fb_other_run_ks')),
  }).toEqual({
    runSelect: 'Allowed',
    runModify: 'Allowed',
    peers: 'Allowed',
    schema: 'Allowed',
    otherSelect: 'ImplicitlyDenied',
    otherModify: 'ImplicitlyDenied',
    systemModify: 'ImplicitlyDenied',
    create: 'ImplicitlyDenied',
    drop: 'ImplicitlyDenied',
    anotherRun: 'Allowed',
  });

  // ProvisionTarget creates fb_ keyspaces only with the run tag in the request
  const provision = twin.asm.functions.find((f) => f.logicalId.startsWith('PipelineProvisionTargetFn'))!;
  const provisionPolicies = rolePolicies(twin.asm.template, provision.roleLogicalId).map((p) => ({
    name: p.name,
    doc: twin.resolver.resolve(p.doc),
  }));
  const create = async (ks: string, context: Record<string, string | string[]>) =>
    (
      await evaluate(`arn:aws:iam::${ACCOUNT}:role/${provision.roleLogicalId}`, provisionPolicies, {
        action: 'cassandra:Create',
        resource: `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/`,
        context,
      })
    ).result;
  const tagged = { [`aws:RequestTag/${TAG_RUN_ID}`]: 'r1', 'aws:TagKeys': [TAG_RUN_ID] };
  expect([
    await create('fb_r1_ks', tagged),
    await create('fb_r1_ks', {}),
    await create('orders', tagged),
  ]).toEqual(['Allowed', 'ImplicitlyDenied', 'ImplicitlyDenied']);
});

// ---- DAX (dynamodb targets with dax): moto's DAX behind test/support/dax-twin.ts, mapped by ./iam-dax.ts ----

const daxSpec = (name: string) =>
  spec(name, {
    targets: [
      {
        id: 'ddb',
        kind: 'dynamodb',
        billing: { mode: 'provisioned', rcu: 100, wcu: 100 },
        expectedLatencyMs: 20,
        dax: { nodeType: 'dax.t3.small', nodes: 1, itemTtlMs: 60000, queryTtlMs: 0 },
      },
    ],
  });

async function daxSecurityGroups(name: string) {
  const out = await twin.clients.ec2.send(
    new DescribeSecurityGroupsCommand({ Filters: [{ Name: 'group-name', Values: [name] }] }),
  );
  return out.SecurityGroups ?? [];
}

const byPrincipal = (from: number, action: string) =>
  twin.gateway.calls
    .slice(from)
    .filter((c) => c.action === action)
    .map((c) => [c.principal.replace(/[0-9A-F]{8}$/, ''), c.resource, c.result]);

test("a DynamoDB + DAX run: the cluster and its groups made under ProvisionTarget's role, waited for, deleted by the abort rule's teardown", async () => {
  const mark = twin.gateway.calls.length;
  const name = daxResourceName('twin-dax-1', 'ddb');
  // the loaders would talk to the cluster's endpoint, which exists only in moto: stopped once it is ready
  const r = await runUntilLoad(mark, daxSpec('twin-dax'), 'twin-dax-1');
  const cluster = `arn:aws:dax:${REGION}:${ACCOUNT}:cache/${name}`;
  expect(byPrincipal(mark, 'dax:CreateCluster')).toEqual([['PipelineProvisionTargetFn', cluster, 'Allowed']]);
  // the DAX service role, handed to DAX by ProvisionTarget only
  expect(
    byPrincipal(mark, 'iam:PassRole')
      .filter(([, resource]) => /:role\/DaxDaxServiceRole/.test(resource!))
      .map(([p, , res]) => [p, res]),
  ).toEqual([['PipelineProvisionTargetFn', 'Allowed']]);
  // WaitReady asked for that cluster by name until it was available
  expect(new Set(byPrincipal(mark, 'dax:DescribeClusters').map((c) => c.join(' ')))).toContain(
    `PipelineWaitReadyFn ${cluster} Allowed`,
  );
  // the groups as the run made them: its subnets, the TTLs, a security group tagged with the run
  expect(twin.dax.parameterGroups.get(name)).toEqual({
    'record-ttl-millis': '60000',
    'query-ttl-millis': '0',
  });
  expect(twin.dax.subnetGroups.get(name)).toHaveLength(3);
  const [sg] = await daxSecurityGroups(name);
  expect(sg!.Tags).toEqual(expect.arrayContaining([{ Key: TAG_RUN_ID, Value: 'twin-dax-1' }]));

  const out = await abortRuleTeardown<{
    deletedDaxClusters: string[];
    pendingDaxGroups: string[];
    deletedTables: string[];
  }>(r, 'twin-dax-1');
  expectNoDenials(mark);
  expect(out.deletedDaxClusters).toEqual([name]);
  expect(out.deletedTables).toEqual(['fleetbench-twin-dax.ddb.twin-dax-1']);
  expect(byPrincipal(mark, 'dax:DeleteCluster')).toEqual([['PipelineOnAbortFn', cluster, 'Allowed']]);
  // DAX deletes in minutes: the groups stay for the janitor while the cluster is still deleting; the twin's DAX
  // (moto's state manager, advanced by every read of the status) may report it gone already, and then the
  // groups went with it
  if (out.pendingDaxGroups.length) expect(out.pendingDaxGroups).toEqual([name]);
  else expect([twin.dax.subnetGroups.has(name), twin.dax.parameterGroups.has(name)]).toEqual([false, false]);
});

test('CreateCluster refused: the run fails naming the refusal, and nothing of the cluster, its groups or the table is left', async () => {
  const mark = twin.gateway.calls.length;
  const name = daxResourceName('twin-dax-2', 'ddb');
  twin.gateway.injectFault({
    operation: 'dax:CreateCluster',
    code: 'InsufficientClusterCapacityFault',
    message: 'There are not enough dax.t3.small nodes available in us-east-1a',
  });
  const r = await twin.execute({ input: { spec: daxSpec('twin-dax') }, name: 'twin-dax-2', waitMs: 1000 });
  expectNoDenials(mark);
  expect(r.status).toBe('FAILED');
  expect(r.cause).toContain('InsufficientClusterCapacityFault');
  expect(r.states).toEqual(expect.arrayContaining(['TeardownAfterFailure']));
  // ProvisionTarget undid the groups it had made; the teardown found no cluster and no table
  expect(twin.dax.subnetGroups.has(name)).toBe(false);
  expect(twin.dax.parameterGroups.has(name)).toBe(false);
  expect(await daxSecurityGroups(name)).toEqual([]);
  expect(await twin.tables()).not.toContain('fleetbench-twin-dax.ddb.twin-dax-2');
  expect((await runInstancesOf('twin-dax-2')).map((i) => i.state)).not.toContain('running');
  const teardown = (await twin.getJson('runs/twin-dax-2/teardown.json')) as { deletedDaxClusters: string[] };
  expect(teardown.deletedDaxClusters).toEqual([]);
});

// ---- MemoryDB (memorydb targets): moto's MemoryDB behind test/support/memorydb-twin.ts, mapped by ./iam-memorydb.ts ----

test("a MemoryDB run: login, cluster and its pieces made under ProvisionTarget's role, waited for, all removed by the abort rule's teardown", async () => {
  const mark = twin.gateway.calls.length;
  const name = memoryDbResourceName('twin-mdb-1', 'mdb');
  const s = spec('twin-mdb', {
    targets: [{ id: 'mdb', kind: 'memorydb', nodeType: 'db.t4g.small', shards: 1, replicasPerShard: 0 }],
  });
  // the loaders would talk to the cluster's endpoint, which exists only in moto: stopped once it is ready
  const r = await runUntilLoad(mark, s, 'twin-mdb-1');
  const arn = (type: string) => `arn:aws:memorydb:${REGION}:${ACCOUNT}:${type}/${name}`;
  // CreateCluster is authorized on the ACL, subnet group and parameter group it names, the cluster's tags by TagResource
  expect(byPrincipal(mark, 'memorydb:CreateCluster')).toEqual([
    ['PipelineProvisionTargetFn', arn('acl'), 'Allowed'],
    ['PipelineProvisionTargetFn', arn('subnetgroup'), 'Allowed'],
    [
      'PipelineProvisionTargetFn',
      `arn:aws:memorydb:${REGION}:${ACCOUNT}:parametergroup/default.memorydb-valkey7`,
      'Allowed',
    ],
  ]);
  expect(byPrincipal(mark, 'memorydb:TagResource')).toEqual(
    expect.arrayContaining([['PipelineProvisionTargetFn', arn('cluster'), 'Allowed']]),
  );
  expect(byPrincipal(mark, 'memorydb:CreateAcl')).toEqual([
    ['PipelineProvisionTargetFn', arn('user'), 'Allowed'],
  ]);
  expect(new Set(byPrincipal(mark, 'memorydb:DescribeClusters').map((c) => c[0]))).toEqual(
    new Set(['PipelineProvisionTargetFn', 'PipelineWaitReadyFn']),
  );
  expect(twin.memorydb!.acls.get(name)).toEqual([name]);
  const out = await abortRuleTeardown<{
    deletedMemoryDbClusters: string[];
    deletedMemoryDbSecrets: string[];
  }>(r, 'twin-mdb-1');
  expectNoDenials(mark);
  expect(out.deletedMemoryDbClusters).toEqual([name]);
  expect(out.deletedMemoryDbSecrets).toEqual([memoryDbSecretName('twin-mdb-1', 'mdb')]);
  expect(byPrincipal(mark, 'memorydb:DeleteCluster')).toEqual([
    ['PipelineOnAbortFn', arn('cluster'), 'Allowed'],
  ]);
  expect(twin.memorydb!.acls.has(name)).toBe(false);
  expect(await daxSecurityGroups(name)).toEqual([]);
});

// ---- ConfigureCell and StartCell on Keyspaces and DAX (issue 26, item 5) ----
// No load phase (dataset.load false): the run goes from Ready? to the first cell. The loader document's
// command StartCell sends is held (accepted, not run: the binding would call a service that is not here),
// and the run is stopped when it waits for the cell, then torn down by the abort rule's target.

/** Runs `s` until StartCell sent its job; `beforeCells` runs as the cells begin. */
async function runUntilCell(
  mark: number,
  s: Record<string, unknown>,
  name: string,
  beforeCells?: () => void,
) {
  const refused = () => twin.gateway.calls.slice(mark).some((c) => c.result.startsWith('NetworkRefused'));
  twin.ssm.hold = true;
  try {
    const r = await twin.execute({
      input: { spec: s },
      name,
      waitMs: 1000,
      onState: (state) => {
        if (state === 'InitCells') beforeCells?.();
        return state === 'WaitCell' || refused() ? 'abort' : undefined;
      },
    });
    expectNoDenials(mark);
    expect({ status: r.status, logs: r.status === 'ABORTED' ? '' : twin.logs.slice(-40).join('\n') }).toEqual(
      {
        status: 'ABORTED',
        logs: '',
      },
    );
    expect(r.states).toEqual(expect.arrayContaining(['ConfigureCell', 'StartCell', 'WaitCell']));
    return r;
  } finally {
    twin.ssm.hold = false;
  }
}

/** The state machine's invocations of a Task's function since the mark, with IAM's answer. */
const invokedBy = (from: number, state: string) =>
  twin.gateway.calls
    .slice(from)
    .filter((c) => c.principal === `StateMachine (${state})`)
    .map((c) => c.result);

const noLoad = (s: Record<string, unknown>) => ({
  ...s,
  dataset: { recordCount: 300, fieldCount: 2, fieldLength: 20, load: false },
});

test('a keyspaces run through ConfigureCell and StartCell: the capacity re-applied under ConfigureCell’s role, the job sent under StartCell’s', async () => {
  const mark = twin.gateway.calls.length;
  const ks = twin.keyspaces!;
  const s = noLoad(
    spec('twin-ksc', {
      targets: [{ id: 'ks', kind: 'keyspaces', capacity: { mode: 'provisioned', rcu: 100, wcu: 50 } }],
    }),
  );
  const heldBefore = twin.ssm.held.length;
  // as the cells begin the table has other capacity (changed since ProvisionTarget): ConfigureCell restores it
  const r = await runUntilCell(mark, s, 'twin-ksc-1', () => {
    ks.keyspaces
      .get(keyspaceName('twin-ksc-1', 'ks'))!
      .tables.get('usertable')!.request.capacitySpecification = {
      throughputMode: 'PROVISIONED',
      readCapacityUnits: 5,
      writeCapacityUnits: 5,
    };
  });
  const configure = twin.gateway.calls
    .slice(mark)
    .filter((c) => c.principal.startsWith('PipelineConfigureCellFn') && c.action.startsWith('cassandra:'))
    .map((c) => `${c.operation} ${c.action} ${c.result}`);
  expect(new Set(configure)).toEqual(
    new Set(['cassandra:GetTable cassandra:Select Allowed', 'cassandra:UpdateTable cassandra:Alter Allowed']),
  );
  const table = ks.keyspaces.get(keyspaceName('twin-ksc-1', 'ks'))!.tables.get('usertable')!;
  expect(table.request.capacitySpecification).toMatchObject({
    readCapacityUnits: 100,
    writeCapacityUnits: 50,
  });
  // StartCell sent the cell's job to the loader with the loader document (SendCommand under its role)
  expect(byPrincipal(mark, 'ssm:SendCommand').map(([p, , res]) => `${p} ${res}`)).toEqual(
    expect.arrayContaining(['PipelineStartCellFn Allowed']),
  );
  expect(twin.ssm.held.length).toBeGreaterThan(heldBefore);
  // every Task the state machine ran was invoked under its role
  for (const state of ['Plan', 'ConfigureCell', 'StartCell'])
    expect(invokedBy(mark, state)).toEqual(['Allowed']);

  const out = await abortRuleTeardown<{ deletedKeyspaces: string[] }>(r, 'twin-ksc-1');
  expectNoDenials(mark);
  expect(out.deletedKeyspaces).toEqual([keyspaceName('twin-ksc-1', 'ks')]);
});

test('a DynamoDB + DAX run through ConfigureCell and StartCell: StartCell reads the cluster endpoint under its role', async () => {
  const mark = twin.gateway.calls.length;
  const name = daxResourceName('twin-daxc-1', 'ddb');
  const r = await runUntilCell(mark, noLoad(daxSpec('twin-daxc')), 'twin-daxc-1');
  const cluster = `arn:aws:dax:${REGION}:${ACCOUNT}:cache/${name}`;
  expect(new Set(byPrincipal(mark, 'dax:DescribeClusters').map((c) => c.join(' ')))).toContain(
    `PipelineStartCellFn ${cluster} Allowed`,
  );
  expect(byPrincipal(mark, 'ssm:SendCommand').map(([p, , res]) => `${p} ${res}`)).toEqual(
    expect.arrayContaining(['PipelineStartCellFn Allowed']),
  );
  for (const state of ['ConfigureCell', 'StartCell']) expect(invokedBy(mark, state)).toEqual(['Allowed']);
  const out = await abortRuleTeardown<{ deletedDaxClusters: string[] }>(r, 'twin-daxc-1');
  expectNoDenials(mark);
  expect(out.deletedDaxClusters).toEqual([name]);
});

test("the state machine's role may invoke each Task's function, and no other function", async () => {
  const sm = twin.stateMachine();
  const resources = new Set<string>();
  const visit = (
    states: Record<
      string,
      { Type: string; Resource?: string; Branches?: unknown[]; ItemProcessor?: unknown }
    >,
  ) => {
    for (const s of Object.values(states)) {
      if (s.Type === 'Task') resources.add(String(s.Resource));
      for (const b of (s.Branches ?? []) as { States: typeof states }[]) visit(b.States);
      if (s.ItemProcessor) visit((s.ItemProcessor as { States: typeof states }).States);
    }
  };
  visit((sm.definition as { States: Parameters<typeof visit>[0] }).States);
  expect(resources.size).toBeGreaterThan(10);
  const role = twin.stateMachineRole();
  const may = async (arn: string) =>
    (
      await evaluate(role.roleArn, role.policies, {
        action: 'lambda:InvokeFunction',
        resource: arn,
        context: {},
      })
    ).allowed;
  for (const arn of resources) expect([arn, await may(arn)]).toEqual([arn, true]);
  // the abort rule's and the janitor's functions are not the state machine's to call
  for (const prefix of ['PipelineOnAbortFn', 'JanitorJanitorFn']) {
    const id = twin.asm.functions.find((f) => f.logicalId.startsWith(prefix))!.logicalId;
    expect(await may(twin.physical.get(id)!.attrs!.Arn!)).toBe(false);
  }
});

test("the price-book refresh (its monthly rule's target), under its own role: GetProducts through the gateway, the book into prices/ of the results bucket", async () => {
  // the Price List Query API has no emulator: the gateway sends the `pricing` service to the fixtures' stand-in
  const standIn = await startPriceListStandIn(fixtureItems(REGION));
  twin.gateway.upstreams.set('pricing', Number(new URL(standIn.endpoint).port));
  try {
    const mark = twin.gateway.calls.length;
    const rule = twin.ruleTarget('PriceBooksMonthly');
    expect(rule.schedule).toBe('cron(0 6 1 * ? *)');
    const onDeploy = twin.ruleTarget('PriceBooksOnDeploy');
    expect(onDeploy.fn).toBe(rule.fn);
    expect(onDeploy.pattern).toMatchObject({
      source: ['aws.cloudformation'],
      resources: [
        `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/FleetbenchTwin/00000000-0000-4000-8000-000000000000`,
      ],
    });
    const out = (await twin.invoke(rule.fn, {
      version: '0',
      id: 'twin-prices-1',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: ACCOUNT,
      time: new Date().toISOString(),
      region: REGION,
      resources: [`arn:aws:events:${REGION}:${ACCOUNT}:rule/PriceBooksMonthly`],
      detail: {},
    })) as { id: string; uri: string };
    expectNoDenials(mark);
    const calls = twin.gateway.calls.slice(mark);
    expect(new Set(calls.map((c) => c.action))).toEqual(new Set(['pricing:GetProducts', 's3:PutObject']));
    const key = `prices/${REGION}/${out.id}.json`;
    expect(out.uri).toBe(`s3://${twin.bucket}/${key}`);
    const body = await twin.clients.s3.send(new GetObjectCommand({ Bucket: twin.bucket, Key: key }));
    const book = JSON.parse(await body.Body!.transformToString()) as {
      region: string;
      ec2: Record<string, unknown>;
    };
    expect(book.region).toBe(REGION);
    expect(Object.keys(book.ec2)).toContain('c5.2xlarge');
    // and nothing else: its role may not read the runs, nor write elsewhere in the bucket
    const fn = twin.fn(rule.fn);
    const policies = rolePolicies(twin.asm.template, fn.roleLogicalId).map((p) => ({
      name: p.name,
      doc: twin.resolver.resolve(p.doc),
    }));
    const may = async (action: string, resource: string) =>
      (
        await evaluate(`arn:aws:iam::${ACCOUNT}:role/${fn.roleLogicalId}`, policies, {
          action,
          resource,
          context: {},
        })
      ).allowed;
    expect(await may('s3:PutObject', `arn:aws:s3:::${twin.bucket}/${key}`)).toBe(true);
    expect(await may('s3:GetObject', `arn:aws:s3:::${twin.bucket}/runs/x/spec.json`)).toBe(false);
    expect(await may('s3:PutObject', `arn:aws:s3:::${twin.bucket}/runs/x/spec.json`)).toBe(false);
    expect(await may('pricing:GetAttributeValues', '*')).toBe(false);
  } finally {
    twin.gateway.upstreams.delete('pricing');
    await standIn.close();
  }
});
