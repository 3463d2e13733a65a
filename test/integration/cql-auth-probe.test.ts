/**
 * Nodes with PasswordAuthenticator: the WaitReady probe (the bash script a loader runs, lib/core/targets/nodes/cluster.ts
 * healthScript) and the local mode's CQL client (lib/local/cql-client.ts) against loopback stand-ins that
 * ask for credentials as Apache Cassandra does (test/support/cql-stand-in.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { healthScript, parseHealth, readCqlProbe } from '../../lib/core/targets/nodes/cluster';
import {
  DEFAULT_SUPERUSER,
  OPCODE,
  authResponseFrame,
  frame,
  parseFrame,
  RELEASE_VERSION_QUERY,
} from '../../lib/core/targets/nodes/cql-wire';
import { CqlLoginError, cqlQuery } from '../../lib/local/cql-client';
import { startCqlStandIn, type CqlStandIn } from '../support/cql-stand-in';

async function probe(s: CqlStandIn) {
  const eps = [{ host: '127.0.0.1', port: s.port }];
  const { stdout } = await promisify(execFile)('bash', ['-c', healthScript('cql', eps).join('\n')]);
  return parseHealth('cql', stdout, eps);
}

describe('CQL v4 login frames', () => {
  it('AUTH_RESPONSE: opcode 0x0F, a [bytes] SASL PLAIN token NUL user NUL password', () => {
    const f = authResponseFrame('u', 'pw');
    expect([...f.subarray(0, 9)]).toEqual([0x04, 0, 0, 0, 0x0f, 0, 0, 0, 4 + 5]);
    expect(f.subarray(9).toString('latin1')).toBe('\x00\x00\x00\x05\x00u\x00pw');
  });

  it('reads AUTHENTICATE and AUTH_SUCCESS; a refused login is up, other errors are not', () => {
    const name = Buffer.from('org.apache.cassandra.auth.PasswordAuthenticator');
    const auth = Buffer.concat([Buffer.from([0, name.length]), name]);
    expect(parseFrame(frame(0, OPCODE.AUTHENTICATE, auth, true))).toEqual({
      kind: 'authenticate',
      authenticator: name.toString(),
    });
    expect(parseFrame(frame(0, OPCODE.AUTH_SUCCESS, Buffer.from([0xff, 0xff, 0xff, 0xff]), true))).toEqual({
      kind: 'auth_success',
    });
    const err = (code: number) => {
      const b = Buffer.alloc(6);
      b.writeInt32BE(code);
      return frame(0, OPCODE.ERROR, b, true).toString('hex');
    };
    expect(readCqlProbe(err(0x0100)).ok).toBe(true);
    expect(readCqlProbe(err(0x1000)).ok).toBe(false);
  });
});

describe('probing nodes that ask for credentials', () => {
  const standIns: CqlStandIn[] = [];
  afterAll(async () => Promise.all(standIns.map((s) => s.close())));
  const start = async (o: Parameters<typeof startCqlStandIn>[0]) => {
    const s = await startCqlStandIn(o);
    standIns.push(s);
    return s;
  };

  it('a node whose default login still works: up, with its release_version', async () => {
    const s = await start({ releaseVersion: '5.0.6', login: DEFAULT_SUPERUSER });
    expect(await probe(s)).toEqual([{ endpoint: `127.0.0.1:${s.port}`, ok: true, version: '5.0.6' }]);
    expect(s.asked).toEqual([RELEASE_VERSION_QUERY]);
  });

  it("a node whose default login was replaced by a run's role: up, version unknown", async () => {
    const s = await start({ releaseVersion: '5.0.6', login: { username: 'fb_run', password: 'secret' } });
    const [h] = await probe(s);
    expect(h).toMatchObject({ ok: true, detail: expect.stringMatching(/refuses the default login/) });
    expect(h!.version).toBeUndefined();
    expect(s.asked).toEqual([]);
  });

  it('the local CQL client logs in when asked, and is refused without or with wrong credentials', async () => {
    const login = { username: 'fb_run', password: 'secret' };
    const s = await start({ releaseVersion: '5.0.6', login });
    const e = { host: '127.0.0.1', port: s.port };
    const [r] = await cqlQuery(e, [RELEASE_VERSION_QUERY], { credentials: login });
    expect(r).toMatchObject({ kind: 'rows', rows: [['5.0.6']] });
    await expect(cqlQuery(e, [RELEASE_VERSION_QUERY])).rejects.toThrow(CqlLoginError);
    await expect(
      cqlQuery(e, [RELEASE_VERSION_QUERY], { credentials: { ...login, password: 'x' } }),
    ).rejects.toThrow(/login as fb_run refused/);
  });
});
