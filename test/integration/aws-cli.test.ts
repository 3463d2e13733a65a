/**
 * `fleetbench start / status / results` (the real executable) against moto server: CloudFormation
 * (the stack's outputs), Step Functions executing the deployed definition (moto's ASL interpreter,
 * `execute_state_machine`), S3 (the run's context) and Athena (query results injected through
 * moto's `/moto-api/static/athena/query-results`).
 *
 * The state machine is the definition `cdk deploy` deploys (synthesized from FleetbenchStack), with
 * each Task state replaced by a Pass state returning what the step would (moto cannot invoke the
 * Lambdas): real state names, loops, Choice and Wait states, Catch → TeardownAfterFailure → RunFailed.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  GetQueryExecutionCommand,
  AthenaClient,
  CreateWorkGroupCommand,
  ListQueryExecutionsCommand,
} from '@aws-sdk/client-athena';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { AthenaResults } from '../../lib/aws/athena-results';
import { S3Store } from '../../lib/aws/s3-store';
import { contextKey } from '../../lib/core/pipeline';
import { RUN_CELLS_SQL } from '../../lib/core/results/run-summary';
import { localDefinition, type AslDefinition, type AslState } from '../../lib/local/definition';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const quickstartFile = path.join(root, 'examples', 'quickstart.json');
const quickstart = JSON.parse(readFileSync(quickstartFile, 'utf8')) as Record<string, unknown>;
const WORKGROUP = 'fleetbench-Fleetbench';
const DATABASE = 'fleetbench_fleetbench';

let moto: MotoServer;
let tmp: string;
let okMachine: string;
let bucket: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<CliResult> {
  return cliAt(moto.endpoint, ...args);
}

function cliAt(endpoint: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fleetbench.js'), ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          HOME: tmp,
          AWS_ENDPOINT_URL: endpoint,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'testing',
          AWS_SECRET_ACCESS_KEY: 'testing',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        timeout: 90_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What each Task returns (into its ResultPath) in these executions. */
const TASK_RESULTS: Record<string, unknown> = {
  Plan: {
    runId: 'r',
    specName: 'quickstart',
    cellCount: 2,
    loadCount: 1,
    loadTargets: ['ddb'],
    tables: [],
    targets: [{ id: 'ddb', loadStart: 0, loadEnd: 1, cellStart: 0, cellEnd: 2 }],
    targetConcurrency: 1,
  },
  ProvisionTarget: {},
  ProvisionFleet: {},
  WaitReady: { ready: true, waitSeconds: 0 },
  StartLoad: { done: false, waitSeconds: 0 },
  CheckLoad: { done: true, waitSeconds: 0 },
  ConfigureCell: { skip: false },
  StartCell: { done: false, waitSeconds: 0 },
  CheckCell: { done: true, waitSeconds: 0 },
  AggregateCell: {},
  // CellFailed: see emulatedDefinition (its answer carries the failed step's cause)
  Report: {},
  DetectRegressions: { confirmed: 0, suspects: 0 },
  WaitLoaders: { ready: true, waitSeconds: 0 },
  TeardownTarget: { deleted: [] },
  Teardown: { deleted: [] },
  TeardownAfterFailure: { deleted: [] },
};

/** The deployed definition with Task states as Pass states; `failAt` fails like a Lambda error would. */
function emulatedDefinition(failAt?: string): AslDefinition {
  const convert = (def: AslDefinition): AslDefinition => {
    const states: Record<string, AslState> = {};
    for (const [name, s] of Object.entries(def.States)) {
      if (s.Type === 'Parallel') {
        states[name] = { ...s, Branches: s.Branches!.map(convert) };
      } else if (s.Type === 'Map' && s.ItemProcessor) {
        states[name] = { ...s, ItemProcessor: convert(s.ItemProcessor) };
      } else if (s.Type === 'Task' && name === failAt) {
        // a Parallel whose branch fails: its Catch behaves as the Task's would on a Lambda error
        states[name] = {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'LoaderFailed',
              States: {
                LoaderFailed: {
                  Type: 'Fail',
                  Error: 'StepFailedError',
                  Cause: `${name}: the command failed on loader i-0002 (exit 1)`,
                },
              },
            },
          ],
          ...(s.Next ? { Next: s.Next } : { End: true }),
          Catch: s.Catch,
        };
      } else if (s.Type === 'Task' && name === 'CellFailed') {
        // the quickstart's 2 cells retry by default; here every cell failure stops the run, as "stop" does
        states[name] = {
          Type: 'Pass',
          Parameters: { action: 'stop', 'reason.$': '$.cellError.Cause', 'cause.$': '$.cellError.Cause' },
          ResultPath: s.ResultPath,
          ...(s.Next ? { Next: s.Next } : { End: true }),
        };
      } else if (s.Type === 'Task') {
        if (!(name in TASK_RESULTS)) throw new Error(`no emulated result for Task ${name}`);
        states[name] = {
          Type: 'Pass',
          Result: TASK_RESULTS[name],
          ResultPath: s.ResultPath as string | null,
          ...(s.Next ? { Next: s.Next } : { End: true }),
        };
      } else states[name] = s;
    }
    return { ...def, States: states };
  };
  return convert(localDefinition());
}

async function createStack(
  server: MotoServer,
  name: string,
  machineArn: string,
  withBucket: boolean,
): Promise<void> {
  const cfn = new CloudFormationClient(server.clientConfig);
  await cfn.send(
    new CreateStackCommand({
      StackName: name,
      Parameters: [
        { ParameterKey: 'MachineArn', ParameterValue: machineArn },
        { ParameterKey: 'WorkGroup', ParameterValue: WORKGROUP },
      ],
      TemplateBody: JSON.stringify({
        Parameters: { MachineArn: { Type: 'String' }, WorkGroup: { Type: 'String' } },
        Resources: withBucket
          ? { Bucket: { Type: 'AWS::S3::Bucket' } }
          : { Topic: { Type: 'AWS::SNS::Topic' } },
        Outputs: {
          StateMachineArn: { Value: { Ref: 'MachineArn' } },
          ...(withBucket ? { ResultsBucket: { Value: { Ref: 'Bucket' } } } : {}),
          GlueDatabase: { Value: DATABASE },
          AthenaWorkGroup: { Value: { Ref: 'WorkGroup' } },
        },
      }),
    }),
  );
}

/** A moto server whose Step Functions interpret the definition, with the stack pointing at it. */
async function executingWorld(
  stackName: string,
  failAt?: string,
  withBucket = false,
): Promise<{ server: MotoServer; machine: string }> {
  const server = await startMoto();
  const cfg = await fetch(`${server.endpoint}/moto-api/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ stepfunctions: { execute_state_machine: true } }),
  });
  expect(cfg.status).toBe(201);
  const machine = (
    await new SFNClient(server.clientConfig).send(
      new CreateStateMachineCommand({
        name: 'fleetbench-pipeline',
        roleArn: 'arn:aws:iam::123456789012:role/fleetbench-pipeline',
        definition: JSON.stringify(emulatedDefinition(failAt)),
      }),
    )
  ).stateMachineArn!;
  await createStack(server, stackName, machine, withBucket);
  return { server, machine };
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'fleetbench-aws-cli-'));
  moto = await startMoto();
  // a state machine that is never executed here (moto 5.2's ASL interpreter runs one execution per
  // server process: a second StartExecution fails in its deepcopy), so each test that starts a run
  // gets its own server (executingWorld)
  okMachine = (
    await new SFNClient(moto.clientConfig).send(
      new CreateStateMachineCommand({
        name: 'fleetbench-pipeline',
        roleArn: 'arn:aws:iam::123456789012:role/fleetbench-pipeline',
        definition: JSON.stringify(emulatedDefinition()),
      }),
    )
  ).stateMachineArn!;
  await createStack(moto, 'Fleetbench', okMachine, true);
  const stack = await new CloudFormationClient(moto.clientConfig).send(
    new DescribeStacksCommand({ StackName: 'Fleetbench' }),
  );
  bucket = stack.Stacks![0]!.Outputs!.find((o) => o.OutputKey === 'ResultsBucket')!.OutputValue!;
  await new AthenaClient(moto.clientConfig).send(
    new CreateWorkGroupCommand({
      Name: WORKGROUP,
      Configuration: { ResultConfiguration: { OutputLocation: `s3://${bucket}/athena-results/` } },
    }),
  );
}, 120_000);

afterAll(async () => {
  await moto?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function executionsOf(server: MotoServer, machine: string) {
  const out = await new SFNClient(server.clientConfig).send(
    new ListExecutionsCommand({ stateMachineArn: machine }),
  );
  return out.executions ?? [];
}

describe('fleetbench start', () => {
  it('an invalid spec: exit 2 naming the field, nothing started (checked before the stack is even looked up)', async () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        ...quickstart,
        workload: { ...(quickstart.workload as object), durationSeconds: -5 },
      }),
    );
    for (const stack of ['Fleetbench', 'NoSuchStack']) {
      const r = await cli('start', bad, '--stack', stack);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^workload\.durationSeconds: /m);
    }
    expect(await executionsOf(moto, okMachine)).toHaveLength(0);
  });

  it('a spec the Plan step would refuse (budget) is refused here too, nothing started', async () => {
    const over = path.join(tmp, 'over-budget.json');
    writeFileSync(over, JSON.stringify({ ...quickstart, budget: { maxUsd: 0.000001 } }));
    const r = await cli('start', over);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^budget\.maxUsd: the run is estimated at \$/m);
    expect(await executionsOf(moto, okMachine)).toHaveLength(0);
  });

  it('no such stack: exit 2 naming --stack', async () => {
    const r = await cli('start', quickstartFile, '--stack', 'NoSuchStack');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^--stack: no CloudFormation stack "NoSuchStack" in us-east-1/m);
  });

  it('starts the stack\'s state machine with {"spec": <file>} and follows it state by state to SUCCEEDED (exit 0)', async () => {
    const { server, machine } = await executingWorld('Fleetbench', undefined, true);
    try {
      const r = await cliAt(server.endpoint, 'start', quickstartFile, '--name', 'quickstart-cli-ok');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const arn = `${machine.replace(':stateMachine:', ':execution:')}:quickstart-cli-ok`;
      expect(r.stdout).toContain(`started ${arn}`);
      expect(r.stdout).toContain('run id quickstart-cli-ok');
      // the input is what the README tells console users to paste
      const d = await new SFNClient(server.clientConfig).send(
        new DescribeExecutionCommand({ executionArn: arn }),
      );
      expect(d.status).toBe('SUCCEEDED');
      expect(JSON.parse(d.input!)).toEqual({ spec: quickstart });
      // states in order, with the loops' positions
      const lines = r.stdout.split('\n');
      // (Task states run as Pass states here, so they print one line: "· Name")
      const order = [
        '· Plan',
        '· ProvisionFleet',
        '· ProvisionTarget',
        '· WaitReady',
        '· StartLoad  load 1 of 1 (ddb)',
        '> WaitLoad  load 1 of 1 (ddb)  (waiting 0 s)',
        '· CheckLoad  load 1 of 1 (ddb)',
        '· ConfigureCell  cell 1 of 2',
        '> WaitCell  cell 1 of 2  (waiting 0 s)',
        '< WaitCell',
        '· AggregateCell  cell 1 of 2',
        '· ConfigureCell  cell 2 of 2',
        '· AggregateCell  cell 2 of 2',
        '· TeardownTarget',
        '· Report',
        '· Teardown',
        '· Done',
        'execution SUCCEEDED',
      ];
      let at = -1;
      for (const want of order) {
        const i = lines.findIndex((l, k) => k > at && l.includes(want));
        expect({ want, found: i >= 0, stdout: i >= 0 ? '' : r.stdout }).toEqual({
          want,
          found: true,
          stdout: '',
        });
        at = i;
      }
      expect(r.stdout).not.toContain('TeardownAfterFailure');
      expect(r.stdout).not.toContain('cell 3');
      expect(r.stdout).toContain('fleetbench results quickstart-cli-ok');

      // status by run id, once it is over
      const s = await cliAt(server.endpoint, 'status', 'quickstart-cli-ok', '--json');
      expect(s.code).toBe(0);
      const doc = JSON.parse(s.stdout);
      expect(doc).toEqual(
        expect.objectContaining({
          executionArn: arn,
          runId: 'quickstart-cli-ok',
          status: 'SUCCEEDED',
          currentState: null,
          lastState: 'Done',
          error: null,
        }),
      );
      expect(Date.parse(doc.stoppedAt)).toBeGreaterThanOrEqual(Date.parse(doc.startedAt));
      // the Tasks ran as Pass states here: no report yet, so no link
      expect(doc.reportUrl).toBeNull();

      // once runs/<runId>/report.html is in the stack's bucket, status prints a presigned link that fetches it
      const outputs = await new CloudFormationClient(server.clientConfig).send(
        new DescribeStacksCommand({ StackName: 'Fleetbench' }),
      );
      const runBucket = outputs.Stacks![0]!.Outputs!.find(
        (o) => o.OutputKey === 'ResultsBucket',
      )!.OutputValue!;
      const html = '<!doctype html><title>quickstart-cli-ok</title>';
      await new S3Store(`s3://${runBucket}`, { clientConfig: server.clientConfig }).put(
        'runs/quickstart-cli-ok/report.html',
        html,
      );
      const t = await cliAt(server.endpoint, 'status', 'quickstart-cli-ok');
      const url = /^report {5}(\S+)$/m.exec(t.stdout)?.[1];
      expect(url).toMatch(
        new RegExp(
          `^${server.endpoint}/${runBucket}/runs/quickstart-cli-ok/report\\.html\\?.*X-Amz-Expires=86400`,
        ),
      );
      expect(await (await fetch(url!)).text()).toBe(html);
    } finally {
      await server.stop();
    }
  });

  it('--no-follow returns once started, with the run id to follow', async () => {
    const { server, machine } = await executingWorld('Fleetbench');
    try {
      const r = await cliAt(server.endpoint, 'start', quickstartFile, '--no-follow');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('> Plan');
      const runId = /^run id (quickstart-\d{8}-\d{6})$/m.exec(r.stdout)?.[1];
      expect(runId).toMatch(/^quickstart-\d{8}-\d{6}$/);
      expect(r.stdout).toContain(`fleetbench status ${runId}`);
      const execs = await executionsOf(server, machine);
      expect(execs.map((e) => e.name)).toEqual([runId]);
    } finally {
      await server.stop();
    }
  });

  it("a user's binding: its local jar is uploaded under the results bucket's bindings/ and the run names it there", async () => {
    const { server, machine } = await executingWorld('Fleetbench', undefined, true);
    try {
      const jar = path.join(tmp, 'my-binding.jar');
      writeFileSync(jar, 'PK\u0003\u0004 not a real jar, bytes to upload');
      const specFile = path.join(tmp, 'custom-binding.json');
      writeFileSync(
        specFile,
        JSON.stringify({
          name: 'custom',
          region: 'us-east-1',
          targets: [
            {
              id: 'mine',
              kind: 'external',
              protocol: 'custom',
              endpoints: ['db.example.com:1234'],
              binding: {
                dbClass: 'com.example.MyDb',
                jars: [pathToFileURL(jar).href],
                properties: { 'my.host': 'db' },
              },
              price: { usdPerHour: 1 },
            },
          ],
          dataset: { recordCount: 1000 },
          workload: { readProportions: [0.5], targetOpsPerSec: [100], durationSeconds: 30 },
          loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
        }),
      );
      const r = await cliAt(server.endpoint, 'start', specFile, '--no-follow', '--name', 'custom-binding-1');
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
      const stack = await new CloudFormationClient(server.clientConfig).send(
        new DescribeStacksCommand({ StackName: 'Fleetbench' }),
      );
      const runBucket = stack.Stacks![0]!.Outputs!.find((o) => o.OutputKey === 'ResultsBucket')!.OutputValue!;
      const key = `bindings/${createHash('sha256').update(readFileSync(jar)).digest('hex').slice(0, 16)}/my-binding.jar`;
      const stored = await new S3Store(`s3://${runBucket}`, { clientConfig: server.clientConfig }).get(key);
      expect(stored.equals(readFileSync(jar))).toBe(true);
      const [exec] = await executionsOf(server, machine);
      const input = JSON.parse(
        (
          await new SFNClient(server.clientConfig).send(
            new DescribeExecutionCommand({ executionArn: exec!.executionArn }),
          )
        ).input!,
      ) as { spec: { targets: { binding: { jars: string[] } }[] } };
      expect(input.spec.targets[0]!.binding.jars).toEqual([`s3://${runBucket}/${key}`]);
    } finally {
      await server.stop();
    }
  });

  it("a user's binding in a spec Plan would refuse: refused before any jar is uploaded", async () => {
    const { server, machine } = await executingWorld('Fleetbench', undefined, true);
    try {
      const jar = path.join(tmp, 'refused-binding.jar');
      writeFileSync(jar, 'PK\u0003\u0004 bytes that must not reach the bucket');
      const specFile = path.join(tmp, 'refused-binding.json');
      writeFileSync(
        specFile,
        JSON.stringify({
          name: 'refused',
          // the stack runs in us-east-1: Plan refuses another region
          region: 'eu-west-1',
          targets: [
            {
              id: 'mine',
              kind: 'external',
              protocol: 'custom',
              endpoints: ['db.example.com:1234'],
              binding: { dbClass: 'com.example.MyDb', jars: [pathToFileURL(jar).href] },
              price: { usdPerHour: 1 },
            },
          ],
          dataset: { recordCount: 1000 },
          workload: { readProportions: [0.5], targetOpsPerSec: [100], durationSeconds: 30 },
          loaders: { count: 1, processesPerLoader: 1, threadsPerProcess: 4 },
        }),
      );
      const r = await cliAt(server.endpoint, 'start', specFile, '--no-follow', '--name', 'refused-binding-1');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/region/);
      const stack = await new CloudFormationClient(server.clientConfig).send(
        new DescribeStacksCommand({ StackName: 'Fleetbench' }),
      );
      const runBucket = stack.Stacks![0]!.Outputs!.find((o) => o.OutputKey === 'ResultsBucket')!.OutputValue!;
      const store = new S3Store(`s3://${runBucket}`, { clientConfig: server.clientConfig });
      expect(await store.list('bindings/')).toEqual([]);
      expect(await executionsOf(server, machine)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('a failing step: Catch → TeardownAfterFailure → RunFailed; exit 1 with the error and cause', async () => {
    const { server, machine } = await executingWorld('FleetbenchFail', 'CheckCell');
    try {
      const r = await cliAt(
        server.endpoint,
        'start',
        quickstartFile,
        '--stack',
        'FleetbenchFail',
        '--name',
        'quickstart-cli-fail',
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/· StartCell {2}cell 1 of 2/);
      expect(r.stdout).toMatch(/> CheckCell {2}cell 1 of 2/);
      expect(r.stdout).toMatch(/· TeardownAfterFailure/);
      expect(r.stdout).toMatch(
        /execution FAILED: StepFailedError: CheckCell: the command failed on loader i-0002/,
      );
      expect(r.stdout).not.toMatch(/AggregateCell/);
      expect(r.stderr).toMatch(
        /^run quickstart-cli-fail FAILED: StepFailedError: CheckCell: the command failed on loader i-0002 \(exit 1\)$/m,
      );

      // status by ARN (no stack needed) and by run id
      const arn = `${machine.replace(':stateMachine:', ':execution:')}:quickstart-cli-fail`;
      const s = await cliAt(server.endpoint, 'status', arn);
      expect(s.code).toBe(0);
      expect(s.stdout).toMatch(/^status {5}FAILED$/m);
      expect(s.stdout).toMatch(/^last left {2}TeardownAfterFailure$/m);
      expect(s.stdout).toMatch(/^error {6}StepFailedError: CheckCell: the command failed on loader i-0002/m);
      const j = JSON.parse(
        (await cliAt(server.endpoint, 'status', 'quickstart-cli-fail', '--stack', 'FleetbenchFail', '--json'))
          .stdout,
      );
      expect(j.status).toBe('FAILED');
      expect(j.error).toBe('StepFailedError');
    } finally {
      await server.stop();
    }
  });

  it('resume of a run the results bucket does not hold: exit 2 naming resume, nothing started', async () => {
    const { server, machine } = await executingWorld('Fleetbench', undefined, true);
    try {
      const r = await cliAt(server.endpoint, 'resume', 'no-such-run');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^resume: no run "no-such-run" in s3:\/\//m);
      expect(await executionsOf(server, machine)).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('status of an unknown run: exit 2', async () => {
    const r = await cli('status', 'no-such-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^execution: no execution no-such-run of the state machine of stack "Fleetbench"/m,
    );
  });
});

const col = (Name: string, Type: string) => ({
  Name,
  Label: Name,
  Type,
  CatalogName: 'hive',
  SchemaName: DATABASE,
  TableName: '',
  Nullable: 'UNKNOWN',
  CaseSensitive: Type === 'varchar',
  Precision: 0,
  Scale: 0,
});
const row = (...values: (string | null)[]) => ({
  Data: values.map((v) => (v === null ? {} : { VarCharValue: v })),
});

async function injectAthenaResults(results: { columns: [string, string][]; rows: (string | null)[][] }[]) {
  const res = await fetch(`${moto.endpoint}/moto-api/static/athena/query-results`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      region: 'us-east-1',
      results: results.map((r) => ({
        column_info: r.columns.map(([n, t]) => col(n, t)),
        // a SELECT's first row holds the column names, as Athena returns it
        rows: [row(...r.columns.map(([n]) => n)), ...r.rows.map((v) => row(...v))],
      })),
    }),
  });
  expect(res.status).toBe(201);
}

describe('fleetbench results', () => {
  const runId = 'quickstart-20261122-184001';
  const cellCols: [string, string][] = [
    ['cell_id', 'varchar'],
    ['target_id', 'varchar'],
    ['distribution', 'varchar'],
    ['read_proportion', 'double'],
    ['target_ops_per_sec', 'double'],
    ['achieved_ops_per_sec', 'double'],
    ['good_ops_per_sec', 'double'],
    ['attainment', 'double'],
    ['all_intended_p50_us', 'double'],
    ['all_intended_p99_us', 'double'],
    ['all_intended_p999_us', 'double'],
    ['errors', 'bigint'],
    ['throttled_attempts', 'bigint'],
    ['incomplete', 'boolean'],
    ['incomplete_reason', 'varchar'],
    ['monthly_cost_provisioned_usd', 'double'],
    ['monthly_cost_on_demand_usd', 'double'],
  ];
  const runCols: [string, string][] = [
    ['run_id', 'varchar'],
    ['status', 'varchar'],
    ['mode', 'varchar'],
    ['region', 'varchar'],
    ['started_at_ms', 'bigint'],
    ['ended_at_ms', 'bigint'],
    ['cells_total', 'bigint'],
    ['cells_incomplete', 'bigint'],
    ['run_cost_estimate_usd', 'double'],
    ['price_book', 'varchar'],
  ];

  beforeAll(async () => {
    const store = new S3Store(`s3://${bucket}`, { clientConfig: moto.clientConfig });
    await store.putJson(contextKey(runId), { runId, specName: 'quickstart', cellCount: 2 });
  });

  it("queries the run in the stack's workgroup and database (spec partition bound) and prints the cell table", async () => {
    await injectAthenaResults([
      {
        columns: runCols,
        rows: [
          [
            runId,
            'SUCCEEDED',
            'aws',
            'us-east-1',
            '1795372801000',
            '1795373101000',
            '2',
            '1',
            '0.42',
            '2026-06',
          ],
        ],
      },
      {
        columns: cellCols,
        rows: [
          [
            'c1-uniform-r50',
            'ddb',
            'uniform',
            '0.5',
            '1000.0',
            '999.5',
            '998.25',
            '0.99825',
            '1500.0',
            '4200.0',
            '9800.0',
            '3',
            '0',
            'false',
            null,
            '58.4',
            '121.5',
          ],
          [
            'c2-zipfian-r95',
            'ddb',
            'zipfian',
            '0.95',
            '1000.0',
            '900.0',
            '870.0',
            '0.87',
            '1700.0',
            '12500.0',
            null,
            '0',
            '41',
            'true',
            'loader-2: exit 1',
            '58.4',
            '121.5',
          ],
        ],
      },
    ]);
    const athena = new AthenaClient(moto.clientConfig);
    const before = new Set(
      (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))).QueryExecutionIds,
    );

    const r = await cli('results', runId);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^run ${runId}: SUCCEEDED started 2026-11-22 18:40:01 UTC, 300 s; 2 cell\\(s\\), 1 incomplete; run cost estimate \\$0\\.42$`,
        'm',
      ),
    );
    const lines = r.stdout.split('\n');
    const c1 = lines.find((l) => l.startsWith('c1-uniform-r50'))!;
    expect(c1.split(/\s{2,}/)).toEqual([
      'c1-uniform-r50',
      'ddb',
      'uniform',
      '0.5',
      '1,000',
      '999.5',
      '99.8%',
      '1.50',
      '4.20',
      '9.80',
      '3',
      '0',
      '$58.40',
      '$121.50',
    ]);
    const c2 = lines.find((l) => l.startsWith('c2-zipfian-r95'))!;
    expect(c2.split(/\s{2,}/)).toEqual([
      'c2-zipfian-r95 (incomplete)',
      'ddb',
      'zipfian',
      '0.95',
      '1,000',
      '900',
      '87.0%',
      '1.70',
      '12.50',
      '–',
      '0',
      '41',
      '$58.40',
      '$121.50',
    ]);

    // what was sent: three queries (the run, its cells, its SLO searches' frontier) in the stack's workgroup and
    // database, spec name and run id bound
    const ids = (
      await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))
    ).QueryExecutionIds!.filter((i) => !before.has(i));
    expect(ids).toHaveLength(3);
    const sent = await Promise.all(
      ids.map((id) => athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }))),
    );
    const cellsQuery = sent.find((q) => q.QueryExecution!.Query!.includes('FROM cells'))!.QueryExecution!;
    expect(cellsQuery.Query).toBe(RUN_CELLS_SQL);
    expect(cellsQuery.WorkGroup).toBe(WORKGROUP);
    expect(cellsQuery.QueryExecutionContext).toEqual({ Catalog: 'AwsDataCatalog', Database: DATABASE });
    expect(cellsQuery.ExecutionParameters).toEqual(["'quickstart'", `'${runId}'`]);
    const frontierQuery = sent.find((q) =>
      q.QueryExecution!.Query!.includes('FROM frontier'),
    )!.QueryExecution!;
    expect(frontierQuery.ExecutionParameters).toEqual(["'quickstart'", `'${runId}'`]);
  });

  it('--json: typed values (numbers, booleans, null)', async () => {
    await injectAthenaResults([
      { columns: runCols, rows: [] },
      {
        columns: cellCols,
        rows: [
          [
            'c1',
            'ddb',
            'uniform',
            '0.5',
            '1000.0',
            '999.5',
            '998.25',
            '0.99825',
            '1500.0',
            '4200.0',
            null,
            '3',
            '0',
            'false',
            null,
            '58.4',
            '121.5',
          ],
        ],
      },
    ]);
    const r = await cli('results', runId, '--json', '--spec', 'quickstart');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.run).toBeNull();
    expect(doc.cells[0]).toEqual(
      expect.objectContaining({
        cell_id: 'c1',
        read_proportion: 0.5,
        errors: 3,
        incomplete: false,
        all_intended_p999_us: null,
        incomplete_reason: null,
      }),
    );
  });

  it('an unknown run: exit 2 naming the run id, no query started', async () => {
    const athena = new AthenaClient(moto.clientConfig);
    const before = (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP })))
      .QueryExecutionIds!.length;
    const r = await cli('results', 'no-such-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^runId: no run no-such-run in s3://${bucket}/runs/no-such-run/context\\.json`, 'm'),
    );
    expect(
      (await athena.send(new ListQueryExecutionsCommand({ WorkGroup: WORKGROUP }))).QueryExecutionIds,
    ).toHaveLength(before);
  });
});

describe('AthenaResults adapter', () => {
  it('polls GetQueryExecution until the query has gone QUEUED → RUNNING → SUCCEEDED', async () => {
    // moto advances a query one state per N GetQueryExecution calls in manual mode
    const t = await fetch(`${moto.endpoint}/moto-api/state-manager/set-transition`, {
      method: 'POST',
      body: JSON.stringify({
        model_name: 'athena::execution',
        transition: { progression: 'manual', times: 3 },
      }),
    });
    expect(t.status).toBe(201);
    try {
      await injectAthenaResults([{ columns: [['n', 'bigint']], rows: [['7']] }]);
      const a = new AthenaResults(
        { workGroup: WORKGROUP, database: DATABASE, pollMinMs: 10, pollMaxMs: 20 },
        moto.clientConfig,
      );
      const calls: string[] = [];
      a.client.middlewareStack.add(
        (next, ctx) => async (args) => {
          calls.push(ctx.commandName as string);
          return next(args);
        },
        { step: 'initialize' },
      );
      expect(await a.query('SELECT 7 AS n')).toEqual([{ n: 7 }]);
      expect(calls.filter((c) => c === 'GetQueryExecutionCommand').length).toBeGreaterThanOrEqual(3);
      expect(calls[calls.length - 1]).toBe('GetQueryResultsCommand');
    } finally {
      await fetch(`${moto.endpoint}/moto-api/state-manager/unset-transition`, {
        method: 'POST',
        body: JSON.stringify({ model_name: 'athena::execution' }),
      });
    }
  });
});
