/**
 * The local mode's redis-server for external Redis targets (lib/local/redis-server.ts), chosen by the kind's
 * `localRedis` hook: a loopback target gets a real redis-server answering PING on its port (stopped with the
 * run); a Redis Cluster, TLS or an endpoint off loopback is refused naming the field; other targets get none.
 */
import * as net from 'node:net';
import { InputError } from '../../lib/core/common/errors';
import { validateSpec } from '../../lib/core/spec';
import { startLocalRedis } from '../../lib/local/redis-server';
import { freePort } from '../support/ports';

const specWith = (targets: unknown[]) =>
  validateSpec({
    name: 'redis-local',
    targets,
    dataset: { recordCount: 100 },
    workload: { readProportions: [0.5], targetOpsPerSec: [10], durationSeconds: 60 },
    loaders: { count: 1 },
  }).spec;

const redis = (id: string, endpoints: string[], redisSettings?: unknown) => ({
  id,
  kind: 'external',
  protocol: 'redis',
  endpoints,
  price: { usdPerHour: 0 },
  ...(redisSettings ? { redis: redisSettings } : {}),
});

/** What the server on the port answers to PING (RESP: https://redis.io/docs/latest/develop/reference/protocol-spec/). */
function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
    s.on('data', (b) => (s.destroy(), resolve(b.toString())));
    s.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
  });
}

async function issuesOf(p: Promise<unknown>): Promise<string[]> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(InputError);
  return (e as InputError).issues.map((q) => q.path);
}

describe('redis-server for external Redis targets', () => {
  it('starts one on the loopback port and stops it', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const r = await startLocalRedis(specWith([redis('r', [`127.0.0.1:${port}`], { tls: false })]), (l) =>
      lines.push(l),
    );
    expect(r).toBeDefined();
    expect(await ping(port)).toBe('+PONG\r\n');
    expect(lines).toEqual([`  Redis (redis-server) for r on 127.0.0.1:${port}`]);
    await r!.stop();
    await new Promise((res) => setTimeout(res, 200));
    expect(await ping(port)).toBe('error ECONNREFUSED');
  });

  it('refuses a cluster, TLS (on by default) and endpoints off loopback, naming the field', async () => {
    expect(
      await issuesOf(
        startLocalRedis(
          specWith([
            redis('c', ['127.0.0.1:7001'], { cluster: true, tls: false }),
            redis('t', ['127.0.0.1:7002']),
            redis('far', ['cache.example.com:6379'], { tls: false }),
          ]),
          () => undefined,
        ),
      ),
    ).toEqual(['targets[0].redis', 'targets[1].redis', 'targets[2].endpoints[0]']);
  });

  it('starts nothing for other targets', async () => {
    const spec = specWith([{ id: 'ddb', kind: 'dynamodb', billing: { mode: 'on-demand' } }]);
    expect(await startLocalRedis(spec, () => undefined)).toBeUndefined();
  });
});
