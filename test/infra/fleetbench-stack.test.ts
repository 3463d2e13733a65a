/**
 * Template assertions on the whole stack (synthesized once: bundling 13 functions takes a while).
 */
import * as path from 'node:path';
import { cfnLintErrors } from '../support/cfn-lint';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CELL_STATES, NON_FATAL_STATES, STEP_ENTRIES, TASK_STATES } from '../../lib/core/pipeline/states';
import { TABLES } from '../../lib/core/results/schema';
import { NAG_ACKNOWLEDGEMENTS, applyNagSuppressions } from '../../stacks/nag-suppressions';
import { FleetbenchStack } from '../../stacks/fleetbench-stack';
import { readScheduledSpecs } from '../../lib/constructs/schedules';
import { standInLoaderAssets } from '../support/loader-assets';
import { FLEETBENCH_VERSION } from '../../lib/version';
import { CELL_METRICS, CELL_METRIC_DIMENSIONS } from '../../lib/core/contract/cell-metrics';

jest.setTimeout(180_000);

let stack: FleetbenchStack;
let template: Template;
let definition: { StartAt: string; States: Record<string, State> };

interface State {
  Type: string;
  Next?: string;
  End?: boolean;
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Branches?: { StartAt: string; States: Record<string, State> }[];
  ItemProcessor?: { StartAt: string; States: Record<string, State> };
  Choices?: { Next: string }[];
  Default?: string;
  TimeoutSeconds?: number;
  Retry?: { ErrorEquals: string[]; MaxAttempts?: number }[];
}

/** The definition with every token replaced by a placeholder, parsed. */
function definitionOf(t: Template): { StartAt: string; States: Record<string, State> } {
  const sm = Object.values(t.findResources('AWS::StepFunctions::StateMachine'))[0] as {
    Properties: { DefinitionString: { 'Fn::Join': [string, unknown[]] } | string };
  };
  const ds = sm.Properties.DefinitionString;
  const text =
    typeof ds === 'string'
      ? ds
      : ds['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : 'TOKEN')).join('');
  return JSON.parse(text);
}

/** Every state with the top-level state holding it (a Parallel's branch or a Map's iteration), or null. */
function allStates(def: { States: Record<string, State> }): [string, State, string | null][] {
  const out: [string, State, string | null][] = [];
  for (const [name, s] of Object.entries(def.States)) {
    out.push([name, s, null]);
    for (const b of [...(s.Branches ?? []), ...(s.ItemProcessor ? [s.ItemProcessor] : [])])
      for (const [n, bs] of Object.entries(b.States)) out.push([n, bs, name]);
  }
  return out;
}

/** One state by name, wherever it is (top level, a branch, the targets' iteration). */
function stateNamed(name: string): State {
  const found = allStates(definition).find(([n]) => n === name);
  if (!found) throw new Error(`no state ${name}`);
  return found[1];
}

let app: App;
beforeAll(() => {
  app = new App();
  stack = new FleetbenchStack(app, 'TestFleetbench', {
    env: { account: '123456789012', region: 'us-east-1' },
    schedules: readScheduledSpecs(path.join(__dirname, '..', '..', 'examples', 'schedules')),
    ...standInLoaderAssets(),
  });
  template = Template.fromStack(stack);
  definition = definitionOf(template);
});

describe('BenchmarkStateMachine', () => {
  it('has exactly the Task states of lib/core/pipeline/states.ts', () => {
    const tasks = allStates(definition)
      .filter(([, s]) => s.Type === 'Task')
      .map(([n]) => n)
      .sort();
    expect(tasks).toEqual(Object.keys(TASK_STATES).sort());
  });

  it('retries ProvisionTarget once when its Lambda timed out (the step is idempotent)', () => {
    const pt = allStates(definition).find(([n]) => n === 'ProvisionTarget')![1];
    expect(pt.Retry).toContainEqual(
      expect.objectContaining({
        ErrorEquals: ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout'],
        MaxAttempts: 1,
      }),
    );
  });

  it('catches every error of every Task into TeardownAfterFailure (Parallel branches and the Map via theirs)', () => {
    for (const [name, s, parent] of allStates(definition)) {
      if (s.Type !== 'Task' || name === 'TeardownAfterFailure') continue;
      if ((NON_FATAL_STATES as readonly string[]).includes(name)) {
        // non-fatal: regression detection caught into the normal Teardown, a target's teardown into the end of its
        // iteration (the run's Teardown removes what it left)
        expect({ name, next: s.Catch?.find((x) => x.ErrorEquals.includes('States.ALL'))?.Next }).toEqual({
          name,
          next: name === 'TeardownTarget' ? 'TargetTeardownFailed' : 'Teardown',
        });
        continue;
      }
      // a cell's states go to CellFailed, whose policy decides (its own failure, and a "stop", end in teardown);
      // any other Task's failure in an iteration fails the targets' Map, whose catch goes to teardown
      const cell = (CELL_STATES as readonly string[]).includes(name);
      const holder = parent && !cell ? definition.States[parent]! : s;
      const c = holder.Catch?.find((x) => x.ErrorEquals.includes('States.ALL'));
      expect({ name, next: c?.Next }).toEqual({ name, next: cell ? 'CellFailed' : 'TeardownAfterFailure' });
    }
    // a "stop" fails the iteration with the failed step's error and the policy's cause: the Map's catch
    // brings them to TeardownAfterFailure as $.error, and RunFailed fails the run with them
    expect(stateNamed('CellFailureIsFatal')).toMatchObject({
      Type: 'Fail',
      ErrorPath: '$.cellError.Error',
      CausePath: '$.cellFailure.cause',
    });
    expect(definition.States.Targets!.Catch).toEqual([
      expect.objectContaining({
        ErrorEquals: ['States.ALL'],
        Next: 'TeardownAfterFailure',
        ResultPath: '$.error',
      }),
    ]);
    const after = stateNamed('AfterCellFailure?') as unknown as {
      Choices: { StringEquals: string; Next: string }[];
      Default: string;
    };
    expect(after.Choices.map((c) => [c.StringEquals, c.Next])).toEqual([
      ['retry', 'RetryCell'],
      ['skip', 'NextCell'],
    ]);
    expect(after.Default).toBe('CellFailureIsFatal');
    const td = definition.States.TeardownAfterFailure!;
    expect(td.Next).toBe('RunFailed');
    expect(definition.States.RunFailed).toMatchObject({
      Type: 'Fail',
      ErrorPath: '$.error.Error',
      CausePath: '$.error.Cause',
    });
    // the normal path ends with Teardown too, after regression detection, whose failure does not fail
    // the run (the results are already written) but still goes to Teardown
    expect(definition.States.Report!.Next).toBe('DetectRegressions');
    expect(definition.States.DetectRegressions!.Next).toBe('Teardown');
    expect(definition.States.DetectRegressions!.Catch).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'Teardown' }),
    ]);
    expect(definition.States.Teardown!.Next).toBe('Done');
  });

  it('runs the targets in one Map, each provisioned, waited on, loaded, measured and torn down (#33)', () => {
    type Choice = State & {
      Choices: { Variable: string; NumericLessThanPath?: string; Next: string }[];
    };
    type Pass = State & { Parameters?: Record<string, unknown>; ResultPath?: string };
    type MapState = State & {
      ItemsPath: string;
      MaxConcurrencyPath: string;
      ItemSelector: Record<string, unknown>;
      ResultPath: string | null;
      ItemProcessor: { StartAt: string; States: Record<string, State> };
    };
    const top = definition.States;
    // the loaders once, then the targets' Map, then the report, regressions and the run's teardown
    expect([top.KeepRunOnly!.Next, top.ProvisionFleet!.Next]).toEqual(['ProvisionFleet', 'Targets']);
    const map = top.Targets as MapState;
    expect(map).toMatchObject({
      Type: 'Map',
      Next: 'Report',
      ItemsPath: '$.run.targets',
      // 1 for "sequential", the number of targets for "parallel" (lib/core/pipeline/run-context.ts)
      MaxConcurrencyPath: '$.run.targetConcurrency',
      // the iterations' outcomes (each target, and its teardown's error if it failed) for Report and Teardown
      ResultPath: '$.targetTeardowns',
    });
    expect((definition.States.Report as Pass).Parameters).toMatchObject({
      'targetTeardowns.$': '$.targetTeardowns',
    });
    expect((definition.States.Teardown as Pass).Parameters).toMatchObject({
      'targetTeardowns.$': '$.targetTeardowns',
    });
    expect(map.ItemSelector).toEqual({
      'run.$': '$.run',
      target: { 'index.$': '$$.Map.Item.Index' },
      job: {},
    });
    // a target's lifecycle is the iteration, and nothing else is
    const st = map.ItemProcessor.States;
    expect(map.ItemProcessor.StartAt).toBe('TargetSpan');
    for (const n of ['Plan', 'ProvisionFleet', 'Report', 'Teardown', 'TeardownAfterFailure'])
      expect(st[n]).toBeUndefined();
    const next = (n: string) => st[n]!.Next;
    expect((st.TargetSpan as Pass).Parameters).toMatchObject({
      'span.$': 'States.ArrayGetItem($.run.targets, $.target.index)',
    });
    expect([next('TargetSpan'), next('ProvisionTarget')]).toEqual(['ProvisionTarget', 'WaitReady']);
    expect((st['Ready?'] as Choice).Choices[0]!.Next).toBe('InitLoad');
    // the target's loads and cells only: the loops run over its span of the run's
    expect((st.InitLoad as Pass).Parameters).toEqual({ 'index.$': '$.target.span.loadStart' });
    expect((st.InitCells as Pass).Parameters).toEqual({ 'index.$': '$.target.span.cellStart', attempt: 0 });
    expect((st['MoreLoads?'] as Choice).Choices[0]!.NumericLessThanPath).toBe('$.target.span.loadEnd');
    const cells = st['MoreCells?'] as Choice;
    expect(cells.Choices[0]!.NumericLessThanPath).toBe('$.target.span.cellEnd');
    // its last cell done, the target is torn down: the end of its iteration
    expect(cells.Default).toBe('TeardownTarget');
    expect(st.TeardownTarget!.Retry).toEqual(
      expect.arrayContaining([expect.objectContaining({ ErrorEquals: ['States.ALL'], MaxAttempts: 2 })]),
    );
    // still failing, it does not fail the run: the iteration ends with its error (its target's id and the error)
    expect(st.TeardownTarget!.Catch).toEqual([
      expect.objectContaining({
        ErrorEquals: ['States.ALL'],
        Next: 'TargetTeardownFailed',
        ResultPath: '$.targetTeardownError',
      }),
    ]);
    expect(st.TargetTeardownFailed).toMatchObject({
      Type: 'Pass',
      End: true,
      Parameters: { 'target.$': '$.target.span.id', 'teardownError.$': '$.targetTeardownError' },
    });
    expect(next('TeardownTarget')).toBe('TargetDone');
    expect(st.TargetDone).toMatchObject({
      Type: 'Pass',
      End: true,
      Parameters: { 'target.$': '$.target.span.id' },
    });
    expect(allStates(definition).filter(([, x]) => x.Type === 'Parallel')).toEqual([]);
    // TeardownTarget runs in Teardown's function (its deletes are every resource type's grants)
    expect(STEP_ENTRIES[TASK_STATES.TeardownTarget]).toBe(STEP_ENTRIES[TASK_STATES.Teardown]);
  });

  it('is a Standard workflow with a timeout, tracing and logging', () => {
    expect(definition).toHaveProperty('TimeoutSeconds', 8 * 86400);
    template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
    });
  });

  it('builds every step function the same way: Node 22, ARM64, tracing, own log group', () => {
    const fns = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: Record<string, unknown>;
    }[];
    expect(fns.length).toBeGreaterThanOrEqual(12);
    for (const f of fns) {
      expect(f.Properties.Runtime).toBe('nodejs22.x');
      expect(f.Properties.Architectures).toEqual(['arm64']);
      expect(f.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(f.Properties.LoggingConfig).toHaveProperty('LogGroup');
    }
  });
});

describe('AbortRule and Janitor', () => {
  it('runs teardown when an execution ends FAILED, TIMED_OUT or ABORTED', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [Match.anyValue()] },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('OnAbortFn'), 'Arn'] } })],
    });
  });

  it("OnAbort's failures go to a queue (Lambda's on-failure destination and the rule target's DLQ), alarmed", () => {
    const [queueId] = Object.keys(template.findResources('AWS::SQS::Queue')).filter((id) =>
      id.startsWith('AbortRuleFailedTeardowns'),
    );
    expect(queueId).toBeDefined();
    const queueArn = { 'Fn::GetAtt': [queueId, 'Arn'] };
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: Match.stringLikeRegexp('OnAbortFn') },
      DestinationConfig: { OnFailure: { Destination: queueArn } },
      MaximumRetryAttempts: 2,
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ source: ['aws.states'] }),
      Targets: [Match.objectLike({ DeadLetterConfig: { Arn: queueArn } })],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86400,
    });
    const topic = { Ref: Match.stringLikeRegexp('MonitoringRunEvents') };
    // any message in the queue, any error of the handler: an alarm on the run-events topic
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topic],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: Match.stringLikeRegexp('OnAbortFn') } }],
      Threshold: 1,
      AlarmActions: [topic],
    });
  });

  it("the janitor's second pass reads and writes the runs' records (runs/ in the results bucket)", () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: Match.anyValue(),
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('JanitorJanitorFnServiceRole'), 'Arn'] },
      Environment: {
        Variables: Match.objectLike({ RESULTS_BUCKET: { Ref: Match.stringLikeRegexp('ResultsBucket') } }),
      },
    });
    const roleId = Object.keys(template.findResources('AWS::IAM::Role')).find((id) =>
      id.startsWith('JanitorJanitorFnServiceRole'),
    )!;
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[]);
    const s3 = statements.filter((x) => JSON.stringify(x.Action).includes('s3:'));
    expect(s3.some((x) => JSON.stringify(x.Action).includes('s3:GetObject'))).toBe(true);
    expect(s3.some((x) => JSON.stringify(x.Action).includes('s3:PutObject'))).toBe(true);
    for (const x of s3)
      expect(JSON.stringify(x.Resource)).toMatch(/\/runs\/\*|ResultsBucket[0-9A-F]+","Arn"\]\}$/);
  });

  it('runs the janitor on a schedule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('JanitorFn'), 'Arn'] } })],
    });
  });
});

describe('LoaderFleet', () => {
  it('launch template: IMDSv2 required, encrypted volumes, no SSH key', () => {
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({
        MetadataOptions: Match.objectLike({ HttpTokens: 'required' }),
        BlockDeviceMappings: [Match.objectLike({ Ebs: Match.objectLike({ Encrypted: true }) })],
        KeyName: Match.absent(),
      }),
    });
  });

  it('default network: public subnets in 3 AZs, no NAT, no interface endpoint, S3 and DynamoDB gateways', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    const eps = Object.values(template.findResources('AWS::EC2::VPCEndpoint')) as {
      Properties: { ServiceName: unknown; VpcEndpointType?: string };
    }[];
    expect(eps.filter((e) => e.Properties.VpcEndpointType === 'Interface')).toEqual([]);
    const names = JSON.stringify(eps.map((e) => e.Properties.ServiceName));
    for (const s of ['s3', 'dynamodb']) expect(names).toMatch(new RegExp(`\\.${s}"`));
    const subnets = Object.values(template.findResources('AWS::EC2::Subnet')) as {
      Properties: { MapPublicIpOnLaunch?: boolean };
    }[];
    expect(subnets.map((s) => s.Properties.MapPublicIpOnLaunch)).toEqual([true, true, true]);
    // the loaders' group admits nothing: all control goes through SSM
    const loaderSg = Object.entries(template.findResources('AWS::EC2::SecurityGroup')).find(([id]) =>
      id.startsWith('LoadersLoaderSg'),
    )!;
    expect(loaderSg[1].Properties.SecurityGroupIngress).toBeUndefined();
    const intoLoaders = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')).filter((r) =>
      JSON.stringify(r.Properties.GroupId).includes(loaderSg[0]),
    );
    expect(intoLoaders).toEqual([]);
  });

  it('Plan may read quotas, DynamoDB limits and AZs, and knows the AZs of the subnets; the stack says its version', () => {
    const planFn = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.startsWith('PipelinePlanFn'),
    )!;
    expect(planFn[1].Properties.Environment.Variables.LOADER_AZ_COUNT).toBe('3');
    // the default network is public: Plan lets keyspaces targets through (the private one refuses them)
    expect(planFn[1].Properties.Environment.Variables.LOADER_NETWORK).toBe('public');
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const stmt = policies
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('PipelinePlanFn'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .find((st) => st.Sid === 'PreflightReads');
    expect(stmt?.Action).toEqual([
      'servicequotas:GetServiceQuota',
      'servicequotas:GetAWSDefaultServiceQuota',
      'dynamodb:DescribeLimits',
      'ec2:DescribeAvailabilityZones',
    ]);
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.Version!.Value).toBe(FLEETBENCH_VERSION);
    expect(outputs.Network!.Value).toBe('public');
  });

  it('cassandra-ec2 logins: each step role may make only its calls on fleetbench/* secrets, creates and deletes need the run tag', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const secretActions = (fn: string) =>
      policies
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(`${fn}Fn`))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((st) => JSON.stringify(st.Action).includes('secretsmanager:'));
    const secretArn = /:secretsmanager:.*:secret:fleetbench\/\*"/;
    const create = secretActions('ProvisionTarget').find((st) => st.Sid === 'CreateRunLogins')!;
    expect(create.Action).toEqual(['secretsmanager:CreateSecret', 'secretsmanager:TagResource']);
    expect(create.Condition).toEqual({ Null: { 'aws:RequestTag/fleetbench:run-id': 'false' } });
    expect(JSON.stringify(create.Resource)).toMatch(secretArn);
    for (const fn of ['ProvisionTarget', 'StartLoad', 'StartCell', 'Teardown', 'OnAbort', 'Janitor']) {
      const describe = secretActions(fn).find((st) => st.Sid === 'DescribeRunLogins')!;
      expect(describe.Action).toBe('secretsmanager:DescribeSecret');
      expect(JSON.stringify(describe.Resource)).toMatch(secretArn);
    }
    for (const fn of ['Teardown', 'OnAbort', 'Janitor']) {
      const del = secretActions(fn).find((st) => st.Sid === 'DeleteRunLogins')!;
      expect(del.Action).toBe('secretsmanager:DeleteSecret');
      expect(del.Condition).toEqual({ Null: { 'aws:ResourceTag/fleetbench:run-id': 'false' } });
    }
    // the janitor lists secrets to sweep expired logins (ListSecrets has no resource type: "*"); no step else
    const list = secretActions('Janitor').find((st) => st.Sid === 'ListRunLogins')!;
    expect([list.Action, list.Resource, list.Condition]).toEqual([
      'secretsmanager:ListSecrets',
      '*',
      undefined,
    ]);
    for (const fn of [
      'ProvisionTarget',
      'StartLoad',
      'StartCell',
      'WaitReady',
      'Teardown',
      'OnAbort',
      'Plan',
    ])
      expect(JSON.stringify(secretActions(fn))).not.toMatch(/ListSecrets/);
    // no step reads a secret's value, and only these delete
    for (const fn of ['ProvisionTarget', 'StartLoad', 'StartCell', 'WaitReady', 'Plan', 'Report'])
      expect(JSON.stringify(secretActions(fn))).not.toMatch(/GetSecretValue|DeleteSecret/);
  });

  it("the loader document runs the agent with Node.js 22 in the stack's region", () => {
    const doc = Object.values(template.findResources('AWS::SSM::Document'))[0]!.Properties.Content as {
      mainSteps: { inputs: { runCommand: unknown[] } }[];
    };
    const script = JSON.stringify(doc.mainSteps[0]!.inputs.runCommand);
    expect(script).toContain('export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1');
    expect(script).toContain('command -v node-22 >/dev/null 2>&1 || dnf install -y -q nodejs22');
    expect(script).toMatch(/exec node-22 \/opt\/fleetbench\/agent\.js /);
    expect(script).not.toMatch(/nodejs20/);
    // the YCSB JVMs run as an unprivileged user the document creates
    expect(script).toContain(
      'id -u fleetbench-ycsb >/dev/null 2>&1 || useradd --system --no-create-home --shell /sbin/nologin fleetbench-ycsb',
    );
    expect(script).toMatch(/export [^"]*FLEETBENCH_RUN_AS=fleetbench-ycsb/);
  });

  it('Run Command output: the loader role may list log groups and write to the command log group', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const stmts = policies
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('LoaderRole'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const groups = stmts.find((s) => s.Sid === 'CommandOutputGroups');
    expect(groups?.Action).toEqual('logs:DescribeLogGroups');
    expect(JSON.stringify(groups?.Resource)).toMatch(/:log-group:\*"/);
    const output = stmts.find((s) => s.Sid === 'CommandOutput')!;
    expect(output.Action).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams']);
  });

  it('loader role: table data on fleetbench-* only, metrics only in the Fleetbench namespace, runs/ only', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const loader = policies.filter((p) => JSON.stringify(p.Properties.Roles).includes('LoaderRole'));
    const stmts = loader.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const bySid = (sid: string) => stmts.find((s) => s.Sid === sid)!;
    expect(JSON.stringify(bySid('TableData').Resource)).toMatch(/:table\/fleetbench-\*"/);
    expect(bySid('Metrics').Condition).toEqual({ StringEquals: { 'cloudwatch:namespace': 'Fleetbench' } });
    // job files read, raw outputs written; nothing else under runs/ (test/cloud-twin/iam-loader.test.ts evaluates it)
    expect(bySid('ReadJobs').Action).toEqual('s3:GetObject');
    expect(JSON.stringify(bySid('ReadJobs').Resource)).toMatch(/\/runs\/\*\/jobs\/\*"/);
    expect(bySid('WriteRawOutputs').Action).toEqual('s3:PutObject');
    expect(JSON.stringify(bySid('WriteRawOutputs').Resource)).toMatch(/\/runs\/\*\/raw\/loader-\*"/);
    // the two loader assets, each by its key, not the CDK assets bucket
    expect(bySid('ReadLoaderAssets').Action).toEqual('s3:GetObject');
    expect(JSON.stringify(bySid('ReadLoaderAssets').Resource)).toMatch(/\.zip"/);
    expect(JSON.stringify(bySid('ReadLoaderAssets').Resource)).not.toMatch(/assets-[^"]*\/\*"/);
    for (const s of stmts) expect(s.Action).not.toEqual('*');
  });

  it('no statement anywhere allows every action; terminate and send-command are tag-conditioned', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: { Action: string | string[]; Condition?: unknown }[] } };
    }[];
    const stmts = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    for (const s of stmts) {
      const actions = ([] as string[]).concat(s.Action);
      expect(actions).not.toContain('*');
      expect(actions.filter((a) => a.endsWith(':*'))).toEqual([]);
      if (actions.includes('ec2:TerminateInstances')) {
        // loaders (LoaderFleet's grants) or ScyllaDB nodes (DbNodes'), never untagged instances
        expect([
          { StringEquals: { 'aws:ResourceTag/fleetbench:role': 'loader' } },
          { StringEquals: { 'aws:ResourceTag/fleetbench:role': ['scylla-node', 'cassandra-node'] } },
        ]).toContainEqual(s.Condition);
      }
    }
  });
});

describe('ResultsLake', () => {
  it('bucket: encrypted, public access blocked, TLS only, raw outputs move to IA and expire, versioned', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: Match.objectLike({}),
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Prefix: 'runs/',
            ExpirationInDays: 365,
            Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }],
          }),
          // previous versions go after 30 days (versioning is for recovery, not for keeping everything)
          Match.objectLike({
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: 30 },
            ExpiredObjectDeleteMarker: true,
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('Glue tables have exactly the columns and partition keys of the row schema', () => {
    for (const t of TABLES) {
      const [res] = Object.values(
        template.findResources('AWS::Glue::Table', { Properties: { TableInput: { Name: t.name } } }),
      ) as { Properties: { TableInput: Record<string, unknown> } }[];
      const ti = res!.Properties.TableInput as {
        StorageDescriptor: { Columns: { Name: string; Type: string }[] };
        PartitionKeys: { Name: string; Type: string }[];
        Parameters: Record<string, string>;
      };
      expect(ti.StorageDescriptor.Columns.map((c) => [c.Name, c.Type])).toEqual(
        t.columns.map((c) => [c.name, c.type]),
      );
      expect(ti.PartitionKeys.map((c) => [c.Name, c.Type])).toEqual(
        t.partitionKeys.map((c) => [c.name, c.type]),
      );
      expect(ti.Parameters['projection.enabled']).toBe('true');
    }
  });

  it('Athena workgroup enforces its result location and a scan limit; named queries exist', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: Match.anyValue(),
        ResultConfiguration: Match.objectLike({ OutputLocation: Match.anyValue() }),
      }),
    });
    expect(Object.keys(template.findResources('AWS::Athena::NamedQuery')).length).toBeGreaterThanOrEqual(4);
  });
});

/**
 * Whether a SEARCH term `Name=value` selects a metric whose dimension has this value. CloudWatch:
 * a quoted value is an exact match (`InstanceType="t2.micro"`), an unquoted one a partial match on
 * the value's tokens (`InstanceType=micro` finds t2.micro)
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/search-expression-examples.html).
 */
function searchTermMatches(term: string, value: string): boolean {
  const quoted = /^"(.*)"$/.exec(term);
  if (quoted) return quoted[1] === value;
  const tokens = value.toLowerCase().split(/[^a-z0-9]+/);
  return term
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .every((t) => tokens.includes(t));
}

describe('Monitoring: dashboard', () => {
  it("the DynamoDB widgets' searches select the pipeline's tables (fleetbench-<spec>.<target>.<run>) and no other", () => {
    const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as {
      Properties: { DashboardBody: { 'Fn::Join': [string, unknown[]] } };
    };
    const text = body.Properties.DashboardBody['Fn::Join'][1]
      .map((p) => (typeof p === 'string' ? p : 'TOKEN'))
      .join('');
    const terms = [...text.matchAll(/\{AWS\/DynamoDB,TableName\}[^']*?TableName=(\\"[^\\]*\\"|[^ ']+)/g)].map(
      (m) => m[1]!.replace(/\\"/g, '"'),
    );
    expect(terms.length).toBeGreaterThanOrEqual(2);
    for (const term of terms) {
      expect([term, searchTermMatches(term, 'fleetbench-quickstart.ddb.quickstart-20261122-1840')]).toEqual([
        term,
        true,
      ]);
      expect([term, searchTermMatches(term, 'orders')]).toEqual([term, false]);
    }
  });
});

describe('Monitoring: cell metrics on the dashboard', () => {
  it("every cell widget searches the cell metrics' one dimension set (one series = one cell of one spec)", () => {
    const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as {
      Properties: { DashboardBody: { 'Fn::Join': [string, unknown[]] } };
    };
    const text = body.Properties.DashboardBody['Fn::Join'][1]
      .map((p) => (typeof p === 'string' ? p : 'TOKEN'))
      .join('');
    const searches = [...text.matchAll(/\{Fleetbench,([^}]*)\} MetricName=\\"([A-Za-z0-9]+)\\"/g)]
      .map((m) => ({ name: m[2]!, dims: m[1]!.split(',').sort() }))
      .filter((s) => s.name !== 'Regression');
    expect(new Set(searches.map((s) => s.name))).toEqual(new Set(CELL_METRICS));
    for (const s of searches) expect(s).toEqual({ name: s.name, dims: [...CELL_METRIC_DIMENSIONS].sort() });
  });
});

describe('Monitoring: regression alarm', () => {
  const topicLogicalId = () => Object.keys(template.findResources('AWS::SNS::Topic'))[0]!;

  it('alarms on Fleetbench/Regression (no dimensions, Maximum ≥ 1) and publishes to the topic', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Fleetbench',
      MetricName: 'Regression',
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicLogicalId() }],
    });
    const alarm = Object.values(
      template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Regression' } }),
    )[0] as { Properties: Record<string, unknown> };
    expect(alarm.Properties.Dimensions).toBeUndefined();
  });

  it('the topic uses a rotated customer managed key that CloudWatch alarms of this account may use', () => {
    const topic = Object.values(template.findResources('AWS::SNS::Topic'))[0] as {
      Properties: { KmsMasterKeyId: { 'Fn::GetAtt': [string, string] } };
    };
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const key = template.findResources('AWS::KMS::Key')[keyId] as {
      Properties: { EnableKeyRotation: boolean; KeyPolicy: { Statement: Record<string, unknown>[] } };
    };
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const cw = key.Properties.KeyPolicy.Statement.find((s) => s.Sid === 'AlarmsEncrypt')!;
    expect(cw.Principal).toEqual({ Service: 'cloudwatch.amazonaws.com' });
    expect(cw.Action).toEqual(['kms:Decrypt', 'kms:GenerateDataKey*']);
    // as AWS documents it for alarms on encrypted topics: no conditions on the key (the topic policy has them)
    expect(cw.Condition).toBeUndefined();
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AlarmsPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
          }),
        ]),
      },
    });
  });

  it('DetectRegressions: reads tables/ and noise/, writes only tables/changes/ and noise/, publishes to the topic', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const mine = policies.filter((p) => JSON.stringify(p.Properties.Roles).includes('DetectRegressionsFn'));
    expect(mine).toHaveLength(1); // the role's default policy
    const stmts = mine.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const withAction = (a: string) => stmts.filter((s) => ([] as unknown[]).concat(s.Action).includes(a));
    const puts = withAction('s3:PutObject').map((s) => JSON.stringify(s.Resource));
    expect(puts).toHaveLength(2);
    expect(puts.filter((r) => /\/tables\/changes\/\*"/.test(r))).toHaveLength(1);
    expect(puts.filter((r) => /\/noise\/\*"/.test(r))).toHaveLength(1);
    expect(JSON.stringify(withAction('s3:GetObject*').map((s) => s.Resource))).toMatch(/\/tables\/\*"/);
    expect(JSON.stringify(withAction('s3:GetObject*').map((s) => s.Resource))).toMatch(/\/noise\/\*"/);
    expect(JSON.stringify(withAction('s3:GetObject*').map((s) => s.Resource))).not.toMatch(/\/runs\//);
    expect(withAction('sns:Publish')).toHaveLength(1);
    for (const s of stmts) {
      const actions = ([] as string[]).concat(s.Action as string | string[]);
      expect(actions.filter((a) => /^(ec2|ssm|dynamodb|states):/.test(a))).toEqual([]);
    }
  });
});

describe('The run report', () => {
  it('Report: writes runs/* (report.html), reads runs/, tables/ and noise/ (what the report shows), publishes', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    const mine = policies.filter((p) => JSON.stringify(p.Properties.Roles).includes('ReportFn'));
    expect(mine).toHaveLength(1); // the role's default policy
    const stmts = mine.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const withAction = (a: string) => stmts.filter((s) => ([] as unknown[]).concat(s.Action).includes(a));
    const puts = withAction('s3:PutObject').map((s) => JSON.stringify(s.Resource));
    expect(puts.filter((r) => /\/runs\/\*"/.test(r))).toHaveLength(1);
    expect(puts.filter((r) => /\/tables\/\*"/.test(r))).toHaveLength(1);
    expect(puts).toHaveLength(2);
    const reads = JSON.stringify(withAction('s3:GetObject*').map((s) => s.Resource));
    for (const prefix of ['runs', 'tables', 'noise']) expect(reads).toMatch(new RegExp(`/${prefix}/\\*"`));
    expect(withAction('sns:Publish')).toHaveLength(1);
  });

  it("Teardown and OnAbort: write runs/* and a failed run's row under tables/runs/ only", () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: { PolicyDocument: { Statement: Record<string, unknown>[] }; Roles: unknown[] };
    }[];
    for (const fn of ['PipelineTeardownFn', 'PipelineOnAbortFn']) {
      const stmts = policies
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(fn))
        .flatMap((p) => p.Properties.PolicyDocument.Statement);
      const puts = stmts
        .filter((s) => ([] as unknown[]).concat(s.Action).includes('s3:PutObject'))
        .map((s) => JSON.stringify(s.Resource));
      expect({ fn, runs: puts.filter((r) => /"\/runs\/\*"/.test(r)).length }).toEqual({ fn, runs: 1 });
      expect({ fn, rows: puts.filter((r) => /\/tables\/runs\/\*"/.test(r)).length }).toEqual({ fn, rows: 1 });
      expect({ fn, puts: puts.length }).toEqual({ fn, puts: 2 });
    }
  });

  it('the dashboard links to the reports under the results bucket', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]);
    expect(body).toContain('/runs/<runId>/report.html');
    expect(body).toContain('prefix=runs/');
    // the bucket's name comes from the stack's own bucket (a Ref), not a literal
    expect(body).toMatch(/"Ref":"Results[A-Za-z0-9]*Bucket[A-Za-z0-9]*"/);
  });
});

describe('Schedules', () => {
  it('one schedule per scheduled spec, starting the state machine with the spec', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: Match.stringLikeRegexp('^(cron|rate)\\('),
      Target: Match.objectLike({ Input: Match.stringLikeRegexp('"scheduleName"') }),
    });
  });
});

describe('DynamoDbAccess', () => {
  it('the stack composes it: ProvisionTarget creates, ConfigureCell sizes, Teardown and OnAbort delete fleetbench-* tables', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
      Properties: {
        PolicyDocument: { Statement: { Sid: string; Action: unknown; Resource: unknown }[] };
        Roles: unknown[];
      };
    }[];
    const sidsOf = (fn: string) =>
      policies
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(`${fn}Fn`))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((st) => JSON.stringify(st.Action).includes('dynamodb:'))
        .map((st) => [st.Sid, JSON.stringify(st.Resource).match(/table\/([^"]*)"/)?.[1] ?? st.Resource]);
    expect(sidsOf('ProvisionTarget')).toEqual(
      expect.arrayContaining([
        ['CreateTables', 'fleetbench-*'],
        ['DescribeTables', '*'],
      ]),
    );
    expect(sidsOf('ConfigureCell')).toEqual(expect.arrayContaining([['SetCapacity', 'fleetbench-*']]));
    expect(sidsOf('WaitReady')).toEqual([['DescribeTables', '*']]);
    for (const fn of ['Teardown', 'OnAbort'])
      expect(sidsOf(fn)).toEqual(expect.arrayContaining([['DeleteTables', 'fleetbench-*']]));
  });
});

describe('cdk-nag and cfn-lint', () => {
  it('AwsSolutions: nothing left unacknowledged, and every acknowledgement has a reason', () => {
    // every finding is matched by an acknowledgement (unmatched ones are returned and fail synth)
    expect(applyNagSuppressions(stack)).toEqual([]);
    // validateScope reports findings before acknowledgements: each acknowledgement must still match one
    const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((v) => v.ruleName);
    expect(findings.length).toBeGreaterThan(0);
    // (the default network's; test/infra/network-idle.test.ts checks the private mode's)
    const unused = NAG_ACKNOWLEDGEMENTS.filter(
      (a) => !a.network && !findings.some((f) => a.pattern.test(f)),
    ).map((a) => String(a.pattern));
    expect(unused).toEqual([]);
    for (const a of NAG_ACKNOWLEDGEMENTS) expect(a.reason.length).toBeGreaterThan(30);
  });

  it('cfn-lint reports no errors on the template', () => {
    // a missing or crashing cfn-lint fails here, never skips (test/support/cfn-lint.ts)
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});
