/**
 * ClusterProbe on AWS: the nodes admit the loaders only, so the checks and the schema creation run
 * as a shell script on one of the run's online loaders (SSM Run Command, AWS-RunShellScript), and
 * this adapter waits (briefly) for the script's output. Scripts: lib/core/cluster.ts.
 */
import {
  GetCommandInvocationCommand,
  SSMClient,
  SendCommandCommand,
  type SSMClientConfig,
} from '@aws-sdk/client-ssm';
import { healthScript, parseHealth, schemaScript, type SchemaRequest } from '../core/cluster';
import type { ClusterProbe, CommandRunner, EndpointHealth, FleetAdmin } from '../core/ports';
import { errorName, translate } from './errors';

export interface SsmClusterProbeOptions {
  fleet: FleetAdmin;
  commands: CommandRunner;
  /** Commands that install Java and fetch the loader bundle (the loader document's own). */
  prepare: string[];
  bundleDir: string;
  region: string;
  /** How long to wait for a script's output. @default 60 s (schema: 300 s) */
  waitMs?: number;
  pollMs?: number;
}

export class SsmClusterProbe implements ClusterProbe {
  readonly client: SSMClient;
  constructor(
    private readonly o: SsmClusterProbeOptions,
    clientOrConfig: SSMClient | SSMClientConfig = {},
  ) {
    this.client = clientOrConfig instanceof SSMClient ? clientOrConfig : new SSMClient(clientOrConfig);
  }

  async check(
    api: 'alternator' | 'cql',
    endpoints: { host: string; port: number }[],
    via: { runId: string },
  ): Promise<EndpointHealth[]> {
    const loader = await this.loader(via.runId);
    if (!loader) {
      return parseHealth(api, '', endpoints).map((h) => ({
        ...h,
        detail: 'no loader online to probe from yet',
      }));
    }
    const out = await this.run(
      loader,
      healthScript(api, endpoints),
      'fleetbench node health',
      this.o.waitMs ?? 60_000,
    );
    return parseHealth(api, out.output, endpoints);
  }

  async createSchema(req: SchemaRequest, via: { runId: string }): Promise<void> {
    const loader = await this.loader(via.runId);
    if (!loader) throw new Error(`no loader of run ${via.runId} is online to create the schema from`);
    const script = schemaScript(req, {
      prepare: this.o.prepare,
      bundleDir: this.o.bundleDir,
      region: this.o.region,
    });
    const out = await this.run(loader, script, 'fleetbench schema', Math.max(this.o.waitMs ?? 0, 300_000));
    if (out.status !== 'Success' || !out.output.includes('fleetbench-schema ok')) {
      throw new Error(
        `creating the ${req.api} schema on ${loader} ended ${out.status}: ${out.output.slice(-500)}`,
      );
    }
  }

  /** The first online loader of the run (sorted ids, as the pipeline's loader order). */
  private async loader(runId: string): Promise<string | undefined> {
    const ids = (await this.o.fleet.list({ runId }))
      .filter((i) => i.state === 'running')
      .map((i) => i.id)
      .sort();
    if (!ids.length) return undefined;
    return (await this.o.commands.online(ids)).sort()[0];
  }

  private async run(
    instanceId: string,
    commands: string[],
    comment: string,
    waitMs: number,
  ): Promise<{ status: string; output: string }> {
    let commandId: string;
    try {
      const sent = await this.client.send(
        new SendCommandCommand({
          DocumentName: 'AWS-RunShellScript',
          InstanceIds: [instanceId],
          Parameters: { commands, executionTimeout: [String(Math.ceil(waitMs / 1000))] },
          Comment: comment,
          TimeoutSeconds: 60,
        }),
      );
      commandId = sent.Command!.CommandId!;
    } catch (err) {
      throw translate('SSM', 'SendCommand', err);
    }
    const deadline = Date.now() + waitMs;
    const poll = this.o.pollMs ?? 2000;
    for (;;) {
      try {
        const inv = await this.client.send(
          new GetCommandInvocationCommand({ CommandId: commandId, InstanceId: instanceId }),
        );
        const status = inv.Status ?? 'Pending';
        if (!['Pending', 'InProgress', 'Delayed'].includes(status)) {
          return { status, output: `${inv.StandardOutputContent ?? ''}\n${inv.StandardErrorContent ?? ''}` };
        }
      } catch (err) {
        // the invocation is not registered yet right after SendCommand
        if (errorName(err) !== 'InvocationDoesNotExist') throw translate('SSM', 'GetCommandInvocation', err);
      }
      if (Date.now() > deadline) return { status: 'TimedOut', output: '' };
      await new Promise((r) => setTimeout(r, poll));
    }
  }
}
