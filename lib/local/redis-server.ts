/**
 * Local runs of external Redis targets (`"protocol": "redis"` with loopback endpoints): one real
 * `redis-server` (Debian's package) per endpoint, on the port the spec names, without persistence, in a
 * temporary directory; stopped when the run ends. A Redis Cluster and TLS need AWS or the user's own
 * servers: the local mode refuses them by name.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError, type Issue } from '../core/common/errors';
import { kindOf } from '../core/targets/registry';
import type { RunSpec } from '../core/spec/schema';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost):(\d{1,5})$/;

/** The targets served on redis-server (as their kinds say: `localRedis`), with their loopback ports; problems name the field. */
function localRedisTargets(spec: RunSpec): { target: { id: string }; ports: number[] }[] {
  const issues: Issue[] = [];
  const out: { target: { id: string }; ports: number[] }[] = [];
  spec.targets.forEach((t, i) => {
    const redis = kindOf(t).localRedis?.(t);
    if (!redis) return;
    if (redis.clusterOrTls)
      issues.push({
        path: `targets[${i}].redis`,
        message:
          'the local mode runs standalone Redis without TLS (set "redis": {"tls": false}); a cluster or TLS needs ' +
          'your own servers on AWS',
      });
    const ports = redis.endpoints.map((e, k) => {
      const m = LOOPBACK.exec(e);
      if (!m)
        issues.push({
          path: `targets[${i}].endpoints[${k}]`,
          message: `the local mode starts Redis on loopback: expected "127.0.0.1:<port>", found "${e}"`,
        });
      return m ? Number(m[2]) : 0;
    });
    out.push({ target: t, ports });
  });
  if (issues.length) throw new InputError(issues);
  return out;
}

export interface LocalRedis {
  stop(): Promise<void>;
}

function redisServer(): string {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new InputError([
      {
        path: 'targets',
        message:
          'a Redis target runs locally on redis-server, which is not installed (apt-get install redis-server)',
      },
    ]);
  return 'redis-server';
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
    s.setTimeout(500, () => (s.destroy(), resolve(false)));
    s.on('data', (b) => (s.destroy(), resolve(b.toString().startsWith('+PONG'))));
    s.on('error', () => resolve(false));
  });
}

/** Starts a redis-server on every loopback port of the spec's Redis targets (a port in use is an error). */
export async function startLocalRedis(
  spec: RunSpec,
  out: (line: string) => void,
): Promise<LocalRedis | undefined> {
  const targets = localRedisTargets(spec);
  if (!targets.length) return undefined;
  const exe = redisServer();
  const started: { child: ChildProcess; dir: string }[] = [];
  const stop = async (): Promise<void> => {
    for (const s of started) {
      s.child.kill('SIGKILL');
      rmSync(s.dir, { recursive: true, force: true });
    }
  };
  try {
    for (const { target, ports } of targets) {
      for (const port of ports) {
        if (await answers(port))
          throw new InputError([
            { path: `targets.${target.id}.endpoints`, message: `127.0.0.1:${port} is already in use` },
          ]);
        const dir = mkdtempSync(path.join(os.tmpdir(), 'fleetbench-redis-'));
        const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
        const child = spawn(exe, [...args, '--dir', dir, '--daemonize', 'no'], { stdio: 'ignore' });
        started.push({ child, dir });
        const deadline = Date.now() + 10_000;
        while (!(await answers(port))) {
          if (Date.now() > deadline || child.exitCode !== null)
            throw new Error(`redis-server on 127.0.0.1:${port} did not start`);
          await new Promise((r) => setTimeout(r, 100));
        }
        out(`  Redis (redis-server) for ${target.id} on 127.0.0.1:${port}`);
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}
