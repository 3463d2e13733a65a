/**
 * Database nodes on this machine for the local mode. Implements the same DbNodeAdmin and ClusterProbe
 * ports as EC2 (+ the probe over a loader), so ProvisionTarget, WaitReady and Teardown run unchanged.
 *
 * - scylla-ec2: each "node" is a child process (lib/local/scylla-node.ts) serving the node's Alternator
 *   endpoint on its own loopback port, forwarding to one shared DynamoDB Local (so the N endpoints share
 *   data, as a cluster's nodes do) and answering Alternator's health check. CQL is not stood in for: the
 *   local mode refuses `api: "cql"` (lib/local/runner.ts).
 * - cassandra-ec2: real Apache Cassandra nodes started by THE SAME bootstrap script the pipeline made for
 *   EC2 (the launch request's user data), with its parameters set for this machine: loopback addresses
 *   127.0.0.(11+i), free ports, a temporary directory instead of the EBS volume, this machine's Java and
 *   a small heap. Started one after the other, each once the previous answers CQL, as Cassandra requires.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { withParameters } from '../core/targets/cassandra-ec2/node';
import { TAG_NODE_INDEX, TAG_TARGET, healthScript, parseHealth } from '../core/targets/nodes/cluster';
import { RELEASE_VERSION_QUERY } from '../core/targets/nodes/cql-wire';
import { DynamoDbTableAdmin } from '../aws/dynamodb-tables';
import { TAG_RUN_ID } from '../core/common/ports';
import {
  CapacityError,
  ConflictError,
  type DbNodeAdmin,
  type ClusterNode,
  type ClusterProbe,
  type EndpointHealth,
  type NodeLaunchRequest,
  type SchemaRequest,
} from '../core/common/ports';
import { CqlLoginError, cqlQuery } from './cql-client';
import { secureCqlCluster } from './cql-login';
import type { CqlLogin } from '../core/targets/cassandra-ec2/cql-auth';
import { DYNAMODB_LOCAL_CREDENTIALS, freeLoopbackPort } from './dynamodb-local';

export const NODE_MAIN = path.join(__dirname, 'scylla-node.ts');

interface LocalNode extends ClusterNode {
  child?: ChildProcess;
  /** A Cassandra node's directory (removed when it stops) and inter-node port. */
  dir?: string;
  storagePort?: number;
  /** Requests the node forwarded, read when it is terminated. */
  forwarded?: number;
}

export interface LocalClusterOptions {
  /** The DynamoDB Local every stand-in ScyllaDB node forwards to (scylla-ec2 targets only). */
  upstream?: string;
  /** Real Apache Cassandra nodes (cassandra-ec2 targets): the archive, a Java 17, the heap of each node. */
  cassandra?: { asset: string; java: string; heapMb?: number };
  /** Most nodes this machine may run at once. */
  maxNodes?: number;
  /** The run's secrets (cassandra-ec2 logins, by name). */
  secrets?: { value(id: string): string | undefined };
}

export class LocalCluster implements DbNodeAdmin, ClusterProbe {
  private readonly nodes: LocalNode[] = [];
  /** Every launch request (tests check the user data and tags the pipeline produced). */
  readonly launches: NodeLaunchRequest[] = [];
  /** The run's logins the schema step used, by secret name (tests connect with them). */
  readonly logins = new Map<string, CqlLogin>();
  /** The bootstrap script each Cassandra node ran, by node id. */
  readonly scripts = new Map<string, string>();

  constructor(private readonly o: LocalClusterOptions) {}

  get cassandraAsset(): string | undefined {
    return this.o.cassandra?.asset;
  }

  async launch(req: NodeLaunchRequest): Promise<ClusterNode[]> {
    const cassandra = req.software === 'apache-cassandra';
    const live = this.nodes.filter((n) => n.state === 'running').length;
    const max = this.o.maxNodes ?? (cassandra ? 3 : 6);
    if (live + req.nodes.length > max) {
      throw new CapacityError(
        `${live + req.nodes.length} local ${cassandra ? 'Cassandra' : 'ScyllaDB stand-in'} nodes requested; at most ${max}`,
      );
    }
    this.launches.push(req);
    const started: LocalNode[] = [];
    try {
      for (const n of req.nodes) {
        started.push(
          cassandra
            ? await this.startCassandraNode(req, n.index, n.tags, n.userData)
            : await this.startNode(req, n.index, n.tags),
        );
      }
    } catch (err) {
      await this.terminate(started.map((n) => n.id));
      throw err;
    }
    return started.map(view);
  }

  /**
   * Runs the node's bootstrap script (the user data) with this machine's parameters and waits until the
   * node answers `SELECT release_version FROM system.local`.
   */
  private async startCassandraNode(
    req: NodeLaunchRequest,
    index: number,
    tags: Record<string, string>,
    userData: string,
  ): Promise<LocalNode> {
    const c = this.o.cassandra;
    if (!c) throw new CapacityError('this local cluster runs no Cassandra nodes (no asset given)');
    const id = `node-${req.runId}-${req.targetId}-${index}`;
    const host = `127.0.0.${11 + index}`;
    const [nativePort, storagePort] = [await freeLoopbackPort(host), await freeLoopbackPort(host)];
    // node 0 of the same run and target seeds the others (on EC2 the seed is node 0's IP and port 7000)
    const seed = this.nodes.find(
      (n) =>
        n.state === 'running' &&
        n.storagePort !== undefined &&
        n.tags[TAG_RUN_ID] === tags[TAG_RUN_ID] &&
        n.tags[TAG_TARGET] === tags[TAG_TARGET] &&
        n.tags[TAG_NODE_INDEX] === '0',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetbench-cassandra-'));
    const script = localCassandraScript(userData, {
      ...c,
      dir,
      host,
      rack: `rack${index}`,
      nativePort,
      storagePort,
      seed: index === 0 || !seed ? '' : `${seed.privateIp}:${seed.storagePort}`,
    });
    fs.writeFileSync(path.join(dir, 'bootstrap.sh'), script);
    this.scripts.set(id, script);
    const child = spawn('bash', [path.join(dir, 'bootstrap.sh')], { stdio: ['ignore', 'ignore', 'pipe'] });
    const node: LocalNode = {
      id,
      state: 'pending',
      tags: { ...tags },
      privateIp: host,
      port: nativePort,
      storagePort,
      child,
      dir,
    };
    this.nodes.push(node);
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
    child.on('exit', () => {
      node.child = undefined;
      node.state = 'terminated';
    });
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (node.state === 'terminated') {
        throw new Error(`Cassandra node ${id} exited: ${err}\n${tail(path.join(dir, 'logs', 'system.log'))}`);
      }
      try {
        await cqlQuery({ host, port: nativePort }, [RELEASE_VERSION_QUERY], { timeoutMs: 3000 });
        break;
      } catch (e) {
        // PasswordAuthenticator: a node that asks for credentials serves CQL
        if (e instanceof CqlLoginError) break;
        if (Date.now() > deadline) {
          throw new Error(`Cassandra node ${id} did not answer CQL within 180 s: ${err}`);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    node.state = 'running';
    return node;
  }

  private async startNode(
    req: NodeLaunchRequest,
    index: number,
    tags: Record<string, string>,
  ): Promise<LocalNode> {
    const id = `node-${req.runId}-${req.targetId}-${index}`;
    if (!this.o.upstream)
      throw new CapacityError('this local cluster has no DynamoDB Local for ScyllaDB stand-ins');
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
          if (n.state === 'running' && n.port && !n.dir) n.forwarded = await forwardedBy(n.port);
          n.state = 'terminated';
          // a local node's data is thrown away: no need to wait for a drain (EC2 nodes are terminated too)
          await stop(n.child);
          if (n.dir) fs.rmSync(n.dir, { recursive: true, force: true });
        }),
    );
  }

  /** Requests each node forwarded to DynamoDB Local (known once it was terminated), by node id. */
  forwarded(): Record<string, number | undefined> {
    return Object.fromEntries(this.nodes.map((n) => [n.id, n.forwarded]));
  }

  /** Directories of the Cassandra nodes (removed when they stop). */
  nodeDirs(): string[] {
    return this.nodes.flatMap((n) => (n.dir ? [n.dir] : []));
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
    if (api === 'cql') {
      // the very probe a loader runs on AWS (bash, CQL frames over /dev/tcp)
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', healthScript('cql', endpoints).join('\n')],
        {
          encoding: 'utf8',
        },
      );
      return parseHealth('cql', stdout, endpoints);
    }
    return Promise.all(endpoints.map((e) => httpHealth(e)));
  }

  /**
   * The run's login (cassandra-ec2: the secret the request names), made to work on the nodes first
   * (secureCqlCluster); none when the request names no secret or this cluster has no secrets.
   */
  private async runLogin(
    req: Extract<SchemaRequest, { api: 'cql' }>,
    e: { host: string; port: number },
  ): Promise<CqlLogin | undefined> {
    const text = req.login ? this.o.secrets?.value(req.login) : undefined;
    if (!text) return undefined;
    const login = JSON.parse(text) as CqlLogin;
    await secureCqlCluster(e, login, req.replicationFactor);
    this.logins.set(req.login!, login);
    return login;
  }

  async createSchema(req: SchemaRequest): Promise<void> {
    if (req.api === 'cql') {
      const [host, port] = splitHostPort(req.hosts[0]!);
      const credentials = await this.runLogin(req, { host, port });
      const answers = await cqlQuery({ host, port }, req.statements, {
        consistency: 'ALL',
        timeoutMs: 60_000,
        ...(credentials ? { credentials } : {}),
      });
      const failed = answers.find((a) => a.kind === 'error');
      if (failed) throw new Error(`creating the CQL schema: ${JSON.stringify(failed)}`);
      await awaitSchemaAgreement(
        req.hosts.map(splitHostPort).map(([h, p]) => ({ host: h, port: p })),
        30_000,
        credentials,
      );
      return;
    }
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

/**
 * A node's bootstrap script (its EC2 user data, base64) with this machine's parameters: a loopback address,
 * the given ports, a directory of its own, the foreground JVM on a local Java with a small heap and the
 * start-up waits of a one-machine cluster (as the CQL binding's LocalCassandra). The body runs unchanged.
 */
export function localCassandraScript(
  userData: string,
  o: {
    asset: string;
    java: string;
    heapMb?: number;
    dir: string;
    host: string;
    rack: string;
    nativePort: number;
    storagePort: number;
    /** host:storagePort of the seed; empty: the node seeds itself. */
    seed: string;
  },
): string {
  return withParameters(
    Buffer.from(userData, 'base64').toString('utf8'),
    {
      FB_ASSET: o.asset,
      FB_HOME: o.dir,
      FB_DATA: path.join(o.dir, 'data'),
      FB_DATA_VOLUME: 'none',
      FB_LISTEN: o.host,
      FB_DC: 'local',
      FB_RACK: o.rack,
      FB_NATIVE_PORT: String(o.nativePort),
      FB_STORAGE_PORT: String(o.storagePort),
      FB_SEEDS: o.seed,
      FB_RUN: 'foreground',
      FB_JAVA: o.java,
    },
    {
      heapMb: o.heapMb ?? 512,
      extraJvmOptions: [
        '-Dcassandra.ring_delay_ms=100',
        '-Dcassandra.skip_wait_for_gossip_to_settle=0',
        '-XX:TieredStopAtLevel=1',
      ],
    },
  );
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

function splitHostPort(hp: string): [string, number] {
  const i = hp.lastIndexOf(':');
  return [hp.slice(0, i), Number(hp.slice(i + 1))];
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '';
  }
}

/** Waits until every node reports the same schema version (as drivers do after a schema change). */
export async function awaitSchemaAgreement(
  endpoints: { host: string; port: number }[],
  timeoutMs = 30_000,
  credentials?: CqlLogin,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let versions: (string | null | undefined)[] = [];
  while (Date.now() < deadline) {
    versions = await Promise.all(
      endpoints.map(async (e) => {
        const [r] = await cqlQuery(e, ['SELECT schema_version FROM system.local'], {
          ...(credentials ? { credentials } : {}),
        });
        return r?.kind === 'rows' ? r.rows[0]?.[0] : undefined;
      }),
    );
    if (versions[0] && versions.every((v) => v === versions[0])) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no schema agreement within ${timeoutMs} ms: ${JSON.stringify(versions)}`);
}
