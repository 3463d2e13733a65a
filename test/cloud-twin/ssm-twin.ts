/**
 * The SSM agent and the Run Command status APIs moto does not have. moto accepts SendCommand (and
 * validates the document and instances) but executes nothing and lacks ListCommandInvocations: for
 * each command sent with the stack's loader document, the twin runs the document's agent command
 * (its `export` and `exec node …agent.js` lines, with the document parameters substituted and the
 * instance id as $IID) for each instance, as a process of the built agent bundle from the cloud
 * assembly, with the loader role's credentials pointed at the twin's gateway (so the agent's calls
 * are checked against the loader role). The YCSB JVMs it starts run against DynamoDB Local.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface LoaderDocument {
  name: string;
  /** The runShellScript lines of the document, resolved. */
  lines: string[];
}

/**
 * Runs an AWS-RunShellScript command on an instance: the twin rewrites the database nodes' addresses
 * to their local stand-ins, runs the lines with bash and maps the addresses back in the output.
 */
export type ShellRunner = (
  instanceId: string,
  commands: string[],
) => Promise<{ ok: boolean; output: string }>;

export interface SsmTwinOptions {
  shell?: ShellRunner;
  document: LoaderDocument;
  /** WaitReady's probe document: its lines, parameters substituted as Run Command does, run by `shell`. */
  probeDocument?: LoaderDocument;
  /** s3 URI of an asset → the staged file or directory in the cloud assembly. */
  assetFromS3: (uri: string) => string;
  /** Environment of an agent on an instance (credentials of the instance's role, the gateway). */
  agentEnv: (instanceId: string) => NodeJS.ProcessEnv;
  /** Running instances (moto) among the ids. */
  running: (ids: string[]) => Promise<string[]>;
  logDir: string;
  onOutput?: (instanceId: string, line: string) => void;
}

interface TwinInvocation {
  commandId: string;
  instanceId: string;
  status: 'InProgress' | 'Success' | 'Failed' | 'Cancelled';
  output: string;
  child?: ChildProcess;
}

export class SsmTwin {
  readonly invocations: TwinInvocation[] = [];
  /** Commands sent with another document than the loader's (the twin does not run them). */
  readonly unsupported: { commandId: string; document: string }[] = [];

  /**
   * Hold the loader document's commands: accepted and InProgress, not run (a scenario that stops once
   * StartCell sent the cell's job: the job's binding would call a service that is not here).
   */
  hold = false;
  /** The loader-document commands held, with their parameters. */
  readonly held: { commandId: string; instanceId: string; params: Record<string, string[]> }[] = [];

  constructor(private readonly o: SsmTwinOptions) {}

  get document(): LoaderDocument {
    return this.o.document;
  }

  /** A document's lines with its `{{ parameter }}`s replaced by the command's values. */
  private rendered(doc: LoaderDocument, params: Record<string, string[]>): string[] {
    return doc.lines.map((l) =>
      l.replace(/\{\{\s*(\w+)\s*\}\}/g, (_m, n: string) => {
        const v = params[n]?.[0];
        if (v === undefined) throw new Error(`${doc.name}'s {{ ${n} }} was not given`);
        return v;
      }),
    );
  }

  /** The agent command line of the document for one instance: [argv, extra env]. */
  agentCommand(
    params: Record<string, string[]>,
    instanceId: string,
  ): { argv: string[]; env: Record<string, string> } {
    const sub = (s: string) =>
      s.replace(/\{\{\s*(\w+)\s*\}\}/g, (_m, n: string) => {
        const v = params[n]?.[0];
        if (v === undefined) throw new Error(`the loader document's {{ ${n} }} was not given`);
        return v;
      });
    const lines = this.o.document.lines;
    const agentJs = this.stagedAsset('agent.js');
    const bundle = this.stagedAsset('bundle.zip');
    const env: Record<string, string> = {};
    for (const l of lines.filter((x) => x.startsWith('export '))) {
      for (const kv of l.slice(7).trim().split(/\s+/)) {
        const [k, v = ''] = kv.split('=');
        // the user the document's preparation creates on a loader is not on this machine: the twin's
        // agent runs the JVMs as itself (test/unit/agent/run-job.test.ts runs them as another user)
        if (k === 'FLEETBENCH_RUN_AS') continue;
        env[k!] = v.replace('/opt/fleetbench/bundle', bundle);
      }
    }
    // `exec node …` or a versioned executable such as AL2023's `exec node-22 …`
    const exec = lines.find((x) => /^exec node(-\d+)? /.test(x));
    if (!exec) throw new Error('the loader document has no `exec node` line');
    const words = (
      sub(exec)
        .replace(/^exec node(-\d+)? /, '')
        .match(/"[^"]*"|\S+/g) ?? []
    ).map((w) => w.replace(/^"|"$/g, '').replace('$IID', instanceId));
    const argv = words.map((w) =>
      w === '/opt/fleetbench/agent.js' ? agentJs : w === '/opt/fleetbench/bundle' ? bundle : w,
    );
    return { argv, env };
  }

  /** The staged asset (cloud assembly) of a file the loader document fetches with `aws s3 cp`. */
  stagedAsset(file: string): string {
    const l = this.o.document.lines.find((x) => x.includes('aws s3 cp') && x.includes(file));
    const uri = l?.split(/\s+/).find((w) => w.startsWith('s3://'));
    if (!uri) throw new Error(`the loader document does not fetch ${file}`);
    return this.o.assetFromS3(uri);
  }

  /** The environment of a command on the instance (its role's credentials). */
  agentEnvOf(instanceId: string): NodeJS.ProcessEnv {
    return this.o.agentEnv(instanceId);
  }

  sent(commandId: string, p: Record<string, unknown>): void {
    const doc = String(p.DocumentName);
    const probe = this.o.probeDocument;
    if ((doc === 'AWS-RunShellScript' || doc === probe?.name) && this.o.shell) {
      const given = (p.Parameters ?? {}) as Record<string, string[]>;
      const commands = doc === probe?.name ? this.rendered(probe, given) : (given.commands ?? []);
      for (const instanceId of (p.InstanceIds ?? []) as string[]) {
        const inv: TwinInvocation = { commandId, instanceId, status: 'InProgress', output: '' };
        this.invocations.push(inv);
        this.o.shell(instanceId, commands).then(
          (r) => {
            inv.status = r.ok ? 'Success' : 'Failed';
            inv.output = r.output;
          },
          (err: unknown) => {
            inv.status = 'Failed';
            inv.output = (err as Error).message;
          },
        );
      }
      return;
    }
    if (doc !== this.o.document.name) {
      this.unsupported.push({ commandId, document: doc });
      for (const id of (p.InstanceIds ?? []) as string[])
        this.invocations.push({
          commandId,
          instanceId: id,
          status: 'Failed',
          output: `the cloud twin runs the loader document only, not ${doc}`,
        });
      return;
    }
    const params = (p.Parameters ?? {}) as Record<string, string[]>;
    if (this.hold) {
      for (const instanceId of (p.InstanceIds ?? []) as string[]) {
        this.held.push({ commandId, instanceId, params });
        this.invocations.push({ commandId, instanceId, status: 'InProgress', output: '' });
      }
      return;
    }
    for (const instanceId of (p.InstanceIds ?? []) as string[]) {
      const inv: TwinInvocation = { commandId, instanceId, status: 'InProgress', output: '' };
      this.invocations.push(inv);
      try {
        const { argv, env } = this.agentCommand(params, instanceId);
        const child = spawn(process.execPath, argv, {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...this.o.agentEnv(instanceId), ...env },
          detached: true,
          cwd: this.o.logDir,
        });
        inv.child = child;
        const take = (b: Buffer) => {
          inv.output = (inv.output + b.toString()).slice(-8000);
          for (const line of b.toString().split('\n')) if (line.trim()) this.o.onOutput?.(instanceId, line);
        };
        child.stdout!.on('data', take);
        child.stderr!.on('data', take);
        child.on('exit', (code) => {
          inv.child = undefined;
          if (inv.status === 'Cancelled') return;
          inv.status = code === 0 ? 'Success' : 'Failed';
        });
      } catch (err) {
        inv.status = 'Failed';
        inv.output = (err as Error).message;
      }
    }
  }

  answer(op: string, p: Record<string, unknown>): Promise<unknown> | undefined {
    if (op === 'DescribeInstanceInformation') {
      const filters = (p.Filters ?? []) as { Key: string; Values: string[] }[];
      const ids = filters.find((f) => f.Key === 'InstanceIds')?.Values ?? [];
      return this.o.running(ids).then((up) => ({
        InstanceInformationList: up.map((id) => ({
          InstanceId: id,
          PingStatus: 'Online',
          PlatformType: 'Linux',
        })),
      }));
    }
    if (op === 'ListCommandInvocations') {
      const invs = this.invocations.filter((i) => i.commandId === p.CommandId);
      return Promise.resolve({
        CommandInvocations: invs.map((i) => ({
          CommandId: i.commandId,
          InstanceId: i.instanceId,
          Status: i.status,
          StatusDetails: i.status,
          CommandPlugins: [{ Name: 'runJob', Status: i.status, Output: i.output.slice(-2500) }],
        })),
      });
    }
    if (op === 'GetCommandInvocation') {
      const i = this.invocations.find((x) => x.commandId === p.CommandId && x.instanceId === p.InstanceId);
      if (!i) return Promise.resolve({ Status: 'Pending' });
      return Promise.resolve({
        CommandId: i.commandId,
        InstanceId: i.instanceId,
        Status: i.status,
        StatusDetails: i.status,
        StandardOutputContent: i.output,
        StandardErrorContent: '',
      });
    }
    if (op === 'CancelCommand') {
      this.kill((i) => i.commandId === p.CommandId);
      return Promise.resolve({});
    }
    return undefined;
  }

  terminated(ids: string[]): void {
    this.kill((i) => ids.includes(i.instanceId));
  }

  running(): number {
    return this.invocations.filter((i) => i.child).length;
  }

  /** Stops every agent still running (SIGTERM to its group, SIGKILL after 15 s). */
  async stopAll(): Promise<void> {
    await this.kill(() => true);
  }

  private kill(match: (i: TwinInvocation) => boolean): Promise<void> {
    const live = this.invocations.filter((i) => match(i) && i.child && i.child.exitCode === null);
    return Promise.all(
      live.map(
        (i) =>
          new Promise<void>((resolve) => {
            const child = i.child!;
            i.status = 'Cancelled';
            const timer = setTimeout(() => group(child.pid!, 'SIGKILL'), 15_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            group(child.pid!, 'SIGTERM');
          }),
      ),
    ).then(() => undefined);
  }
}

function group(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    /* gone */
  }
}
