/**
 * The AWS commands fail like `doctor` when AWS is not set up: a missing region, missing or rejected credentials,
 * a missing stack or a denied call gives one line naming what is missing and how to set it, exit 2, no stack
 * trace. Run with an empty environment (no region, no credentials, no AWS config files) and against moto.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { awsProblem } from '../../lib/cli/aws-problem';
import { CloudError } from '../../lib/core/common/ports';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const COMMANDS: string[][] = [
  ['start', 'examples/quickstart.json', '--no-follow'],
  ['status', 'r-1'],
  ['status', 'arn:aws:states:us-east-1:123456789012:execution:Machine:r-1'],
  ['results', 'r-1'],
];

let home: string;
beforeAll(() => (home = mkdtempSync(path.join(tmpdir(), 'fb-aws-config-'))));
afterAll(() => rmSync(home, { recursive: true, force: true }));

function cli(
  env: Record<string, string>,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fleetbench.js'), ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          AWS_CONFIG_FILE: '/nonexistent',
          AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
          AWS_EC2_METADATA_DISABLED: 'true',
          ...env,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** On Node < 22, the one line bin/fleetbench.js prints where the AWS SDK would print its eight-line warning. */
const NODE_NOTICE = /^fleetbench: Node v\d+\.\d+\.\d+ is past its end of life: use Node 22\n/;
const OLD_NODE = Number(process.versions.node.split('.')[0]) < 22;

/** exit 2 and exactly one line on stderr (after Node 20's one-line notice), no stack trace */
function expectOneLine(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.stderr).not.toContain('NodeVersionSupportWarning');
  const stderr = OLD_NODE ? r.stderr.replace(NODE_NOTICE, '') : r.stderr;
  expect({ code: r.code, stderr }).toEqual({ code: 2, stderr: expect.stringMatching(pattern) });
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('AWS commands without AWS set up', () => {
  it(`Node ${process.version}: ${OLD_NODE ? "one short line instead of the AWS SDK's warning" : 'no Node version notice'}`, async () => {
    const r = await cli({ AWS_REGION: 'eu-west-1' }, ['status', 'r-1']);
    if (OLD_NODE) expect(r.stderr).toMatch(NODE_NOTICE);
    else expect(r.stderr).not.toMatch(/Node v\d+|NodeVersionSupportWarning/);
    expect(r.stderr).not.toContain('NodeVersionSupportWarning');
  });

  it.each(COMMANDS.filter((c) => !c[1]!.startsWith('arn:')))(
    '%s: no region → one line, exit 2',
    async (...args) => {
      expectOneLine(
        await cli({}, args),
        /^AWS region: none configured: set AWS_REGION .* or pass --region\n$/,
      );
    },
  );

  it.each(COMMANDS)('%s: region but no credentials → one line, exit 2', async (...args) => {
    expectOneLine(
      await cli({ AWS_REGION: 'eu-west-1' }, args),
      /^AWS credentials: none found: set AWS_PROFILE .* or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n$/,
    );
  });
});

describe('AWS commands against moto', () => {
  let moto: MotoServer;
  let authMoto: MotoServer;
  beforeAll(async () => {
    moto = await startMoto();
    // moto checks credentials when INITIAL_NO_AUTH_ACTION_COUNT is set: unknown keys are rejected
    process.env.INITIAL_NO_AUTH_ACTION_COUNT = '0';
    try {
      authMoto = await startMoto();
    } finally {
      delete process.env.INITIAL_NO_AUTH_ACTION_COUNT;
    }
  });
  afterAll(async () => {
    await moto?.stop();
    await authMoto?.stop();
  });
  const env = (endpoint: string) => ({
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
  });

  it.each(COMMANDS.filter((c) => !c[1]!.startsWith('arn:')))(
    '%s: no stack → one line, exit 2',
    async (...args) => {
      expectOneLine(
        await cli(env(moto.endpoint), args),
        /^--stack: no CloudFormation stack "Fleetbench" in us-east-1 \(deploy it with `npx cdk deploy`, or pass --stack\/--region\)\n$/,
      );
    },
  );

  it.each(COMMANDS)('%s: credentials AWS rejects → one line, exit 2', async (...args) => {
    expectOneLine(
      await cli(env(authMoto.endpoint), args),
      // (moto's Step Functions answers in XML, which the SDK cannot parse: HTTP 403 is all there is)
      /^AWS credentials: rejected by .* \((InvalidClientTokenId|UnrecognizedClientException)\): refresh them|^AWS credentials or permissions: StepFunctions DescribeExecution refused \(HTTP 403\)/,
    );
  });
});

describe('awsProblem', () => {
  const sdkError = (name: string, message = 'nope') => Object.assign(new Error(message), { name });

  it('a denied call names the call and what to change', () => {
    const err = new CloudError('CloudFormation', 'DescribeStacks: AccessDenied: not authorized', {
      cause: sdkError('AccessDenied'),
    });
    expect(awsProblem(err)).toBe(
      'AWS permissions: CloudFormation DescribeStacks denied (AccessDenied): use credentials whose IAM policy allows it (AWS_PROFILE), or check the region and --stack',
    );
    expect(awsProblem(sdkError('AccessDeniedException'))).toMatch(/^AWS permissions: an AWS call denied/);
  });

  it('an unreachable endpoint names it', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(awsProblem(new CloudError('SFN', 'DescribeExecution: Error: x', { cause }))).toMatch(
      /^AWS endpoint: cannot reach it for SFN DescribeExecution \(ECONNREFUSED\)/,
    );
  });

  it('other errors are not AWS set-up problems', () => {
    expect(awsProblem(new Error('boom'))).toBeUndefined();
    expect(
      awsProblem(new CloudError('S3', 'PutObject: InternalError: x', { cause: sdkError('InternalError') })),
    ).toBeUndefined();
  });
});
