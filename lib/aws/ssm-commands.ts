/** CommandRunner on SSM Run Command with the stack's loader document. */
import {
  CancelCommandCommand,
  DescribeInstanceInformationCommand,
  ListCommandInvocationsCommand,
  SSMClient,
  SendCommandCommand,
  type SSMClientConfig,
} from '@aws-sdk/client-ssm';
import type { CommandRunner, Invocation, InvocationStatus, SendRequest } from '../core/common/ports';
import { translate } from './errors';

const STATUSES: Record<string, InvocationStatus> = {
  Pending: 'Pending',
  InProgress: 'InProgress',
  Delayed: 'InProgress',
  Success: 'Success',
  Cancelled: 'Cancelled',
  Cancelling: 'Cancelled',
  TimedOut: 'TimedOut',
  Failed: 'Failed',
};

export class SsmCommandRunner implements CommandRunner {
  readonly client: SSMClient;
  constructor(
    private readonly documentName: string,
    clientOrConfig: SSMClient | SSMClientConfig = {},
    private readonly logGroupName?: string,
  ) {
    this.client = clientOrConfig instanceof SSMClient ? clientOrConfig : new SSMClient(clientOrConfig);
  }

  async online(instanceIds: string[]): Promise<string[]> {
    const online: string[] = [];
    try {
      for (let i = 0; i < instanceIds.length; i += 50) {
        let token: string | undefined;
        do {
          const out = await this.client.send(
            new DescribeInstanceInformationCommand({
              Filters: [{ Key: 'InstanceIds', Values: instanceIds.slice(i, i + 50) }],
              NextToken: token,
            }),
          );
          for (const info of out.InstanceInformationList ?? []) {
            if (info.PingStatus === 'Online' && info.InstanceId) online.push(info.InstanceId);
          }
          token = out.NextToken;
        } while (token);
      }
    } catch (err) {
      throw translate('SSM', 'DescribeInstanceInformation', err);
    }
    return online;
  }

  async send(req: SendRequest): Promise<string[]> {
    const ids: string[] = [];
    try {
      for (let i = 0; i < req.instanceIds.length; i += 50) {
        const out = await this.client.send(
          new SendCommandCommand({
            DocumentName: this.documentName,
            InstanceIds: req.instanceIds.slice(i, i + 50),
            Parameters: { jobPrefix: [req.jobPrefix], executionTimeout: [String(req.timeoutSeconds)] },
            TimeoutSeconds: 600,
            Comment: req.comment,
            ...(this.logGroupName
              ? {
                  CloudWatchOutputConfig: {
                    CloudWatchOutputEnabled: true,
                    CloudWatchLogGroupName: this.logGroupName,
                  },
                }
              : {}),
          }),
        );
        ids.push(out.Command!.CommandId!);
      }
    } catch (err) {
      if (ids.length) await this.cancel(ids);
      throw translate('SSM', 'SendCommand', err);
    }
    return ids;
  }

  async status(commandIds: string[]): Promise<Invocation[]> {
    const out: Invocation[] = [];
    try {
      for (const commandId of commandIds) {
        let token: string | undefined;
        do {
          const page = await this.client.send(
            new ListCommandInvocationsCommand({ CommandId: commandId, Details: true, NextToken: token }),
          );
          for (const inv of page.CommandInvocations ?? []) {
            const plugin = inv.CommandPlugins?.[0];
            out.push({
              commandId,
              instanceId: inv.InstanceId ?? '?',
              status: STATUSES[inv.Status ?? 'Pending'] ?? 'InProgress',
              ...(plugin?.Output || inv.StatusDetails
                ? { detail: plugin?.Output ?? inv.StatusDetails ?? '' } // the step shortens it (failureExcerpt)
                : {}),
            });
          }
          token = page.NextToken;
        } while (token);
      }
    } catch (err) {
      throw translate('SSM', 'ListCommandInvocations', err);
    }
    return out;
  }

  async cancel(commandIds: string[]): Promise<void> {
    for (const id of commandIds) {
      try {
        await this.client.send(new CancelCommandCommand({ CommandId: id }));
      } catch {
        // best effort: the command may have finished already
      }
    }
  }
}
