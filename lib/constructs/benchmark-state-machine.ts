import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { grant } from './grants';
import { TABLE_PREFIX, TAG_ROLE, TAG_RUN_ID } from '../core/ports';
import { STEP_ENTRIES, TASK_STATES, type StepName, type TaskStateName } from '../core/pipeline/states';
import { BenchmarkFunction } from './benchmark-function';
import type { LoaderFleet } from './loader-fleet';

export interface BenchmarkStateMachineProps {
  readonly resultsBucket: s3.IBucket;
  readonly fleet: LoaderFleet;
  readonly topic: sns.ITopic;
  /** @default Duration.days(8) */
  readonly timeout?: Duration;
}

const J = sfn.JsonPath;

/**
 * The benchmark state machine (Standard): Plan → Provision (target ∥ fleet) → WaitReady → load
 * loop → cell loop (Configure → Start → Wait → Check … → Aggregate) → Report → DetectRegressions → Teardown. Every Task
 * catches States.ALL into TeardownAfterFailure and then Fail; Tasks inside the Parallel are caught by
 * the Parallel. Task state names come from lib/core/pipeline/states.ts.
 */
export class BenchmarkStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly functions: Record<StepName, BenchmarkFunction>;
  readonly teardownFunction: BenchmarkFunction;
  /** Teardown for the abort rule's status-change events (same permissions as Teardown). */
  readonly onAbortFunction: BenchmarkFunction;
  readonly stateMachineName: string;

  constructor(scope: Construct, id: string, props: BenchmarkStateMachineProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const timeout = props.timeout ?? Duration.days(8);
    this.stateMachineName = `${stack.stackName}-benchmark`;
    const env: Record<string, string> = {
      RESULTS_BUCKET: props.resultsBucket.bucketName,
      LAUNCH_TEMPLATE_ID: props.fleet.launchTemplate.launchTemplateId!,
      LAUNCH_TEMPLATE_ID_ARM: props.fleet.launchTemplateArm.launchTemplateId!,
      SUBNET_IDS: props.fleet.subnetIds.join(','),
      LOADER_DOCUMENT: props.fleet.document.ref,
      COMMAND_LOG_GROUP: props.fleet.commandLogGroup.logGroupName,
      TOPIC_ARN: props.topic.topicArn,
      MAX_RUN_SECONDS: String(timeout.toSeconds()),
    };

    // one function per step entry (CheckLoad/CheckCell and both teardown states share theirs)
    const byEntry = new Map<string, BenchmarkFunction>();
    const fns = {} as Record<StepName, BenchmarkFunction>;
    for (const [step, entry] of Object.entries(STEP_ENTRIES) as [StepName, string][]) {
      let fn = byEntry.get(entry);
      if (!fn) {
        const fid = entry
          .replace(/\.ts$/, '')
          .replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
        fn = new BenchmarkFunction(this, `${fid}Fn`, {
          entry,
          environment: env,
          // WaitReady may wait in one call for a node health probe (≤ 60 s) and then for the schema
          // command on a loader (≤ 300 s; on a fresh loader it installs Java and fetches the bundle)
          timeout:
            step === 'aggregateCell' || step === 'waitReady'
              ? Duration.minutes(10)
              : step === 'detectRegressions'
                ? Duration.minutes(5)
                : Duration.minutes(2),
          memorySize: step === 'aggregateCell' ? 2048 : step === 'detectRegressions' ? 1024 : 512,
        });
        byEntry.set(entry, fn);
      }
      fns[step] = fn;
    }
    this.functions = fns;
    this.teardownFunction = fns.teardown;
    this.onAbortFunction = new BenchmarkFunction(this, 'OnAbortFn', {
      entry: 'on-abort.ts',
      environment: env,
    });
    this.grant(props, fns);

    const task = (name: TaskStateName, payload: Record<string, unknown>, resultPath: string | null) =>
      new tasks.LambdaInvoke(this, name, {
        stateName: name,
        lambdaFunction: fns[TASK_STATES[name]],
        payloadResponseOnly: true,
        payload: sfn.TaskInput.fromObject(payload),
        resultPath: resultPath === null ? sfn.JsonPath.DISCARD : resultPath,
        retryOnServiceExceptions: true,
      });
    const runPayload = { run: J.objectAt('$.run') };

    // failure path
    const failed = new sfn.Fail(this, 'RunFailed', {
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    const teardownAfterFailure = task(
      'TeardownAfterFailure',
      {
        run: J.objectAt('$.run'),
        executionName: J.stringAt('$$.Execution.Name'),
        error: J.objectAt('$.error'),
      },
      '$.teardown',
    );
    teardownAfterFailure.addRetry({
      errors: ['States.ALL'],
      maxAttempts: 3,
      interval: Duration.seconds(10),
      backoffRate: 2,
    });
    teardownAfterFailure.addCatch(failed, { resultPath: '$.teardownError' });
    teardownAfterFailure.next(failed);
    const catchToTeardown = (s: sfn.TaskStateBase | sfn.Parallel) => {
      s.addCatch(teardownAfterFailure, { errors: ['States.ALL'], resultPath: '$.error' });
      return s;
    };

    // `run` must exist before Plan: TeardownAfterFailure reads $.run when Plan fails. A literal null is
    // dropped when CDK renders Parameters, so it comes from an intrinsic.
    const init = new sfn.Pass(this, 'Init', {
      parameters: { 'input.$': '$', 'run.$': "States.StringToJson('null')" },
    });
    const planTask = catchToTeardown(
      task(
        'Plan',
        {
          input: J.objectAt('$.input'),
          executionName: J.stringAt('$$.Execution.Name'),
          stateMachineArn: J.stringAt('$$.StateMachine.Id'),
        },
        '$.run',
      ),
    );
    const keepRun = new sfn.Pass(this, 'KeepRunOnly', { parameters: { 'run.$': '$.run', ready: {} } });

    const provision = new sfn.Parallel(this, 'Provision', { resultPath: '$.provisioned' });
    const provisionTarget = task('ProvisionTarget', runPayload, '$');
    // a Lambda that ran out of its 2 minutes (Lambda.Unknown, Sandbox.Timedout) is tried once more: the step is
    // idempotent (nodes found again by their tags, tables, keyspaces and DAX clusters by their run tag)
    provisionTarget.addRetry({
      errors: ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout'],
      maxAttempts: 1,
      interval: Duration.seconds(5),
    });
    provision.branch(provisionTarget);
    provision.branch(task('ProvisionFleet', runPayload, '$'));
    catchToTeardown(provision);

    const waitReady = catchToTeardown(
      task('WaitReady', { run: J.objectAt('$.run'), ready: J.objectAt('$.ready') }, '$.ready'),
    );
    const readyWait = new sfn.Wait(this, 'WaitBeforeReadyCheck', {
      time: sfn.WaitTime.secondsPath('$.ready.waitSeconds'),
    });

    // load loop
    const initLoad = new sfn.Pass(this, 'InitLoad', {
      result: sfn.Result.fromObject({ index: 0 }),
      resultPath: '$.cursor',
    });
    const startLoad = catchToTeardown(
      task('StartLoad', { run: J.objectAt('$.run'), index: J.numberAt('$.cursor.index') }, '$.job'),
    );
    const waitLoad = new sfn.Wait(this, 'WaitLoad', { time: sfn.WaitTime.secondsPath('$.job.waitSeconds') });
    const checkLoad = catchToTeardown(task('CheckLoad', { job: J.objectAt('$.job') }, '$.job'));
    const nextLoad = new sfn.Pass(this, 'NextLoad', {
      parameters: { 'index.$': 'States.MathAdd($.cursor.index, 1)' },
      resultPath: '$.cursor',
    });
    const moreLoads = new sfn.Choice(this, 'MoreLoads?');

    // cell loop
    const initCells = new sfn.Pass(this, 'InitCells', {
      result: sfn.Result.fromObject({ index: 0 }),
      resultPath: '$.cursor',
    });
    const moreCells = new sfn.Choice(this, 'MoreCells?');
    const cellPayload = { run: J.objectAt('$.run'), index: J.numberAt('$.cursor.index') };
    const configure = catchToTeardown(task('ConfigureCell', cellPayload, '$.configured'));
    const startCell = catchToTeardown(task('StartCell', cellPayload, '$.job'));
    const waitCell = new sfn.Wait(this, 'WaitCell', { time: sfn.WaitTime.secondsPath('$.job.waitSeconds') });
    const checkCell = catchToTeardown(task('CheckCell', { job: J.objectAt('$.job') }, '$.job'));
    const aggregate = catchToTeardown(task('AggregateCell', cellPayload, '$.aggregated'));
    const nextCell = new sfn.Pass(this, 'NextCell', {
      parameters: { 'index.$': 'States.MathAdd($.cursor.index, 1)' },
      resultPath: '$.cursor',
    });

    const reportTask = catchToTeardown(task('Report', runPayload, '$.report'));
    const teardownTask = catchToTeardown(
      task(
        'Teardown',
        { run: J.objectAt('$.run'), executionName: J.stringAt('$$.Execution.Name') },
        '$.teardown',
      ),
    );
    const done = new sfn.Succeed(this, 'Done');

    moreCells
      .when(sfn.Condition.numberLessThanJsonPath('$.cursor.index', '$.run.cellCount'), configure)
      .otherwise(reportTask);
    configure.next(startCell);
    startCell.next(waitCell);
    waitCell.next(checkCell);
    checkCell.next(
      new sfn.Choice(this, 'CellDone?')
        .when(sfn.Condition.booleanEquals('$.job.done', true), aggregate)
        .otherwise(waitCell),
    );
    aggregate.next(nextCell);
    nextCell.next(moreCells);
    initCells.next(moreCells);

    moreLoads
      .when(sfn.Condition.numberLessThanJsonPath('$.cursor.index', '$.run.loadCount'), startLoad)
      .otherwise(initCells);
    initLoad.next(moreLoads);
    startLoad.next(waitLoad);
    waitLoad.next(checkLoad);
    checkLoad.next(
      new sfn.Choice(this, 'LoadDone?')
        .when(sfn.Condition.booleanEquals('$.job.done', true), nextLoad)
        .otherwise(waitLoad),
    );
    nextLoad.next(moreLoads);

    // Regression detection after the results are written. Its failure must not fail the run (the rows are
    // already in the tables): caught into the normal Teardown with the error kept in $.regressionsError.
    const detectTask = task('DetectRegressions', runPayload, '$.regressions');
    detectTask.addCatch(teardownTask, { errors: ['States.ALL'], resultPath: '$.regressionsError' });
    reportTask.next(detectTask);
    detectTask.next(teardownTask);
    teardownTask.next(done);

    const definition = init
      .next(planTask)
      .next(keepRun)
      .next(provision)
      .next(waitReady)
      .next(
        new sfn.Choice(this, 'Ready?')
          .when(sfn.Condition.booleanEquals('$.ready.ready', true), initLoad)
          .otherwise(readyWait.next(waitReady)),
      );

    const logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(definition),
      timeout,
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
  }

  /** Least privilege per step. */
  private grant(props: BenchmarkStateMachineProps, f: Record<StepName, BenchmarkFunction>): void {
    const stack = Stack.of(this);
    const bucket = props.resultsBucket;
    const runsRead = (fn: BenchmarkFunction) => bucket.grantRead(fn, 'runs/*');
    const runsWrite = (fn: BenchmarkFunction) => bucket.grantPut(fn, 'runs/*');
    const tableArn = stack.formatArn({
      service: 'dynamodb',
      resource: 'table',
      resourceName: `${TABLE_PREFIX}*`,
    });
    const anyTableArn = stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: '*' });
    const add = grant;
    const loaderTag = { StringEquals: { [`aws:ResourceTag/${TAG_ROLE}`]: 'loader' } };
    const instanceArn = stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' });
    const smArn = stack.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: this.stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const execArn = stack.formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: `${this.stateMachineName}:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    // Plan (a start with {"specKey": "specs/..."} reads the spec there)
    runsRead(f.plan);
    bucket.grantRead(f.plan, 'specs/*');
    // a user's binding jars: Plan records each one's SHA-256 for the loaders to verify
    bucket.grantRead(f.plan, 'bindings/*');
    // the newest price book for the spec's region (PriceBookRefresh writes them)
    bucket.grantRead(f.plan, 'prices/*');
    runsWrite(f.plan);
    add(f.plan, 'ListRuns', ['states:ListExecutions'], [smArn]);
    add(f.plan, 'DescribeRuns', ['states:DescribeExecution'], [execArn]);
    // ProvisionTarget
    runsRead(f.provisionTarget);
    add(
      f.provisionTarget,
      'CreateTables',
      ['dynamodb:CreateTable', 'dynamodb:TagResource', 'dynamodb:ListTagsOfResource'],
      [tableArn],
    );
    add(f.provisionTarget, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTableArn]);
    add(f.provisionTarget, 'ListTables', ['dynamodb:ListTables'], ['*']);
    // ProvisionFleet: from the loader templates, into the loaders' group; the instances and volumes it creates
    // must carry the loader role and a run id in the request (tag-on-create), so every loader is a run's
    const lt = props.fleet.launchTemplate;
    const ec2Arn = (resource: string, name: string) =>
      stack.formatArn({ service: 'ec2', resource, resourceName: name });
    const loaderRequestTags = {
      StringEquals: { [`aws:RequestTag/${TAG_ROLE}`]: 'loader' },
      StringLike: { [`aws:RequestTag/${TAG_RUN_ID}`]: '?*' },
    };
    add(
      f.provisionFleet,
      'RunLoaders',
      ['ec2:RunInstances'],
      [
        ec2Arn('launch-template', lt.launchTemplateId!),
        ec2Arn('launch-template', props.fleet.launchTemplateArm.launchTemplateId!),
        ec2Arn('network-interface', '*'),
        ec2Arn('subnet', '*'),
        ec2Arn('security-group', props.fleet.securityGroup.securityGroupId),
        `arn:${stack.partition}:ec2:${stack.region}::image/*`,
      ],
    );
    add(
      f.provisionFleet,
      'RunTaggedLoaders',
      ['ec2:RunInstances'],
      [ec2Arn('instance', '*'), ec2Arn('volume', '*')],
      loaderRequestTags,
    );
    add(
      f.provisionFleet,
      'TagOnLaunch',
      ['ec2:CreateTags'],
      [ec2Arn('instance', '*'), ec2Arn('volume', '*')],
      {
        ...loaderRequestTags,
        StringEquals: { ...loaderRequestTags.StringEquals, 'ec2:CreateAction': 'RunInstances' },
      },
    );
    // the loader role goes to EC2 (the launch templates' instance profile) and nowhere else
    add(f.provisionFleet, 'PassLoaderRole', ['iam:PassRole'], [props.fleet.role.roleArn], {
      StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' },
    });
    // rollback of a partial launch (Ec2FleetAdmin.launch)
    add(f.provisionFleet, 'RollBackLoaders', ['ec2:TerminateInstances'], [instanceArn], loaderTag);
    // Describe* of EC2 and SSM cannot be scoped to resources
    for (const fn of [f.provisionFleet, f.waitReady, f.startCell, f.startLoad]) {
      add(fn, 'DescribeLoaders', ['ec2:DescribeInstances'], ['*']);
    }
    // WaitReady (reads the run's spec for its ScyllaDB clusters)
    runsRead(f.waitReady);
    add(f.waitReady, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTableArn]);
    add(f.waitReady, 'LoadersOnline', ['ssm:DescribeInstanceInformation'], ['*']);
    // StartLoad / StartCell
    for (const fn of [f.startLoad, f.startCell]) {
      runsRead(fn);
      runsWrite(fn);
      add(
        fn,
        'SendDocument',
        ['ssm:SendCommand'],
        [stack.formatArn({ service: 'ssm', resource: 'document', resourceName: props.fleet.document.ref })],
      );
      add(fn, 'SendToLoaders', ['ssm:SendCommand'], [instanceArn], {
        StringEquals: { [`ssm:resourceTag/${TAG_ROLE}`]: 'loader' },
      });
      add(fn, 'CancelOnFailure', ['ssm:CancelCommand'], ['*']);
      add(fn, 'LoaderOnline', ['ssm:DescribeInstanceInformation'], ['*']);
    }
    // CheckLoad / CheckCell. ListCommandInvocations and CancelCommand have no resource type and no condition
    // key in the Service Authorization Reference (they are authorized on "*" only):
    // https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssystemsmanager.html
    add(f.checkCell, 'CommandStatus', ['ssm:ListCommandInvocations', 'ssm:CancelCommand'], ['*']);
    // ConfigureCell
    runsRead(f.configureCell);
    add(f.configureCell, 'DescribeTables', ['dynamodb:DescribeTable'], [anyTableArn]);
    add(f.configureCell, 'SetCapacity', ['dynamodb:UpdateTable'], [tableArn]);
    // AggregateCell: reads runs/* only (listing runs/<id>/cells/<cell>/raw comes with the runs/* grant)
    runsRead(f.aggregateCell);
    runsWrite(f.aggregateCell);
    bucket.grantPut(f.aggregateCell, 'tables/*');
    // Report
    runsRead(f.report);
    runsWrite(f.report);
    bucket.grantPut(f.report, 'tables/*');
    // report.html reads the cells' interval rows, the spec's history (tables/*) and noise bands (noise/*)
    bucket.grantRead(f.report, 'tables/*');
    bucket.grantRead(f.report, 'noise/*');
    props.topic.grantPublish(f.report);
    // DetectRegressions: reads the spec's table partitions, writes changes rows, publishes the alert;
    // reads the spec's A/A noise calibrations and writes one after an A/A run (noise/spec_name=<spec>/)
    bucket.grantRead(f.detectRegressions, 'tables/*');
    bucket.grantPut(f.detectRegressions, 'tables/changes/*');
    bucket.grantRead(f.detectRegressions, 'noise/*');
    bucket.grantPut(f.detectRegressions, 'noise/*');
    props.topic.grantPublish(f.detectRegressions);
    // Teardown, and the abort rule's handler
    for (const fn of [f.teardown, this.onAbortFunction]) {
      runsRead(fn);
      runsWrite(fn);
      props.topic.grantPublish(fn);
      add(fn, 'DescribeLoaders', ['ec2:DescribeInstances'], ['*']);
      add(fn, 'TerminateLoaders', ['ec2:TerminateInstances'], [instanceArn], loaderTag);
      add(
        fn,
        'DeleteTables',
        ['dynamodb:DeleteTable', 'dynamodb:DescribeTable', 'dynamodb:ListTagsOfResource'],
        [tableArn],
      );
      add(fn, 'ListTables', ['dynamodb:ListTables'], ['*']);
    }
  }
}
