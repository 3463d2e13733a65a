/**
 * `fleetbench doctor [spec] [--stack NAME] [--region r]`: what a run needs before anything is
 * provisioned, one line per check: credentials and region, the stack exists and was deployed by this
 * version, the loader bundle and agent are in the asset bucket, and for a spec the Plan step's own
 * checks (region, budget, history, ...) plus the account's quotas (DynamoDB table and account capacity,
 * EC2 On-Demand vCPUs, AZs for the replication factor, Run Command's timeout). Exit 0 when nothing is
 * refused, 2 when something is (unverified values are warnings).
 */
import { readFileSync } from 'node:fs';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { Command } from 'commander';
import { AwsAccountQuotas } from '../../aws/account-quotas';
import { StackOutputs } from '../../aws/stack-outputs';
import { InputError } from '../../core/common/errors';
import { planRun } from '../../core/plan';
import { accountNeeds, preflight } from '../../core/pipeline/preflight';
import { parseSpecText, validateSpec } from '../../core/spec';
import { FLEETBENCH_VERSION } from '../../version';
import { addAwsOptions, clientConfig, type AwsOptions } from '../aws-stack';
import { checkAsPlanWould } from '../plan-check';

type Line = { level: 'ok' | 'problem' | 'warning'; text: string };

export function register(program: Command): void {
  addAwsOptions(
    program
      .command('doctor')
      .description(
        'check credentials, region, the deployed stack and its loader assets, and (with a spec) the Plan checks and account quotas',
      )
      .argument('[spec]', 'run spec JSON file to check against the account'),
  ).action(async (file: string | undefined, o: AwsOptions) => {
    const lines = await doctor(file, o);
    for (const l of lines) {
      const stream = l.level === 'ok' ? process.stdout : process.stderr;
      stream.write(
        `${l.level === 'ok' ? 'ok      ' : l.level === 'problem' ? 'PROBLEM ' : 'warning '} ${l.text}\n`,
      );
    }
    const problems = lines.filter((l) => l.level === 'problem').length;
    if (problems) {
      process.stderr.write(`${problems} problem(s): fix them before starting a run\n`);
      process.exitCode = 2;
    }
  });
}

export async function doctor(file: string | undefined, o: AwsOptions): Promise<Line[]> {
  const lines: Line[] = [];
  const ok = (text: string) => lines.push({ level: 'ok', text });
  const problem = (text: string) => lines.push({ level: 'problem', text });
  const warning = (text: string) => lines.push({ level: 'warning', text });

  // credentials and region (from the SDK's chain, as every other command)
  const cfn = new CloudFormationClient(clientConfig(o));
  let region: string | undefined;
  try {
    region = await cfn.config.region();
  } catch {
    region = undefined;
  }
  if (!region) {
    problem('region: none configured (set AWS_REGION or a profile region, or pass --region)');
    return lines;
  }
  try {
    await cfn.config.credentials();
    ok(`credentials found; region ${region}`);
  } catch (err) {
    problem(
      `credentials: none found (${(err as Error).message}); configure AWS_PROFILE or AWS_ACCESS_KEY_ID`,
    );
    return lines;
  } finally {
    cfn.destroy();
  }

  // the stack, its version and its loader assets
  let outputs: StackOutputs | undefined;
  try {
    outputs = await StackOutputs.load(o.stack, clientConfig(o));
    ok(`stack ${o.stack} found in ${region}`);
  } catch (err) {
    if (err instanceof InputError) problem(`stack: ${err.issues.map((i) => i.message).join('; ')}`);
    else problem(`stack ${o.stack}: cannot be read: ${(err as Error).message}`);
  }
  let stackAzs: number | null = null;
  if (outputs) {
    const version = outputs.find('Version');
    if (version === FLEETBENCH_VERSION) ok(`stack version ${version} = this fleetbench`);
    else
      problem(
        `stack version: ${o.stack} was deployed by fleetbench ${version ?? '(before versions were stamped)'}, this is ${FLEETBENCH_VERSION}: redeploy with \`npx cdk deploy\``,
      );
    await checkAssets(outputs.find('LoaderAssets'), o, ok, problem);
    const azs = Number(outputs.find('LoaderSubnetAzs'));
    stackAzs = Number.isFinite(azs) && azs > 0 ? azs : null;
  }
  if (file) await checkSpec(file, { region, stackAzs, o }, ok, problem, warning);
  return lines;
}

async function checkAssets(
  value: string | undefined,
  o: AwsOptions,
  ok: (t: string) => void,
  problem: (t: string) => void,
): Promise<void> {
  if (!value) {
    problem('loader assets: the stack has no LoaderAssets output: redeploy with `npx cdk deploy`');
    return;
  }
  const s3 = new S3Client({ ...clientConfig(o), forcePathStyle: true });
  try {
    const uris = JSON.parse(value) as string[];
    for (const [what, uri] of [
      ['loader bundle', uris[0]],
      ['loader agent', uris[1]],
    ] as const) {
      const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri ?? '');
      if (!m) {
        problem(`${what}: unexpected asset location ${uri}`);
        continue;
      }
      try {
        await s3.send(new HeadObjectCommand({ Bucket: m[1], Key: m[2] }));
        ok(`${what} present: ${uri}`);
      } catch (err) {
        problem(
          `${what}: ${uri} is missing (${(err as Error).name}): redeploy with \`npx cdk deploy\` (it builds and uploads the loader)`,
        );
      }
    }
  } finally {
    s3.destroy();
  }
}

async function checkSpec(
  file: string,
  ctx: { region: string; stackAzs: number | null; o: AwsOptions },
  ok: (t: string) => void,
  problem: (t: string) => void,
  warning: (t: string) => void,
): Promise<void> {
  let raw: unknown;
  try {
    raw = parseSpecText(readFileSync(file, 'utf8'), file);
  } catch (err) {
    problem(`${file}: ${err instanceof InputError ? err.message : (err as Error).message}`);
    return;
  }
  // the Plan step's own checks, in this region
  try {
    await checkAsPlanWould(raw, 'doctor', ctx.region);
    ok(`${file}: the Plan checks pass (spec, region, budget, history size)`);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    for (const i of err.issues) problem(`${file}: ${i.path ? `${i.path}: ` : ''}${i.message}`);
  }
  // the account's quotas (all of them, even when the Plan checks above already refused)
  let needs;
  try {
    const { spec } = validateSpec(raw);
    needs = accountNeeds(spec, planRun(spec, { runId: 'doctor' }));
  } catch {
    return; // the spec itself is invalid: reported above
  }
  const problems = await preflight(needs, new AwsAccountQuotas(clientConfig(ctx.o)), {
    availabilityZones: ctx.stackAzs,
  });
  for (const p of problems) (p.available === null ? warning : problem)(`${p.message} [${p.path}]`);
  if (!problems.length)
    ok(`${file}: the account's quotas fit (DynamoDB capacity, EC2 vCPUs, AZs, Run Command timeout)`);
}
