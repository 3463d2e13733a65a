/**
 * The CDK app (cdk.json: `npx tsx bin/app.ts`). Context:
 *   -c fleetbench:stackName=<name>   stack name (default Fleetbench)
 *   -c fleetbench:vpcId=vpc-...      use an existing VPC instead of creating one
 *   -c fleetbench:schedules=<dir>    deploy one EventBridge schedule per scheduled run spec in <dir>
 *                                    (e.g. examples/schedules)
 *   -c fleetbench:rawExpireDays=<n>  raw outputs under runs/ expire after n days (default 365)
 */
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readScheduledSpecs } from '../lib/constructs/schedules';
import { FleetbenchStack } from '../stacks/fleetbench-stack';

const app = new App();
const ctx = (k: string): string | undefined =>
  app.node.tryGetContext(`fleetbench:${k}`) as string | undefined;
const schedulesDir = ctx('schedules');
const rawExpire = ctx('rawExpireDays');
new FleetbenchStack(app, ctx('stackName') ?? 'Fleetbench', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  ...(ctx('vpcId') ? { vpcId: ctx('vpcId') } : {}),
  ...(schedulesDir ? { schedules: readScheduledSpecs(path.resolve(schedulesDir)) } : {}),
  ...(rawExpire ? { rawExpireAfterDays: Number(rawExpire) } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
