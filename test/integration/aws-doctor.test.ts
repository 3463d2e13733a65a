/**
 * `fleetbench doctor` (the real executable) against moto server: CloudFormation (the stack's outputs),
 * S3 (the loader assets), DynamoDB DescribeLimits, Service Quotas and EC2 DescribeAvailabilityZones.
 * moto's DescribeLimits answers 10,000 RCU/WCU per table and 20,000 per account (below AWS's defaults
 * of 40,000 and 80,000); moto implements no EC2 quota in Service Quotas, so the vCPU quota is
 * reported as unverified (a warning), never guessed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { AwsAccountQuotas } from '../../lib/aws/account-quotas';
import { FLEETBENCH_VERSION } from '../../lib/version';
import { startMoto, type MotoServer } from '../support/moto';

jest.setTimeout(120_000);

const root = path.join(__dirname, '..', '..');
const seedSpec = path.join(root, 'examples', 'scylla-vs-dynamodb.json');
const quickstart = path.join(root, 'examples', 'quickstart.json');
const ASSETS = 'cdk-hnb659fds-assets-123456789012-us-east-1';
let moto: MotoServer;
let home: string;

function doctor(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'fleetbench.js'), 'doctor', ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          AWS_ENDPOINT_URL: moto.endpoint,
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

async function createStack(name: string, version: string, agentKey: string): Promise<void> {
  await new CloudFormationClient(moto.clientConfig).send(
    new CreateStackCommand({
      StackName: name,
      TemplateBody: JSON.stringify({
        Resources: { Topic: { Type: 'AWS::SNS::Topic' } },
        Outputs: {
          Version: { Value: version },
          Network: { Value: 'public' },
          LoaderAssets: {
            Value: JSON.stringify([`s3://${ASSETS}/bundle.zip`, `s3://${ASSETS}/${agentKey}`]),
          },
          LoaderSubnetAzs: { Value: '3' },
        },
      }),
    }),
  );
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), 'fleetbench-doctor-home-'));
  moto = await startMoto();
  const s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: ASSETS }));
  for (const key of ['bundle.zip', 'agent.js'])
    await s3.send(new PutObjectCommand({ Bucket: ASSETS, Key: key, Body: 'x' }));
  await createStack('Fleetbench', FLEETBENCH_VERSION, 'agent.js');
  await createStack('Stale', '0.0.1', 'missing-agent.js');
});

afterAll(async () => {
  await moto?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('fleetbench doctor against moto', () => {
  it('refuses the seed-size example on the emulated default quotas, naming each quota and both numbers', async () => {
    const r = await doctor(seedSpec);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`ok       stack version ${FLEETBENCH_VERSION} = this fleetbench`);
    expect(r.stdout).toContain(`ok       loader agent present: s3://${ASSETS}/agent.js`);
    const problems = r.stderr.split('\n').filter((l) => l.startsWith('PROBLEM'));
    expect(problems).toEqual([
      'PROBLEM  DynamoDB per-table read capacity (TableMaxReadCapacityUnits): needs 200,000, the account has 10,000 (raise it in Service Quotas, or lower the spec) [targets[0].billing]',
      'PROBLEM  DynamoDB per-table write capacity (TableMaxWriteCapacityUnits): needs 250,000, the account has 10,000 (raise it in Service Quotas, or lower the spec) [targets[0].billing]',
      'PROBLEM  DynamoDB account read capacity (AccountMaxReadCapacityUnits): needs 200,000, the account has 20,000 (raise it in Service Quotas, or lower the spec) [targets]',
      'PROBLEM  DynamoDB account write capacity (AccountMaxWriteCapacityUnits): needs 250,000, the account has 20,000 (raise it in Service Quotas, or lower the spec) [targets]',
    ]);
    // 5 c5.2xlarge loaders (Little's Law for 100,000 ops/s at 6.2 ms) + 3 i4i.2xlarge nodes, 8 vCPUs each
    expect(r.stderr).toContain(
      'warning  EC2 Running On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances vCPUs (ec2/L-1216C47A): needs 64; the account',
    );
    expect(r.stderr).toContain('5 × c5.2xlarge loaders + 3 × i4i.2xlarge ScyllaDB nodes (scylla)');
  });

  it('passes the quickstart on the same account (exit 0; the unreadable vCPU quota is a warning)', async () => {
    const r = await doctor(quickstart);
    expect(r.stderr).not.toContain('PROBLEM');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('examples/quickstart.json: the Plan checks pass');
  });

  it('a stack of another version and a missing agent asset are problems naming what to do', async () => {
    const r = await doctor('--stack', 'Stale');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `PROBLEM  stack version: Stale was deployed by fleetbench 0.0.1, this is ${FLEETBENCH_VERSION}: redeploy with \`npx cdk deploy\``,
    );
    expect(r.stderr).toMatch(
      /PROBLEM {2}loader agent: s3:\/\/\S+\/missing-agent\.js is missing \(NotFound\)/,
    );
  });

  it('a spec naming another region than the stack is refused, naming both', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fleetbench-doctor-spec-'));
    try {
      const file = path.join(dir, 'elsewhere.json');
      const spec = JSON.parse(readFileSync(quickstart, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...spec, region: 'eu-west-1' }));
      const r = await doctor(file);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("region: the spec's region is eu-west-1 but the stack runs in us-east-1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('AwsAccountQuotas against moto', () => {
  const quotas = () =>
    new AwsAccountQuotas({
      region: 'us-east-1',
      credentials: moto.clientConfig.credentials,
      endpoints: { serviceQuotas: moto.endpoint, dynamodb: moto.endpoint, ec2: moto.endpoint },
    });

  it('reads DynamoDB limits, a Service Quotas value moto has, and the region AZs', async () => {
    expect(await quotas().dynamoDbLimits()).toEqual({
      tableMaxReadCapacityUnits: 10000,
      tableMaxWriteCapacityUnits: 10000,
      accountMaxReadCapacityUnits: 20000,
      accountMaxWriteCapacityUnits: 20000,
    });
    // moto's VPC defaults: "Gateway VPC endpoints per Region" = 20
    expect(await quotas().quota('vpc', 'L-1B52E74A')).toBe(20);
    const azs = await quotas().availabilityZones();
    expect(azs?.every((z) => z.startsWith('us-east-1'))).toBe(true);
    expect(azs!.length).toBeGreaterThanOrEqual(3);
  });

  it('a quota moto does not implement is null (unverified), not a number', async () => {
    expect(await quotas().quota('ec2', 'L-1216C47A')).toBeNull();
  });
});

describe('the Plan Lambda handler (lambdas/plan.ts) against moto', () => {
  const saved = { ...process.env };
  afterAll(() => {
    process.env = saved;
  });

  it('checks the quotas through awsPorts() before writing anything, with the stack region and subnet AZs', async () => {
    const bucket = 'fleetbench-results-plan';
    await new S3Client(moto.clientConfig).send(new CreateBucketCommand({ Bucket: bucket }));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      RESULTS_BUCKET: bucket,
      LOADER_AZ_COUNT: '2',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    const { handler } = await import('../../lambdas/plan');
    const spec = JSON.parse(readFileSync(seedSpec, 'utf8')) as Record<string, unknown>;
    const err = (await handler({ executionName: 'seed-plan-1', spec }).catch((e: unknown) => e)) as {
      name: string;
      issues: { path: string; message: string }[];
    };
    expect(err.name).toBe('InputError');
    expect(err.issues.map((i) => i.message)).toEqual([
      expect.stringMatching(/^DynamoDB per-table read capacity .*: needs 200,000, the account has 10,000 /),
      expect.stringMatching(/^DynamoDB per-table write capacity .*: needs 250,000, the account has 10,000 /),
      expect.stringMatching(/^DynamoDB account read capacity .*: needs 200,000, the account has 20,000 /),
      expect.stringMatching(/^DynamoDB account write capacity .*: needs 250,000, the account has 20,000 /),
      // LOADER_AZ_COUNT=2: replication factor 3 cannot place one replica per AZ
      expect.stringMatching(/^availability zones of the stack's subnets: needs 3, the account has 2 /),
    ]);
    const listed = await new S3Client(moto.clientConfig).send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.KeyCount ?? 0).toBe(0);
  });
});
