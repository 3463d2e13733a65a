import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { grant } from './grants';
import { TAG_ROLE, TAG_RUN_ID } from '../core/common/ports';
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

type Steps = Record<StepName, BenchmarkFunction>;
/** A Lambda Task state of the pipeline (name from lib/core/pipeline/states.ts, its step's function). */
type StepTask = (
  name: TaskStateName,
  payload: Record<string, unknown>,
  resultPath: string | null,
) => tasks.LambdaInvoke;
/** Adds the catch of every error into TeardownAfterFailure. */
type CatchToTeardown = <S extends sfn.TaskStateBase | sfn.Parallel | sfn.Map>(s: S) => S;
/** The failure path: its first state (TeardownAfterFailure, which reads $.error) and the catch into it. */
interface FailurePath {
  catchToTeardown: CatchToTeardown;
  teardownAfterFailure: sfn.State;
}

/**
 * The benchmark state machine (Standard): Plan → ProvisionFleet → a Map over the targets (each iteration:
 * ProvisionTarget → WaitReady → load loop → cell loop (Configure → Start → Wait → Check … → Aggregate) →
 * TeardownTarget) → Report → DetectRegressions → Teardown. Every Task catches States.ALL into TeardownAfterFailure
 * (which removes every resource of the run) and then Fail, those of the Map's iterations through the Map's catch,
 * but DetectRegressions (into Teardown) and TeardownTarget (into the end of its iteration: the run's Teardown
 * removes what it left). Task state names come from lib/core/pipeline/states.ts. DynamoDB's permissions are
 * DynamoDbAccess's, like every target kind's.
 */
export class BenchmarkStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly functions: Steps;
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
    const fns = stepFunctions(this, env);
    this.functions = fns;
    this.teardownFunction = fns.teardown;
    this.onAbortFunction = new BenchmarkFunction(this, 'OnAbortFn', {
      entry: 'on-abort.ts',
      environment: env,
    });
    grantSteps({ ...props, stateMachineName: this.stateMachineName, f: fns, onAbort: this.onAbortFunction });

    const logGroup = new logs.LogGroup(this, 'ExecutionLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineName: this.stateMachineName,
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromChainable(pipelineDefinition(this, fns)),
      timeout,
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
  }
}

/** One function per step entry (CheckLoad/CheckCell and both teardown states share theirs). */
function stepFunctions(scope: Construct, env: Record<string, string>): Steps {
  const byEntry = new Map<string, BenchmarkFunction>();
  const fns = {} as Steps;
  for (const [step, entry] of Object.entries(STEP_ENTRIES) as [StepName, string][]) {
    let fn = byEntry.get(entry);
    if (!fn) {
      const fid = entry.replace(/\.ts$/, '').replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
      fn = new BenchmarkFunction(scope, `${fid}Fn`, {
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
  return fns;
}

/**
 * The definition: Init → Plan → keep the run → ProvisionFleet → the targets' Map (targetsMap: each target
 * provisioned, waited on, loaded, measured and torn down) → Report → DetectRegressions → Teardown.
 */
function pipelineDefinition(scope: Construct, fns: Steps): sfn.IChainable {
  const task: StepTask = (name, payload, resultPath) =>
    new tasks.LambdaInvoke(scope, name, {
      stateName: name,
      lambdaFunction: fns[TASK_STATES[name]],
      payloadResponseOnly: true,
      payload: sfn.TaskInput.fromObject(payload),
      resultPath: resultPath === null ? sfn.JsonPath.DISCARD : resultPath,
      retryOnServiceExceptions: true,
    });
  const runPayload = { run: J.objectAt('$.run') };
  const failure = failurePath(scope, task);
  const { catchToTeardown } = failure;

  // `run` must exist before Plan: TeardownAfterFailure reads $.run when Plan fails. A literal null is
  // dropped when CDK renders Parameters, so it comes from an intrinsic.
  const init = new sfn.Pass(scope, 'Init', {
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
  const keepRun = new sfn.Pass(scope, 'KeepRunOnly', { parameters: { 'run.$': '$.run' } });
  // the loaders serve every target: launched once, they come online while the first target is provisioned
  const provisionFleet = catchToTeardown(task('ProvisionFleet', runPayload, '$.provisioned'));
  const targets = targetsMap(scope, task, failure);

  return init.next(planTask).next(keepRun).next(provisionFleet).next(targets.map);
}

/**
 * The targets (docs/aws-pipeline.md, "Per-target lifecycles"): one inline Map over the run's target spans, whose
 * iteration is TargetSpan (its span of the run's `targets`, a fresh ready state) → ProvisionTarget → WaitReady until
 * ready → its loads → its cells → TeardownTarget (targetTeardownStates). The run's `targetConcurrency` is the Map's
 * concurrency: 1 runs the targets one after another ("sequential"), their number side by side ("parallel"). A Task's
 * failure in an iteration (but TeardownTarget's) fails the Map (the other iterations are stopped); the Map's catch
 * brings the failing iteration's Error and Cause to TeardownAfterFailure as $.error. The iterations' outcomes go to
 * $.targetTeardowns. After the Map: Report → DetectRegressions → Teardown.
 */
function targetsMap(scope: Construct, task: StepTask, failure: FailurePath): { map: sfn.Map } {
  const targetPayload = { run: J.objectAt('$.run'), target: J.numberAt('$.target.index') };
  const map = new sfn.Map(scope, 'Targets', {
    itemsPath: '$.run.targets',
    maxConcurrencyPath: '$.run.targetConcurrency',
    // `job` exists from here on: CellFailed reads $.job (a path that may be missing fails the state machine);
    // `target` is the iteration's cursor (its index in the run's targets)
    itemSelector: { run: J.objectAt('$.run'), target: { index: J.numberAt('$$.Map.Item.Index') }, job: {} },
    // each iteration's outcome ({target}, or {target, teardownError} when its TeardownTarget failed): Report and
    // Teardown say what a failed target teardown left
    resultPath: '$.targetTeardowns',
  });
  const span = new sfn.Pass(scope, 'TargetSpan', {
    parameters: {
      'index.$': '$.target.index',
      'span.$': 'States.ArrayGetItem($.run.targets, $.target.index)',
      ready: {},
    },
    resultPath: '$.target',
  });
  const provisionTarget = task('ProvisionTarget', targetPayload, '$.provisioned');
  // a Lambda that ran out of its 2 minutes (Lambda.Unknown, Sandbox.Timedout) is tried once more: the step is
  // idempotent (each kind's resources found again by their run tag; the pieces a first attempt that died part-way
  // left in front of a managed cluster, its security group, subnet and parameter groups, users and login, are
  // adopted only when provably the run's: lib/aws/loader-only-groups.ts and each kind's adapter and lifecycle)
  provisionTarget.addRetry({
    errors: ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout'],
    maxAttempts: 1,
    interval: Duration.seconds(5),
  });
  const waitReady = task(
    'WaitReady',
    { ...targetPayload, ready: J.objectAt('$.target.ready') },
    '$.target.ready',
  );
  const readyWait = new sfn.Wait(scope, 'WaitBeforeReadyCheck', {
    time: sfn.WaitTime.secondsPath('$.target.ready.waitSeconds'),
  });
  const teardownTarget = targetTeardownStates(scope, task);
  const loops = loopStates(scope, task, teardownTarget);

  span.next(provisionTarget);
  provisionTarget.next(waitReady);
  waitReady.next(
    new sfn.Choice(scope, 'Ready?')
      .when(sfn.Condition.booleanEquals('$.target.ready.ready', true), loops.first)
      .otherwise(readyWait.next(waitReady)),
  );
  map.itemProcessor(span);
  failure.catchToTeardown(map);
  map.next(runEnd(scope, task, failure));
  return { map };
}

/**
 * An iteration's end: TeardownTarget (retried: it is idempotent, a second try finds what is left) → TargetDone. Still
 * failing, it does not fail the run: its error is caught into TargetTeardownFailed, which ends the iteration with
 * it; the run's measured cells go on to Report, and the run's Teardown (it removes every resource of the run)
 * removes what the target's left. Each end state gives the iteration's outcome, which the Map collects in
 * $.targetTeardowns. Returns TeardownTarget.
 */
function targetTeardownStates(scope: Construct, task: StepTask): sfn.State {
  const targetPayload = { run: J.objectAt('$.run'), target: J.numberAt('$.target.index') };
  const teardownTarget = task('TeardownTarget', targetPayload, '$.targetTeardown');
  teardownTarget.addRetry({
    errors: ['States.ALL'],
    maxAttempts: 2,
    interval: Duration.seconds(10),
    backoffRate: 2,
  });
  const failed = new sfn.Pass(scope, 'TargetTeardownFailed', {
    parameters: { 'target.$': '$.target.span.id', 'teardownError.$': '$.targetTeardownError' },
  });
  teardownTarget.addCatch(failed, { errors: ['States.ALL'], resultPath: '$.targetTeardownError' });
  teardownTarget.next(new sfn.Pass(scope, 'TargetDone', { parameters: { 'target.$': '$.target.span.id' } }));
  return teardownTarget;
}

/** The run's end: Report → DetectRegressions (its failure does not fail the run) → Teardown → Done. */
function runEnd(scope: Construct, task: StepTask, failure: FailurePath): sfn.State {
  const { catchToTeardown } = failure;
  const runPayload = { run: J.objectAt('$.run') };
  const targetTeardowns = J.listAt('$.targetTeardowns');
  const reportTask = catchToTeardown(task('Report', { ...runPayload, targetTeardowns }, '$.report'));
  // a Teardown that fails (after Report wrote the results) fails the run with its error, through
  // TeardownAfterFailure, which tries once more and records the failure
  const teardownTask = catchToTeardown(
    task(
      'Teardown',
      { run: J.objectAt('$.run'), executionName: J.stringAt('$$.Execution.Name'), targetTeardowns },
      '$.teardown',
    ),
  );
  // Regression detection after the results are written. Its failure must not fail the run (the rows are
  // already in the tables): caught into the normal Teardown with the error kept in $.regressionsError.
  const detectTask = task('DetectRegressions', runPayload, '$.regressions');
  detectTask.addCatch(teardownTask, { errors: ['States.ALL'], resultPath: '$.regressionsError' });
  reportTask.next(detectTask);
  detectTask.next(teardownTask);
  teardownTask.next(new sfn.Succeed(scope, 'Done'));
  return reportTask;
}

/** The failure path: TeardownAfterFailure (retried, then RunFailed whatever it returns); the catch every Task gets. */
function failurePath(scope: Construct, task: StepTask): FailurePath {
  const failed = new sfn.Fail(scope, 'RunFailed', {
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
  return {
    teardownAfterFailure,
    catchToTeardown: (s) => {
      s.addCatch(teardownAfterFailure, { errors: ['States.ALL'], resultPath: '$.error' });
      return s;
    },
  };
}

/**
 * One target's load loop (StartLoad → WaitLoad → CheckLoad … per load phase of its span), then its cell loop
 * (ConfigureCell → StartCell → WaitCell → CheckCell … → AggregateCell per cell of its span), then `afterTarget`.
 * Inside the targets' Map: a failure here fails the iteration, which the Map's catch brings to TeardownAfterFailure.
 * Returns the loops' first state.
 */
function loopStates(scope: Construct, task: StepTask, afterTarget: sfn.State): { first: sfn.State } {
  // load loop: the target's loads, [loadStart, loadEnd) of the run's
  const initLoad = new sfn.Pass(scope, 'InitLoad', {
    parameters: { 'index.$': '$.target.span.loadStart' },
    resultPath: '$.cursor',
  });
  const startLoad = task(
    'StartLoad',
    { run: J.objectAt('$.run'), index: J.numberAt('$.cursor.index') },
    '$.job',
  );
  const waitLoad = new sfn.Wait(scope, 'WaitLoad', { time: sfn.WaitTime.secondsPath('$.job.waitSeconds') });
  const checkLoad = task('CheckLoad', { job: J.objectAt('$.job') }, '$.job');
  const nextLoad = new sfn.Pass(scope, 'NextLoad', {
    parameters: { 'index.$': 'States.MathAdd($.cursor.index, 1)' },
    resultPath: '$.cursor',
  });
  const moreLoads = new sfn.Choice(scope, 'MoreLoads?');

  // cell loop: the target's cells, [cellStart, cellEnd) of the run's
  const initCells = new sfn.Pass(scope, 'InitCells', {
    parameters: { 'index.$': '$.target.span.cellStart', attempt: 0 },
    resultPath: '$.cursor',
  });
  const moreCells = new sfn.Choice(scope, 'MoreCells?');
  const cells = cellStates(scope, task);

  moreCells
    .when(sfn.Condition.numberLessThanJsonPath('$.cursor.index', '$.target.span.cellEnd'), cells.first)
    .otherwise(afterTarget);
  cells.nextCell.next(moreCells);
  initCells.next(moreCells);

  moreLoads
    .when(sfn.Condition.numberLessThanJsonPath('$.cursor.index', '$.target.span.loadEnd'), startLoad)
    .otherwise(initCells);
  initLoad.next(moreLoads);
  startLoad.next(waitLoad);
  waitLoad.next(checkLoad);
  checkLoad.next(
    new sfn.Choice(scope, 'LoadDone?')
      .when(sfn.Condition.booleanEquals('$.job.done', true), nextLoad)
      .otherwise(waitLoad),
  );
  nextLoad.next(moreLoads);
  return { first: initLoad };
}

/**
 * One cell: ConfigureCell → StartCell → WaitCell → CheckCell … → AggregateCell → NextCell. A failure of any of them
 * goes to CellFailed (lib/core/pipeline/cell-failure.ts), which says what the plan's policy makes of it: retry (the
 * cursor's attempt + 1, after WaitLoaders has the run's loaders online again), skip (the cell recorded incomplete,
 * on to the next) or stop (CellFailureIsFatal fails the iteration with the cell's error, and the targets' Map
 * catches it into TeardownAfterFailure).
 */
function cellStates(scope: Construct, task: StepTask): { first: sfn.State; nextCell: sfn.Pass } {
  const cellPayload = {
    run: J.objectAt('$.run'),
    index: J.numberAt('$.cursor.index'),
    attempt: J.numberAt('$.cursor.attempt'),
  };
  const cellFailed = task(
    'CellFailed',
    {
      run: J.objectAt('$.run'),
      cursor: J.objectAt('$.cursor'),
      error: J.objectAt('$.cellError'),
      job: J.objectAt('$.job'),
    },
    '$.cellFailure',
  );
  const toCellFailed = <S extends sfn.TaskStateBase>(st: S): S => {
    st.addCatch(cellFailed, { errors: ['States.ALL'], resultPath: '$.cellError' });
    return st;
  };
  const configure = toCellFailed(task('ConfigureCell', cellPayload, '$.configured'));
  const startCell = toCellFailed(task('StartCell', cellPayload, '$.job'));
  const waitCell = new sfn.Wait(scope, 'WaitCell', { time: sfn.WaitTime.secondsPath('$.job.waitSeconds') });
  const checkCell = toCellFailed(task('CheckCell', { job: J.objectAt('$.job') }, '$.job'));
  const aggregate = toCellFailed(task('AggregateCell', cellPayload, '$.aggregated'));
  const nextCell = new sfn.Pass(scope, 'NextCell', {
    parameters: { 'index.$': 'States.MathAdd($.cursor.index, 1)', attempt: 0 },
    resultPath: '$.cursor',
  });
  // a resumed run skips the cells it has complete rows for (lib/core/pipeline/resume.ts)
  configure.next(
    new sfn.Choice(scope, 'RunCell?')
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent('$.configured.skip'),
          sfn.Condition.booleanEquals('$.configured.skip', true),
        ),
        nextCell,
      )
      .otherwise(startCell),
  );
  startCell.next(waitCell);
  waitCell.next(checkCell);
  checkCell.next(
    new sfn.Choice(scope, 'CellDone?')
      .when(sfn.Condition.booleanEquals('$.job.done', true), aggregate)
      .otherwise(waitCell),
  );
  aggregate.next(nextCell);
  cellFailed.next(
    new sfn.Choice(scope, 'AfterCellFailure?')
      .when(sfn.Condition.stringEquals('$.cellFailure.action', 'retry'), retryStates(scope, task, configure))
      .when(sfn.Condition.stringEquals('$.cellFailure.action', 'skip'), nextCell)
      .otherwise(
        // the error the run fails with: the failed step's, with the policy's cause
        new sfn.Fail(scope, 'CellFailureIsFatal', {
          errorPath: '$.cellError.Error',
          causePath: '$.cellFailure.cause',
        }),
      ),
  );
  return { first: configure, nextCell };
}

/** The policy's retry: RetryCell (the cursor's next attempt) → WaitLoaders until the run's loaders are online → `cell`. */
function retryStates(scope: Construct, task: StepTask, cell: sfn.State): sfn.State {
  const retryCell = new sfn.Pass(scope, 'RetryCell', {
    parameters: { 'index.$': '$.cellFailure.index', 'attempt.$': '$.cellFailure.attempt' },
    resultPath: '$.cursor',
  });
  const waitLoaders = task(
    'WaitLoaders',
    { run: J.objectAt('$.run'), loaders: J.objectAt('$.cellFailure.loaders') },
    '$.loadersReady',
  );
  const loaderWait = new sfn.Wait(scope, 'WaitForLoaders', {
    time: sfn.WaitTime.secondsPath('$.loadersReady.waitSeconds'),
  });
  retryCell.next(waitLoaders);
  waitLoaders.next(
    new sfn.Choice(scope, 'LoadersReady?')
      .when(sfn.Condition.booleanEquals('$.loadersReady.ready', true), cell)
      .otherwise(loaderWait.next(waitLoaders)),
  );
  return retryCell;
}

/** What the step grants need: the construct's props, the state machine's name, the step functions. */
interface GrantContext extends BenchmarkStateMachineProps {
  readonly stateMachineName: string;
  readonly f: Steps;
  readonly onAbort: BenchmarkFunction;
}

/** Least privilege per step (but DynamoDB's, which DynamoDbAccess grants, and each target kind's own construct). */
function grantSteps(ctx: GrantContext): void {
  grantPlan(ctx);
  grantProvisionFleet(ctx);
  grantLoaderCommands(ctx);
  grantResults(ctx);
  grantTeardown(ctx);
  grantCellFailure(ctx);
}

const runsRead = (bucket: s3.IBucket, fn: BenchmarkFunction) => bucket.grantRead(fn, 'runs/*');
const runsWrite = (bucket: s3.IBucket, fn: BenchmarkFunction) => bucket.grantPut(fn, 'runs/*');
const instanceArn = (stack: Stack) =>
  stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' });
const loaderTag = { StringEquals: { [`aws:ResourceTag/${TAG_ROLE}`]: 'loader' } };

/** Plan (a start with {"specKey": "specs/..."} reads the spec there), and ProvisionTarget's reads of the run. */
function grantPlan({ resultsBucket: bucket, f, stateMachineName }: GrantContext): void {
  const stack = Stack.of(f.plan);
  const smArn = stack.formatArn({
    service: 'states',
    resource: 'stateMachine',
    resourceName: stateMachineName,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  const execArn = stack.formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  runsRead(bucket, f.plan);
  bucket.grantRead(f.plan, 'specs/*');
  // a user's binding jars: Plan records each one's SHA-256 for the loaders to verify
  bucket.grantRead(f.plan, 'bindings/*');
  // the newest price book for the spec's region (PriceBookRefresh writes them)
  bucket.grantRead(f.plan, 'prices/*');
  runsWrite(bucket, f.plan);
  grant(f.plan, 'ListRuns', ['states:ListExecutions'], [smArn]);
  grant(f.plan, 'DescribeRuns', ['states:DescribeExecution'], [execArn]);
  // ProvisionTarget (its tables: DynamoDbAccess; nodes, keyspaces, DAX: their constructs)
  runsRead(bucket, f.provisionTarget);
}

/** ProvisionFleet and CellFailed launch loaders (grantLaunchLoaders); the steps that look at loaders describe them. */
function grantProvisionFleet({ fleet, f }: GrantContext): void {
  for (const fn of [f.provisionFleet, f.cellFailed]) grantLaunchLoaders(fleet, fn);
  // Describe* of EC2 and SSM cannot be scoped to resources
  for (const fn of [f.provisionFleet, f.waitReady, f.startCell, f.startLoad, f.cellFailed, f.waitLoaders]) {
    grant(fn, 'DescribeLoaders', ['ec2:DescribeInstances'], ['*']);
  }
}

/**
 * Launching loaders (ProvisionFleet, and CellFailed replacing lost ones by the same path): from the loader templates,
 * into the loaders' group; the instances and volumes created must carry the loader role and a run id in the request
 * (tag-on-create), so every loader is a run's.
 */
function grantLaunchLoaders(fleet: LoaderFleet, fn: BenchmarkFunction): void {
  const stack = Stack.of(fn);
  const ec2Arn = (resource: string, name: string) =>
    stack.formatArn({ service: 'ec2', resource, resourceName: name });
  const loaderRequestTags = {
    StringEquals: { [`aws:RequestTag/${TAG_ROLE}`]: 'loader' },
    StringLike: { [`aws:RequestTag/${TAG_RUN_ID}`]: '?*' },
  };
  grant(
    fn,
    'RunLoaders',
    ['ec2:RunInstances'],
    [
      ec2Arn('launch-template', fleet.launchTemplate.launchTemplateId!),
      ec2Arn('launch-template', fleet.launchTemplateArm.launchTemplateId!),
      ec2Arn('network-interface', '*'),
      ec2Arn('subnet', '*'),
      ec2Arn('security-group', fleet.securityGroup.securityGroupId),
      `arn:${stack.partition}:ec2:${stack.region}::image/*`,
    ],
  );
  grant(
    fn,
    'RunTaggedLoaders',
    ['ec2:RunInstances'],
    [ec2Arn('instance', '*'), ec2Arn('volume', '*')],
    loaderRequestTags,
  );
  grant(fn, 'TagOnLaunch', ['ec2:CreateTags'], [ec2Arn('instance', '*'), ec2Arn('volume', '*')], {
    ...loaderRequestTags,
    StringEquals: { ...loaderRequestTags.StringEquals, 'ec2:CreateAction': 'RunInstances' },
  });
  // the loader role goes to EC2 (the launch templates' instance profile) and nowhere else
  grant(fn, 'PassLoaderRole', ['iam:PassRole'], [fleet.role.roleArn], {
    StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' },
  });
  // rollback of a partial launch (Ec2FleetAdmin.launch); CellFailed: a lost loader of the run
  grant(fn, 'RollBackLoaders', ['ec2:TerminateInstances'], [instanceArn(stack)], loaderTag);
}

/**
 * CellFailed: the cell's records (runs/*, its `cells` row; the `frontier` row of an SLO search that ends on a failed
 * probe), the price book (runs/*), a failed cell's command cancelled, the loaders' SSM status; launching replacements
 * is grantLaunchLoaders'. WaitLoaders: the loaders' status.
 */
function grantCellFailure({ resultsBucket: bucket, f }: GrantContext): void {
  runsRead(bucket, f.cellFailed);
  runsWrite(bucket, f.cellFailed);
  bucket.grantPut(f.cellFailed, 'tables/cells/*');
  bucket.grantPut(f.cellFailed, 'tables/frontier/*');
  // CancelCommand has no resource type (see grantLoaderCommands)
  grant(f.cellFailed, 'CancelFailedCell', ['ssm:CancelCommand'], ['*']);
  for (const fn of [f.cellFailed, f.waitLoaders]) {
    grant(fn, 'LoadersOnline', ['ssm:DescribeInstanceInformation'], ['*']);
  }
}

/** WaitReady (reads the run's spec for its node clusters), StartLoad / StartCell (Run Command on loaders), CheckCell. */
function grantLoaderCommands({ resultsBucket: bucket, fleet, f }: GrantContext): void {
  const stack = Stack.of(f.waitReady);
  runsRead(bucket, f.waitReady);
  grant(f.waitReady, 'LoadersOnline', ['ssm:DescribeInstanceInformation'], ['*']);
  for (const fn of [f.startLoad, f.startCell]) {
    runsRead(bucket, fn);
    runsWrite(bucket, fn);
    grant(
      fn,
      'SendDocument',
      ['ssm:SendCommand'],
      [stack.formatArn({ service: 'ssm', resource: 'document', resourceName: fleet.document.ref })],
    );
    grant(fn, 'SendToLoaders', ['ssm:SendCommand'], [instanceArn(stack)], {
      StringEquals: { [`ssm:resourceTag/${TAG_ROLE}`]: 'loader' },
    });
    grant(fn, 'CancelOnFailure', ['ssm:CancelCommand'], ['*']);
    grant(fn, 'LoaderOnline', ['ssm:DescribeInstanceInformation'], ['*']);
  }
  // CheckLoad / CheckCell. ListCommandInvocations and CancelCommand have no resource type and no condition
  // key in the Service Authorization Reference (they are authorized on "*" only):
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssystemsmanager.html
  grant(f.checkCell, 'CommandStatus', ['ssm:ListCommandInvocations', 'ssm:CancelCommand'], ['*']);
}

/** ConfigureCell's reads, AggregateCell, Report and DetectRegressions: the run's objects, the tables/ rows, noise/, the topic. */
function grantResults({ resultsBucket: bucket, topic, f }: GrantContext): void {
  // ConfigureCell (its table capacity: DynamoDbAccess; keyspaces: KeyspacesAccess)
  runsRead(bucket, f.configureCell);
  // AggregateCell: reads runs/* only (listing runs/<id>/cells/<cell>/raw comes with the runs/* grant)
  runsRead(bucket, f.aggregateCell);
  runsWrite(bucket, f.aggregateCell);
  bucket.grantPut(f.aggregateCell, 'tables/*');
  // each DynamoDB cell's table metrics from CloudWatch (lib/aws/table-metrics.ts): GetMetricData has no
  // resource-level permissions ("*" only,
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html)
  grant(f.aggregateCell, 'ReadTableMetrics', ['cloudwatch:GetMetricData'], ['*']);
  // Report
  runsRead(bucket, f.report);
  runsWrite(bucket, f.report);
  bucket.grantPut(f.report, 'tables/*');
  // report.html reads the cells' interval rows, the spec's history (tables/*) and noise bands (noise/*)
  bucket.grantRead(f.report, 'tables/*');
  bucket.grantRead(f.report, 'noise/*');
  topic.grantPublish(f.report);
  // DetectRegressions: reads the spec's table partitions, writes changes rows, publishes the alert;
  // reads the spec's A/A noise calibrations and writes one after an A/A run (noise/spec_name=<spec>/)
  bucket.grantRead(f.detectRegressions, 'tables/*');
  bucket.grantPut(f.detectRegressions, 'tables/changes/*');
  bucket.grantRead(f.detectRegressions, 'noise/*');
  bucket.grantPut(f.detectRegressions, 'noise/*');
  topic.grantPublish(f.detectRegressions);
}

/**
 * Teardown, and the abort rule's handler: the run's objects, a failed run's row of table `runs`, the notification,
 * the run's loaders.
 */
function grantTeardown({ resultsBucket: bucket, topic, f, onAbort }: GrantContext): void {
  for (const fn of [f.teardown, onAbort]) {
    runsRead(bucket, fn);
    runsWrite(bucket, fn);
    bucket.grantPut(fn, 'tables/runs/*');
    topic.grantPublish(fn);
    grant(fn, 'DescribeLoaders', ['ec2:DescribeInstances'], ['*']);
    grant(fn, 'TerminateLoaders', ['ec2:TerminateInstances'], [instanceArn(Stack.of(fn))], loaderTag);
  }
}
