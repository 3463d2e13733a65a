/**
 * The loader fleet on this machine: each "instance" is a slot that runs the real loader agent as a
 * child process (which starts real YCSB JVMs) when a command is sent to it. Implements the same
 * FleetAdmin and CommandRunner ports as EC2 + SSM Run Command, so the pipeline's steps run unchanged.
 * The agents run the jobs as the pipeline wrote them; DynamoDB Local is named the way the AWS SDKs are
 * told of an endpoint, `AWS_ENDPOINT_URL_DYNAMODB` in the agent's environment, which the agent applies
 * to processes whose job names no endpoint (the one thing that differs from AWS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CapacityError,
  type CommandRunner,
  type FleetAdmin,
  type Invocation,
  type LaunchRequest,
  type LoaderInstance,
  type SendRequest,
} from '../core/common/ports';

export const AGENT_MAIN = path.join(__dirname, '..', '..', 'loader', 'agent', 'src', 'main.ts');

/**
 * Most loaders the local mode runs at once, all of a run's launches together (a parallel run's groups, replacements):
 * each runs its YCSB JVMs on this machine. `fleetbench run --local` refuses a plan over it before anything starts
 * (assertRunnable, ./runner.ts).
 */
export const LOCAL_MAX_LOADERS = 8;

export interface LocalFleetOptions {
  /** Loader bundle directory (`<dir>/lib/*.jar`). */
  bundleDir: string;
  /** DynamoDB-API endpoint the loaders use (DynamoDB Local). */
  endpoint: string;
  /** Where agent logs go. */
  logDir: string;
  /** Most loaders this machine may run at once (LOCAL_MAX_LOADERS unless set). */
  maxLoaders?: number;
  /** Live progress lines from the agents (`loader-<i>: ...`). */
  onProgress?: (instanceId: string, line: string) => void;
  /** Extra environment for the agents. */
  env?: NodeJS.ProcessEnv;
}

interface Slot {
  id: string;
  state: 'running' | 'terminated';
  tags: Record<string, string>;
}

interface LocalInvocation {
  commandId: string;
  instanceId: string;
  status: Invocation['status'];
  child?: ChildProcess;
  detail?: string;
}

let fleets = 0;

export class LocalFleet implements FleetAdmin, CommandRunner {
  private readonly slots: Slot[] = [];
  private readonly invocations: LocalInvocation[] = [];
  private seq = 0;
  /**
   * Where this fleet's agents keep each job's lock and outcome (loader/agent/src/job-lock.ts): a job delivered twice
   * runs once. One directory per fleet, as a loader's state lives as long as the loader: a resumed run's fleet
   * (same slot ids, same jobs) runs its jobs again.
   */
  private readonly stateDir: string;

  constructor(private readonly o: LocalFleetOptions) {
    this.stateDir = path.join(o.logDir, 'state', `${Date.now().toString(36)}-${process.pid}-${++fleets}`);
  }

  async launch(req: LaunchRequest): Promise<string[]> {
    const max = this.o.maxLoaders ?? LOCAL_MAX_LOADERS;
    const live = this.slots.filter((s) => s.state !== 'terminated').length;
    if (live + req.count > max) {
      throw new CapacityError(
        `${req.count} local loaders requested beside ${live} running; this machine runs at most ${max} at once`,
      );
    }
    const ids: string[] = [];
    for (let i = 0; i < req.count; i++) {
      const id = `local-${req.runId}-${this.slots.length}`;
      this.slots.push({ id, state: 'running', tags: { ...req.tags } });
      ids.push(id);
    }
    return ids;
  }

  async list(filter: { runId?: string }): Promise<LoaderInstance[]> {
    return this.slots
      .filter((s) => s.state !== 'terminated')
      .filter((s) => !filter.runId || s.tags['fleetbench:run-id'] === filter.runId)
      .map((s) => ({ id: s.id, state: s.state, tags: s.tags }));
  }

  async terminate(ids: string[]): Promise<void> {
    for (const s of this.slots) {
      if (!ids.includes(s.id)) continue;
      s.state = 'terminated';
    }
    await this.killInvocations((inv) => ids.includes(inv.instanceId));
  }

  async online(instanceIds: string[]): Promise<string[]> {
    return instanceIds.filter((id) => this.slots.some((s) => s.id === id && s.state === 'running'));
  }

  async send(req: SendRequest): Promise<string[]> {
    const commandId = `cmd-${++this.seq}`;
    const jobDir = fileURLToPath(req.jobPrefix);
    mkdirSync(this.o.logDir, { recursive: true });
    for (const instanceId of req.instanceIds) {
      const inv: LocalInvocation = { commandId, instanceId, status: 'Pending' };
      this.invocations.push(inv);
      const log = createWriteStream(path.join(this.o.logDir, `${commandId}-${instanceId}.log`));
      const child = spawn(
        process.execPath,
        [
          '-r',
          require.resolve('tsx/cjs'),
          AGENT_MAIN,
          pathToFileURL(path.join(jobDir, `${instanceId}.json`)).href,
          '--bundle',
          this.o.bundleDir,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            FLEETBENCH_PROGRESS: 'plain',
            AWS_ENDPOINT_URL_DYNAMODB: this.o.endpoint,
            FLEETBENCH_AGENT_STATE_DIR: this.stateDir,
            ...this.o.env,
          },
          detached: true,
        },
      );
      inv.child = child;
      inv.status = 'InProgress';
      let tail = '';
      child.stdout!.on('data', (b: Buffer) => {
        log.write(b);
        for (const line of b.toString().split('\n'))
          if (line.trim()) this.o.onProgress?.(instanceId, line.trim());
      });
      child.stderr!.on('data', (b: Buffer) => {
        log.write(b);
        tail = (tail + b.toString()).slice(-2000);
      });
      child.on('exit', (code, signal) => {
        log.end();
        inv.child = undefined;
        if (inv.status === 'Cancelled') return;
        inv.status = code === 0 ? 'Success' : 'Failed';
        if (code !== 0)
          // the whole stderr tail: the step keeps its first cause and its end (failureExcerpt)
          inv.detail = `agent exited ${code ?? signal}: ${tail.trim()}`;
      });
      child.on('error', (err) => {
        inv.status = 'Failed';
        inv.detail = err.message;
      });
    }
    return [commandId];
  }

  async status(commandIds: string[]): Promise<Invocation[]> {
    return this.invocations
      .filter((i) => commandIds.includes(i.commandId))
      .map(({ commandId, instanceId, status, detail }) => ({
        commandId,
        instanceId,
        status,
        ...(detail ? { detail } : {}),
      }));
  }

  async cancel(commandIds: string[]): Promise<void> {
    await this.killInvocations((inv) => commandIds.includes(inv.commandId));
  }

  /** Pids of agents still running (tests check none survive). */
  runningPids(): number[] {
    return this.invocations.filter((i) => i.child?.pid !== undefined).map((i) => i.child!.pid!);
  }

  /** Stops every agent (SIGTERM to its process group: the agent stops its JVMs), SIGKILL after 20 s. */
  async killAll(): Promise<void> {
    await this.killInvocations(() => true);
  }

  private async killInvocations(match: (inv: LocalInvocation) => boolean): Promise<void> {
    const live = this.invocations.filter((i) => match(i) && i.child && i.child.exitCode === null);
    await Promise.all(
      live.map(
        (inv) =>
          new Promise<void>((resolve) => {
            const child = inv.child!;
            inv.status = 'Cancelled';
            const pgid = child.pid!;
            const timer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), 20_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            signalGroup(pgid, 'SIGTERM');
          }),
      ),
    );
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    /* already gone */
  }
}
