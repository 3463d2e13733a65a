/**
 * AWS adapters and generated resources against moto server: CloudWatch (the metrics sink), Glue (the
 * ResultsLake's table definitions), SSM Run Command (sending the loader command), Step Functions (the
 * run registry behind the "previous scheduled run still running" guard) and EventBridge Scheduler
 * (the Schedules construct's target input, stored and read back, then planned).
 *
 * What moto cannot show, and is not claimed here: ListCommandInvocations, CancelCommand and
 * DescribeInstanceInformation are not implemented by moto 5.2 (a failing loader command is tested through the local mode instead:
 * test/e2e/local-command-failure.test.ts); Glue does not check Hive types or SerDe names.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sfnCdk from 'aws-cdk-lib/aws-stepfunctions';
import { CloudWatchClient, GetMetricDataCommand, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { CreateDatabaseCommand, CreateTableCommand, GetTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { CreateScheduleCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import {
  CreateStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { ListCommandsCommand, SSMClient } from '@aws-sdk/client-ssm';
import { CloudWatchMetricsSink, METRICS_NAMESPACE } from '../../lib/aws/cloudwatch-metrics';
import { SfnRunRegistry } from '../../lib/aws/sfn-runs';
import { SsmCommandRunner } from '../../lib/aws/ssm-commands';
import { ResultsLake } from '../../lib/constructs/results-lake';
import { Schedules, readScheduledSpecs } from '../../lib/constructs/schedules';
import { ScheduleOverlapError, plan } from '../../lib/core/pipeline';
import { TABLES, glueColumns } from '../../lib/core/results/schema';
import { FsStore } from '../../lib/local/fs-store';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(60_000);

let moto: MotoServer;
let dir: string;

beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-adapters-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Replaces CloudFormation intrinsics (Ref, GetAtt, Join) in a template fragment with literals. */
function literal(v: unknown, values: Record<string, string>): unknown {
  if (Array.isArray(v)) return v.map((x) => literal(x, values));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('Ref' in o) return values[String(o.Ref)] ?? `ref-${String(o.Ref)}`;
    if ('Fn::GetAtt' in o) return values[(o['Fn::GetAtt'] as string[]).join('.')] ?? 'getatt';
    if ('Fn::Join' in o) {
      const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => literal(p, values)).join(sep);
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, literal(x, values)]));
  }
  return v;
}

describe('CloudWatch: CloudWatchMetricsSink', () => {
  it("puts a cell's metrics under its dimensions in namespace Fleetbench; ListMetrics and GetMetricData read them back", async () => {
    const sink = new CloudWatchMetricsSink(moto.clientConfig);
    const dims = { target: 'ddb', distribution: 'zipfian', readRatio: '0.95' };
    await sink.put(dims, [
      { name: 'IntendedP99', value: 12.5, unit: 'Milliseconds' },
      { name: 'Throughput', value: 998.25, unit: 'Count/Second' },
      { name: 'Attainment', value: 99.8, unit: 'Percent' },
    ]);
    // another cell, other dimensions: must not mix in
    await sink.put({ ...dims, distribution: 'uniform' }, [
      { name: 'IntendedP99', value: 4.2, unit: 'Milliseconds' },
    ]);

    const cw = new CloudWatchClient(moto.clientConfig);
    const listed = await cw.send(
      new ListMetricsCommand({
        Namespace: METRICS_NAMESPACE,
        Dimensions: Object.entries(dims).map(([Name, Value]) => ({ Name, Value })),
      }),
    );
    expect(listed.Metrics!.map((m) => m.MetricName).sort()).toEqual([
      'Attainment',
      'IntendedP99',
      'Throughput',
    ]);

    const now = Date.now();
    const data = await cw.send(
      new GetMetricDataCommand({
        StartTime: new Date(now - 600_000),
        EndTime: new Date(now + 60_000),
        MetricDataQueries: ['IntendedP99', 'Throughput'].map((name, i) => ({
          Id: `m${i}`,
          MetricStat: {
            Metric: {
              Namespace: METRICS_NAMESPACE,
              MetricName: name,
              Dimensions: Object.entries(dims).map(([Name, Value]) => ({ Name, Value })),
            },
            Period: 60,
            Stat: 'Maximum',
          },
        })),
      }),
    );
    const byId = Object.fromEntries(data.MetricDataResults!.map((r) => [r.Id, r.Values]));
    expect(byId.m0).toEqual([12.5]);
    expect(byId.m1).toEqual([998.25]);
  });

  it('more than 1000 values go in several PutMetricData calls, all stored', async () => {
    // moto cannot read gzip-compressed PutMetricData bodies (the SDK compresses those above 10 KiB)
    const sink = new CloudWatchMetricsSink({ ...moto.clientConfig, disableRequestCompression: true });
    const calls: number[] = [];
    sink.client.middlewareStack.add(
      (next) => async (args) => {
        calls.push(((args.input as { MetricData: unknown[] }).MetricData ?? []).length);
        return next(args);
      },
      { step: 'initialize' },
    );
    await sink.put(
      { target: 'bulk' },
      Array.from({ length: 1001 }, (_, i) => ({ name: `M${i}`, value: i, unit: 'Count' as const })),
    );
    expect(calls).toEqual([1000, 1]);
    const cw = new CloudWatchClient(moto.clientConfig);
    let names = 0;
    let token: string | undefined;
    do {
      const page = await cw.send(
        new ListMetricsCommand({
          Namespace: METRICS_NAMESPACE,
          Dimensions: [{ Name: 'target', Value: 'bulk' }],
          NextToken: token,
        }),
      );
      names += page.Metrics?.length ?? 0;
      token = page.NextToken;
    } while (token);
    expect(names).toBe(1001);
  });
});

describe('Glue: the ResultsLake tables', () => {
  it("each generated table input is accepted by CreateTable and reads back with the row schema's columns", async () => {
    const stack = new Stack(new App(), 'GlueTest', { env: { account: '123456789012', region: 'us-east-1' } });
    const lake = new ResultsLake(stack, 'Results');
    const t = Template.fromStack(stack);
    const bucketRef = stack.getLogicalId(lake.bucket.node.defaultChild as never);
    const values = { [bucketRef]: 'fleetbench-results-bucket', 'AWS::AccountId': '123456789012' };
    const glue = new GlueClient(moto.clientConfig);
    const dbs = Object.values(t.findResources('AWS::Glue::Database')) as {
      Properties: { DatabaseInput: unknown };
    }[];
    expect(dbs).toHaveLength(1);
    await glue.send(
      new CreateDatabaseCommand({
        DatabaseInput: literal(dbs[0]!.Properties.DatabaseInput, values) as never,
      }),
    );

    const tables = Object.values(t.findResources('AWS::Glue::Table')) as {
      Properties: { DatabaseName: string; TableInput: Record<string, unknown> };
    }[];
    expect(tables.map((x) => x.Properties.TableInput.Name).sort()).toEqual(TABLES.map((x) => x.name).sort());
    for (const tbl of tables) {
      const input = literal(tbl.Properties.TableInput, values) as Record<string, unknown>;
      await glue.send(
        new CreateTableCommand({ DatabaseName: lake.databaseName, TableInput: input as never }),
      );
      const name = input.Name as (typeof TABLES)[number]['name'];
      const back = (await glue.send(new GetTableCommand({ DatabaseName: lake.databaseName, Name: name })))
        .Table!;
      const g = glueColumns(name);
      expect(back.StorageDescriptor!.Columns).toEqual(g.columns);
      expect(back.PartitionKeys).toEqual(g.partitionKeys);
      expect(back.StorageDescriptor!.Location).toBe(`s3://fleetbench-results-bucket/tables/${name}/`);
      expect(back.Parameters).toEqual(
        expect.objectContaining({
          'projection.enabled': 'true',
          'projection.spec_name.type': 'injected',
          'storage.location.template': `s3://fleetbench-results-bucket/tables/${name}/run_date=\${run_date}/spec_name=\${spec_name}/`,
        }),
      );
      // Glue's own limits the emulator does not enforce: comments ≤ 255, names lower case ≤ 255
      for (const c of [...back.StorageDescriptor!.Columns!, ...back.PartitionKeys!]) {
        expect(c.Comment!.length).toBeLessThanOrEqual(255);
        expect(c.Name).toMatch(/^[a-z_][a-z0-9_]{0,254}$/);
        expect(['string', 'bigint', 'double', 'boolean']).toContain(c.Type);
      }
    }
  });
});

describe('SSM Run Command: SsmCommandRunner.send', () => {
  it('sends the loader document to every instance in batches of 50, with the job prefix and timeouts', async () => {
    const runner = new SsmCommandRunner('fleetbench-run-job', moto.clientConfig, '/fleetbench/commands');
    const ids = Array.from({ length: 60 }, (_, i) => `i-${(i + 1).toString(16).padStart(17, '0')}`);
    const commandIds = await runner.send({
      instanceIds: ids,
      jobPrefix: 's3://bucket/runs/r1/cells/c1/jobs',
      timeoutSeconds: 900,
      comment: 'r1 c1',
    });
    expect(commandIds).toHaveLength(2);
    const ssm = new SSMClient(moto.clientConfig);
    const sent = [];
    for (const id of commandIds)
      sent.push((await ssm.send(new ListCommandsCommand({ CommandId: id }))).Commands![0]!);
    expect(sent.map((c) => c.InstanceIds!.length)).toEqual([50, 10]);
    // moto keeps a command's instance ids as a set: compare as sets, per batch and overall
    expect(sent.flatMap((c) => c.InstanceIds).sort()).toEqual(ids);
    expect([...sent[1]!.InstanceIds!].sort()).toEqual(ids.slice(50));
    for (const c of sent) {
      expect(c.DocumentName).toBe('fleetbench-run-job');
      expect(c.Parameters).toEqual({
        jobPrefix: ['s3://bucket/runs/r1/cells/c1/jobs'],
        executionTimeout: ['900'],
      });
      expect(c.Comment).toBe('r1 c1');
      expect(c.TimeoutSeconds).toBe(600); // delivery timeout; the run's own limit is executionTimeout
    }
  });
});

describe('Scheduler + Step Functions: a scheduled run is refused while the previous run of its schedule runs', () => {
  it("the Schedules construct's target input, stored in Scheduler, plans a scheduled run; the run registry finds the running one", async () => {
    const sfn = new SFNClient(moto.clientConfig);
    const machine = (
      await sfn.send(
        new CreateStateMachineCommand({
          name: 'fleetbench-pipeline',
          roleArn: 'arn:aws:iam::123456789012:role/pipeline',
          definition: JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', End: true } } }),
        }),
      )
    ).stateMachineArn!;

    // the construct, with the moto state machine as its target
    const stack = new Stack(new App(), 'SchedTest', {
      env: { account: '123456789012', region: 'us-east-1' },
    });
    const specs = readScheduledSpecs(path.join(__dirname, '..', '..', 'examples', 'schedules'));
    new Schedules(stack, 'Schedules', {
      stateMachine: sfnCdk.StateMachine.fromStateMachineArn(stack, 'Machine', machine),
      specs,
    });
    const [cfn] = Object.values(Template.fromStack(stack).findResources('AWS::Scheduler::Schedule')) as {
      Properties: Record<string, unknown> & { Target: Record<string, unknown> };
    }[];
    const p = literal(cfn!.Properties, {}) as {
      Name: string;
      ScheduleExpression: string;
      ScheduleExpressionTimezone: string;
      FlexibleTimeWindow: { Mode: 'OFF' };
      Target: { Arn: string; RoleArn: string; Input: string };
    };
    const scheduler = new SchedulerClient(moto.clientConfig);
    await scheduler.send(
      new CreateScheduleCommand({
        Name: p.Name,
        ScheduleExpression: p.ScheduleExpression,
        ScheduleExpressionTimezone: p.ScheduleExpressionTimezone,
        FlexibleTimeWindow: p.FlexibleTimeWindow,
        Target: {
          Arn: p.Target.Arn,
          RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
          Input: p.Target.Input,
        },
      }),
    );
    const stored = await scheduler.send(new GetScheduleCommand({ Name: p.Name }));
    expect(stored.Target!.Arn).toBe(machine);
    expect(stored.ScheduleExpression).toBe(specs[0]!.spec.schedule!.expression);
    const input = JSON.parse(stored.Target!.Input!) as { spec: unknown; scheduleName: string };
    expect(input.scheduleName).toBe(specs[0]!.spec.name);

    // Scheduler starts the state machine with that input (moto keeps the execution RUNNING)
    const first = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: machine, name: 'nightly-1', input: stored.Target!.Input }),
    );
    await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: machine,
        name: 'manual-1',
        input: JSON.stringify({ spec: input.spec }),
      }),
    );
    const runs = new SfnRunRegistry(machine, moto.clientConfig);
    const running = await runs.running();
    expect(running.map((r) => [r.name, r.scheduleName]).sort()).toEqual([
      ['manual-1', undefined],
      ['nightly-1', input.scheduleName],
    ]);

    const clock = { nowMs: () => Date.UTC(2026, 10, 22, 2, 0) };
    const planNext = () =>
      plan({ executionName: 'nightly-2', input }, { store: new FsStore(dir), clock, runs });
    await expect(planNext()).rejects.toThrow(ScheduleOverlapError);
    await expect(planNext()).rejects.toThrow(/previous run \(nightly-1\) is still running/);

    // once the previous run has ended (the manual run of the same spec does not block)
    await sfn.send(new StopExecutionCommand({ executionArn: first.executionArn }));
    const ctx = await planNext();
    expect(ctx.scheduleName).toBe(input.scheduleName);
    expect(ctx.runId).toBe('nightly-2');
    expect(
      JSON.parse(readFileSync(path.join(dir, 'runs', 'nightly-2', 'context.json'), 'utf8')).scheduleName,
    ).toBe(input.scheduleName);
  });
});
