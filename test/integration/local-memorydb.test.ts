/**
 * The local MemoryDB stand-in (lib/local/memorydb.ts) on a real redis-server: a cluster answers only over TLS (a
 * plain connection gets nothing), only as the run's ACL user (the default user is off), in cluster mode holding
 * every slot; deleting it stops the server.
 */
import { spawnSync } from 'node:child_process';
import * as net from 'node:net';
import { LocalMemoryDb } from '../../lib/local/memorydb';
import { TAG_RUN_ID } from '../../lib/core/common/ports';

jest.setTimeout(60_000);

const db = new LocalMemoryDb();
afterAll(() => db.stop());

const req = {
  name: 'fleetbench-0123456789ab',
  nodeType: 'db.r7g.large',
  shards: 1,
  replicasPerShard: 0,
  engine: 'valkey' as const,
  engineVersion: '7.2',
  password: 'f'.repeat(64),
  tags: { [TAG_RUN_ID]: 'local-1', 'fleetbench:target': 'mdb' },
};

function cli(port: number, args: string[], auth = true) {
  const who = auth ? ['--user', req.name, '--pass', req.password, '--no-auth-warning'] : [];
  return spawnSync(
    'redis-cli',
    ['--tls', '--cacert', db.caFile, '-h', '127.0.0.1', '-p', String(port), ...who, ...args],
    { encoding: 'utf8' },
  ).stdout.trim();
}

/** What a plain-text PING gets back within a second (TLS only: nothing, or the connection closed). */
function plainPing(port: number): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
    s.on('data', (b) => (got += b.toString()));
    s.setTimeout(1000, () => (s.destroy(), resolve(got)));
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
  });
}

it('serves TLS only, to the run user only, in cluster mode with all slots; deleting stops it', async () => {
  await db.createCluster(req);
  const s = await db.describeCluster(req.name);
  expect(s).toMatchObject({ status: 'available', tls: true, endpoint: { host: '127.0.0.1' } });
  const port = s.endpoint!.port;
  expect(await plainPing(port)).not.toMatch(/PONG/);
  expect(cli(port, ['PING'], false)).toMatch(/NOAUTH|WRONGPASS|Authentication required/);
  expect(cli(port, ['PING'])).toBe('PONG');
  expect(cli(port, ['CLUSTER', 'INFO'])).toMatch(/cluster_slots_assigned:16384/);
  expect(cli(port, ['SET', 'k', 'v'])).toBe('OK');
  await expect(db.createCluster(req)).rejects.toThrow(/already exists/);
  expect(await db.listClusters({ runId: 'local-1' })).toEqual([
    { name: req.name, status: 'available', tags: req.tags },
  ]);
  expect(await db.listClusters({ runId: 'other' })).toEqual([]);
  expect(await db.deleteCluster(req.name)).toBe(true);
  expect((await db.describeCluster(req.name)).status).toBe('MISSING');
  expect(await db.deleteSupporting(req.name)).toBe(true);
  await new Promise((r) => setTimeout(r, 300));
  expect(cli(port, ['PING'])).not.toBe('PONG');
});
