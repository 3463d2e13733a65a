/** RunRegistry on Step Functions: the running executions of the pipeline's state machine. */
import {
  DescribeExecutionCommand,
  ListExecutionsCommand,
  SFNClient,
  type SFNClientConfig,
} from '@aws-sdk/client-sfn';
import type { RunRegistry, RunningExecution } from '../core/common/ports';
import { translate } from './errors';

/** The state machine ARN of an execution ARN (`arn:…:execution:<machine>:<name>`). */
export function stateMachineArnOf(executionArn: string): string {
  const parts = executionArn.split(':');
  if (parts.length < 8 || parts[5] !== 'execution') throw new Error(`not an execution ARN: ${executionArn}`);
  return [...parts.slice(0, 5), 'stateMachine', parts[6]].join(':');
}

export class SfnRunRegistry implements RunRegistry {
  readonly client: SFNClient;
  constructor(
    private readonly stateMachineArn: string,
    clientOrConfig: SFNClient | SFNClientConfig = {},
  ) {
    this.client = clientOrConfig instanceof SFNClient ? clientOrConfig : new SFNClient(clientOrConfig);
  }

  async running(): Promise<RunningExecution[]> {
    const out: RunningExecution[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListExecutionsCommand({
            stateMachineArn: this.stateMachineArn,
            statusFilter: 'RUNNING',
            nextToken: token,
          }),
        );
        for (const e of page.executions ?? []) {
          const d = await this.client.send(new DescribeExecutionCommand({ executionArn: e.executionArn }));
          let scheduleName: string | undefined;
          try {
            const input = JSON.parse(d.input ?? '{}') as { scheduleName?: unknown };
            if (typeof input.scheduleName === 'string') scheduleName = input.scheduleName;
          } catch {
            // not JSON: not a scheduled run
          }
          out.push({
            name: e.name!,
            startedAtMs: e.startDate?.getTime() ?? 0,
            ...(scheduleName ? { scheduleName } : {}),
          });
        }
        token = page.nextToken;
      } while (token);
    } catch (err) {
      throw translate('StepFunctions', 'ListExecutions', err);
    }
    return out;
  }
}
