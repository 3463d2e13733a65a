/**
 * What answers for cassandra-ec2 nodes in the cloud twin. moto launches the nodes (an address, tags, the
 * user data) but runs nothing; the loaders' probe and schema scripts then speak CQL to `ip:9042`. Here each
 * node address gets a loopback port of its own (a TCP forwarder, so the probe's output names every node
 * apart), and behind the forwarders ONE real Apache Cassandra: the node's own bootstrap script, decoded
 * from the user data moto was given, run with loopback parameters from the asset the stack ships (as the
 * local mode runs it, lib/local/cluster.ts). Real rather than a CQL fake because the schema step is the
 * binding's CqlSchema on the Java driver, which needs far more of the protocol than the probe (OPTIONS,
 * REGISTER, typed system.local/peers rows, schema metadata and agreement): a fake would test itself. One
 * JVM for every node of every run keeps the twin within a CI budget (a JVM per node would not fit 2 cores;
 * the ring of several nodes is what test/e2e/local-cassandra.test.ts runs). It starts when a node is first
 * asked for and answers once booted (until then the probe sees a connection and no CQL answer, as from a
 * booting node).
 *
 * Test hooks: a node can be made to answer as another Apache Cassandra (test/support/cql-stand-in.ts,
 * any release_version) or not at all (a port nothing listens on).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { localCassandraScript } from '../../lib/local/cluster';
import { startCqlStandIn, type CqlStandIn } from '../support/cql-stand-in';
import { freePort } from '../support/ports';

export type NodeAnswer = { releaseVersion: string } | 'down';
export interface TwinNode {
  id: string;
  privateIp: string;
  tags: Record<string, string>;
}

interface Jvm {
  child: ChildProcess;
  port: number;
  dir: string;
  /** The node whose user data it runs. */
  instanceId: string;
}

export class TwinCassandraNodes {
  private jvm?: Jvm;
  private readonly forwarders = new Map<string, { server: net.Server; port: number }>();
  private readonly answers = new Map<string, { port: number; standIn?: CqlStandIn }>();
  private rule?: (node: TwinNode) => NodeAnswer | undefined;

  constructor(
    private readonly o: {
      asset: string;
      java: string;
      workDir: string;
      /** The base64 user data moto holds for an instance. */
      userData: (instanceId: string) => Promise<string>;
      log: (line: string) => void;
      /** Whether the node's boot is refused a connection it needs (its security group): it never answers. */
      refused?: (node: TwinNode) => Promise<boolean>;
    },
  ) {}

  /** The loopback port that answers for a node (by its private address). */
  async portOf(node: TwinNode): Promise<number> {
    let answer = this.answers.get(node.privateIp);
    const how = answer
      ? undefined
      : (this.rule?.(node) ?? ((await this.o.refused?.(node)) ? 'down' : undefined));
    if (how === 'down') answer = { port: await freePort() };
    else if (how) {
      const standIn = await startCqlStandIn(how);
      answer = { port: standIn.port, standIn };
    }
    if (answer) {
      this.answers.set(node.privateIp, answer);
      return answer.port;
    }
    let f = this.forwarders.get(node.privateIp);
    if (!f) {
      await this.startJvm(node.id);
      const server = net.createServer((socket) => this.forward(socket));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      f = { server, port: (server.address() as net.AddressInfo).port };
      this.forwarders.set(node.privateIp, f);
    }
    return f.port;
  }

  /**
   * Makes the nodes the rule picks (by address, id or tags, when first asked for) answer as another Apache
   * Cassandra, or not at all; the others are answered by the real node.
   */
  answerAs(rule: (node: TwinNode) => NodeAnswer | undefined): void {
    this.rule = rule;
  }

  /** The statements the stand-in of an address was asked (answerAs with a version). */
  asked(privateIp: string): string[] {
    return this.answers.get(privateIp)?.standIn?.asked ?? [];
  }

  /** The real node's client endpoint and whose user data it runs, once started. */
  get realNode(): { host: string; port: number; instanceId: string; dir: string } | undefined {
    return (
      this.jvm && {
        host: '127.0.0.1',
        port: this.jvm.port,
        instanceId: this.jvm.instanceId,
        dir: this.jvm.dir,
      }
    );
  }

  private forward(socket: net.Socket): void {
    const port = this.jvm?.port;
    socket.on('error', () => undefined);
    if (!port) return void socket.destroy();
    const up = net.connect(port, '127.0.0.1');
    up.on('error', () => socket.destroy());
    socket.on('close', () => up.destroy());
    up.on('close', () => socket.destroy());
    socket.pipe(up).pipe(socket);
  }

  private starting?: Promise<void>;

  private startJvm(instanceId: string): Promise<void> {
    this.starting ??= this.spawnJvm(instanceId);
    return this.starting;
  }

  private async spawnJvm(instanceId: string): Promise<void> {
    const dir = path.join(this.o.workDir, 'cassandra');
    mkdirSync(dir, { recursive: true });
    const [nativePort, storagePort] = [await freePort(), await freePort()];
    const script = localCassandraScript(await this.o.userData(instanceId), {
      asset: this.o.asset,
      java: this.o.java,
      heapMb: 512,
      dir,
      host: '127.0.0.1',
      rack: 'rack0',
      nativePort,
      storagePort,
      seed: '',
    });
    writeFileSync(path.join(dir, 'bootstrap.sh'), script);
    const child = spawn('bash', [path.join(dir, 'bootstrap.sh')], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (b: Buffer) => {
      for (const l of b.toString().split('\n')) if (l.trim()) this.o.log(`cassandra ${instanceId}: ${l}`);
    });
    child.on('exit', (code) => {
      let tail = '';
      try {
        tail = readFileSync(path.join(dir, 'logs', 'system.log'), 'utf8')
          .split('\n')
          .slice(-15)
          .join('\n');
      } catch {
        // no log yet
      }
      this.o.log(`cassandra ${instanceId} exited ${code}\n${tail}`);
    });
    this.jvm = { child, port: nativePort, dir, instanceId };
  }

  /** Forgets the answerAs rule and what it made (stand-ins closed). */
  async reset(): Promise<void> {
    this.rule = undefined;
    await Promise.all([...this.answers.values()].map((a) => a.standIn?.close()));
    this.answers.clear();
  }

  async stop(): Promise<void> {
    await this.reset();
    for (const f of this.forwarders.values()) f.server.close();
    const child = this.jvm?.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  }
}
