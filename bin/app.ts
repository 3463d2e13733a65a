/**
 * The CDK app (cdk.json: `npx tsx bin/app.ts`). Builds the loader bundle and agent first when missing
 * or stale (lib/build/deploy-build.ts), and the Apache Cassandra asset when missing, or stops with the
 * command to run. Context:
 *   -c fleetbench:stackName=<name>   stack name (default Fleetbench)
 *   -c fleetbench:network=<mode>     public (default: public subnets, no NAT, no interface endpoint) or
 *                                    private (private isolated subnets and interface endpoints)
 *   -c fleetbench:vpcId=vpc-...      use an existing VPC instead of creating one
 *   -c fleetbench:schedules=<dir>    deploy one EventBridge schedule per scheduled run spec in <dir>
 *                                    (e.g. examples/schedules)
 *   -c fleetbench:rawExpireDays=<n>  raw outputs under runs/ expire after n days (default 365)
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { NETWORK_MODES, type NetworkMode } from '../lib/constructs/loader-fleet';
import { readScheduledSpecs } from '../lib/constructs/schedules';
import { buildDeployArtifacts } from '../lib/build/deploy-build';
import { cassandraAssetPath, ensureCassandraAsset } from '../lib/build/cassandra-asset';
import { FleetbenchStack } from '../stacks/fleetbench-stack';

async function main(): Promise<void> {
  const app = new App();
  const ctx = (k: string): string | undefined =>
    app.node.tryGetContext(`fleetbench:${k}`) as string | undefined;
  const network = ctx('network');
  if (network !== undefined && !(NETWORK_MODES as readonly string[]).includes(network))
    throw new Error(`-c fleetbench:network: expected one of ${NETWORK_MODES.join(', ')}, found "${network}"`);
  const schedulesDir = ctx('schedules');
  const rawExpire = ctx('rawExpireDays');
  const artifacts = await buildDeployArtifacts((l) => process.stderr.write(`${l}\n`));
  // the Apache Cassandra archive cassandra-ec2 nodes install (DbNodes finds it at its path): built once, so a
  // deployed stack serves every target kind and synth has nothing to warn about
  if (!existsSync(cassandraAssetPath()))
    process.stderr.write('fleetbench: building the Apache Cassandra asset once (npm run build:cassandra)\n');
  await ensureCassandraAsset();
  new FleetbenchStack(app, ctx('stackName') ?? 'Fleetbench', {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    ...(ctx('vpcId') ? { vpcId: ctx('vpcId') } : {}),
    ...(network ? { network: network as NetworkMode } : {}),
    ...(schedulesDir ? { schedules: readScheduledSpecs(path.resolve(schedulesDir)) } : {}),
    ...(rawExpire ? { rawExpireAfterDays: Number(rawExpire) } : {}),
    loaderBundleDir: artifacts.bundleDir,
    loaderAgentFile: artifacts.agentFile,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  app.synth();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
