/**
 * The local stand-in of Amazon MemoryDB (memorydb targets in `fleetbench run --local`): each cluster is one real
 * `redis-server` (Debian's package) in cluster mode holding all 16,384 slots, serving TLS only (a certificate
 * authority and a 127.0.0.1 certificate made per run with openssl) and the run's ACL user (the `default` user
 * switched off, as a MemoryDB ACL without it). The Redis binding thus runs exactly as against MemoryDB: cluster
 * client, TLS with hostname verification, AUTH as the run's user. What it leaves out: shards and replicas (one
 * node whatever the spec says), MemoryDB's durable transaction log (writes are in memory only), the network.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConflictError, TAG_RUN_ID, type Tags } from '../core/common/ports';
import type {
  MemoryDbAdmin,
  MemoryDbClusterRequest,
  MemoryDbClusterState,
} from '../core/targets/memorydb/port';

interface LocalCluster {
  req: MemoryDbClusterRequest;
  port: number;
  child: ChildProcess;
  dir: string;
}

function listenable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : null));
    });
  });
}

/** A free loopback port whose cluster-bus port (+10,000) is free too. */
async function freeClusterPort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await listenable(0);
    if (p !== null && p + 10_000 < 65_536 && (await listenable(p + 10_000)) !== null) return p;
  }
  throw new Error('no free loopback port pair for a local MemoryDB stand-in');
}

function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  if (r.error || r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? r.stderr.trim() ?? r.status}`);
  return r.stdout;
}

/** A CA and a server certificate for 127.0.0.1 (hostname verification stays on in the binding). */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const f = (n: string) => path.join(dir, n);
  run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=fleetbench local CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
  ]);
  run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    f('redis.key'),
    '-out',
    f('redis.csr'),
  ]);
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('openssl', [
    'x509',
    '-req',
    '-in',
    f('redis.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('san.ext'),
    '-out',
    f('redis.crt'),
  ]);
  return { ca: f('ca.crt'), cert: f('redis.crt'), key: f('redis.key') };
}

export class LocalMemoryDb implements MemoryDbAdmin {
  /** The local stand-in creates anywhere: it has a network in name only. */
  readonly network = { vpcId: 'local', subnetIds: [], loaderSecurityGroupId: 'local' };
  private readonly clusters = new Map<string, LocalCluster>();
  private readonly certDir = mkdtempSync(path.join(os.tmpdir(), 'fleetbench-memorydb-tls-'));
  private certs?: { ca: string; cert: string; key: string };

  constructor(private readonly out: (line: string) => void = () => undefined) {}

  /** The certificate authority the binding trusts (redis.tls.caFile). */
  get caFile(): string {
    return (this.certs ??= makeCertificates(this.certDir)).ca;
  }

  private cli(port: number, args: string[], auth?: { user: string; password: string }): string {
    const tls = ['--tls', '--cacert', this.caFile, '-h', '127.0.0.1', '-p', String(port)];
    const who = auth ? ['--user', auth.user, '--pass', auth.password, '--no-auth-warning'] : [];
    return run('redis-cli', [...tls, ...who, ...args]).trim();
  }

  async createCluster(req: MemoryDbClusterRequest): Promise<void> {
    if (this.clusters.has(req.name)) throw new ConflictError(`MemoryDB cluster ${req.name} already exists`);
    const certs = (this.certs ??= makeCertificates(this.certDir));
    const port = await freeClusterPort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fleetbench-memorydb-'));
    const args = [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      certs.cert,
      '--tls-key-file',
      certs.key,
      '--tls-ca-cert-file',
      certs.ca,
      '--tls-auth-clients',
      'no',
      '--tls-cluster',
      'yes',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      path.join(dir, 'nodes.conf'),
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.clusters.set(req.name, { req, port, child, dir });
    try {
      const deadline = Date.now() + 10_000;
      while (!this.answers(port)) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`redis-server on 127.0.0.1:${port} did not start`);
        await new Promise((r) => setTimeout(r, 100));
      }
      this.cli(port, ['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
      this.cli(port, ['ACL', 'SETUSER', req.name, 'on', `>${req.password}`, '~*', '&*', '+@all']);
      // as MemoryDB's ACL holding the run's user only: no unauthenticated access
      this.cli(port, ['ACL', 'SETUSER', 'default', 'off']);
      const auth = { user: req.name, password: req.password };
      while (!/cluster_state:ok/.test(this.cli(port, ['CLUSTER', 'INFO'], auth))) {
        if (Date.now() > deadline) throw new Error(`redis-server on 127.0.0.1:${port}: cluster state not ok`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } catch (err) {
      await this.deleteCluster(req.name);
      throw err;
    }
    this.out(
      `  MemoryDB stand-in (redis-server, cluster mode, TLS, ACL user) for ${req.tags['fleetbench:target'] ?? req.name} on 127.0.0.1:${port}`,
    );
  }

  private answers(port: number): boolean {
    try {
      return /PONG|NOAUTH/.test(this.cli(port, ['PING']));
    } catch {
      return false;
    }
  }

  async describeCluster(name: string): Promise<MemoryDbClusterState> {
    const c = this.clusters.get(name);
    if (!c) return { name, status: 'MISSING' };
    return {
      name,
      status: c.child.exitCode === null ? 'available' : 'failed',
      endpoint: { host: '127.0.0.1', port: c.port },
      tls: true,
      caFile: this.caFile,
      acl: name,
      shards: 1,
      nodeType: c.req.nodeType,
    };
  }

  async clusterTags(name: string): Promise<Tags | null> {
    return this.clusters.get(name)?.req.tags ?? null;
  }

  async deleteCluster(name: string): Promise<boolean> {
    const c = this.clusters.get(name);
    if (!c) return false;
    c.child.kill('SIGKILL');
    rmSync(c.dir, { recursive: true, force: true });
    this.clusters.delete(name);
    return true;
  }

  async deleteSupporting(name: string): Promise<boolean> {
    return !this.clusters.has(name);
  }

  async listClusters(filter: { runId?: string }): Promise<{ name: string; status: string; tags: Tags }[]> {
    return [...this.clusters.values()]
      .filter(
        (c) =>
          c.req.tags[TAG_RUN_ID] && (filter.runId === undefined || c.req.tags[TAG_RUN_ID] === filter.runId),
      )
      .map((c) => ({ name: c.req.name, status: 'available', tags: c.req.tags }));
  }

  async listSupporting(): Promise<{ name: string; tags: Tags }[]> {
    return [];
  }

  /** Stops every server and removes the certificates (the run's end, whatever happened). */
  async stop(): Promise<void> {
    for (const name of [...this.clusters.keys()]) await this.deleteCluster(name);
    rmSync(this.certDir, { recursive: true, force: true });
  }
}
