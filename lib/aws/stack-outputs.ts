/** The deployed stack's CloudFormation outputs (state machine ARN, results bucket, Athena workgroup, ...). */
import {
  CloudFormationClient,
  DescribeStacksCommand,
  type CloudFormationClientConfig,
} from '@aws-sdk/client-cloudformation';
import { InputError } from '../core/common/errors';
import { translate } from './errors';

/** The outputs FleetbenchStack declares (stacks/fleetbench-stack.ts). */
export type FleetbenchOutput =
  | 'StateMachineArn'
  | 'ResultsBucket'
  | 'GlueDatabase'
  | 'AthenaWorkGroup'
  | 'TopicArn'
  | 'Version'
  | 'Network'
  | 'LoaderAssets'
  | 'LoaderSubnetAzs';

export class StackOutputs {
  private constructor(
    readonly stackName: string,
    readonly region: string | undefined,
    private readonly values: Record<string, string>,
  ) {}

  /** Reads the stack's outputs; InputError naming `--stack` when there is no such stack. */
  static async load(stackName: string, config: CloudFormationClientConfig = {}): Promise<StackOutputs> {
    const client = new CloudFormationClient(config);
    try {
      const out = await client.send(new DescribeStacksCommand({ StackName: stackName }));
      const stack = out.Stacks?.[0];
      if (!stack) throw new Error('DescribeStacks returned no stack');
      const values: Record<string, string> = {};
      for (const o of stack.Outputs ?? [])
        if (o.OutputKey && o.OutputValue) values[o.OutputKey] = o.OutputValue;
      const region = typeof config.region === 'string' ? config.region : await client.config.region();
      return new StackOutputs(stackName, region, values);
    } catch (err) {
      const msg = (err as Error)?.message ?? '';
      if (/does not exist/i.test(msg)) {
        const region = await client.config.region().catch(() => undefined);
        throw new InputError([
          {
            path: '--stack',
            message: `no CloudFormation stack "${stackName}"${region ? ` in ${region}` : ''} (deploy it with \`npx cdk deploy\`, or pass --stack/--region)`,
          },
        ]);
      }
      throw translate('CloudFormation', 'DescribeStacks', err);
    } finally {
      client.destroy();
    }
  }

  /** One output, or undefined when the stack does not have it (older stacks lack the newer outputs). */
  find(key: FleetbenchOutput): string | undefined {
    return this.values[key];
  }

  /** One output; InputError when the stack does not have it (an older or a different stack). */
  get(key: FleetbenchOutput): string {
    const v = this.values[key];
    if (!v)
      throw new InputError([
        {
          path: '--stack',
          message: `stack "${this.stackName}" has no output ${key}: is it a fleetbench stack (redeploy with \`npx cdk deploy\`)?`,
        },
      ]);
    return v;
  }
}
