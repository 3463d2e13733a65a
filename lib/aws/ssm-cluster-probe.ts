/**
 * ClusterProbe on AWS: the nodes admit the loaders only, so the checks and the schema creation run
 * on one of the run's online loaders through the stack's probe document (SSM Run Command: a fixed script,
 * the action and values as parameters; lib/constructs/loader-fleet.ts), and this adapter waits (briefly)
 * for the output. Script and parameters: lib/core/targets/nodes/cluster.ts.
 */
import {
  GetCommandInvocationCommand,
  SSMClient,
  SendCommandCommand,
  type SSMClientConfig,
} from '@aws-sdk/client-ssm';
import {
  healthScript,
  parseHealth,
  probeParameters,
  schemaScript,
  type ProbeAction,
  type SchemaRequest,
} from '../core/targets/nodes/cluster';
import type { ClusterProbe, CommandRunner, EndpointHealth, FleetAdmin } from '../core/common/ports';
import { errorName, translate } from './errors';

export interface SsmClusterProbeOptions {
  fleet: FleetAdmin;
  commands: CommandRunner;
  /** The stack's probe document (its name). */
  document: string;
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
    healthScript(api, endpoints); // refuses an endpoint the document's pattern would (with its name)
    const list = endpoints.map((e) => `${e.host}:${e.port}`).join(' ');
    const out = await this.run(
      loader,
      `health-${api}`,
      { endpoints: list },
      'fleetbench node health',
      this.o.waitMs ?? 60_000,
    );
    return parseHealth(api, out.output, endpoints);
  }

  async createSchema(req: SchemaRequest, via: { runId: string }): Promise<void> {
    const loader = await this.loader(via.runId);
    if (!loader) throw new Error(`no loader of run ${via.runId} is online to create the schema from`);
    schemaScript(req, { prepare: [], bundleDir: '', region: '' }); // the same checks as the document's patterns
    const values =
      req.api === 'alternator'
        ? { endpoint: req.endpoint, table: req.table, keyAttribute: req.keyAttribute }
        : {
            hosts: req.hosts.join(','),
            port: req.port,
            keyspace: req.keyspace,
            table: req.table,
            replicationFactor: req.replicationFactor,
            fieldCount: req.fieldCount,
            ...(req.login ? { login: req.login } : {}),
          };
    const out = await this.run(
      loader,
      `schema-${req.api}`,
      values,
      'fleetbench schema',
      Math.max(this.o.waitMs ?? 0, 300_000),
    );
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
    action: ProbeAction,
    values: Parameters<typeof probeParameters>[1],
    comment: string,
    waitMs: number,
  ): Promise<{ status: string; output: string }> {
    let commandId: string;
    try {
      const sent = await this.client.send(
        new SendCommandCommand({
          DocumentName: this.o.document,
          InstanceIds: [instanceId],
          Parameters: probeParameters(action, values, Math.ceil(waitMs / 1000)),
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
