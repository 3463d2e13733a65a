/**
 * What the AWS commands (start, status, results) share: the --stack / --region options and the
 * deployed stack's outputs. Credentials, region and endpoints come from the SDK's usual chain
 * (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL, ...); --region overrides the region.
 */
import type { Command } from 'commander';
import { StackOutputs } from '../aws/stack-outputs';

export const DEFAULT_STACK = 'Fleetbench';

export interface AwsOptions {
  stack: string;
  region?: string;
}

export function addAwsOptions(cmd: Command): Command {
  return cmd
    .option('--stack <name>', 'the deployed CloudFormation stack', DEFAULT_STACK)
    .option('--region <region>', 'AWS region (default: from AWS_REGION or the profile)');
}

/** SDK client config from the options (empty: the SDK's defaults). */
export function clientConfig(o: AwsOptions): { region?: string } {
  return o.region ? { region: o.region } : {};
}

export function stackOutputs(o: AwsOptions): Promise<StackOutputs> {
  return StackOutputs.load(o.stack, clientConfig(o));
}
