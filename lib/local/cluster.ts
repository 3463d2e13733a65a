/**
 * ScyllaDB nodes on this machine for the local mode: each "node" is a child process
 * (lib/local/scylla-node.ts) serving the node's Alternator endpoint on its own loopback port,
 * forwarding to one shared DynamoDB Local (so the N endpoints share data, as a cluster's nodes do)
 * and answering Alternator's health check. Implements the same ClusterAdmin and ClusterProbe ports as
 * EC2 (+ the probe over a loader), so ProvisionTarget, WaitReady and Teardown run unchanged.
 * CQL is not stood in for: the local mode refuses `api: "cql"` (lib/local/runner.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import * as path from 'node:path';
import { DynamoDbTableAdmin } from '../aws/dynamodb-tables';
import { TAG_RUN_ID } from '../core/ports';
import {
  CapacityError,
  ConflictError,
  type ClusterAdmin,
  type ClusterNode,
  type ClusterProbe,
  type EndpointHealth,
  type NodeLaunchRequest,
  type SchemaRequest,
} from '../core/ports';
import { DYNAMODB_LOCAL_CREDENTIALS } from './dynamodb-local';

export const NODE_MAIN = path.join(__dirname, 'scylla-node.ts');

interface LocalNode extends ClusterNode {
  child?: ChildProcess;
  /** Requests the node forwarded, read when it is terminated. */
  forwarded?: number;
}

export interface LocalClusterOptions {
  /** The DynamoDB Local every node forwards to. */
  upstream: string;
  /** Most nodes this machine may run at once. */
  maxNodes?: number;
}

export class LocalCluster implements ClusterAdmin, ClusterProbe {
  private readonly nodes: LocalNode[] = [];
  /** Every launch request (tests check the user data and tags the pipeline produced). */
  readonly launches: NodeLaunchRequest[] = [];

  constructor(private readonly o: LocalClusterOptions) {}

  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    const live = this.nodes.filter((n) => n.state === 'running').length;
    const max = this.o.maxNodes ?? 6;
    if (live + req.nodes.length > max) {
      throw new CapacityError(
        `${live + req.nodes.length} local ScyllaDB stand-in nodes requested; at most ${max}`,
      );
    }
    this.launches.push(req);
    const started: LocalNode[] = [];
    try {
      for (const n of req.nodes) started.push(await this.startNode(req, n.index, n.tags));
    } catch (err) {
      await this.terminate(started.map((n) => n.id));
      throw err;
    }
    return started.map(view);
  }

  private async startNode(
    req: NodeLaunchRequest,
    index: number,
    tags: Record<string, string>,
  ): Promise<LocalNode> {
    const id = `node-${req.runId}-${req.targetId}-${index}`;
    const child = spawn(
      process.execPath,
      ['-r', require.resolve('tsx/cjs'), NODE_MAIN, this.o.upstream, req.targetId, String(index)],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const node: LocalNode = { id, state: 'pending', tags: { ...tags }, privateIp: '127.0.0.1', child };
    this.nodes.push(node);
    child.on('exit', () => {
      node.child = undefined;
      node.state = 'terminated';
    });
    node.port = await new Promise<number>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`stand-in node ${id} did not start: ${err}`)), 30_000);
      child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-1000)));
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /listening (\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`stand-in node ${id} exited ${code}: ${err}`));
      });
    });
    node.state = 'running';
    return node;
  }

  async list(filter: { runId?: string }): Promise<ClusterNode[]> {
    return this.nodes
      .filter((n) => n.state !== 'terminated')
      .filter((n) => !filter.runId || n.tags[TAG_RUN_ID] === filter.runId)
      .map(view);
  }

  async terminate(ids: string[]): Promise<void> {
    await Promise.all(
      this.nodes
        .filter((n) => ids.includes(n.id))
        .map(async (n) => {
          if (n.state === 'running' && n.port) n.forwarded = await forwardedBy(n.port);
          n.state = 'terminated';
          await stop(n.child);
        }),
    );
  }

  /** Requests each node forwarded to DynamoDB Local (known once it was terminated), by node id. */
  forwarded(): Record<string, number | undefined> {
    return Object.fromEntries(this.nodes.map((n) => [n.id, n.forwarded]));
  }

  /** Pids of node processes still running (tests check none survive). */
  runningPids(): number[] {
    return this.nodes.filter((n) => n.child?.pid !== undefined).map((n) => n.child!.pid!);
  }

  /** Stops every node (the runner's last step). */
  async killAll(): Promise<void> {
    await this.terminate(this.nodes.map((n) => n.id));
  }

  async check(
    api: 'alternator' | 'cql',
    endpoints: { host: string; port: number }[],
  ): Promise<EndpointHealth[]> {
    return Promise.all(endpoints.map((e) => (api === 'alternator' ? httpHealth(e) : tcpHealth(e))));
  }

  async createSchema(req: SchemaRequest): Promise<void> {
    if (req.api !== 'alternator') throw new Error('the local stand-in serves Alternator only');
    const tables = new DynamoDbTableAdmin({
      endpoint: req.endpoint,
      region: 'us-east-1',
      credentials: DYNAMODB_LOCAL_CREDENTIALS,
    });
    try {
      // Alternator ignores billing settings; on-demand is what its CreateTable accepts without numbers
      await tables.createTable({
        name: req.table,
        keyAttribute: req.keyAttribute,
        billing: { mode: 'on-demand' },
        tableClass: 'STANDARD',
        tags: {},
      });
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
    }
  }
}

function view(n: LocalNode): ClusterNode {
  return {
    id: n.id,
    state: n.state,
    tags: n.tags,
    ...(n.privateIp ? { privateIp: n.privateIp } : {}),
    ...(n.port ? { port: n.port } : {}),
  };
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function forwardedBy(port: number): Promise<number | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/_stand-in/requests`, {
      signal: AbortSignal.timeout(2000),
    });
    return ((await res.json()) as { forwarded: number }).forwarded;
  } catch {
    return undefined;
  }
}

/** Alternator's health check: `GET /` answers 200 on a serving node. */
export async function httpHealth(e: { host: string; port: number }): Promise<EndpointHealth> {
  const endpoint = `http://${e.host}:${e.port}`;
  try {
    const res = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(3000) });
    await res.text();
    return res.status === 200
      ? { endpoint, ok: true }
      : { endpoint, ok: false, detail: `HTTP ${res.status}` };
  } catch (err) {
    return { endpoint, ok: false, detail: (err as Error).message };
  }
}

/** CQL: the native transport port accepts a TCP connection. */
export async function tcpHealth(e: { host: string; port: number }): Promise<EndpointHealth> {
  const endpoint = `${e.host}:${e.port}`;
  return new Promise((resolve) => {
    const s = connect({ host: e.host, port: e.port });
    const done = (h: EndpointHealth) => {
      s.destroy();
      resolve(h);
    };
    s.setTimeout(3000, () => done({ endpoint, ok: false, detail: 'timeout' }));
    s.once('connect', () => done({ endpoint, ok: true }));
    s.once('error', (err) => done({ endpoint, ok: false, detail: err.message }));
  });
}
